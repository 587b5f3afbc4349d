// Lets the v0.8 renderer draw a surface while its components still stream in.
//
// A streaming agent sends a v0.8 surface as many `surfaceUpdate` messages, one component
// each, parents before children (the order a model writes them in). The v0.8 spec lets a
// client buffer them, but @a2ui/web_core 0.11.0 validates each `surfaceUpdate` on its own
// and refuses one whose components name a child it does not hold ("references non-existent
// component ID"). So this module keeps every component received for a surface and hands the
// renderer, after each message, the part of the tree that is complete so far: all known
// components, lists cut down to the children that exist, and a component whose one child
// (a Card's, a Button's) has not arrived held back until it does.

/** Components received so far: surface id → component id → component, as sent. */
const received = new Map();

/**
 * The message to give the renderer for `message`: for a `surfaceUpdate`, one holding the
 * surface's complete part so far (null when nothing is complete yet); any other message
 * unchanged.
 */
export function progressive(message) {
  const update = message?.surfaceUpdate;
  if (message?.deleteSurface) forget(message.deleteSurface.surfaceId);
  if (!update || !Array.isArray(update.components)) return message;
  let components = received.get(update.surfaceId);
  if (!components) {
    components = new Map();
    received.set(update.surfaceId, components);
  }
  for (const component of update.components) {
    if (typeof component?.id === 'string') components.set(component.id, component);
  }
  const complete = completePart(components);
  if (complete.length === 0) return null;
  return { surfaceUpdate: { surfaceId: update.surfaceId, components: complete } };
}

/** Drops what was received for a surface (it was deleted, or is being replaced). */
export function forget(surfaceId) {
  received.delete(surfaceId);
}

/** The components whose references all resolve, with lists trimmed to known children. */
function completePart(components) {
  const kept = new Map(components);
  // Holding back one component can leave another pointing at it: repeat until stable.
  for (let changed = true; changed; ) {
    changed = false;
    for (const [id, component] of kept) {
      if (!requiredChildren(component).every((child) => kept.has(child))) {
        kept.delete(id);
        changed = true;
      }
    }
  }
  return [...kept.values()].map((component) => trimLists(component, kept));
}

/** The `{ Type: properties }` of a v0.8 component, or null. */
function body(component) {
  const types = Object.keys(component.component ?? {});
  return types.length === 1 ? [types[0], component.component[types[0]] ?? {}] : null;
}

/** Children a component cannot be drawn without. */
function requiredChildren(component) {
  const [type, props] = body(component) ?? [];
  switch (type) {
    case 'Card':
    case 'Button':
      return props.child ? [props.child] : [];
    case 'Modal':
      return [props.entryPointChild, props.contentChild].filter(Boolean);
    case 'Tabs':
      return (props.tabItems ?? []).map((tab) => tab?.child).filter(Boolean);
    case 'Row':
    case 'Column':
    case 'List':
      return props.children?.template?.componentId ? [props.children.template.componentId] : [];
    default:
      return [];
  }
}

/** A copy of `component` whose explicit child list names only components in `kept`. */
function trimLists(component, kept) {
  const [type, props] = body(component) ?? [];
  const list = props?.children?.explicitList;
  if (!Array.isArray(list) || list.every((child) => kept.has(child))) return component;
  return {
    ...component,
    component: {
      [type]: { ...props, children: { ...props.children, explicitList: list.filter((child) => kept.has(child)) } },
    },
  };
}
