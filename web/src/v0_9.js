// The page with A2UI v0.9: the official Lit renderer (`@a2ui/lit/v0_9`) over web_core's
// MessageProcessor, which resolves bindings and action contexts itself.
import { ContextProvider } from '@lit/context';
import { renderMarkdown } from '@a2ui/markdown-it';
import { A2uiController, MessageProcessor } from '@a2ui/web_core/v0_9';
import { Context, basicCatalog } from '@a2ui/lit/v0_9';
import { startChat } from './chat.js';

const VERSION = 'v0.9';

// Works around a leak in @a2ui/web_core 0.11.0: every re-render of a parent hands its
// children a new context, and each child then swaps its controller, disposing the old one
// without ending its subscriptions. The old controller's "a component was created" listener
// lives on, so while a surface streams in one component at a time the listeners multiply
// with every message, and a page renders ever slower until the tab runs out of memory (1 GB
// heap for the demo's 26 messages). Ending the subscriptions on dispose, as a disconnect
// does, keeps the heap flat (about 8 MB).
const dispose = A2uiController.prototype.dispose;
A2uiController.prototype.dispose = function disposeAndUnsubscribe() {
  this.hostDisconnected();
  dispose.call(this);
};

let sendAction = () => {};
const processor = new MessageProcessor([basicCatalog], (action) => {
  const context = Object.entries(action.context ?? {})
    .map(([key, value]) => `${key}: ${typeof value === 'string' ? value : JSON.stringify(value)}`)
    .join(', ');
  sendAction({ version: VERSION, action }, context ? `${action.name} (${context})` : action.name);
});

/** The element drawing each surface, so a deleted surface leaves the page. */
const elements = new Map();
let place = null;
processor.onSurfaceCreated((surface) => {
  const element = document.createElement('a2ui-surface');
  element.surface = surface;
  elements.set(surface.id, element);
  place?.append(element);
});
processor.onSurfaceDeleted((id) => {
  elements.get(id)?.remove();
  elements.delete(id);
});

// Text components render Markdown through the official markdown-it renderer (sanitized).
const transcript = document.getElementById('transcript');
new ContextProvider(transcript, { context: Context.markdown, initialValue: renderMarkdown }).hostConnected();

startChat({
  version: VERSION,
  extension: 'https://a2ui.org/a2a-extension/a2ui/v0.9',
  mimeType: 'application/json+a2ui',
  capabilities: () => processor.getClientCapabilities(),
  dataModel: () => processor.getClientDataModel(),
  process(message, into) {
    // A surface id names one live surface: an agent that creates it again replaces it.
    const id = message?.createSurface?.surfaceId;
    if (id !== undefined && processor.model.getSurface(id)) {
      processor.processMessages([{ version: VERSION, deleteSurface: { surfaceId: id } }]);
    }
    place = into;
    processor.processMessages([message]);
  },
  onAction(send) {
    sendAction = send;
  },
});
