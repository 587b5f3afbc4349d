"""Drives our A2UI agent with the real Python A2A client, a2a-sdk 1.3.0, over TCP.

Each scenario uses the client as an A2UI host would: it activates the A2UI extension with the
`A2A-Extensions` header (the SDK's 0.3 transport mirrors it as `X-A2A-Extensions`), declares
`a2uiClientCapabilities` in the message metadata, reads `message/stream` to the end and sends
user actions back as DataParts. It prints one JSON line with everything it saw (the A2UI
messages of each `working` update with their MIME types, the final state, the echoed
extension header); the Rust test checks the messages against the catalog.

The agent under test is the crate's demo restaurant finder, plus one trigger: the text
"break" makes it write a malformed <a2ui-json> block mid-stream; or, for the `turn` scenario,
`a2ui-agent serve --model-url` in front of a scripted model.

Usage: python a2ui_e2e.py BASE_URL SCENARIO VERSION [TRANSPORT]
Scenarios: flow (results, then a booking action comes back), unknown-catalog, malformed,
turn (one streamed turn).
VERSION: v0.8 or v0.9.
TRANSPORT: jsonrpc (default: the SDK's default config, JSON-RPC 1.0), rest (HTTP+JSON 1.0),
0.3 (the card's 0.3 interface alone: JSON-RPC 0.3), grpc (gRPC 1.0, the SDK's grpc extra; the
echoed extensions are read from the response metadata).
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import uuid

import grpc
import httpx
from google.protobuf.json_format import MessageToDict, ParseDict

from a2a.client import A2ACardResolver, ClientCallContext, ClientConfig, ClientFactory
from a2a.helpers import get_message_text
from a2a.types.a2a_pb2 import Message, Part, Role, SendMessageRequest, TaskState

# A real model reading its prompt takes longer: tests/real_model.rs raises it.
SCENARIO_DEADLINE_S = float(os.environ.get('A2UI_SCENARIO_DEADLINE_S', '60'))
TRANSPORTS = ('jsonrpc', 'rest', '0.3', 'grpc')
TRANSPORT = 'jsonrpc'

EXTENSIONS = {
    'v0.8': 'https://a2ui.org/a2a-extension/a2ui/v0.8',
    'v0.9': 'https://a2ui.org/a2a-extension/a2ui/v0.9',
}
BASIC_CATALOGS = {
    'v0.8': 'https://a2ui.org/specification/v0_8/standard_catalog_definition.json',
    'v0.9': 'https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json',
}
MIME_TYPE = 'application/json+a2ui'  # both v0.8 and v0.9


class Failure(Exception):
    """A scenario saw something it did not expect."""


def check(condition: bool, why: str) -> None:
    if not condition:
        raise Failure(why)


def capabilities(version: str, catalog_ids: list[str]) -> dict:
    if version == 'v0.8':
        return {'supportedCatalogIds': catalog_ids}
    return {version: {'supportedCatalogIds': catalog_ids}}


def message(parts: list[Part], caps: dict, task_id: str = '') -> Message:
    msg = Message(message_id=str(uuid.uuid4()), role=Role.ROLE_USER, parts=parts, task_id=task_id)
    ParseDict({'a2uiClientCapabilities': caps}, msg.metadata)
    return msg


def text_part(text: str) -> Part:
    return Part(text=text)


def data_part(data: dict) -> Part:
    part = Part()
    ParseDict(data, part.data.struct_value)
    ParseDict({'mimeType': MIME_TYPE}, part.metadata)
    return part


class EchoRecorder:
    """Records the `a2a-extensions` response metadata of each gRPC call."""

    def __init__(self, echoed: list[str | None]):
        self.echoed = echoed

    async def record(self, call):
        metadata = await call.initial_metadata()
        self.echoed.append(metadata.get('a2a-extensions') if metadata else None)
        return call


# One instance per kind: grpc.aio files an interceptor under the first kind it is.
class UnaryEchoRecorder(EchoRecorder, grpc.aio.UnaryUnaryClientInterceptor):
    async def intercept_unary_unary(self, continuation, details, request):
        return await self.record(await continuation(details, request))


class StreamEchoRecorder(EchoRecorder, grpc.aio.UnaryStreamClientInterceptor):
    async def intercept_unary_stream(self, continuation, details, request):
        return await self.record(await continuation(details, request))


class Host:
    """A client with the A2UI extension active, recording the echoed extension header."""

    def __init__(self, base_url: str, version: str):
        self.base_url = base_url
        self.version = version
        self.echoed: list[str | None] = []

    async def __aenter__(self) -> 'Host':
        async def on_response(response: httpx.Response) -> None:
            if response.request.method == 'POST':
                name = 'x-a2a-extensions' if TRANSPORT == '0.3' else 'a2a-extensions'
                self.echoed.append(response.headers.get(name))

        self.http = httpx.AsyncClient(timeout=30, event_hooks={'response': [on_response]})
        bindings = {'rest': ['HTTP+JSON'], 'grpc': ['GRPC']}.get(TRANSPORT, [])
        recorders = [UnaryEchoRecorder(self.echoed), StreamEchoRecorder(self.echoed)]
        config = ClientConfig(
            streaming=True,
            httpx_client=self.http,
            supported_protocol_bindings=bindings,
            grpc_channel_factory=lambda url: grpc.aio.insecure_channel(url, interceptors=recorders),
        )
        if TRANSPORT == '0.3':
            card = await A2ACardResolver(self.http, self.base_url).get_agent_card()
            legacy = [i for i in card.supported_interfaces if i.protocol_version.startswith('0.3')]
            del card.supported_interfaces[:]
            card.supported_interfaces.extend(legacy)
            self.client = ClientFactory(config).create(card)
        else:
            self.client = await ClientFactory(config).create_from_url(self.base_url)
        self.transport = type(self.client._transport).__name__  # noqa: SLF001
        self.context = ClientCallContext(
            service_parameters={'A2A-Extensions': EXTENSIONS[self.version]}
        )
        return self

    async def __aexit__(self, *exc) -> None:
        await self.client.close()
        await self.http.aclose()

    async def stream(self, msg: Message) -> dict:
        """message/stream read to the end: the A2UI messages of each working update, the
        reply's text those updates streamed (passing statuses left out), the final state
        and the final message's text."""
        updates: list[list[dict]] = []
        task_id = ''
        final_state = TaskState.TASK_STATE_UNSPECIFIED
        final_text = ''
        streamed = ''
        kinds: list[str] = []
        async for response in self.client.send_message(
            SendMessageRequest(message=msg), context=self.context
        ):
            kind = response.WhichOneof('payload')
            kinds.append(kind)
            if kind == 'task':
                task_id = response.task.id
            elif kind == 'status_update':
                status = response.status_update.status
                task_id = response.status_update.task_id
                if status.state == TaskState.TASK_STATE_WORKING:
                    parts = []
                    for part in status.message.parts:
                        if part.WhichOneof('content') == 'text':
                            # A passing status ("The model is reading the prompt…") is
                            # not the reply.
                            if not MessageToDict(part.metadata).get('a2uiAgentStatus'):
                                streamed += part.text
                        elif part.WhichOneof('content') == 'data':
                            parts.append(
                                {
                                    'mimeType': MessageToDict(part.metadata).get('mimeType'),
                                    'mediaType': part.media_type,
                                    'data': MessageToDict(part.data),
                                }
                            )
                    if parts:
                        updates.append(parts)
                else:
                    final_state = status.state
                    final_text = get_message_text(status.message, '')
        check(kinds[:1] == ['task'], f'the stream did not start with the Task: {kinds}')
        return {
            'taskId': task_id,
            'updates': updates,
            'state': TaskState.Name(final_state),
            'text': final_text,
            'streamed': streamed,
            'echoed': self.echoed[-1] if self.echoed else None,
            'transport': self.transport,
        }


