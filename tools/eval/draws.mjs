// Whether a stream of v0.9 A2UI messages draws: fed to the official renderer's message
// processor (`@a2ui/web_core`), then each surface walked from its root as a renderer would,
// every dynamic value resolved against the data model (list templates once per item).
// Prints {"ok": bool, "error": string?, "text": the resolved text, one value a line}.
// Usage: node draws.mjs <web_core dir> < messages.json
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

const [dir] = process.argv.slice(2);
const load = (path) => import(pathToFileURL(`${dir}/src/${path}`).href);
const messages = JSON.parse(readFileSync(0, 'utf8'));
const { MessageProcessor } = await load('v0_9/processing/message-processor.js');
const { basicCatalog } = await load('v0_9/basic_catalog/catalog.js');
const { DataContext } = await load('v0_9/rendering/data-context.js');

const out = (value) => process.stdout.write(JSON.stringify(value));
const processor = new MessageProcessor([basicCatalog]);
try {
  for (const message of messages) processor.processMessage(message);
} catch (error) {
  out({ ok: false, error: String(error?.message ?? error), text: '' });
  process.exit(0);
}

// Properties that name other components, and those that are not shown as text.
const CHILD = new Set(['child', 'children', 'trigger', 'content', 'entryPointChild', 'contentChild']);
const HIDDEN = new Set(['id', 'component', 'action', 'checks', 'weight', 'variant', 'justify', 'align',
  'direction', 'fit', 'accessibility', 'usageHint', 'axis', 'url', 'name', 'textFieldType']);
const lines = [];
const errors = [];
const leaves = (value, depth = 0) => {
  if (depth > 20 || value === undefined || value === null) return;
  if (typeof value === 'string' || typeof value === 'number') lines.push(String(value));
  else if (Array.isArray(value)) value.forEach((v) => leaves(v, depth + 1));
  else if (typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) if (!HIDDEN.has(k)) leaves(v, depth + 1);
  }
};
for (const surface of processor.model.surfacesMap.values()) {
  const components = surface.componentsModel.components;
  let budget = 5000;
  const walk = (id, path, depth) => {
    const component = components.get(id);
    if (!component || depth > 40 || budget-- <= 0) return;
    const context = new DataContext(surface, path);
    const resolve = (value) => {
      try {
        return context.resolveDynamicValue(value);
      } catch (error) {
        errors.push(`${id}: ${error?.message ?? error}`);
        return undefined;
      }
    };
    const children = (value) => {
      if (typeof value === 'string') walk(value, path, depth + 1);
      else if (Array.isArray(value)) {
        for (const item of value) {
          if (typeof item === 'string') walk(item, path, depth + 1);
          else if (item && typeof item === 'object') {
            // Tabs: {title, child}.
            if (item.title !== undefined) leaves(resolve(item.title));
            if (item.child !== undefined) children(item.child);
          }
        }
      } else if (value && typeof value === 'object' && value.componentId && value.path) {
        const base = context.nested(value.path);
        const items = resolve({ path: value.path });
        const keys = Array.isArray(items) ? items.map((_, i) => i) : items && typeof items === 'object' ? Object.keys(items) : [];
        for (const key of keys) walk(value.componentId, `${base.path.replace(/\/$/, '')}/${key}`, depth + 1);
      }
    };
    for (const [key, value] of Object.entries(component.properties ?? {})) {
      if (CHILD.has(key)) children(value);
      else if (key === 'tabs') children(value);
      else if (!HIDDEN.has(key)) leaves(resolve(value));
    }
  };
  walk('root', '/', 0);
}
out({ ok: errors.length === 0, error: errors.slice(0, 3).join('; ') || undefined, text: lines.join('\n') });
