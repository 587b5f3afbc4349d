"""Drives our agent with the real Python client, a2a-sdk 1.3.0, over one of its transports.

Our card offers JSON-RPC 1.0, HTTP+JSON 1.0 and JSON-RPC 0.3. TRANSPORT picks how the client
gets to one of them:
  jsonrpc  (default) `ClientFactory().create_from_url`, default config: JSON-RPC 1.0
           (`JsonRpcTransport`);
  rest     `ClientConfig(supported_protocol_bindings=["HTTP+JSON"])`: HTTP+JSON 1.0
           (`RestTransport`);
  0.3      the resolved card with only its 0.3 interface, as a 0.3 agent's card would read:
           JSON-RPC 0.3 (`CompatJsonRpcTransport`);
  grpc     `ClientConfig(supported_protocol_bindings=["GRPC"])` with an insecure channel
           factory (the SDK's `grpc` extra): gRPC 1.0 (`GrpcTransport`), to the card's GRPC
           interface (`host:port`).
Every scenario otherwise uses the client exactly as a user would: the client's default httpx
settings (a 5 s timeout, also between stream events) and no raw HTTP.

The agent under test must answer like the interop tests' agent (and like
scripts/reference_server.py):
  - any text: "echo: <text>", plus " | history: <earlier user texts joined by ' / '>" when the
    task has history; the task ends input-required;
  - "slow ...": the same, after 8 s of silence;
  - "wait ...": never answers (until cancelled).

Usage: python client.py BASE_URL SCENARIO [TRANSPORT]
Scenarios: card send stream get list cancel continue keepalive resubscribe (list: 1.0 only)
Prints one JSON line describing what it saw and exits 0, or `FAIL: why` on stderr and exits 1.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
import uuid

import grpc
import httpx

from a2a.client import A2ACardResolver, ClientConfig, ClientFactory
from a2a.client.transports.grpc import GrpcTransport
from a2a.client.transports.jsonrpc import JsonRpcTransport
from a2a.client.transports.rest import RestTransport
from a2a.compat.v0_3.jsonrpc_transport import CompatJsonRpcTransport
from a2a.helpers import get_message_text
from a2a.types.a2a_pb2 import (
    CancelTaskRequest,
    GetTaskRequest,
    ListTasksRequest,
    Message,
    Part,
    Role,
    SendMessageConfiguration,
    SendMessageRequest,
    StreamResponse,
    SubscribeToTaskRequest,
    Task,
    TaskState,
)

# The longest any scenario may take before it counts as hung (the slow agent needs 8 s).
SCENARIO_DEADLINE_S = 60


class Failure(Exception):
    """A scenario saw something it did not expect."""


def check(condition: bool, why: str) -> None:
    if not condition:
        raise Failure(why)


def state_name(state: int) -> str:
    return TaskState.Name(state)


def user_message(text: str, task_id: str = '', context_id: str = '') -> Message:
    return Message(
        message_id=str(uuid.uuid4()),
        role=Role.ROLE_USER,
        parts=[Part(text=text)],
        task_id=task_id,
        context_id=context_id,
    )


TRANSPORTS = {
    'jsonrpc': JsonRpcTransport,
    'rest': RestTransport,
    '0.3': CompatJsonRpcTransport,
    'grpc': GrpcTransport,
}
TRANSPORT = 'jsonrpc'


async def connect(base_url: str, *, streaming: bool = True, polling: bool = False):
    if TRANSPORT == 'rest':
        config = ClientConfig(
            streaming=streaming, polling=polling, supported_protocol_bindings=['HTTP+JSON']
        )
    elif TRANSPORT == 'grpc':
        config = ClientConfig(
            streaming=streaming,
            polling=polling,
            supported_protocol_bindings=['GRPC'],
            grpc_channel_factory=grpc.aio.insecure_channel,
        )
    else:
        config = ClientConfig(streaming=streaming, polling=polling)
    if TRANSPORT == '0.3':
        async with httpx.AsyncClient() as http:
            card = await A2ACardResolver(http, base_url).get_agent_card()
        legacy = [i for i in card.supported_interfaces if i.protocol_version.startswith('0.3')]
        check(len(legacy) == 1, f'the card lists {len(legacy)} 0.3 interfaces, expected 1')
        del card.supported_interfaces[:]
        card.supported_interfaces.extend(legacy)
        client = ClientFactory(config).create(card)
    else:
        client = await ClientFactory(config).create_from_url(base_url)
    transport = client._transport  # noqa: SLF001 - which transport the card led to
    expected = TRANSPORTS[TRANSPORT]
    check(
        type(transport) is expected,
        f'the card did not resolve to {expected.__name__}: got {type(transport).__name__}',
    )
    return client


async def send_blocking(client, message: Message) -> Task:
    """message/send (the client is built with streaming=False): exactly one Task comes back."""
    responses: list[StreamResponse] = [
        response async for response in client.send_message(SendMessageRequest(message=message))
    ]
    check(len(responses) == 1, f'message/send gave {len(responses)} responses, expected 1')
    check(
        responses[0].HasField('task'),
        f'message/send did not return a Task: {responses[0]}',
    )
    return responses[0].task


def expect_input_required_with(task: Task, needle: str, what: str) -> str:
    check(
        task.status.state == TaskState.TASK_STATE_INPUT_REQUIRED,
        f'{what}: task {task.id} is {state_name(task.status.state)}, expected TASK_STATE_INPUT_REQUIRED',
    )
    text = get_message_text(task.status.message, '')
    check(
        needle in text,
        f"{what}: the task's status message does not hold the agent's text "
        f'(wanted {needle!r}, got {text!r})',
    )
    return text


async def read_stream(client, message: Message) -> dict:
    """message/stream, read to the end: the client only returns when the server closes."""
    kinds: list[str] = []
    text = ''
    task_id = ''
    last_state = TaskState.TASK_STATE_UNSPECIFIED
    async for response in client.send_message(SendMessageRequest(message=message)):
        kind = response.WhichOneof('payload')
        kinds.append(kind)
        if kind == 'task':
            task_id = response.task.id
        elif kind == 'status_update':
            last_state = response.status_update.status.state
            text += get_message_text(response.status_update.status.message, '')
    check(kinds[:1] == ['task'], f'the stream did not start with the Task: {kinds}')
    check(
        last_state == TaskState.TASK_STATE_INPUT_REQUIRED,
        f"the stream's last status update is {state_name(last_state)}, expected TASK_STATE_INPUT_REQUIRED",
    )
    return {'taskId': task_id, 'events': kinds, 'text': text}


# ---- scenarios -----------------------------------------------------------------------------


async def scenario_card(base_url: str) -> dict:
    async with await connect(base_url) as client:
        card = client._card  # noqa: SLF001
        interface = card.supported_interfaces[0]
        return {
            'transport': type(client._transport).__name__,  # noqa: SLF001
            'url': interface.url,
            'protocolVersion': interface.protocol_version,
            'streaming': card.capabilities.streaming,
        }


async def scenario_send(base_url: str) -> dict:
    async with await connect(base_url, streaming=False) as client:
        task = await send_blocking(client, user_message('hello'))
        text = expect_input_required_with(task, 'hello', 'blocking message/send')
        return {'taskId': task.id, 'state': state_name(task.status.state), 'text': text}


async def scenario_stream(base_url: str) -> dict:
    async with await connect(base_url) as client:
        seen = await read_stream(client, user_message('hello'))
        check('hello' in seen['text'], f"the stream did not carry the agent's text: {seen['text']!r}")
        return seen


async def scenario_get(base_url: str) -> dict:
    async with await connect(base_url, streaming=False) as client:
        sent = await send_blocking(client, user_message('hello'))
        task = await client.get_task(GetTaskRequest(id=sent.id))
        check(task.id == sent.id, f'tasks/get returned task {task.id}, asked for {sent.id}')
        text = expect_input_required_with(task, 'hello', 'tasks/get')
        user_texts = [
            get_message_text(m, '') for m in task.history if m.role == Role.ROLE_USER
        ]
        check('hello' in user_texts, f"tasks/get history lacks the user's message: {user_texts}")
        return {'taskId': task.id, 'state': state_name(task.status.state), 'text': text}


async def scenario_list(base_url: str) -> dict:
    """ListTasks of one context, one task per page: every task once, newest first."""
    async with await connect(base_url, streaming=False) as client:
        first = await send_blocking(client, user_message('one'))
        context = first.context_id
        second = await send_blocking(client, user_message('two', context_id=context))
        await send_blocking(client, user_message('elsewhere'))
        ids: list[str] = []
        token = ''
        for _ in range(5):
            page = await client.list_tasks(
                ListTasksRequest(context_id=context, page_size=1, page_token=token)
            )
            check(len(page.tasks) <= 1, f'a page of size 1 held {len(page.tasks)} tasks')
            check(page.total_size == 2, f'totalSize is {page.total_size}, expected 2')
            ids.extend(task.id for task in page.tasks)
            token = page.next_page_token
            if not token:
                break
        check(
            ids == [second.id, first.id],
            f'the pages listed {ids}, expected newest first {[second.id, first.id]}',
        )
        return {'taskIds': ids, 'contextId': context}


async def scenario_cancel(base_url: str) -> dict:
    # polling=True sends configuration.blocking=false: the Task comes back while the agent waits.
    async with await connect(base_url, streaming=False, polling=True) as client:
        started = await send_blocking(client, user_message('wait for cancel'))
        check(
            started.status.state
            in (TaskState.TASK_STATE_SUBMITTED, TaskState.TASK_STATE_WORKING),
            f'non-blocking message/send returned {state_name(started.status.state)}, '
            'expected the task still submitted or working',
        )
        canceled = await client.cancel_task(CancelTaskRequest(id=started.id))
        check(
            canceled.status.state == TaskState.TASK_STATE_CANCELED,
            f'tasks/cancel returned {state_name(canceled.status.state)}, expected TASK_STATE_CANCELED',
        )
        after = await client.get_task(GetTaskRequest(id=started.id))
        check(
            after.status.state == TaskState.TASK_STATE_CANCELED,
            f'tasks/get after cancel says {state_name(after.status.state)}, expected TASK_STATE_CANCELED',
        )
        return {'taskId': started.id, 'state': state_name(after.status.state)}


async def scenario_continue(base_url: str) -> dict:
    async with await connect(base_url, streaming=False) as client:
        first = await send_blocking(client, user_message('first'))
        expect_input_required_with(first, 'first', 'first message/send')
        second = await send_blocking(client, user_message('second', task_id=first.id))
        check(second.id == first.id, f'the continuation opened task {second.id}, expected {first.id}')
        check(
            second.context_id == first.context_id,
            f'the continuation changed the context: {second.context_id} != {first.context_id}',
        )
        text = expect_input_required_with(second, 'second', 'continuation by taskId')
        check(
            'history:' in text and 'first' in text.split('history:', 1)[1],
            f'the agent did not see the earlier message in the history: {text!r}',
        )
        return {'taskId': second.id, 'text': text}


async def scenario_keepalive(base_url: str) -> dict:
    async with await connect(base_url) as client:
        timeout = client._transport.httpx_client.timeout  # noqa: SLF001
        check(
            timeout.read is not None and timeout.read < 8,
            f"the client's read timeout is {timeout.read}, so this scenario proves nothing",
        )
        started = time.monotonic()
        seen = await read_stream(client, user_message('slow hello'))
        check('hello' in seen['text'], f"the stream did not carry the agent's text: {seen['text']!r}")
        seen['readTimeout'] = timeout.read
        seen['seconds'] = round(time.monotonic() - started, 1)
        return seen


async def scenario_resubscribe(base_url: str) -> dict:
    """tasks/resubscribe to a running task, which is then cancelled by another client."""
    async with (
        await connect(base_url, streaming=False, polling=True) as sender,
        await connect(base_url) as watcher,
    ):
        started = await send_blocking(sender, user_message('wait for cancel'))
        kinds: list[str] = []
        last_state = TaskState.TASK_STATE_UNSPECIFIED
        canceled = None
        async for response in watcher.subscribe(SubscribeToTaskRequest(id=started.id)):
            kind = response.WhichOneof('payload')
            kinds.append(kind)
            if kind == 'task':
                check(response.task.id == started.id, f'resubscribed to {response.task.id}, not {started.id}')
            elif kind == 'status_update':
                last_state = response.status_update.status.state
            if canceled is None:  # attached: now cancel it from the other client
                canceled = await sender.cancel_task(CancelTaskRequest(id=started.id))
        check(kinds[:1] == ['task'], f'tasks/resubscribe did not start with the Task: {kinds}')
        check(
            last_state == TaskState.TASK_STATE_CANCELED,
            f'the resubscribed stream ended on {state_name(last_state)}, expected TASK_STATE_CANCELED',
        )
        return {'taskId': started.id, 'events': kinds, 'state': state_name(last_state)}


SCENARIOS = {
    'card': scenario_card,
    'send': scenario_send,
    'stream': scenario_stream,
    'get': scenario_get,
    'list': scenario_list,
    'cancel': scenario_cancel,
    'continue': scenario_continue,
    'keepalive': scenario_keepalive,
    'resubscribe': scenario_resubscribe,
}


def main() -> int:
    global TRANSPORT  # noqa: PLW0603 - set once, before any scenario runs
    args = sys.argv[1:]
    if len(args) not in (2, 3) or args[1] not in SCENARIOS or args[2:3] and args[2] not in TRANSPORTS:
        print(
            f'usage: client.py BASE_URL ({"|".join(SCENARIOS)}) [{"|".join(TRANSPORTS)}]',
            file=sys.stderr,
        )
        return 2
    base_url, name = args[0], args[1]
    if len(args) == 3:
        TRANSPORT = args[2]
    try:
        seen = asyncio.run(asyncio.wait_for(SCENARIOS[name](base_url), SCENARIO_DEADLINE_S))
    except Failure as failure:
        print(f'FAIL: {name}: {failure}', file=sys.stderr)
        return 1
    except TimeoutError:
        print(f'FAIL: {name}: no result within {SCENARIO_DEADLINE_S} s (hung?)', file=sys.stderr)
        return 1
    except Exception as error:  # noqa: BLE001 - any client error is the scenario's failure
        print(f'FAIL: {name}: {type(error).__name__}: {error}', file=sys.stderr)
        return 1
    print(json.dumps({'scenario': name, 'transport': TRANSPORT, **seen}))
    return 0


if __name__ == '__main__':
    sys.exit(main())
