//! The component tree a renderer builds, and the checks JSON Schema cannot express.
//!
//! A schema checks one message at a time; a renderer needs more: a root, ids unique within a
//! surface, every child reference pointing at a component that exists once the response is
//! complete, no cycles, and every component reachable from the root. Which properties hold
//! child references is read from the catalog's schemas (`ComponentId`, `Child` and
//! `ChildList` references; v0.8's `child`/`*Child`/`explicitList`/`template` names), so
//! custom catalogs get the same checks as the basic one.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use super::ProtocolVersion;
use super::error::ValidationError;

/// How a value inside a component refers to other components.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum RefShape {
    /// A single component id.
    Id,
    /// v0.9+ `ChildList`: an array of ids, or a template `{componentId, path}`.
    ChildList,
    /// An array whose items have this shape.
    Each(Box<RefShape>),
    /// An object whose named properties have these shapes.
    Object(Vec<(String, RefShape)>),
}

/// The referring properties of one component type.
pub(crate) type ComponentRefs = Vec<(String, RefShape)>;

const MAX_SHAPE_DEPTH: usize = 12;

/// Reads which properties of `component` (a catalog component schema) refer to components.
pub(crate) fn component_refs(
    version: ProtocolVersion,
    catalog: &Value,
    component: &Value,
) -> ComponentRefs {
    match shape(version, catalog, component, None, 0) {
        Some(RefShape::Object(props)) => props,
        _ => Vec::new(),
    }
}

fn shape(
    version: ProtocolVersion,
    catalog: &Value,
    schema: &Value,
    name: Option<&str>,
    depth: usize,
) -> Option<RefShape> {
    if depth > MAX_SHAPE_DEPTH {
        return None;
    }
    let schema = schema.as_object()?;
    if let Some(reference) = schema.get("$ref").and_then(Value::as_str) {
        if reference.ends_with("/$defs/ComponentId") || reference.ends_with("/$defs/Child") {
            return Some(RefShape::Id);
        }
        if reference.ends_with("/$defs/ChildList") {
            return Some(RefShape::ChildList);
        }
        if let Some(pointer) = reference.strip_prefix('#')
            && let Some(target) = catalog.pointer(pointer)
            && let Some(found) = shape(version, catalog, target, name, depth + 1)
        {
            return Some(found);
        }
    }
    let mut props: Vec<(String, RefShape)> = Vec::new();
    if let Some(all_of) = schema.get("allOf").and_then(Value::as_array) {
        for member in all_of {
            if let Some(RefShape::Object(more)) = shape(version, catalog, member, name, depth + 1) {
                merge(&mut props, more);
            }
        }
    }
    if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
        let mut own = Vec::new();
        for (key, sub) in properties {
            if let Some(found) = shape(version, catalog, sub, Some(key), depth + 1) {
                own.push((key.clone(), found));
            }
        }
        merge(&mut props, own);
    }
    if !props.is_empty() {
        return Some(RefShape::Object(props));
    }
    if let Some(items) = schema.get("items") {
        let inner = if version == ProtocolVersion::V0_8 && name == Some("explicitList") {
            Some(RefShape::Id)
        } else {
            shape(version, catalog, items, None, depth + 1)
        };
        return inner.map(|s| RefShape::Each(Box::new(s)));
    }
    let is_string = schema.get("type").and_then(Value::as_str) == Some("string");
    if version == ProtocolVersion::V0_8
        && is_string
        && let Some(name) = name
        && (name == "child" || name.ends_with("Child") || name == "componentId")
    {
        return Some(RefShape::Id);
    }
    None
}

fn merge(into: &mut Vec<(String, RefShape)>, more: Vec<(String, RefShape)>) {
    for (key, found) in more {
        if !into.iter().any(|(k, _)| *k == key) {
            into.push((key, found));
        }
    }
}

