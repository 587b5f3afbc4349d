// What the v0.8 page hands the renderer while a surface streams in one component at a time
// (src/progressive_v0_8.js). Run with `node --test web/test/`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { forget, progressive } from '../src/progressive_v0_8.js';

const update = (surfaceId, ...components) => ({ surfaceUpdate: { surfaceId, components } });
const column = (id, ...children) => ({ id, component: { Column: { children: { explicitList: children } } } });
const card = (id, child) => ({ id, component: { Card: { child } } });
const text = (id, value) => ({ id, component: { Text: { text: { literalString: value } } } });
const ids = (message) => message.surfaceUpdate.components.map((c) => c.id);
const listOf = (message, id) =>
  message.surfaceUpdate.components.find((c) => c.id === id).component.Column.children.explicitList;

test('a list is drawn with the children that have arrived, and grows as the rest come', () => {
  const first = progressive(update('s1', column('root', 'title', 'list')));
  assert.deepEqual(ids(first), ['root']);
  assert.deepEqual(listOf(first, 'root'), []);

  const second = progressive(update('s1', text('title', 'Restaurants')));
  assert.deepEqual(ids(second), ['root', 'title']);
  assert.deepEqual(listOf(second, 'root'), ['title']);

  const third = progressive(update('s1', column('list')));
  assert.deepEqual(listOf(third, 'root'), ['title', 'list']);
  forget('s1');
});

test('a card waits for its one child, and so does the list that names it', () => {
  progressive(update('s2', column('root', 'c')));
  const waiting = progressive(update('s2', card('c', 'c-text')));
  assert.deepEqual(ids(waiting), ['root']);
  assert.deepEqual(listOf(waiting, 'root'), []);

  const drawn = progressive(update('s2', text('c-text', 'Trattoria Alba')));
  assert.deepEqual(ids(drawn), ['root', 'c', 'c-text']);
  assert.deepEqual(listOf(drawn, 'root'), ['c']);
  forget('s2');
});

test('a card whose child waits on a missing card is held back in a chain', () => {
  const held = progressive(update('s3', card('a', 'b'), card('b', 'missing')));
  assert.equal(held, null, 'nothing is complete yet');
  const drawn = progressive(update('s3', text('missing', 'here')));
  assert.deepEqual(ids(drawn).sort(), ['a', 'b', 'missing']);
  forget('s3');
});

test('the components as sent are kept whole, so a later message completes them', () => {
  const sent = column('root', 'x');
  progressive(update('s4', sent));
  assert.deepEqual(sent.component.Column.children.explicitList, ['x'], 'the input is not trimmed in place');
  progressive(update('s4', text('x', 'X')));
  forget('s4');
  const fresh = progressive(update('s4', text('y', 'Y')));
  assert.deepEqual(ids(fresh), ['y'], 'a forgotten surface starts empty');
  forget('s4');
});

test('other messages pass through unchanged, and a deleted surface is forgotten', () => {
  const begin = { beginRendering: { surfaceId: 's5', root: 'root' } };
  assert.equal(progressive(begin), begin);
  progressive(update('s5', text('old', 'old')));
  const remove = { deleteSurface: { surfaceId: 's5' } };
  assert.equal(progressive(remove), remove);
  assert.deepEqual(ids(progressive(update('s5', text('new', 'new')))), ['new']);
  forget('s5');
});
