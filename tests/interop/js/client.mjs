// Drives our agent with the real @a2a-js/sdk client over one of its transports.
//
// Our card offers JSON-RPC 1.0, HTTP+JSON 1.0 and JSON-RPC 0.3. TRANSPORT picks the way in:
//   jsonrpc  (default) `new ClientFactory()`, the SDK's defaults, no legacyCompat: JSON-RPC 1.0;
//   rest     the defaults with `preferredTransports: ['HTTP+JSON']`: HTTP+JSON 1.0;
//   0.3      `legacyCompat` on, given the card with only its 0.3 interface (as a 0.3 agent's
//            card reads): the 0.3 JSON-RPC transport;
//   grpc     the SDK's `GrpcTransportFactory` (`@a2a-js/sdk/client/grpc`, with its peers
//            @grpc/grpc-js and @bufbuild/protobuf) with insecure credentials and
//            `preferredTransports: ['GRPC']`: gRPC 1.0, at the card's `host:port`.
//
// Usage: node client.mjs BASE_URL SCENARIO [TRANSPORT]
//   send    blocking message/send "hello": an input-required task whose status message holds
//           the agent's text;
//   stream  message/stream "hello": the stream ends by itself after the Task, a working update
//           and the final input-required update carrying the agent's text;
//   get     tasks/get of a sent task: its state, reply and the user's message in the history;
//   cancel  non-blocking message/send "wait ..." (the agent never answers), then tasks/cancel:
//           the task is canceled, and tasks/get agrees;
//   continue  a second message with the first's taskId continues it: the agent sees the history;
//   list    (1.0 only) ListTasks of one context, one task per page: each task once, newest first;
//   resubscribe  subscribe to a running task, cancel it from another client: the stream shows
//           the Task first and ends on canceled.
// Prints one JSON line describing what it saw and exits 0, or prints `FAIL: why` on stderr and
// exits 1.
import {
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
} from '@a2a-js/sdk/client';
import { GrpcTransportFactory } from '@a2a-js/sdk/client/grpc';
import { Role, TaskState } from '@a2a-js/sdk';
import * as grpc from '@grpc/grpc-js';
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

function userMessage(text, taskId = '', contextId = '') {
  return {
    messageId: randomUUID(),
    role: Role.ROLE_USER,
    parts: [{ content: { $case: 'text', value: text } }],
    taskId,
    contextId,
    // The SDK's gRPC transport serializes with the generated message types, whose repeated
    // fields must be arrays; the JSON transports leave empty ones out either way.
    extensions: [],
    referenceTaskIds: [],
  };
}

const stateName = (state) => TaskState[state] ?? String(state);

const EXPECTED = {
  jsonrpc: ['JSONRPC', /^1\.0$/],
  rest: ['HTTP+JSON', /^1\.0$/],
  '0.3': ['JSONRPC', /^0\.3(\.|$)/],
  grpc: ['GRPC', /^1\.0$/],
};
let transportName = 'jsonrpc';

async function connect(baseUrl, clientConfig = {}) {
  let client;
  if (transportName === '0.3') {
    const compat = { legacyCompat: { enabled: true } };
    const resolver = new DefaultAgentCardResolver(compat);
    const card = await resolver.resolve(baseUrl);
    const legacy = card.supportedInterfaces.filter((i) => i.protocolVersion.startsWith('0.3'));
    check(legacy.length === 1, `the card lists ${legacy.length} 0.3 interfaces, expected 1`);
    const factory = new ClientFactory({
      transports: [new JsonRpcTransportFactory(compat)],
      cardResolver: resolver,
      clientConfig,
    });
    client = await factory.createFromAgentCard({ ...card, supportedInterfaces: legacy });
  } else {
    const overrides = { clientConfig };
    if (transportName === 'rest') overrides.preferredTransports = ['HTTP+JSON'];
    if (transportName === 'grpc') {
      overrides.preferredTransports = ['GRPC'];
      const credentials = grpc.credentials.createInsecure();
      overrides.transports = [new GrpcTransportFactory({ grpcChannelCredentials: credentials })];
    }
    const factory = new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, overrides),
    );
    client = await factory.createFromUrl(baseUrl);
  }
  // The SDK bundles its transports per entry point, so compare by what they report rather
  // than with `instanceof`.
  const transport = client.transport;
  const [binding, version] = EXPECTED[transportName];
  check(
    transport.protocolName === binding && version.test(transport.protocolVersion),
    `the card did not resolve to ${binding} ${version} (got ${transport?.constructor?.name}: ${transport.protocolName} ${transport.protocolVersion})`,
  );
  return client;
}

