// A2UI v0.9 end to end with the real @a2a-js/sdk client on its A2A 1.0 transports (no
// legacyCompat; JSON-RPC, HTTP+JSON, or gRPC through the SDK's `GrpcTransportFactory`): the client activates the extension with `A2A-Extensions`, declares
// `a2uiClientCapabilities` in the message metadata, reads the demo's streamed surfaces, then
// sends a booking action back as a DataPart in the same task. It prints one JSON line with the
// A2UI parts of every working update (data, metadata.mimeType, mediaType) and the final
// states; the Rust test validates the messages against the catalog.
//
// Usage: node a2ui.mjs BASE_URL [jsonrpc|rest|grpc]
import {
  ClientFactory,
  ClientFactoryOptions,
  ServiceParameters,
  withA2AExtensions,
} from '@a2a-js/sdk/client';
import { GrpcTransportFactory } from '@a2a-js/sdk/client/grpc';
import * as grpc from '@grpc/grpc-js';
import { Role, TaskState } from '@a2a-js/sdk';
import { randomUUID } from 'node:crypto';

const EXTENSION = 'https://a2ui.org/a2a-extension/a2ui/v0.9';
const CATALOG = 'https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json';
const MIME_TYPE = 'application/json+a2ui';

function fail(why) {
  process.stderr.write(`FAIL: ${why}\n`);
  process.exit(1);
}

function check(condition, why) {
  if (!condition) fail(why);
}

function message(parts, taskId = '') {
  return {
    messageId: randomUUID(),
    role: Role.ROLE_USER,
    parts,
    taskId,
    contextId: '',
    // The gRPC transport serializes with the generated message types, whose repeated fields
    // must be arrays; the JSON transports leave empty ones out either way.
    extensions: [],
    referenceTaskIds: [],
    metadata: { a2uiClientCapabilities: { 'v0.9': { supportedCatalogIds: [CATALOG] } } },
  };
}

async function turn(client, msg) {
  const options = {
    serviceParameters: ServiceParameters.createFrom(undefined, withA2AExtensions(EXTENSION)),
  };
  const updates = [];
  let taskId;
  let state;
  for await (const event of client.sendMessageStream({ message: msg }, options)) {
    const payload = event.payload;
    if (payload?.$case === 'task') taskId = payload.value.id;
    if (payload?.$case !== 'statusUpdate') continue;
    const status = payload.value.status;
    state = TaskState[status?.state];
    const parts = (status?.message?.parts ?? [])
      .filter((part) => part.content?.$case === 'data')
      .map((part) => ({
        data: part.content.value,
        mimeType: part.metadata?.mimeType,
        mediaType: part.mediaType,
      }));
    if (parts.length > 0) updates.push(parts);
  }
  return { taskId, state, updates };
}

const [baseUrl, transport = 'jsonrpc'] = process.argv.slice(2);
check(
  baseUrl && ['jsonrpc', 'rest', 'grpc'].includes(transport),
  'usage: node a2ui.mjs BASE_URL [jsonrpc|rest|grpc]',
);
setTimeout(() => fail('no result within 60 s (hung?)'), 60_000).unref();
try {
  const overrides = {};
  if (transport === 'rest') overrides.preferredTransports = ['HTTP+JSON'];
  if (transport === 'grpc') {
    overrides.preferredTransports = ['GRPC'];
    const credentials = grpc.credentials.createInsecure();
    overrides.transports = [new GrpcTransportFactory({ grpcChannelCredentials: credentials })];
  }
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, overrides),
  );
  const client = await factory.createFromUrl(baseUrl);
  const first = await turn(client, message([{ content: { $case: 'text', value: 'Dinner for two tonight?' } }]));
  check(first.state === 'TASK_STATE_INPUT_REQUIRED', `the first turn ended ${first.state}`);
  const action = {
    version: 'v0.9',
    action: {
      name: 'book',
      surfaceId: 'booking',
      sourceComponentId: 'confirm',
      timestamp: '2026-01-01T00:00:00Z',
      context: { restaurant: 'Sakura House', name: 'Ada', partySize: '2', time: '20:00' },
    },
  };
  const second = await turn(
    client,
    message([{ content: { $case: 'data', value: action }, metadata: { mimeType: MIME_TYPE } }], first.taskId),
  );
  check(second.taskId === first.taskId, 'the action opened another task');
  process.stdout.write(
    JSON.stringify({
      transport: `${client.transport.protocolName} ${client.transport.protocolVersion}`,
      first,
      second,
    }) + '\n',
  );
} catch (error) {
  fail(error?.stack ?? error);
}
