// The page with A2UI v0.8: the official Lit renderer (`@a2ui/lit/0.8`). Unlike v0.9, its
// elements only raise `a2uiaction` events: this module resolves the action's context
// against the data model and sends a `userAction`.
import { ContextProvider } from '@lit/context';
import { renderMarkdown } from '@a2ui/markdown-it';
import { Data } from '@a2ui/lit/v0_8';
import * as UI from '@a2ui/lit/ui';
import { startChat } from './chat.js';
import { forget, progressive } from './progressive_v0_8.js';
import { theme } from './theme_v0_8.js';

/** The v0.8 basic ("standard") catalog, the one catalog this renderer draws. */
const STANDARD_CATALOG = 'https://a2ui.org/specification/v0_8/standard_catalog_definition.json';

const processor = Data.createSignalA2uiMessageProcessor();
const elements = new Map();
const transcript = document.getElementById('transcript');
new ContextProvider(transcript, { context: UI.Context.theme, initialValue: theme }).hostConnected();
new ContextProvider(transcript, { context: UI.Context.markdown, initialValue: renderMarkdown }).hostConnected();

let sendAction = () => {};
transcript.addEventListener('a2uiaction', (event) => {
  const { action, sourceComponentId, sourceComponent } = event.detail;
  const surface = event.composedPath().find((node) => node instanceof UI.Surface);
  const surfaceId = surface?.surfaceId;
  if (!surfaceId || !action?.name) return;
  const context = {};
  for (const { key, value } of action.context ?? []) {
    context[key] = resolve(value, sourceComponent, surfaceId);
  }
  const summary = Object.entries(context)
    .map(([key, value]) => `${key}: ${typeof value === 'string' ? value : JSON.stringify(value)}`)
    .join(', ');
  sendAction(
    {
      userAction: {
        name: action.name,
        surfaceId,
        sourceComponentId,
        timestamp: new Date().toISOString(),
        context,
      },
    },
    summary ? `${action.name} (${summary})` : action.name,
  );
});

/** A bound value (`path`, or a literal) as plain JSON. */
function resolve(value, node, surfaceId) {
  if (value?.path !== undefined) {
    return plain(processor.getData(node, value.path, surfaceId));
  }
  return value?.literalString ?? value?.literalNumber ?? value?.literalBoolean ?? value?.literalArray ?? null;
}

/** The data model keeps objects as Maps; an action's context is JSON. */
function plain(value) {
  if (value instanceof Map) {
    return Object.fromEntries([...value].map(([k, v]) => [k, plain(v)]));
  }
  if (Array.isArray(value)) return value.map(plain);
  return value ?? null;
}

startChat({
  version: 'v0.8',
  extension: 'https://a2ui.org/a2a-extension/a2ui/v0.8',
  mimeType: 'application/json+a2ui',
  capabilities: () => ({ supportedCatalogIds: [STANDARD_CATALOG] }),
  // v0.8 has no client data model: actions carry their resolved context instead.
  dataModel: () => undefined,
  process(message, into) {
    const begin = message?.beginRendering?.surfaceId;
    if (begin !== undefined && elements.has(begin)) {
      // A surface id names one live surface: an agent that begins it again replaces it.
      processor.processMessages([{ deleteSurface: { surfaceId: begin } }]);
      forget(begin);
    }
    const complete = progressive(message);
    if (complete) processor.processMessages([complete]);
    const surfaces = processor.getSurfaces();
    for (const [id, element] of elements) {
      if (!surfaces.has(id)) {
        element.remove();
        elements.delete(id);
      }
    }
    for (const [id, surface] of surfaces) {
      let element = elements.get(id);
      if (!element) {
        element = document.createElement('a2ui-surface');
        element.surfaceId = id;
        element.processor = processor;
        elements.set(id, element);
        into.append(element);
      }
      element.surface = surface;
      element.requestUpdate();
    }
  },
  onAction(send) {
    sendAction = send;
  },
});
