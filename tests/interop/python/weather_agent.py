"""A weather agent served by the Python a2a-sdk (1.3.0), for the orchestrator's browser test.

An agent of another kind than the demo restaurant finder, on another stack: it answers any
text with an A2UI v0.9 surface it also calls `main` (the restaurant finder's surfaces must not
collide with it behind the orchestrator): the forecast for Oslo and a Refresh button. Its
task then completes. The Refresh action (a v0.9 `action` named `refresh`, in a data part) is
answered by an `updateComponents` on the same surface saying the forecast was refreshed, so
the test sees the press reached this agent.

Built only from a2a-sdk[http-server], as scripts/reference_server.py is (its card and routes).

Usage: .venv/bin/python tests/interop/python/weather_agent.py
It binds 127.0.0.1 on a free port and prints `listening on http://127.0.0.1:PORT/`.
"""

from __future__ import annotations

import logging
import socket
import sys
from pathlib import Path

import uvicorn

from a2a.helpers import (
    get_data_parts,
    new_data_part,
    new_task_from_user_message,
    new_text_part,
)
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.tasks import TaskUpdater
from a2a.types.a2a_pb2 import AgentSkill

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / 'scripts'))
from reference_server import a2a_app, serve_announcing  # noqa: E402

VERSION = 'v0.9'
MIME = 'application/json+a2ui'
CATALOG = 'https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json'


def forecast(text: str) -> list[dict]:
    """The messages drawing the forecast `text` on surface `main`, with a Refresh button."""
    return [
        {'version': VERSION, 'updateComponents': {'surfaceId': 'main', 'components': [
            {'id': 'root', 'component': 'Column', 'children': ['title', 'refresh']},
            {'id': 'title', 'component': 'Text', 'text': text},
            {'id': 'refresh', 'component': 'Button', 'child': 'label',
             'action': {'event': {'name': 'refresh'}}},
            {'id': 'label', 'component': 'Text', 'text': 'Refresh'},
        ]}},
    ]


def pressed(context: RequestContext) -> str | None:
    """The name of the action the user's message carries, if any."""
    for data in get_data_parts(context.message.parts):
        action = data.get('action') if isinstance(data, dict) else None
        if isinstance(action, dict):
            return action.get('name')
    return None


class WeatherAgent(AgentExecutor):
    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        task = context.current_task
        if task is None:
            task = new_task_from_user_message(context.message)
            await event_queue.enqueue_event(task)
        updater = TaskUpdater(event_queue, task.id, task.context_id)
        if pressed(context) == 'refresh':
            text = 'Refreshed.'
            messages = forecast('Oslo: rain by evening (refreshed)')
        else:
            text = 'The weather in Oslo:'
            create = {'version': VERSION, 'createSurface': {'surfaceId': 'main',
                                                            'catalogId': CATALOG}}
            messages = [create] + forecast('Oslo: sunny, 4 degrees')
        parts = [new_text_part(text)]
        parts += [new_data_part(m, media_type=MIME) for m in messages]
        await updater.start_work(updater.new_agent_message(parts))
        await updater.complete()

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        await TaskUpdater(event_queue, context.task_id, context.context_id).cancel()


def main() -> None:
    logging.basicConfig(level=logging.WARNING)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(('127.0.0.1', 0))
    url = f'http://127.0.0.1:{sock.getsockname()[1]}/'
    app = a2a_app(
        url,
        WeatherAgent(),
        name='Weather',
        description='Tells the weather for a city, with A2UI.',
        output_modes=['text/plain', MIME],
        skill=AgentSkill(id='forecast', name='Weather forecast',
                         description='Rain or shine in a city',
                         tags=['weather', 'forecast', 'rain']),
    )
    config = uvicorn.Config(app, log_level='warning', access_log=False)
    serve_announcing(uvicorn.Server(config), url, [sock])


if __name__ == '__main__':
    main()
