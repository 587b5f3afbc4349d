// What the page makes of each part of an agent's message (src/parts.js). Run with
// `node --test web/test/`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { kindOf } from '../src/parts.js';

const text = (value, metadata) => ({ content: { $case: 'text', value }, metadata, mediaType: '' });
const data = (value, metadata, mediaType = '') => ({ content: { $case: 'data', value }, metadata, mediaType });

test('a passing status is told from reply text by its a2uiAgentStatus mark', () => {
  assert.equal(kindOf(text('The model is reading the prompt…', { a2uiAgentStatus: true })), 'status');
  assert.equal(kindOf(text('Here are three restaurants.')), 'text');
  assert.equal(kindOf(text('Called search_restaurants({})', { a2uiAgentToolCall: {} })), 'text');
  assert.equal(kindOf(text('not a status', { a2uiAgentStatus: 'yes' })), 'text');
});

test('A2UI data parts are known by their media type, other data is nothing', () => {
  const message = { version: 'v0.9', deleteSurface: { surfaceId: 's' } };
  assert.equal(kindOf(data(message, { mimeType: 'application/json+a2ui' })), 'a2ui');
  assert.equal(kindOf(data(message, undefined, 'application/a2ui+json')), 'a2ui');
  assert.equal(kindOf(data(message, { mimeType: 'application/json' })), null);
  assert.equal(kindOf({ content: { $case: 'file', value: {} } }), null);
  assert.equal(kindOf(undefined), null);
});
