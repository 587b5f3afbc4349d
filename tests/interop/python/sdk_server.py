"""The Python a2a-sdk 1.3.0 server our client is tested against (tests/client_against_sdk_servers.rs).

Built only from a2a-sdk[http-server]: the SDK's request handler, in-memory task and push config
stores, its JSON-RPC routes (1.0, with its 0.3 compatibility on the same URL) and its HTTP+JSON
routes under /rest. The card lists the three interfaces, push notifications and an extended
card. The agent, by the user's text:

- "slow N": working, then N artifact chunks "part-1".."part-N" of one artifact, one every
  0.2 s (long enough to cancel or resubscribe), then completed with "done after N parts";
- anything else: an artifact with the text "echo: TEXT" and a data part {"echo": TEXT,
  "first": true}, then input-required asking "what next?"; the task's second user message
  completes it with "done: FIRST / SECOND".

Usage: .venv/bin/python sdk_server.py PORT [URL]: serves on 127.0.0.1:PORT, with URL (default
its own) as the card's interfaces' base (a proxy's). Prints `listening on URL` once it accepts
connections.
"""

from __future__ import annotations

import asyncio
import logging
import sys
from pathlib import Path

import uvicorn
from starlette.applications import Starlette

# The benchmark's reference server starts uvicorn and announces it the way the tests wait for.
sys.path.insert(0, str(Path(__file__).resolve().parents[3] / 'scripts'))
from reference_server import serve_announcing  # noqa: E402

from a2a.helpers import (
    get_message_text,
    new_data_part,
    new_task_from_user_message,
    new_text_part,
)
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import (
    create_agent_card_routes,
    create_jsonrpc_routes,
    create_rest_routes,
)
from a2a.server.tasks import (
    InMemoryPushNotificationConfigStore,
    InMemoryTaskStore,
    TaskUpdater,
)
from a2a.types.a2a_pb2 import (
    AgentCapabilities,
    AgentCard,
    AgentInterface,
    AgentSkill,
    Role,
)

PACE = 0.2


class Agent(AgentExecutor):
    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        task = context.current_task
        if task is None:
            task = new_task_from_user_message(context.message)
            await event_queue.enqueue_event(task)
        updater = TaskUpdater(event_queue, task.id, task.context_id)
        text = context.get_user_input()
        await updater.start_work()
        if text.startswith('slow '):
            await slow(updater, int(text.split()[1]))
            return
        earlier = [
            get_message_text(m, '')
            for m in task.history
            if m.role == Role.ROLE_USER and m.message_id != context.message.message_id
        ]
        if earlier:
            done = 'done: ' + ' / '.join(earlier + [text])
            await updater.complete(updater.new_agent_message([new_text_part(done)]))
            return
        await updater.add_artifact(
            [new_text_part('echo: ' + text), new_data_part({'echo': text, 'first': True})],
            name='answer',
        )
        await updater.requires_input(updater.new_agent_message([new_text_part('what next?')]))

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        await TaskUpdater(event_queue, context.task_id, context.context_id).cancel()


async def slow(updater: TaskUpdater, parts: int) -> None:
    for n in range(1, parts + 1):
        await asyncio.sleep(PACE)
        await updater.add_artifact(
            [new_text_part(f'part-{n}')],
            artifact_id='slow',
            append=n > 1,
            last_chunk=n == parts,
        )
    await updater.complete(updater.new_agent_message([new_text_part(f'done after {parts} parts')]))


def card(url: str, name: str) -> AgentCard:
    return AgentCard(
        name=name,
        description='a2a-sdk server for our client tests',
        version='1.0.0',
        supported_interfaces=[
            AgentInterface(url=url, protocol_binding='JSONRPC', protocol_version='1.0'),
            AgentInterface(url=url + 'rest', protocol_binding='HTTP+JSON', protocol_version='1.0'),
            AgentInterface(url=url, protocol_binding='JSONRPC', protocol_version='0.3.0'),
        ],
        capabilities=AgentCapabilities(
            streaming=True, push_notifications=True, extended_agent_card=True
        ),
        default_input_modes=['text/plain'],
        default_output_modes=['text/plain', 'application/json'],
        skills=[AgentSkill(id='echo', name='echo', description='echoes', tags=['echo'])],
    )


def build_app(url: str) -> Starlette:
    public = card(url, 'python-sdk')
    handler = DefaultRequestHandler(
        agent_executor=Agent(),
        task_store=InMemoryTaskStore(),
        agent_card=public,
        push_config_store=InMemoryPushNotificationConfigStore(),
        extended_agent_card=card(url, 'python-sdk (extended)'),
    )
    routes = (
        create_agent_card_routes(public)
        + create_jsonrpc_routes(handler, '/', enable_v0_3_compat=True)
        + create_rest_routes(handler, path_prefix='/rest')
    )
    return Starlette(routes=routes)


def main() -> None:
    logging.basicConfig(level=logging.WARNING)
    port = int(sys.argv[1])
    url = sys.argv[2] if len(sys.argv) > 2 else f'http://127.0.0.1:{port}/'
    config = uvicorn.Config(
        build_app(url), host='127.0.0.1', port=port, log_level='warning', access_log=False
    )
    serve_announcing(uvicorn.Server(config), url)


if __name__ == '__main__':
    main()
