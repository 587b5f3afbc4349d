// The renderer bundle `a2ui-agent serve --mcp` offers MCP Apps hosts (ui://a2ui-agent/renderer.html):
// the official Lit renderer (`@a2ui/lit/v0_9`) inside the host's sandboxed iframe, wired
// to the host by ext-apps' app-side bridge (`App`), as A2UI over MCP Apps describes:
//
// - the host hands over the agent tool's result (`ui/notifications/tool-result`); its
//   `application/a2ui+json` resources hold the A2UI messages, drawn in order;
// - a component's action goes back through the host as `tools/call`: the tool named for
//   the event, the resolved context as arguments, `_meta["org.a2ui/ui"]` naming the
//   surface (and its data model when the surface asks); that call's result is drawn too;
// - `openUrl` goes through the host (`ui/open-link`): the sandbox may not open windows;
// - teardown and a cancelled call remove the surfaces.
//
// The page has no network access of its own: everything comes over the host's postMessage.
import { App, applyDocumentTheme, applyHostStyleVariables } from '@modelcontextprotocol/ext-apps';
import { ContextProvider } from '@lit/context';
import { renderMarkdown } from '@a2ui/markdown-it';
import { MessageProcessor } from '@a2ui/web_core/v0_9';
import { Context, basicCatalog } from '@a2ui/lit/v0_9';
import './controller_fix.js';

const VERSION = 'v0.9';
const MIME = 'application/a2ui+json';
const KEY = 'org.a2ui/ui';

const root = document.getElementById('a2ui-root');
const notes = document.getElementById('notes');
new ContextProvider(root, { context: Context.markdown, initialValue: renderMarkdown }).hostConnected();

const app = new App({ name: 'a2ui-agent renderer', version: '1.0.0' }, {});
const processor = new MessageProcessor([basicCatalog], (action) => {
  sendAction(action).catch((error) => note(`The action “${action.name}” failed: ${error?.message ?? error}`));
});

/** The element drawing each surface, so a deleted surface leaves the page. */
const elements = new Map();
processor.onSurfaceCreated((surface) => {
  const element = document.createElement('a2ui-surface');
  element.surface = surface;
  elements.set(surface.id, element);
  root.append(element);
});
processor.onSurfaceDeleted((id) => {
  elements.get(id)?.remove();
  elements.delete(id);
});

/** Shows `text` under the surfaces (a failure, or a reply without A2UI). */
function note(text) {
  const line = document.createElement('p');
  line.className = 'note';
  line.textContent = text;
  notes.replaceChildren(line);
}

/** The A2UI messages of a tool result, in order (A2UI over MCP Apps' extraction). */
function messagesOf(result) {
  const messages = [];
  for (const item of result?.content ?? []) {
    const resource = item?.type === 'resource' ? item.resource : undefined;
    if (resource?.mimeType !== MIME) continue;
    const text = typeof resource.text === 'string' ? resource.text : decode(resource.blob);
    const payload = JSON.parse(text);
    messages.push(...(Array.isArray(payload) ? payload : [payload]));
  }
  return messages;
}

/** The UTF-8 text of base64 `blob`. */
function decode(blob) {
  const bytes = Uint8Array.from(atob(String(blob ?? '')), (c) => c.charCodeAt(0));
  return new TextDecoder().decode(bytes);
}

/** Draws a tool result: its A2UI messages, or its text when it has none. */
function draw(result) {
  let messages;
  try {
    messages = messagesOf(result);
  } catch (error) {
    note(`The result's A2UI does not read: ${error.message}`);
    return;
  }
  const text = (result?.content ?? [])
    .filter((item) => item?.type === 'text')
    .map((item) => item.text)
    .join('\n');
  if (result?.isError || messages.length === 0) {
    note(text || 'The agent sent nothing to show.');
    return;
  }
  notes.replaceChildren();
  for (const message of messages) {
    if (message?.version !== VERSION) {
      note(`This renderer draws A2UI ${VERSION}, not ${message?.version ?? 'v0.8'}.`);
      continue;
    }
    if ('callRendererFunction' in message) continue; // not supported over MCP
    // A surface id names one live surface: an agent that creates it again replaces it.
    const id = message.createSurface?.surfaceId;
    if (id !== undefined && processor.model.getSurface(id)) {
      processor.processMessages([{ version: VERSION, deleteSurface: { surfaceId: id } }]);
    }
    try {
      processor.processMessages([message]);
    } catch (error) {
      note(`A message could not be drawn: ${error.message}`);
    }
  }
}

/** Sends a user action as `tools/call` through the host and draws its result. */
async function sendAction(action) {
  const meta = {
    surfaceId: action.surfaceId,
    rendererCapabilities: processor.getClientCapabilities(),
  };
  const dataModel = processor.getClientDataModel();
  if (dataModel) meta.dataModel = dataModel;
  const result = await app.callServerTool({
    name: action.name,
    arguments: action.context ?? {},
    _meta: { [KEY]: meta },
  });
  draw(result);
}

/** Removes every surface. */
function clear() {
  for (const id of [...elements.keys()]) {
    processor.processMessages([{ version: VERSION, deleteSurface: { surfaceId: id } }]);
  }
  notes.replaceChildren();
}

/** Follows the host's theme and style variables. */
function style(context) {
  if (context?.theme) applyDocumentTheme(context.theme);
  if (context?.styles?.variables) applyHostStyleVariables(context.styles.variables);
}

// The sandbox may not open windows: links go through the host.
window.open = (url) => {
  app.openLink({ url: String(url) }).catch((error) => note(`The link did not open: ${error.message}`));
  return null;
};

app.ontoolresult = draw;
app.ontoolcancelled = clear;
app.onteardown = () => {
  clear();
  return {};
};
app.onhostcontextchanged = style;

await app.connect();
style(app.getHostContext());
document.body.dataset.state = 'ready';