/// Appends each string `value` holds where `shape` says a component id goes. The strings
/// are kept as the JSON nodes themselves, so no pointer is built unless an error needs one.
pub(crate) fn collect_refs<'v>(value: &'v Value, shape: &RefShape, out: &mut Vec<&'v Value>) {
    match shape {
        RefShape::Id => {
            if value.is_string() {
                out.push(value);
            }
        }
        RefShape::ChildList => match value {
            Value::Array(items) => out.extend(items.iter().filter(|item| item.is_string())),
            Value::Object(template) => {
                out.extend(template.get("componentId").filter(|id| id.is_string()));
            }
            _ => {}
        },
        RefShape::Each(inner) => {
            for item in value.as_array().into_iter().flatten() {
                collect_refs(item, inner, out);
            }
        }
        RefShape::Object(props) => {
            for (key, inner) in props {
                if let Some(sub) = value.get(key) {
                    collect_refs(sub, inner, out);
                }
            }
        }
    }
}

/// The JSON pointer from `root` to `target`, which must be a node inside `root` (compared by
/// address, not by value).
fn pointer_to(root: &Value, target: &Value) -> Option<String> {
    if std::ptr::eq(root, target) {
        return Some(String::new());
    }
    match root {
        Value::Array(items) => items
            .iter()
            .enumerate()
            .find_map(|(i, item)| pointer_to(item, target).map(|rest| format!("/{i}{rest}"))),
        Value::Object(map) => map.iter().find_map(|(key, item)| {
            pointer_to(item, target).map(|rest| format!("/{}{rest}", escape(key)))
        }),
        _ => None,
    }
}

/// Escapes one JSON pointer token.
pub(crate) fn escape(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

/// One component as the tree sees it.
#[derive(Debug)]
pub(crate) struct Node<'v> {
    /// Index of the message that defined it.
    pub(crate) message: usize,
    /// Pointer to the component list inside that message.
    pub(crate) list: &'static str,
    /// Position in that list.
    pub(crate) position: usize,
    /// The component itself.
    pub(crate) component: &'v Value,
    /// The string nodes inside it that name other components.
    pub(crate) refs: Vec<&'v Value>,
}

impl Node<'_> {
    fn pointer(&self) -> String {
        format!("{}/{}", self.list, self.position)
    }

    fn ref_pointer(&self, reference: &Value) -> String {
        let rest = pointer_to(self.component, reference).unwrap_or_default();
        format!("{}{rest}", self.pointer())
    }
}

/// The components one surface gathered over a response.
#[derive(Debug, Default)]
pub(crate) struct Surface<'v> {
    /// Whether this response created the surface (so the whole tree is in view).
    pub(crate) created_here: bool,
    /// The root id and where it was named (message, pointer), if the response names one.
    pub(crate) root: Option<(&'v str, usize, &'static str)>,
    /// Components by id; a later definition replaces an earlier one.
    pub(crate) nodes: HashMap<&'v str, Node<'v>>,
    /// Where the last component list was, for errors about the surface as a whole.
    pub(crate) last_list: Option<(usize, &'static str)>,
    /// Every id any definition referred to, including definitions replaced since: a
    /// component orphaned by a later update was part of the tree, not a mistake.
    pub(crate) ever_referenced: HashSet<&'v str>,
}

/// Adds the components of one component list (`components` at `list` in message
/// `message`), reporting ids repeated within the list. `refs_of` gives a component's
/// properties object and its type's reference shapes.
pub(crate) fn add_components<'v>(
    surface: &mut Surface<'v>,
    surface_id: &str,
    message: usize,
    list: &'static str,
    components: &'v [Value],
    refs_of: &dyn Fn(&'v Value) -> Option<(&'v Value, &'v ComponentRefs)>,
    errors: &mut Vec<ValidationError>,
) {
    let mut seen: HashMap<&str, usize> = HashMap::new();
    for (position, component) in components.iter().enumerate() {
        let Some(id) = component.get("id").and_then(Value::as_str) else {
            continue;
        };
        if let Some(first) = seen.insert(id, position) {
            errors.push(ValidationError::new(
                format!("{list}/{position}/id"),
                format!("duplicate component id '{id}': already defined at {list}/{first}"),
                Some(surface_id),
                Some(message),
            ));
            continue;
        }
        let mut refs = Vec::new();
        if let Some((props, shapes)) = refs_of(component) {
            for (key, shape) in shapes {
                if let Some(value) = props.get(key) {
                    collect_refs(value, shape, &mut refs);
                }
            }
        }
        surface
            .ever_referenced
            .extend(refs.iter().filter_map(|r| r.as_str()));
        surface.nodes.insert(
            id,
            Node {
                message,
                list,
                position,
                component,
                refs,
            },
        );
    }
    surface.last_list = Some((message, list));
}