async function sendHello(client) {
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

async function send(baseUrl) {
  return sendHello(await connect(baseUrl));
}

async function get(baseUrl) {
  const client = await connect(baseUrl);
  const sent = await sendHello(client);
  const task = await client.getTask({ id: sent.taskId });
  check(task.id === sent.taskId, `tasks/get returned task ${task.id}, asked for ${sent.taskId}`);
  const state = task.status?.state;
  check(
    state === TaskState.TASK_STATE_INPUT_REQUIRED,
    `tasks/get says ${stateName(state)}, expected TASK_STATE_INPUT_REQUIRED`,
  );
  const userTexts = (task.history ?? []).filter((m) => m.role === Role.ROLE_USER).map(textOf);
  check(userTexts.includes('hello'), `tasks/get history lacks the user's message: ${JSON.stringify(userTexts)}`);
  return { taskId: task.id, state: stateName(state), text: textOf(task.status?.message) };
}

async function cancel(baseUrl) {
  // polling: true sends configuration.blocking = false, so the Task comes back at once.
  const client = await connect(baseUrl, { polling: true });
  const started = await client.sendMessage({ message: userMessage('wait for cancel') });
  check(started && 'status' in started, `non-blocking message/send did not return a Task: ${JSON.stringify(started)}`);
  const running = [TaskState.TASK_STATE_SUBMITTED, TaskState.TASK_STATE_WORKING];
  check(
    running.includes(started.status?.state),
    `non-blocking message/send returned ${stateName(started.status?.state)}, expected the task still running`,
  );
  const canceled = await client.cancelTask({ id: started.id });
  check(
    canceled.status?.state === TaskState.TASK_STATE_CANCELED,
    `tasks/cancel returned ${stateName(canceled.status?.state)}, expected TASK_STATE_CANCELED`,
  );
  const after = await client.getTask({ id: started.id });
  check(
    after.status?.state === TaskState.TASK_STATE_CANCELED,
    `tasks/get after cancel says ${stateName(after.status?.state)}, expected TASK_STATE_CANCELED`,
  );
  return { taskId: started.id, state: stateName(after.status?.state) };
}

async function stream(baseUrl) {
  const client = await connect(baseUrl);
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

async function continueTask(baseUrl) {
  const client = await connect(baseUrl);
  const first = await client.sendMessage({ message: userMessage('first') });
  check(first && 'status' in first, `the first send did not return a Task: ${JSON.stringify(first)}`);
  const second = await client.sendMessage({ message: userMessage('second', first.id) });
  check(second.id === first.id, `the continuation opened task ${second.id}, expected ${first.id}`);
  check(second.contextId === first.contextId, 'the continuation changed the context');
  const text = textOf(second.status?.message);
  check(text.includes('history: first'), `the agent did not see the earlier message: ${JSON.stringify(text)}`);
  return { taskId: second.id, text };
}

async function list(baseUrl) {
  const client = await connect(baseUrl);
  const first = await client.sendMessage({ message: userMessage('one') });
  const second = await client.sendMessage({ message: userMessage('two', '', first.contextId) });
  await client.sendMessage({ message: userMessage('elsewhere') });
  const ids = [];
  let pageToken = '';
  for (let i = 0; i < 5; i++) {
    const request = { contextId: first.contextId, pageSize: 1, pageToken };
    // The gRPC transport's generated types need every scalar set (0: no status filter).
    if (transportName === 'grpc') Object.assign(request, { tenant: '', status: 0 });
    const page = await client.listTasks(request);
    check(page.tasks.length <= 1, `a page of size 1 held ${page.tasks.length} tasks`);
    check(page.totalSize === 2, `totalSize is ${page.totalSize}, expected 2`);
    ids.push(...page.tasks.map((t) => t.id));
    pageToken = page.nextPageToken;
    if (!pageToken) break;
  }
  check(
    JSON.stringify(ids) === JSON.stringify([second.id, first.id]),
    `the pages listed ${JSON.stringify(ids)}, expected newest first ${JSON.stringify([second.id, first.id])}`,
  );
  return { taskIds: ids };
}

async function resubscribe(baseUrl) {
  const sender = await connect(baseUrl, { polling: true });
  const watcher = await connect(baseUrl);
  const started = await sender.sendMessage({ message: userMessage('wait for cancel') });
  const kinds = [];
  let lastState;
  let canceled = false;
  for await (const event of watcher.resubscribeTask({ id: started.id })) {
    const payload = event.payload;
    kinds.push(payload?.$case);
    if (payload?.$case === 'statusUpdate') lastState = payload.value.status?.state;
    if (!canceled) {
      canceled = true;
      await sender.cancelTask({ id: started.id });
    }
  }
  check(kinds[0] === 'task', `the subscription did not start with the Task: ${JSON.stringify(kinds)}`);
  check(
    lastState === TaskState.TASK_STATE_CANCELED,
    `the subscription ended on ${stateName(lastState)}, expected TASK_STATE_CANCELED`,
  );
  return { taskId: started.id, events: kinds, state: stateName(lastState) };
}

// The longest a scenario may take before it counts as hung (a stream that never closes).
const SCENARIO_DEADLINE_MS = 60_000;

const [baseUrl, scenario, transport] = process.argv.slice(2);
const scenarios = { send, stream, get, cancel, continue: continueTask, list, resubscribe };
check(
  baseUrl && scenarios[scenario] && (transport === undefined || EXPECTED[transport]),
  `usage: node client.mjs BASE_URL (${Object.keys(scenarios).join('|')}) [${Object.keys(EXPECTED).join('|')}]`,
);
transportName = transport ?? transportName;
setTimeout(() => fail(`${scenario}: no result within ${SCENARIO_DEADLINE_MS / 1000} s (hung?)`), SCENARIO_DEADLINE_MS).unref();
try {
  const seen = await scenarios[scenario](baseUrl);
  process.stdout.write(JSON.stringify({ scenario, transport: transportName, ...seen }) + '\n');
} catch (error) {
  fail(`${scenario}: ${error?.stack ?? error}`);
}
