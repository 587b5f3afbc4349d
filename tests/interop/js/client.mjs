// Drives an A2A 0.3 JSON-RPC agent with the real @a2a-js/sdk client, in its legacy-compat mode
// (the SDK speaks 1.0 natively; `legacyCompat` makes it read a 0.3 card and pick its 0.3
// JSON-RPC transport).
//
// Usage: node client.mjs BASE_URL SCENARIO
//   send    blocking message/send "hello": an input-required task whose status message holds
//           the agent's text;
//   stream  message/stream "hello": the stream ends by itself after the Task, a working update
//           and the final input-required update carrying the agent's text.
// Prints one JSON line describing what it saw and exits 0, or prints `FAIL: why` on stderr and
// exits 1.
import {
  ClientFactory,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
} from '@a2a-js/sdk/client';
import { Role, TaskState } from '@a2a-js/sdk';
import { randomUUID } from 'node:crypto';

function fail(why) {
  process.stderr.write(`FAIL: ${why}\n`);
  process.exit(1);
}

function check(condition, why) {
  if (!condition) fail(why);
}

function textOf(message) {
  return (message?.parts ?? [])
    .filter((part) => part.content?.$case === 'text')
    .map((part) => part.content.value)
    .join('');
}

function userMessage(text) {
  return {
    messageId: randomUUID(),
    role: Role.ROLE_USER,
    parts: [{ content: { $case: 'text', value: text } }],
  };
}

const stateName = (state) => TaskState[state] ?? String(state);

async function connect(baseUrl) {
  const compat = { legacyCompat: { enabled: true } };
  const factory = new ClientFactory({
    transports: [new JsonRpcTransportFactory(compat)],
    cardResolver: new DefaultAgentCardResolver(compat),
  });
  const client = await factory.createFromUrl(baseUrl);
  // The SDK bundles its transports per entry point, so compare by what they report rather
  // than with `instanceof`.
  const transport = client.transport;
  check(
    transport.protocolName === 'JSONRPC' && /^0\.3(\.|$)/.test(transport.protocolVersion),
    `the card did not resolve to the 0.3 JSON-RPC transport (got ${transport?.constructor?.name}: ${transport.protocolName} ${transport.protocolVersion})`,
  );
  return client;
}

async function send(client) {
  const result = await client.sendMessage({ message: userMessage('hello') });
  check(result && 'status' in result, `message/send did not return a Task: ${JSON.stringify(result)}`);
  const state = result.status?.state;
  check(
    state === TaskState.TASK_STATE_INPUT_REQUIRED,
    `message/send returned a task in state ${stateName(state)}, expected TASK_STATE_INPUT_REQUIRED`,
  );
  const text = textOf(result.status?.message);
  check(text.includes('hello'), `the task's status message does not hold the agent's text: ${JSON.stringify(text)}`);
  return { taskId: result.id, state: stateName(state), text };
}

async function stream(client) {
  const kinds = [];
  let text = '';
  let lastState;
  let taskId;
  for await (const event of client.sendMessageStream({ message: userMessage('hello') })) {
    const payload = event.payload;
    kinds.push(payload?.$case);
    if (payload?.$case === 'task') taskId = payload.value.id;
    if (payload?.$case === 'statusUpdate') {
      lastState = payload.value.status?.state;
      text += textOf(payload.value.status?.message);
    }
  }
  check(kinds[0] === 'task', `the stream did not start with the Task: ${JSON.stringify(kinds)}`);
  check(
    lastState === TaskState.TASK_STATE_INPUT_REQUIRED,
    `the stream's last status update is ${stateName(lastState)}, expected TASK_STATE_INPUT_REQUIRED`,
  );
  check(text.includes('hello'), `the stream's status updates do not carry the agent's text: ${JSON.stringify(text)}`);
  return { taskId, events: kinds, state: stateName(lastState), text };
}

// The longest a scenario may take before it counts as hung (a stream that never closes).
const SCENARIO_DEADLINE_MS = 60_000;

const [baseUrl, scenario] = process.argv.slice(2);
const scenarios = { send, stream };
check(baseUrl && scenarios[scenario], `usage: node client.mjs BASE_URL (${Object.keys(scenarios).join('|')})`);
setTimeout(() => fail(`${scenario}: no result within ${SCENARIO_DEADLINE_MS / 1000} s (hung?)`), SCENARIO_DEADLINE_MS).unref();
try {
  const client = await connect(baseUrl);
  const seen = await scenarios[scenario](client);
  process.stdout.write(JSON.stringify({ scenario, ...seen }) + '\n');
} catch (error) {
  fail(`${scenario}: ${error?.stack ?? error}`);
}
