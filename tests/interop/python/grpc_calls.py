"""A few ordinary calls to our gRPC binding with grpcio (the Python a2a-sdk's `grpc` extra),
for tests/grpc_metrics.rs to count: two that succeed and two that are refused.

Usage: python grpc_calls.py HOST:PORT
Calls, in order (no credentials; the server under test asks none):
  SendMessage "hello"                     -> OK, a task
  GetTask of that task                    -> OK
  GetTask of a task that does not exist   -> NOT_FOUND
  GetTask with a2a-version 0.3 metadata   -> UNIMPLEMENTED
  GetTask of an id of 100,000 bytes       -> OUT_OF_RANGE (refused by tonic's size limit
                                             before any method runs; the test's server
                                             takes 64 KiB at most)
  Bogus (a method the service lacks)      -> UNIMPLEMENTED
Prints one JSON line with the status code of each call and exits 0, or `FAIL: why` on
stderr and exits 1.
"""

from __future__ import annotations

import json
import sys
import time

import grpc

from a2a.types.a2a_pb2 import GetTaskRequest, Message, Part, Role, SendMessageRequest, SendMessageResponse, Task

SERVICE = '/lf.a2a.v1.A2AService/'


def code_of(call, request, metadata=()) -> str:
    try:
        call(request, metadata=metadata, timeout=20)
    except grpc.RpcError as error:
        return error.code().name
    return 'OK'


def main() -> int:
    if len(sys.argv) != 2:
        print('usage: grpc_calls.py HOST:PORT', file=sys.stderr)
        return 2
    try:
        with grpc.insecure_channel(sys.argv[1]) as channel:
            send = channel.unary_unary(
                SERVICE + 'SendMessage',
                request_serializer=SendMessageRequest.SerializeToString,
                response_deserializer=SendMessageResponse.FromString,
            )
            get = channel.unary_unary(
                SERVICE + 'GetTask',
                request_serializer=GetTaskRequest.SerializeToString,
                response_deserializer=Task.FromString,
            )
            bogus = channel.unary_unary(
                SERVICE + 'Bogus',
                request_serializer=GetTaskRequest.SerializeToString,
                response_deserializer=Task.FromString,
            )
            message = Message(message_id=f'm-{time.monotonic_ns()}', role=Role.ROLE_USER, parts=[Part(text='hello')])
            sent = send(SendMessageRequest(message=message), timeout=20)
            if not sent.HasField('task'):
                raise RuntimeError(f'no task: {sent}')
            seen = {
                'send': 'OK',
                'get': code_of(get, GetTaskRequest(id=sent.task.id)),
                'missing': code_of(get, GetTaskRequest(id='no-such-task')),
                'version': code_of(get, GetTaskRequest(id=sent.task.id), [('a2a-version', '0.3')]),
                'oversized': code_of(get, GetTaskRequest(id='x' * 100_000)),
                'bogus': code_of(bogus, GetTaskRequest(id=sent.task.id)),
            }
    except Exception as error:  # noqa: BLE001 - any client error is the run's failure
        print(f'FAIL: {type(error).__name__}: {error}', file=sys.stderr)
        return 1
    print(json.dumps(seen))
    return 0


if __name__ == '__main__':
    sys.exit(main())