async def scenario_flow(base_url: str, version: str) -> dict:
    caps = capabilities(version, [BASIC_CATALOGS[version]])
    async with Host(base_url, version) as host:
        first = await host.stream(message([text_part('Dinner for two tonight?')], caps))
        check(first['state'] == 'TASK_STATE_INPUT_REQUIRED', f'first turn ended {first["state"]}')
        body = {
            'name': 'book',
            'surfaceId': 'booking',
            'sourceComponentId': 'confirm',
            'timestamp': '2026-01-01T00:00:00Z',
            'context': {'restaurant': 'Sakura House', 'name': 'Ada', 'partySize': '2', 'time': '20:00'},
        }
        action = {'userAction': body} if version == 'v0.8' else {'version': 'v0.9', 'action': body}
        second = await host.stream(message([data_part(action)], caps, task_id=first['taskId']))
        check(second['taskId'] == first['taskId'], 'the action opened another task')
        return {'first': first, 'second': second}


async def scenario_unknown_catalog(base_url: str, version: str) -> dict:
    caps = capabilities(version, ['https://example.com/no-such-catalog.json'])
    async with Host(base_url, version) as host:
        return await host.stream(message([text_part('hi')], caps))


async def scenario_malformed(base_url: str, version: str) -> dict:
    caps = capabilities(version, [BASIC_CATALOGS[version]])
    async with Host(base_url, version) as host:
        broken = await host.stream(message([text_part('break')], caps))
        after = await host.stream(message([text_part('hi')], caps))
        return {'broken': broken, 'after': after}


async def scenario_turn(base_url: str, version: str) -> dict:
    caps = capabilities(version, [BASIC_CATALOGS[version]])
    async with Host(base_url, version) as host:
        return await host.stream(message([text_part('Show my order')], caps))


SCENARIOS = {
    'turn': scenario_turn,
    'flow': scenario_flow,
    'unknown-catalog': scenario_unknown_catalog,
    'malformed': scenario_malformed,
}


def main() -> int:
    global TRANSPORT  # noqa: PLW0603 - set once, before any scenario runs
    args = sys.argv[1:]
    if (
        len(args) not in (3, 4)
        or args[1] not in SCENARIOS
        or args[2] not in EXTENSIONS
        or args[3:4] and args[3] not in TRANSPORTS
    ):
        print(
            f'usage: a2ui_e2e.py BASE_URL ({"|".join(SCENARIOS)}) (v0.8|v0.9) '
            f'[{"|".join(TRANSPORTS)}]',
            file=sys.stderr,
        )
        return 2
    base_url, name, version = args[:3]
    if len(args) == 4:
        TRANSPORT = args[3]
    try:
        seen = asyncio.run(asyncio.wait_for(SCENARIOS[name](base_url, version), SCENARIO_DEADLINE_S))
    except Failure as failure:
        print(f'FAIL: {name}: {failure}', file=sys.stderr)
        return 1
    except TimeoutError:
        print(f'FAIL: {name}: no result within {SCENARIO_DEADLINE_S} s (hung?)', file=sys.stderr)
        return 1
    except Exception as error:  # noqa: BLE001 - any client error is the scenario's failure
        print(f'FAIL: {name}: {type(error).__name__}: {error}', file=sys.stderr)
        return 1
    print(json.dumps({'scenario': name, 'version': version, **seen}))
    return 0


if __name__ == '__main__':
    sys.exit(main())
