// The chat client both pages share: it finds the agent from its card, sends the user's
// messages with the A2UI extension and the renderer's capabilities, shows the streamed text
// as it arrives, hands each A2UI message to the renderer, and sends the renderer's user
// actions back as the next message of the same task.
//
// It knows nothing of one A2UI version: `startChat` takes a renderer (see `v0_9.js` and
// `v0_8.js`), because the official renderer registers the same element names for both
// versions and one page can hold only one of them.
import {
  ClientFactory,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  ServiceParameters,
  withA2AExtensions,
} from '@a2a-js/sdk/client';
import { Role, TaskState } from '@a2a-js/sdk';
import { kindOf } from './parts.js';

/** The MIME types that mark a DataPart as an A2UI message (v0.8/v0.9, and v0.9.1 on). */
/** Task states after which a new message starts a new task. */
const TERMINAL = new Set([
  TaskState.TASK_STATE_COMPLETED,
  TaskState.TASK_STATE_CANCELED,
  TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_REJECTED,
]);

/**
 * @typedef {object} Renderer
 * @property {string} version      the A2UI version, "v0.9" or "v0.8"
 * @property {string} extension    the A2A extension URI that activates it
 * @property {string} mimeType     the MIME type of the DataParts it sends
 * @property {() => object} capabilities  `a2uiClientCapabilities` for every message
 * @property {() => object|undefined} dataModel  `a2uiClientDataModel`, when a surface asks
 * @property {(message: object, place: HTMLElement) => void} process  renders one message;
 *   a surface seen for the first time is placed in `place`
 * @property {(send: (payload: object, label: string) => void) => void} onAction
 *   registers the function user actions are sent with
 */

/**
 * Starts the chat in the page's `#chat` form and `#transcript`.
 *
 * @param {Renderer} renderer
 */
export async function startChat(renderer) {
  const ui = {
    form: document.getElementById('chat'),
    input: document.getElementById('message'),
    send: document.getElementById('send'),
    transcript: document.getElementById('transcript'),
    status: document.getElementById('status'),
    agent: document.getElementById('agent'),
    version: document.getElementById('version'),
  };
  ui.version.value = renderer.version;
  ui.version.addEventListener('change', () => {
    const url = new URL(location.href);
    url.searchParams.set('a2ui', ui.version.value);
    location.assign(url);
  });

  let client;
  let card;
  try {
    client = await connect();
    card = await client.getAgentCard();
  } catch (error) {
    setStatus(ui, 'error', `Cannot reach the agent: ${error.message}`);
    return;
  }
  ui.agent.textContent = `${card.name} · A2A ${client.protocolVersion} · A2UI ${renderer.version}`;

  const chat = new Chat(client, renderer, ui, followNewest(ui.transcript));
  renderer.onAction((payload, label) => chat.send([dataPart(payload, renderer.mimeType)], label));
  ui.form.addEventListener('submit', (event) => {
    event.preventDefault();
    const text = ui.input.value.trim();
    if (!text || chat.busy) return;
    ui.input.value = '';
    chat.send([{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: '' }], text);
  });
  ui.send.disabled = false;
  setStatus(ui, 'idle', 'Ready');
}

/**
 * A client from the agent card at this page's origin, through the SDK's own factory: it
 * prefers a 1.0 interface when the card lists one (`supportedInterfaces`) and falls back to
 * its 0.3 compatibility transport for a 0.3 card.
 */
async function connect() {
  const compat = { legacyCompat: { enabled: true } };
  const factory = new ClientFactory({
    transports: [new JsonRpcTransportFactory(compat)],
    cardResolver: new DefaultAgentCardResolver(compat),
  });
  return factory.createFromUrl(location.origin);
}

/** One conversation: the task it continues and the turn being streamed. */
class Chat {
  constructor(client, renderer, ui, follow) {
    this.client = client;
    this.follow = follow;
    this.renderer = renderer;
    this.ui = ui;
    this.taskId = '';
    this.contextId = '';
    this.busy = false;
    /** What the person did while a reply streamed, in order, each with its pending turn. */
    this.queue = [];
  }

  /**
   * Sends `parts` (shown as `label`) and streams the reply into a new agent turn. While a
   * reply still streams (its buttons are there early: that is progressive rendering) the
   * message waits in a queue, shown as a pending turn, and goes out when the turn ends:
   * nothing a person does is dropped, and each message continues the task the reply left.
   */
  async send(parts, label) {
    if (this.busy) {
      const pending = turn(this.ui.transcript, 'user');
      pending.classList.add('pending');
      pending.textContent = label;
      pending.title = 'Sent when the agent has finished answering';
      this.queue.push({ parts, label, pending });
      this.follow();
      return;
    }
    await this.#turn(parts, label, null);
    while (this.queue.length > 0) {
      const next = this.queue.shift();
      await this.#turn(next.parts, next.label, next.pending);
    }
  }

