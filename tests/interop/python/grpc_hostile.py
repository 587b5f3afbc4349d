"""Hostile and edge-case input to our gRPC binding, sent with grpcio (the Python a2a-sdk's
`grpc` extra) as raw bytes where a well-behaved client could not send them.

Usage: python grpc_hostile.py HOST:PORT SCENARIO
Scenarios (the server under test: tests/server_grpc.rs; tokens `alice-token`, `bob-token`,
a 64 KiB message limit, cancel on disconnect, one subscription per caller):
  oversized  a message over the size limit              -> OUT_OF_RANGE (tonic's code)
  deep       a data part nested 300 lists deep          -> INVALID_ARGUMENT
  utf8       a string field holding invalid UTF-8        -> INVALID_ARGUMENT
  garbage    bytes that are no protobuf message          -> INVALID_ARGUMENT
  unknown    a valid request plus an unknown field       -> OK, a task
  version    a2a-version 0.3 metadata                    -> UNIMPLEMENTED + ErrorInfo
  auth       no token -> UNAUTHENTICATED; alice's task asked for by bob -> NOT_FOUND + ErrorInfo
  abandon    a stream dropped after its first event: its task ends canceled; a subscription
             dropped three times in a row: each next one still gets the caller's one place
Prints one JSON line with what it saw and exits 0, or `FAIL: why` on stderr and exits 1.
"""

from __future__ import annotations

import json
import sys
import time

import grpc
from google.rpc import error_details_pb2, status_pb2

from a2a.types.a2a_pb2 import (
    GetTaskRequest,
    Message,
    Part,
    Role,
    SendMessageRequest,
    SendMessageResponse,
    StreamResponse,
    SubscribeToTaskRequest,
    Task,
    TaskState,
)

SERVICE = '/lf.a2a.v1.A2AService/'
ALICE = [('authorization', 'Bearer alice-token')]
BOB = [('authorization', 'Bearer bob-token')]


class Failure(Exception):
    pass


def check(condition: bool, why: str) -> None:
    if not condition:
        raise Failure(why)


def varint(n: int) -> bytes:
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def field(number: int, payload: bytes) -> bytes:
    """A length-delimited field."""
    return varint(number << 3 | 2) + varint(len(payload)) + payload


def raw(channel, method: str):
    return channel.unary_unary(SERVICE + method, request_serializer=None, response_deserializer=None)


def user_message(text: str) -> Message:
    return Message(message_id=f'm-{time.monotonic_ns()}', role=Role.ROLE_USER, parts=[Part(text=text)])


def refused(call, request: bytes, metadata) -> grpc.RpcError:
    try:
        call(request, metadata=metadata, timeout=20)
    except grpc.RpcError as error:
        return error
    raise Failure('the server accepted it')


def error_info(error: grpc.RpcError) -> dict:
    for key, value in error.trailing_metadata() or ():
        if key == 'grpc-status-details-bin':
            status = status_pb2.Status.FromString(value)
            for detail in status.details:
                info = error_details_pb2.ErrorInfo()
                if detail.Unpack(info):
                    return {'reason': info.reason, 'domain': info.domain, 'metadata': dict(info.metadata)}
    return {}


def seen_error(error: grpc.RpcError) -> dict:
    return {'code': error.code().name, 'message': error.details(), 'errorInfo': error_info(error)}


def scenario_oversized(channel) -> dict:
    request = SendMessageRequest(message=user_message('x' * (256 * 1024))).SerializeToString()
    return seen_error(refused(raw(channel, 'SendMessage'), request, ALICE))


def scenario_deep(channel) -> dict:
    value = field(3, b'x')  # Value.string_value
    for _ in range(300):
        value = field(6, field(1, value))  # Value.list_value -> ListValue.values
    data = Part.DESCRIPTOR.fields_by_name['data'].number
    parts = Message.DESCRIPTOR.fields_by_name['parts'].number
    message = Message(message_id='deep', role=Role.ROLE_USER).SerializeToString() + field(
        parts, field(data, value)
    )
    request = field(SendMessageRequest.DESCRIPTOR.fields_by_name['message'].number, message)
    return seen_error(refused(raw(channel, 'SendMessage'), request, ALICE))


def scenario_utf8(channel) -> dict:
    request = SendMessageRequest(message=user_message('PLACEHOLDER')).SerializeToString()
    request = request.replace(b'PLACEHOLDER', b'\xff\xfe\xfd\xfc\xc3\x28\xa0\xa1\xe2\x28\xa1')
    return seen_error(refused(raw(channel, 'SendMessage'), request, ALICE))


