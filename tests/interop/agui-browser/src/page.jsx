// A chat page wired the way a CopilotKit frontend wires A2UI over AG-UI, from the same
// packages: `@ag-ui/client`'s HttpAgent runs the agent at `/ag-ui` on this origin, its
// messages (text and `a2ui-surface` activities) are drawn in order, and each surface is drawn
// by CopilotKit's own A2UI renderer (`@copilotkit/a2ui-renderer`), exactly as CopilotKit's
// `createA2UIMessageRenderer` does (and with the catalog context its `A2UICatalogContext`
// sends): one A2UIProvider per surface, each new snapshot's
// operations processed again (without the createSurface once the surface exists), and a
// button's action sent back as `forwardedProps.a2uiAction` on a new run of the same thread.
//
// The page tells a driver what it is doing in `document.body.dataset.state`: `idle` or
// `streaming`; the agent's endpoint is `?agent=PATH` (default `/ag-ui`).
import React, { useCallback, useEffect, useRef, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { HttpAgent } from '@ag-ui/client';
import {
  A2UI_SCHEMA_CONTEXT_DESCRIPTION,
  A2UIProvider,
  A2UIRenderer,
  buildCatalogContextValue,
  extractCatalogComponentSchemas,
  initializeDefaultCatalog,
  injectStyles,
  useA2UIActions,
  useA2UIError,
} from '@copilotkit/a2ui-renderer';

initializeDefaultCatalog();
injectStyles();

// The agent's AG-UI endpoint: `?agent=PATH` on the page's address, else `/ag-ui`.
const endpoint = new URLSearchParams(window.location.search).get('agent') ?? '/ag-ui';
const agent = new HttpAgent({ url: new URL(endpoint, window.location.origin).href });

// What CopilotKit's `A2UICatalogContext` tells the agent on every run: the catalog the
// renderer registered, in words and as the inline catalog (whose `catalogId` names it).
const context = [
  {
    description:
      'A2UI catalog capabilities: available catalog IDs and custom component definitions the client can render.',
    value: buildCatalogContextValue(),
  },
  { description: A2UI_SCHEMA_CONTEXT_DESCRIPTION, value: JSON.stringify(extractCatalogComponentSchemas()) },
];

function surfaceIdOf(operation) {
  for (const value of Object.values(operation ?? {})) {
    if (value && typeof value === 'object' && typeof value.surfaceId === 'string') return value.surfaceId;
  }
  return 'default';
}

function SurfaceMessageProcessor({ surfaceId, operations }) {
  const { processMessages, getSurface } = useA2UIActions();
  const last = useRef('');
  useEffect(() => {
    const hash = JSON.stringify(operations);
    if (hash === last.current) return;
    last.current = hash;
    processMessages(getSurface(surfaceId) ? operations.filter((op) => !op?.createSurface) : operations);
  }, [processMessages, getSurface, surfaceId, operations]);
  return null;
}

function SurfaceOrError({ surfaceId }) {
  const error = useA2UIError();
  if (error) return <div className="render-error">A2UI render error: {error}</div>;
  return <A2UIRenderer surfaceId={surfaceId} />;
}

function Surface({ surfaceId, operations, run }) {
  const onAction = useCallback((message) => run({ a2uiAction: message }), [run]);
  return (
    <div className="a2ui-surface" data-surface={surfaceId}>
      <A2UIProvider onAction={onAction}>
        <SurfaceMessageProcessor surfaceId={surfaceId} operations={operations} />
        <SurfaceOrError surfaceId={surfaceId} />
      </A2UIProvider>
    </div>
  );
}

function Activity({ content, run }) {
  const groups = new Map();
  for (const operation of content?.a2ui_operations ?? []) {
    const id = surfaceIdOf(operation);
    if (!groups.has(id)) groups.set(id, []);
    groups.get(id).push(operation);
  }
  return [...groups].map(([id, operations]) => <Surface key={id} surfaceId={id} operations={operations} run={run} />);
}

function Message({ message, run }) {
  if (message.role === 'activity' && message.activityType === 'a2ui-surface') {
    return <Activity content={message.content} run={run} />;
  }
  if ((message.role === 'user' || message.role === 'assistant') && typeof message.content === 'string') {
    return <div className={`turn ${message.role}`}><span className="text">{message.content}</span></div>;
  }
  return null;
}

function App() {
  const [messages, setMessages] = useState([]);
  const [state, setState] = useState('idle');
  const [text, setText] = useState('');
  const [problems, setProblems] = useState([]);
  const queue = useRef(Promise.resolve());

  useEffect(() => {
    document.body.dataset.state = state;
  }, [state]);

  // One run at a time, as CopilotKit runs them: a press while a reply streams waits its turn.
  const run = useCallback((forwardedProps = {}) => {
    queue.current = queue.current.then(async () => {
      setState('streaming');
      try {
        await agent.runAgent(
          { forwardedProps, context },
          {
            onMessagesChanged: ({ messages }) => setMessages([...messages]),
            onRunErrorEvent: ({ event }) => setProblems((p) => [...p, event.message]),
          },
        );
      } catch (error) {
        setProblems((p) => [...p, String(error)]);
      } finally {
        setMessages([...agent.messages]);
        setState('idle');
      }
    });
    return queue.current;
  }, []);

  const send = (event) => {
    event.preventDefault();
    if (!text.trim()) return;
    agent.addMessage({ id: crypto.randomUUID(), role: 'user', content: text });
    setMessages([...agent.messages]);
    setText('');
    run();
  };

  return (
    <>
      {messages.map((message) => <Message key={message.id} message={message} run={run} />)}
      {problems.map((problem, i) => <div key={i} className="problem">{problem}</div>)}
      <form onSubmit={send}>
        <input aria-label="Message" value={text} onChange={(e) => setText(e.target.value)} />
        <button type="submit">Send</button>
      </form>
    </>
  );
}

createRoot(document.getElementById('app')).render(<App />);