/// End-of-response checks on a surface this response created: a root, no dangling
/// reference, no cycle, everything reachable from the root. A component that an update
/// orphaned (something referred to it before) is not an error: renderers drop it.
pub(crate) fn check_surface(
    surface_id: &str,
    surface: &Surface<'_>,
    errors: &mut Vec<ValidationError>,
) {
    if !surface.created_here || surface.nodes.is_empty() {
        return;
    }
    let (root, root_message, root_pointer) = match surface.root {
        Some(named) => named,
        None => {
            let (message, list) = surface.last_list.unwrap_or_default();
            ("root", message, list)
        }
    };
    let mut nodes: Vec<(&&str, &Node<'_>)> = surface.nodes.iter().collect();
    nodes.sort_unstable_by_key(|(_, node)| (node.message, node.position));
    for (id, node) in &nodes {
        for reference in &node.refs {
            let Some(child) = reference.as_str() else {
                continue;
            };
            if !surface.nodes.contains_key(child) {
                errors.push(
                    dangling(id, child, surface_id, node.ref_pointer(reference))
                        .at_message(node.message),
                );
            }
        }
    }
    if !surface.nodes.contains_key(root) {
        errors.push(no_root(surface_id, root, root_pointer).at_message(root_message));
        return;
    }
    let step = |id: &str, next: usize| match surface.nodes.get(id) {
        None => Step::End,
        Some(node) => match node.refs.get(next) {
            None => Step::End,
            Some(reference) => reference.as_str().map_or(Step::Skip, Step::Child),
        },
    };
    let reached = walk(root, step, |id, next, cycle| {
        if let Some(node) = surface.nodes.get(id) {
            let pointer = node
                .refs
                .get(next)
                .map(|reference| node.ref_pointer(reference))
                .unwrap_or_default();
            errors.push(closes_cycle(id, cycle, surface_id, pointer).at_message(node.message));
        }
    });
    for (id, node) in nodes {
        if reached.contains(*id) || surface.ever_referenced.contains(*id) {
            continue;
        }
        errors.push(
            not_reachable(id, root, surface_id, format!("{}/id", node.pointer()))
                .at_message(node.message),
        );
    }
}

/// What [`walk`] finds at one reference of a component.
pub(crate) enum Step<'v> {
    /// The component has no reference at that index (or does not exist).
    End,
    /// The reference is not a component id.
    Skip,
    /// The reference names this component.
    Child(&'v str),
}

/// Depth-first walk from `root` (iterative, so a deep tree cannot overflow the stack).
/// `step(id, n)` reads the `n`th reference of component `id`; `on_cycle(id, n, cycle)` is
/// told of each reference that closes a cycle (`cycle` runs from the component it returns
/// to, back to it). Returns the ids reached. The one walk both tree checks share (a whole
/// response here, a stream in [`TreeWatch`](super::TreeWatch)).
pub(crate) fn walk<'v>(
    root: &'v str,
    step: impl Fn(&'v str, usize) -> Step<'v>,
    mut on_cycle: impl FnMut(&'v str, usize, &[&'v str]),
) -> HashSet<&'v str> {
    let mut done: HashSet<&str> = HashSet::new();
    let mut on_path: Vec<&str> = vec![root];
    let mut stack: Vec<(&str, usize)> = vec![(root, 0)];
    while let Some((id, next)) = stack.pop() {
        let child = match step(id, next) {
            Step::End => {
                done.insert(id);
                on_path.pop();
                continue;
            }
            Step::Skip => {
                stack.push((id, next + 1));
                continue;
            }
            Step::Child(child) => child,
        };
        stack.push((id, next + 1));
        if let Some(start) = on_path.iter().position(|p| *p == child) {
            let mut cycle: Vec<&str> = on_path
                .get(start..)
                .map(<[&str]>::to_vec)
                .unwrap_or_default();
            cycle.push(child);
            on_cycle(id, next, &cycle);
            continue;
        }
        if done.contains(child) {
            continue;
        }
        on_path.push(child);
        stack.push((child, 0));
    }
    done
}