  /** One turn: the user's (already shown when it was queued) and the agent's reply. */
  async #turn(parts, label, shown) {
    this.busy = true;
    this.ui.send.disabled = true;
    this.follow();
    if (shown) {
      shown.classList.remove('pending');
      shown.removeAttribute('title');
      shown.remove();
      this.ui.transcript.append(shown);
    } else {
      turn(this.ui.transcript, 'user').textContent = label;
    }
    const answering = 'The agent is answering…';
    const reply = new Reply(turn(this.ui.transcript, 'agent'), this.renderer, (passing) =>
      setStatus(this.ui, 'streaming', passing ?? answering),
    );
    setStatus(this.ui, 'streaming', answering);

    const metadata = { a2uiClientCapabilities: this.renderer.capabilities() };
    const dataModel = this.renderer.dataModel();
    if (dataModel) metadata.a2uiClientDataModel = dataModel;
    const message = {
      messageId: uuid(),
      contextId: this.contextId,
      taskId: this.taskId,
      role: Role.ROLE_USER,
      parts,
      metadata,
      extensions: [this.renderer.extension],
      referenceTaskIds: [],
    };
    // The extension is activated both ways clients do it: in the message and in the header
    // (which the SDK spells for the protocol version it picked).
    const serviceParameters = ServiceParameters.create(withA2AExtensions(this.renderer.extension));
    let state;
    try {
      for await (const event of this.client.sendMessageStream({ message }, { serviceParameters })) {
        state = this.#follow(event.payload, reply) ?? state;
      }
      setStatus(this.ui, 'idle', 'Ready');
    } catch (error) {
      reply.note(`The request failed: ${error.message}`);
      setStatus(this.ui, 'idle', 'The last request failed');
    }
    if (state === undefined || TERMINAL.has(state)) {
      this.taskId = '';
    }
    this.busy = false;
    this.ui.send.disabled = false;
    this.ui.input.focus();
  }

  /** Takes one stream event; returns the task's state when the event tells it. */
  #follow(payload, reply) {
    switch (payload?.$case) {
      case 'task': {
        const task = payload.value;
        this.taskId = task.id;
        this.contextId = task.contextId;
        reply.parts(task.status?.message?.parts);
        return task.status?.state;
      }
      case 'statusUpdate': {
        const update = payload.value;
        this.taskId = update.taskId;
        this.contextId = update.contextId;
        reply.parts(update.status?.message?.parts);
        return update.status?.state;
      }
      case 'artifactUpdate':
        reply.parts(payload.value.artifact?.parts);
        return undefined;
      case 'message':
        reply.parts(payload.value.parts);
        return TaskState.TASK_STATE_COMPLETED;
      default:
        return undefined;
    }
  }
}

/** The agent's turn being streamed: text runs and surfaces, in the order they come. */
class Reply {
  /** `status(text)` shows a passing status line (`null`: none). */
  constructor(element, renderer, status) {
    this.element = element;
    this.renderer = renderer;
    this.status = status;
    this.text = null;
  }

  parts(parts) {
    // A passing status ("The model is reading the prompt…", marked `a2uiAgentStatus`) is not
    // part of the reply: it shows in the status line until the next update replaces it.
    let passing = null;
    for (const part of parts ?? []) {
      switch (kindOf(part)) {
        case 'status':
          passing = part.content.value;
          break;
        case 'text':
          this.#text(part.content.value);
          break;
        case 'a2ui':
          this.text = null;
          this.#render(part.content.value);
          break;
        default:
      }
    }
    this.status(passing);
  }

  note(text) {
    const note = document.createElement('p');
    note.className = 'note';
    note.textContent = text;
    this.element.append(note);
    this.text = null;
  }

  #text(value) {
    if (!this.text) {
      this.text = document.createElement('p');
      this.text.className = 'text';
      this.element.append(this.text);
    }
    this.text.textContent += value;
  }

  #render(value) {
    try {
      this.renderer.process(value, this.element);
    } catch (error) {
      this.note(`The renderer refused a message: ${error.message}`);
    }
  }
}

/**
 * Keeps the newest output in view as the transcript grows (text, and surfaces that the
 * renderer draws after the message that made them), unless the reader scrolled up to read.
 * Returns the function that follows again (on sending).
 */
function followNewest(transcript) {
  const page = document.documentElement;
  let following = true;
  const atBottom = () => window.innerHeight + window.scrollY >= page.scrollHeight - 160;
  window.addEventListener('scroll', () => { following = atBottom(); }, { passive: true });
  new ResizeObserver(() => {
    if (following) window.scrollTo(0, page.scrollHeight);
  }).observe(transcript);
  return () => {
    following = true;
  };
}

/** A DataPart carrying one A2UI client-to-server message. */
function dataPart(payload, mimeType) {
  return { content: { $case: 'data', value: payload }, metadata: { mimeType }, filename: '', mediaType: mimeType };
}

function turn(transcript, who) {
  const element = document.createElement('div');
  element.className = `turn ${who}`;
  transcript.append(element);
  return element;
}

function setStatus(ui, state, text) {
  document.body.dataset.state = state;
  ui.status.textContent = text;
}

/** A random UUID; `crypto.randomUUID` exists only in secure contexts (not plain http to a LAN host). */
function uuid() {
  if (crypto.randomUUID) return crypto.randomUUID();
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
