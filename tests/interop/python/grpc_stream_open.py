"""Holds one `SendStreamingMessage` call open on our gRPC binding with grpcio (the Python
a2a-sdk's `grpc` extra), for tests/grpc_metrics.rs to see it in the open-streams gauge.

Usage: python grpc_stream_open.py HOST:PORT
Sends "wait" (the test agent then never finishes), reads the stream's first response (the
task), prints `OPEN <task id>` and waits for a line on stdin; then cancels the call, prints
`CLOSED` and exits 0. Any failure prints `FAIL: why` on stderr and exits 1.
"""

from __future__ import annotations

import sys
import time

import grpc

from a2a.types.a2a_pb2 import Message, Part, Role, SendMessageRequest, StreamResponse

SERVICE = '/lf.a2a.v1.A2AService/'


def main() -> int:
    if len(sys.argv) != 2:
        print('usage: grpc_stream_open.py HOST:PORT', file=sys.stderr)
        return 2
    try:
        with grpc.insecure_channel(sys.argv[1]) as channel:
            stream = channel.unary_stream(
                SERVICE + 'SendStreamingMessage',
                request_serializer=SendMessageRequest.SerializeToString,
                response_deserializer=StreamResponse.FromString,
            )
            message = Message(message_id=f'm-{time.monotonic_ns()}', role=Role.ROLE_USER, parts=[Part(text='wait')])
            call = stream(SendMessageRequest(message=message), timeout=60)
            first = next(call)
            if not first.HasField('task'):
                raise RuntimeError(f'the stream did not start with its task: {first}')
            print(f'OPEN {first.task.id}', flush=True)
            sys.stdin.readline()
            call.cancel()
            print('CLOSED', flush=True)
    except Exception as error:  # noqa: BLE001 - any client error is the run's failure
        print(f'FAIL: {type(error).__name__}: {error}', file=sys.stderr)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
