"""The official Python stack under the streams-per-core benchmark (benches/streams_per_core.rs).

An a2a-sdk 1.3.0 server (its own request handler, in-memory task store and SSE framing, A2A
1.0 JSON-RPC with the SDK's 0.3 compatibility on the same URL) whose executor does what the
official A2UI samples do: it feeds each chunk the model writes through a2ui-agent-sdk 0.9.0's
streaming parser (`DirectJsonParser.parse_chunk`, the v0.9 basic catalog) and sends the parts
it returns as a `working` status update (text parts as text, each A2UI message a data part
marked `application/json+a2ui`), then completes the task.

The model is the benchmark's paced reply: the chunks in the JSON file `--chunks`, one every
`--pause-ms` milliseconds, each placeholder `@T0000000000000000` replaced by the time it is
due (CLOCK_MONOTONIC in microseconds, comparable across processes). With `--model-url`
the chunks come instead from the benchmark's OpenAI-compatible fake server, streamed over
HTTP with httpx as a Python agent reaches its model.

Usage: .venv/bin/python scripts/streams_reference_server.py --port P --chunks FILE
       [--pause-ms 20] [--model-url http://127.0.0.1:Q/v1]
It prints `listening on http://127.0.0.1:P/` once the socket is bound.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import time

import httpx
import uvicorn
from google.protobuf.json_format import ParseDict
from starlette.applications import Starlette

from a2a.helpers import new_task_from_user_message
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.tasks import TaskUpdater
from a2a.types.a2a_pb2 import AgentSkill, Part, TaskState
from a2ui.core.basic_catalog import BasicCatalog
from a2ui.inference_formats.direct_json import DirectJsonParser
from a2ui.parser import A2uiPart, TextPart, to_message_dicts

# The a2a-sdk server and its start-up line, shared with the SendMessage bench's reference.
from reference_server import a2a_app, serve_announcing

PLACEHOLDER = '@T0000000000000000'
MIME_TYPE = 'application/json+a2ui'


def now_micros() -> int:
    return time.clock_gettime_ns(time.CLOCK_MONOTONIC) // 1000


def stamped(chunk: str, micros: int) -> str:
    """The chunk with its placeholder (if any) replaced by `micros`."""
    if PLACEHOLDER not in chunk:
        return chunk
    return chunk.replace(PLACEHOLDER, f'@T{micros:016d}')


def a2a_parts(parts) -> list[Part]:
    """The A2A parts of the parser's response parts, as the official samples send them."""
    out: list[Part] = []
    for part in parts:
        if isinstance(part, TextPart):
            out.append(Part(text=part.text))
        elif isinstance(part, A2uiPart):
            for message in to_message_dicts(part.a2ui):
                data = Part()
                ParseDict(message, data.data.struct_value)
                ParseDict({'mimeType': MIME_TYPE}, data.metadata)
                out.append(data)
    return out


class PacedA2uiAgent(AgentExecutor):
    """Streams the model's chunks through the A2UI streaming parser as working updates."""

    def __init__(self, chunks: list[str], pause: float, model_url: str | None) -> None:
        self.chunks = chunks
        self.pause = pause
        self.model_url = model_url
        self.http = httpx.AsyncClient(timeout=None) if model_url else None
        self.catalog = BasicCatalog('v0.9')

    async def model_chunks(self):
        if self.http is None:
            # As the Rust side paces: each chunk is due `pause` after the one before and
            # stamped when due, so a busy server shows as latency, not as a slower model.
            start = now_micros()
            step = int(self.pause * 1e6)
            for i, chunk in enumerate(self.chunks):
                due = start + (i + 1) * step
                wait = (due - now_micros()) / 1e6
                if wait > 0:
                    await asyncio.sleep(wait)
                yield stamped(chunk, due)
            return
        body = {'model': 'bench', 'stream': True, 'messages': [{'role': 'user', 'content': 'go'}]}
        async with self.http.stream('POST', f'{self.model_url}/chat/completions', json=body) as r:
            async for line in r.aiter_lines():
                if not line.startswith('data: '):
                    continue
                data = line[6:]
                if data == '[DONE]':
                    return
                for choice in json.loads(data).get('choices', []):
                    content = (choice.get('delta') or {}).get('content')
                    if content:
                        yield content

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        task = context.current_task
        if task is None:
            task = new_task_from_user_message(context.message)
            await event_queue.enqueue_event(task)
        updater = TaskUpdater(event_queue, task.id, task.context_id)
        await updater.start_work()
        parser = DirectJsonParser([self.catalog])
        async for chunk in self.model_chunks():
            parts = a2a_parts(parser.parse_chunk(chunk))
            if parts:
                await updater.update_status(
                    TaskState.TASK_STATE_WORKING, message=updater.new_agent_message(parts)
                )
        await updater.complete()

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        updater = TaskUpdater(event_queue, context.task_id, context.context_id)
        await updater.cancel()


def build_app(url: str, agent: PacedA2uiAgent) -> Starlette:
    return a2a_app(
        url,
        agent,
        name='reference-a2ui',
        description='a2a-sdk + a2ui-agent-sdk agent for the streams-per-core benchmark',
        output_modes=['text/plain', MIME_TYPE],
        skill=AgentSkill(id='ui', name='ui', description='draws a list', tags=['a2ui']),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--host', default='127.0.0.1')
    parser.add_argument('--port', type=int, required=True)
    parser.add_argument('--chunks', required=True, help='JSON list of the reply chunks')
    parser.add_argument('--pause-ms', type=float, default=20.0)
    parser.add_argument('--model-url', default=None)
    args = parser.parse_args()
    with open(args.chunks, encoding='utf-8') as f:
        chunks = json.load(f)
    url = f'http://{args.host}:{args.port}/'
    logging.basicConfig(level=logging.ERROR)
    agent = PacedA2uiAgent(chunks, args.pause_ms / 1000.0, args.model_url)
    config = uvicorn.Config(
        build_app(url, agent),
        host=args.host,
        port=args.port,
        log_level='error',
        access_log=False,
        backlog=4096,
    )
    serve_announcing(uvicorn.Server(config), url)

if __name__ == '__main__':
    main()
