"""The Python a2a-sdk reference server the server benchmark compares us against.

An A2A 1.0 JSON-RPC agent, with the SDK's 0.3 compatibility on the same URL, built only from
a2a-sdk[http-server] (the SDK's own request handler, task store and SSE framing), answering
like the benchmark's Rust agent:

- `echo` (default): replies "echo: <user text>" (plus " | history: <earlier user texts>" on a
  continued task) and leaves the task `input-required`; like the interop tests' agent, a text
  starting with "slow" is answered after 8 s of silence and one starting with "wait" never is;
- `silent`: starts working, then stays silent until cancelled (holds streams open).

The interop client scripts (tests/interop/) pass against it, except the Python `keepalive`
scenario: this server sends no keep-alive within the client's 5 s read timeout.

Usage: .venv/bin/python scripts/reference_server.py --port 8765 [--agent echo|silent]
It prints `listening on http://127.0.0.1:PORT` once the socket is bound.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys

import uvicorn
from starlette.applications import Starlette

from a2a.helpers import get_message_text, new_task_from_user_message, new_text_part
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes
from a2a.server.tasks import InMemoryTaskStore, TaskUpdater
from a2a.types.a2a_pb2 import (
    Role,
    AgentCapabilities,
    AgentCard,
    AgentInterface,
    AgentSkill,
)


class TrivialAgent(AgentExecutor):
    """Answers at once, or stays silent, like the Rust benchmark's agents."""

    def __init__(self, silent: bool) -> None:
        self.silent = silent

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        task = context.current_task
        if task is None:
            task = new_task_from_user_message(context.message)
            await event_queue.enqueue_event(task)
        updater = TaskUpdater(event_queue, task.id, task.context_id)
        await updater.start_work()
        text = context.get_user_input()
        if self.silent or text.startswith('wait'):
            await asyncio.Event().wait()  # until cancelled
        if text.startswith('slow'):
            await asyncio.sleep(8)
        earlier = [
            get_message_text(m, '')
            for m in task.history
            if m.role == Role.ROLE_USER and m.message_id != context.message.message_id
        ]
        reply = 'echo: ' + text
        if earlier:
            reply += ' | history: ' + ' / '.join(earlier)
        reply = updater.new_agent_message([new_text_part(reply)])
        await updater.requires_input(reply)

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        updater = TaskUpdater(event_queue, context.task_id, context.context_id)
        await updater.cancel()


def a2a_app(
    url: str, executor: AgentExecutor, *, name: str, description: str,
    output_modes: list[str], skill: AgentSkill,
) -> Starlette:
    """The a2a-sdk server as the official samples set it up: JSON-RPC 1.0 and 0.3 at `url`."""
    card = AgentCard(
        name=name,
        description=description,
        version='1.0.0',
        supported_interfaces=[
            AgentInterface(url=url, protocol_binding='JSONRPC', protocol_version='1.0'),
            AgentInterface(url=url, protocol_binding='JSONRPC', protocol_version='0.3.0'),
        ],
        capabilities=AgentCapabilities(streaming=True),
        default_input_modes=['text/plain'],
        default_output_modes=output_modes,
        skills=[skill],
    )
    handler = DefaultRequestHandler(
        agent_executor=executor, task_store=InMemoryTaskStore(), agent_card=card
    )
    routes = create_agent_card_routes(card) + create_jsonrpc_routes(
        handler, '/', enable_v0_3_compat=True
    )
    return Starlette(routes=routes)


def build_app(url: str, silent: bool) -> Starlette:
    return a2a_app(
        url,
        TrivialAgent(silent),
        name='reference',
        description='a2a-sdk reference agent for the benchmark',
        output_modes=['text/plain'],
        skill=AgentSkill(id='echo', name='echo', description='echoes', tags=['echo']),
    )


def serve_announcing(
    server: uvicorn.Server, url: str, sockets: list | None = None
) -> None:
    """Runs `server` (on `sockets` when given, bound already), printing `listening on URL`
    once it accepts connections (the bench waits for that line), and exits when it stops."""

    async def serve() -> None:
        task = asyncio.create_task(server.serve(sockets=sockets))
        while not server.started:
            if task.done():
                task.result()
                return
            await asyncio.sleep(0.02)
        print(f'listening on {url}', flush=True)
        await task

    asyncio.run(serve())
    sys.exit(0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--host', default='127.0.0.1')
    parser.add_argument('--port', type=int, default=8765)
    parser.add_argument('--agent', choices=['echo', 'silent'], default='echo')
    args = parser.parse_args()
    url = f'http://{args.host}:{args.port}/'
    logging.basicConfig(level=logging.WARNING)
    app = build_app(url, args.agent == 'silent')
    config = uvicorn.Config(
        app, host=args.host, port=args.port, log_level='warning', access_log=False
    )
    serve_announcing(uvicorn.Server(config), url)

if __name__ == '__main__':
    main()