/// An error about surface `surface_id` at `pointer`.
fn on_surface(surface_id: &str, pointer: impl Into<String>, message: String) -> ValidationError {
    ValidationError::new(pointer, message, Some(surface_id), None)
}

/// "`id` refers to `child`, which no component of the surface defines."
pub(crate) fn dangling(
    id: &str,
    child: &str,
    surface_id: &str,
    pointer: String,
) -> ValidationError {
    let message = format!(
        "component '{id}' refers to '{child}', which no component of surface '{surface_id}' defines"
    );
    on_surface(surface_id, pointer, message)
}

/// "The surface has no root component."
pub(crate) fn no_root(surface_id: &str, root: &str, pointer: impl Into<String>) -> ValidationError {
    let message =
        format!("surface '{surface_id}' has no root component: no component has id '{root}'");
    on_surface(surface_id, pointer, message)
}

/// "`id` refers to a component that closes a cycle."
pub(crate) fn closes_cycle(
    id: &str,
    cycle: &[&str],
    surface_id: &str,
    pointer: String,
) -> ValidationError {
    let child = cycle.last().copied().unwrap_or_default();
    let message = format!(
        "component '{id}' refers to '{child}', which closes a cycle: {}",
        describe_cycle(cycle)
    );
    on_surface(surface_id, pointer, message)
}

/// "`id` is not reachable from the root."
pub(crate) fn not_reachable(
    id: &str,
    root: &str,
    surface_id: &str,
    pointer: String,
) -> ValidationError {
    let message = format!(
        "component '{id}' is not reachable from the root '{root}' of surface '{surface_id}'"
    );
    on_surface(surface_id, pointer, message)
}

/// `a -> b -> a`, with the middle of a long cycle elided.
pub(crate) fn describe_cycle(cycle: &[&str]) -> String {
    const SHOWN: usize = 4;
    if cycle.len() <= 2 * SHOWN + 1 {
        return cycle.join(" -> ");
    }
    let head = cycle.get(..SHOWN).unwrap_or_default().join(" -> ");
    let tail = cycle
        .get(cycle.len() - SHOWN..)
        .unwrap_or_default()
        .join(" -> ");
    format!("{head} -> ... ({} more) -> {tail}", cycle.len() - 2 * SHOWN)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn child_list_refs_read_both_the_static_list_and_the_template() {
        let component =
            json!({"children": ["a", "b"], "other": {"componentId": "row", "path": "/items"}});
        let mut out = Vec::new();
        collect_refs(&component["children"], &RefShape::ChildList, &mut out);
        collect_refs(&component["other"], &RefShape::ChildList, &mut out);
        let found: Vec<(String, &str)> = out
            .iter()
            .map(|r| (pointer_to(&component, r).unwrap(), r.as_str().unwrap()))
            .collect();
        let expected = [
            ("/children/0", "a"),
            ("/children/1", "b"),
            ("/other/componentId", "row"),
        ];
        let expected: Vec<(String, &str)> = expected
            .iter()
            .map(|(p, id)| (p.to_string(), *id))
            .collect();
        assert_eq!(found, expected);
    }

    #[test]
    fn v0_8_child_names_are_references() {
        let component = json!({"type": "object", "properties": {
            "entryPointChild": {"type": "string"},
            "label": {"type": "string"},
            "children": {"type": "object", "properties": {
                "explicitList": {"type": "array", "items": {"type": "string"}},
                "template": {"type": "object", "properties": {"componentId": {"type": "string"}, "dataBinding": {"type": "string"}}}
            }}
        }});
        let refs = component_refs(ProtocolVersion::V0_8, &json!({}), &component);
        let names: Vec<_> = refs.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(names, ["children", "entryPointChild"]);
    }
}
