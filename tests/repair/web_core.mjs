// Feeds a stream of A2UI messages, as a client received them, to the official renderer's
// message processor (`@a2ui/web_core`), one message at a time, and prints the surfaces it
// ends up holding as JSON. Exits non-zero with the processor's error when it refuses one.
// Usage: node web_core.mjs <web_core dir> <v0.8|v0.9> < messages.json
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

const [dir, version] = process.argv.slice(2);
const load = (path) => import(pathToFileURL(`${dir}/src/${path}`).href);
const messages = JSON.parse(readFileSync(0, 'utf8'));

// A Map (the v0.8 processor's data model and components) as a plain object.
const plain = (value) =>
  value instanceof Map
    ? Object.fromEntries([...value].map(([k, v]) => [k, plain(v)]))
    : Array.isArray(value)
      ? value.map(plain)
      : value && typeof value === 'object'
        ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plain(v)]))
        : value;

const surfaces = {};
if (version === 'v0.9') {
  const { MessageProcessor } = await load('v0_9/processing/message-processor.js');
  const { basicCatalog } = await load('v0_9/basic_catalog/catalog.js');
  const processor = new MessageProcessor([basicCatalog]);
  for (const message of messages) processor.processMessage(message);
  for (const surface of processor.model.surfacesMap.values()) {
    const components = {};
    for (const [id, component] of surface.componentsModel.components) {
      components[id] = { component: component.type, ...plain(component.properties) };
    }
    surfaces[surface.id] = { components, data: plain(surface.dataModel.get('/')) ?? null };
  }
} else {
  const { A2uiMessageProcessor } = await load('v0_8/data/model-processor.js');
  const processor = new A2uiMessageProcessor();
  for (const message of messages) processor.processMessages([message]);
  for (const [id, surface] of processor.getSurfaces()) {
    const components = {};
    for (const [key, component] of surface.components) components[key] = plain(component);
    surfaces[id] = { root: surface.rootComponentId, components, data: plain(surface.dataModel) };
  }
}
process.stdout.write(JSON.stringify(surfaces));
