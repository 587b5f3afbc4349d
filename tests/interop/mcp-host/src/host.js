// A minimal MCP Apps host, as a chat app that knows nothing of A2UI shows a tool's UI: an
// MCP client (Streamable HTTP, the page's own origin + `?mcp=PATH`) lists the server's
// tools, calls the one whose `_meta.ui.resourceUri` names an app with the user's message,
// reads that `ui://` resource, shows it in a sandboxed iframe (no same-origin, the CSP the
// MCP Apps spec prescribes from the resource's `_meta.ui.csp`), and talks to it through
// ext-apps' AppBridge: tool input, then the tool result; the app's own `tools/call`s go to
// the server only for tools whose `_meta.ui.visibility` includes "app".
//
// What the test reads: `window.__host` (the calls made, their results, errors) and
// `document.body.dataset.state` (`loading`, `calling`, `shown`, `failed`).
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';

const APP_MIME = 'text/html;profile=mcp-app';
const params = new URLSearchParams(location.search);
const endpoint = new URL(params.get('mcp') ?? '/mcp', location.href);
const message = params.get('message') ?? 'dinner for two tonight?';
const host = (window.__host = { calls: [], appCalls: [], errors: [] });
const log = (line) => {
  document.getElementById('log').textContent += `${line}\n`;
};

/** The CSP of an app's document (MCP Apps: the restrictive default plus declared domains). */
function policy(csp = {}) {
  const list = (domains) => (domains ?? []).join(' ');
  const connect = list(csp.connectDomains) || "'none'";
  const resources = list(csp.resourceDomains);
  return [
    "default-src 'none'",
    `script-src 'self' 'unsafe-inline' ${resources}`,
    `style-src 'self' 'unsafe-inline' ${resources}`,
    `img-src 'self' data: ${resources}`,
    `media-src 'self' data: ${resources}`,
    `connect-src ${connect}`,
  ].join('; ');
}

/** The tool `name` of the server's current list (it grows as surfaces name actions). */
async function toolNamed(client, name) {
  const { tools } = await client.listTools();
  return tools.find((tool) => tool.name === name);
}

async function main() {
  const client = new Client({ name: 'mcp-apps-test-host', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(endpoint));
  const { tools } = await client.listTools();
  const tool = tools.find((t) => t._meta?.ui?.resourceUri);
  if (!tool) throw new Error(`no tool names an app: ${JSON.stringify(tools.map((t) => t.name))}`);
  const uri = tool._meta.ui.resourceUri;
  const { contents } = await client.readResource({ uri });
  const content = contents.find((c) => c.uri === uri && c.mimeType === APP_MIME);
  if (!content?.text) throw new Error(`${uri} is not an MCP App (${JSON.stringify(contents.map((c) => c.mimeType))})`);
  log(`${tool.name} → ${uri} (${content.text.length} bytes)`);

  // The app's document, with its CSP in front of anything it holds.
  const csp = `<meta http-equiv="Content-Security-Policy" content="${policy(content._meta?.ui?.csp)}">`;
  const html = content.text.replace(/<head>/i, `<head>${csp}`);
  const frame = document.createElement('iframe');
  frame.setAttribute('sandbox', 'allow-scripts');
  frame.title = tool.title ?? tool.name;

  // No client for the bridge to forward to on its own: the host decides what reaches the
  // server (the app's `tools/call`, below).
  const bridge = new AppBridge(null, { name: 'mcp-apps-test-host', version: '1.0.0' }, {
    openLinks: {},
    serverTools: {},
  });
  bridge.oncalltool = async (call) => {
    host.appCalls.push({ name: call.name, arguments: call.arguments, _meta: call._meta, at: Date.now() });
    // MCP Apps: an app may call only tools visible to apps (the default is model and app).
    const target = await toolNamed(client, call.name);
    const visibility = target?._meta?.ui?.visibility ?? ['model', 'app'];
    if (!target || !visibility.includes('app')) throw new Error(`the app may not call ${call.name}`);
    const result = await client.callTool(call);
    host.appCalls.at(-1).done = Date.now();
    return result;
  };
  bridge.onopenlink = async ({ url }) => {
    host.links = [...(host.links ?? []), url];
    return {};
  };
  const initialized = new Promise((resolve) => {
    bridge.oninitialized = resolve;
  });
  // The frame's window exists once it is in the page, and stays the same when the app loads.
  document.getElementById('app').append(frame);
  await bridge.connect(new PostMessageTransport(frame.contentWindow, frame.contentWindow));
  frame.srcdoc = html;
  await initialized;
  log('the app is ready');

  const args = { message };
  await bridge.sendToolInput({ arguments: args });
  document.body.dataset.state = 'calling';
  host.sentAt = Date.now();
  const result = await client.callTool({ name: tool.name, arguments: args });
  host.calls.push({ name: tool.name, arguments: args, at: Date.now() });
  await bridge.sendToolResult(result);
  document.body.dataset.state = 'shown';
}

main().catch((error) => {
  host.errors.push(String(error?.stack ?? error));
  log(`failed: ${error?.message ?? error}`);
  document.body.dataset.state = 'failed';
});
