// The official TypeScript MCP client (@modelcontextprotocol/sdk 1.32.2) against
// `a2ui-agent serve --mcp`. It declares nothing in `initialize`: it asks for A2UI v0.9 with
// the basic catalog on every call, in `_meta["org.a2ui/ui"].rendererCapabilities` (the
// draft's per-request path). It lists the agent's tool, asks for restaurants with a progress
// callback, presses Book (`tools/call` of the `select` event) and Confirm (`book`, its
// context resolved against the form's data model), and prints one JSON line of what it saw
// (the A2UI messages of each result, for the Rust test to validate); `FAIL: why` on stderr
// and exit 1 otherwise.
//
// Usage: node client.mjs URL [BEARER_TOKEN]
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const BASIC = "https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json";
const [url, token] = process.argv.slice(2);

function fail(why) {
  process.stderr.write(`FAIL: ${why}\n`);
  process.exit(1);
}

function a2uiMessages(result) {
  const messages = [];
  for (const item of result.content ?? []) {
    if (item.type === "resource" && item.resource?.mimeType === "application/a2ui+json") {
      const payload = JSON.parse(item.resource.text);
      messages.push(...(Array.isArray(payload) ? payload : [payload]));
    }
  }
  return messages;
}

const textOf = (result) => (result.content ?? []).filter((i) => i.type === "text").map((i) => i.text).join("");
const components = (messages) => messages.flatMap((m) => m.updateComponents?.components ?? []);
const meta = (extra = {}) => ({
  "org.a2ui/ui": { rendererCapabilities: { "v0.9": { supportedCatalogIds: [BASIC] } }, ...extra },
});

const transport = new StreamableHTTPClientTransport(new URL(url), {
  requestInit: token ? { headers: { Authorization: `Bearer ${token}` } } : undefined,
});
const client = new Client({ name: "a2ui-agent-interop", version: "1.0.0" });
await client.connect(transport);
const seen = { results: [], texts: [], progress: 0, sessionId: transport.sessionId };
const { tools } = await client.listTools();
seen.tools = tools.map((t) => t.name);
const agentTool = tools.find((t) => (t.inputSchema.required ?? []).includes("message"));
if (!agentTool) fail(`no tool takes a message: ${seen.tools}`);

const call = async (name, args, extra) => {
  const result = await client.callTool({ name, arguments: args, _meta: meta(extra) }, undefined, {
    onprogress: () => {
      seen.progress += 1;
    },
  });
  if (result.isError) fail(`${name} failed: ${textOf(result)}`);
  const messages = a2uiMessages(result);
  seen.results.push(messages);
  seen.texts.push(textOf(result));
  return messages;
};

const listed = await call(agentTool.name, { message: "Find me a place for dinner" });
const select = components(listed).find((c) => c.component === "Button");
if (!select) fail(`no Book button: ${JSON.stringify(listed)}`);
seen.restaurant = select.action.event.context.restaurant;
const form = await call(select.action.event.name, select.action.event.context, { surfaceId: "results" });
const confirm = components(form).find((c) => c.component === "Button");
if (!confirm) fail(`no Confirm button: ${JSON.stringify(form)}`);
const model = Object.assign(
  {},
  ...form.filter((m) => m.updateDataModel?.surfaceId === "booking").map((m) => m.updateDataModel.value),
  { name: "Grace" },
);
const context = Object.fromEntries(
  Object.entries(confirm.action.event.context).map(([k, v]) => [
    k,
    v && typeof v === "object" && "path" in v ? model[v.path.replace(/^\//, "")] : v,
  ]),
);
await call(confirm.action.event.name, context, {
  surfaceId: "booking",
  dataModel: { version: "v0.9", surfaces: { booking: model } },
});
await transport.terminateSession();
await client.close();
console.log(JSON.stringify(seen));