def scenario_garbage(channel) -> dict:
    return seen_error(refused(raw(channel, 'SendMessage'), b'\xff\xff\xff\xff\xff', ALICE))


def scenario_unknown(channel) -> dict:
    request = SendMessageRequest(message=user_message('hello')).SerializeToString()
    request += varint(999 << 3 | 0) + varint(7) + field(998, b'who knows')
    answer = SendMessageResponse.FromString(raw(channel, 'SendMessage')(request, metadata=ALICE, timeout=20))
    check(answer.HasField('task'), f'no task: {answer}')
    return {'state': TaskState.Name(answer.task.status.state)}


def scenario_version(channel) -> dict:
    request = GetTaskRequest(id='whatever').SerializeToString()
    return seen_error(refused(raw(channel, 'GetTask'), request, ALICE + [('a2a-version', '0.3')]))


def scenario_auth(channel) -> dict:
    request = SendMessageRequest(message=user_message('hello')).SerializeToString()
    anonymous = refused(raw(channel, 'SendMessage'), request, [])
    answer = SendMessageResponse.FromString(raw(channel, 'SendMessage')(request, metadata=ALICE, timeout=20))
    asked = GetTaskRequest(id=answer.task.id).SerializeToString()
    other = refused(raw(channel, 'GetTask'), asked, BOB)
    return {'anonymous': seen_error(anonymous), 'otherCaller': seen_error(other), 'taskId': answer.task.id}


def scenario_abandon(channel) -> dict:
    stream = channel.unary_stream(
        SERVICE + 'SendStreamingMessage',
        request_serializer=SendMessageRequest.SerializeToString,
        response_deserializer=StreamResponse.FromString,
    )
    get = channel.unary_unary(
        SERVICE + 'GetTask',
        request_serializer=GetTaskRequest.SerializeToString,
        response_deserializer=Task.FromString,
    )
    call = stream(SendMessageRequest(message=user_message('wait forever')), metadata=ALICE)
    first = next(call)
    check(first.HasField('task'), f'the stream did not open with the task: {first}')
    task_id = first.task.id
    call.cancel()
    state = None
    for _ in range(100):
        state = get(GetTaskRequest(id=task_id), metadata=ALICE, timeout=20).status.state
        if state == TaskState.TASK_STATE_CANCELED:
            break
        time.sleep(0.05)
    # Another task, left waiting, to subscribe to again and again.
    call = stream(SendMessageRequest(message=user_message('wait again')), metadata=BOB)
    waiting = next(call).task.id
    subscribe = channel.unary_stream(
        SERVICE + 'SubscribeToTask',
        request_serializer=SubscribeToTaskRequest.SerializeToString,
        response_deserializer=StreamResponse.FromString,
    )
    attached = 0
    for _ in range(3):
        deadline = time.monotonic() + 5
        while True:
            subscription = subscribe(SubscribeToTaskRequest(id=waiting), metadata=BOB)
            try:
                next(subscription)
                break
            except grpc.RpcError as error:
                # The dropped one's place comes back once the server sees it gone.
                check(
                    error.code() == grpc.StatusCode.UNAVAILABLE and time.monotonic() < deadline,
                    f'subscription {attached + 1} refused: {error.code().name} {error.details()}',
                )
                time.sleep(0.05)
        attached += 1
        subscription.cancel()
    call.cancel()
    return {'abandonedState': TaskState.Name(state), 'subscriptions': attached}


SCENARIOS = {
    'oversized': scenario_oversized,
    'deep': scenario_deep,
    'utf8': scenario_utf8,
    'garbage': scenario_garbage,
    'unknown': scenario_unknown,
    'version': scenario_version,
    'auth': scenario_auth,
    'abandon': scenario_abandon,
}


def main() -> int:
    args = sys.argv[1:]
    if len(args) != 2 or args[1] not in SCENARIOS:
        print(f'usage: grpc_hostile.py HOST:PORT ({"|".join(SCENARIOS)})', file=sys.stderr)
        return 2
    target, name = args
    try:
        with grpc.insecure_channel(target) as channel:
            seen = SCENARIOS[name](channel)
    except Failure as failure:
        print(f'FAIL: {name}: {failure}', file=sys.stderr)
        return 1
    except Exception as error:  # noqa: BLE001 - any client error is the scenario's failure
        print(f'FAIL: {name}: {type(error).__name__}: {error}', file=sys.stderr)
        return 1
    print(json.dumps({'scenario': name, **seen}))
    return 0


if __name__ == '__main__':
    sys.exit(main())
