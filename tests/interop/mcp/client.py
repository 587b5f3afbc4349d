"""The official Python MCP client (`mcp` 2.3.0) against `a2ui-agent serve --mcp`.

Declares A2UI v1.0 with the basic catalog in `initialize` (A2UI over MCP Apps), lists the
agent's tool, asks for restaurants with a progress token, presses Book on a restaurant
(`tools/call` of the `select` event with its context and `_meta["org.a2ui/ui"].surfaceId`),
fills the form and presses Confirm (`book`, the context resolved against the data model,
which goes along as `_meta["org.a2ui/ui"].dataModel`). Prints one JSON line of what it saw
(the A2UI messages of each result, for the Rust test to validate); `FAIL: why` on stderr
and exit 1 otherwise.

Usage: client.py URL [BEARER_TOKEN]
"""

import asyncio
import json
import sys

from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

BASIC = "https://a2ui.org/specification/v1_0/catalogs/basic/catalog.json"
EXTENSIONS = {
    "io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app", "application/a2ui+json"]},
    "org.a2ui/ui": {"rendererCapabilities": {"v1.0": {"supportedCatalogIds": [BASIC]}}},
}


def fail(why):
    print(f"FAIL: {why}", file=sys.stderr)
    sys.exit(1)


def a2ui_messages(result):
    """The draft's extraction algorithm: every application/a2ui+json resource, in order."""
    messages = []
    for item in result.content:
        if item.type == "resource" and item.resource.mime_type == "application/a2ui+json":
            payload = json.loads(item.resource.text)
            messages.extend(payload if isinstance(payload, list) else [payload])
    return messages


def text_of(result):
    return "".join(item.text for item in result.content if item.type == "text")


def components(messages):
    for message in messages:
        for component in message.get("updateComponents", {}).get("components", []):
            yield component


def data_model(messages, surface):
    model = {}
    for message in messages:
        update = message.get("updateDataModel")
        if update and update.get("surfaceId") == surface and isinstance(update.get("value"), dict):
            model.update(update["value"])
    return model


def resolve(value, model):
    if isinstance(value, dict) and set(value) == {"@path"}:
        return model.get(value["@path"].lstrip("/"))
    return value


async def main():
    url = sys.argv[1]
    headers = {"Authorization": f"Bearer {sys.argv[2]}"} if len(sys.argv) > 2 else None
    seen = {"results": [], "texts": []}
    progress = []

    async def on_progress(value, total, message):
        progress.append({"progress": value, "message": message})

    async with create_mcp_http_client(headers=headers) as http:
        async with streamable_http_client(url, http_client=http) as (read, write):
            async with ClientSession(read, write, extensions=EXTENSIONS) as session:
                init = await session.initialize()
                agent = (init.capabilities.extensions or {}).get("org.a2ui/ui", {})
                if BASIC not in agent.get("agentCapabilities", {}).get("v1.0", {}).get("supportedCatalogIds", []):
                    fail(f"initialize declared no v1.0 basic catalog: {init.capabilities}")
                tools = (await session.list_tools()).tools
                seen["tools"] = [tool.name for tool in tools]
                agent_tool = next((t for t in tools if "message" in t.input_schema.get("required", [])), None)
                if agent_tool is None:
                    fail(f"no tool takes a message: {seen['tools']}")

                first = await session.call_tool(
                    agent_tool.name, {"message": "Find me a place for dinner"}, progress_callback=on_progress
                )
                if first.is_error:
                    fail(f"the first call failed: {text_of(first)}")
                listed = a2ui_messages(first)
                seen["results"].append(listed)
                seen["texts"].append(text_of(first))
                seen["progress"] = progress
                select = next(
                    (c for c in components(listed) if c.get("component") == "Button"), None
                )
                if select is None:
                    fail(f"no Book button: {listed}")
                event = select["action"]["event"]
                restaurant = event["context"]["restaurant"]
                seen["restaurant"] = restaurant
                tools = (await session.list_tools()).tools
                seen["toolsAfter"] = [tool.name for tool in tools]
                seen["selectMeta"] = next((t.meta for t in tools if t.name == event["name"]), None)

                form = await session.call_tool(
                    event["name"], event["context"], meta={"org.a2ui/ui": {"surfaceId": "results"}}
                )
                if form.is_error:
                    fail(f"Book failed: {text_of(form)}")
                shown = a2ui_messages(form)
                seen["results"].append(shown)
                seen["texts"].append(text_of(form))
                confirm = next(
                    (c for c in components(shown) if c.get("component") == "Button"), None
                )
                if confirm is None:
                    fail(f"no Confirm button: {shown}")
                model = data_model(shown, "booking")
                model["name"] = "Ada"
                context = {k: resolve(v, model) for k, v in confirm["action"]["event"]["context"].items()}
                done = await session.call_tool(
                    confirm["action"]["event"]["name"],
                    context,
                    meta={
                        "org.a2ui/ui": {
                            "surfaceId": "booking",
                            "dataModel": {"version": "v1.0", "surfaces": {"booking": model}},
                        }
                    },
                )
                if done.is_error:
                    fail(f"Confirm failed: {text_of(done)}")
                seen["results"].append(a2ui_messages(done))
                seen["texts"].append(text_of(done))
                seen["contextIds"] = [
                    (r.meta or {}).get("a2ui-agent/contextId") for r in (first, form, done)
                ]
    print(json.dumps(seen))


asyncio.run(main())
