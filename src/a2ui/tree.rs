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
        if let Some(pointer) = reference.strip_prefix('#') {
            if let Some(target) = catalog.pointer(pointer) {
                if let Some(found) = shape(version, catalog, target, name, depth + 1) {
                    return Some(found);
                }
            }
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
    if version == ProtocolVersion::V0_8 && is_string {
        if let Some(name) = name {
            if name == "child" || name.ends_with("Child") || name == "componentId" {
                return Some(RefShape::Id);
            }
        }
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

/// Appends `(pointer, id)` for every reference `value` makes under `shape`.
pub(crate) fn collect_refs<'v>(
    value: &'v Value,
    shape: &RefShape,
    pointer: &str,
    out: &mut Vec<(String, &'v str)>,
) {
    match shape {
        RefShape::Id => {
            if let Some(id) = value.as_str() {
                out.push((pointer.to_owned(), id));
            }
        }
        RefShape::ChildList => match value {
            Value::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    if let Some(id) = item.as_str() {
                        out.push((format!("{pointer}/{i}"), id));
                    }
                }
            }
            Value::Object(template) => {
                if let Some(id) = template.get("componentId").and_then(Value::as_str) {
                    out.push((format!("{pointer}/componentId"), id));
                }
            }
            _ => {}
        },
        RefShape::Each(inner) => {
            if let Some(items) = value.as_array() {
                for (i, item) in items.iter().enumerate() {
                    collect_refs(item, inner, &format!("{pointer}/{i}"), out);
                }
            }
        }
        RefShape::Object(props) => {
            for (key, inner) in props {
                if let Some(sub) = value.get(key) {
                    collect_refs(sub, inner, &format!("{pointer}/{}", escape(key)), out);
                }
            }
        }
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
    /// Pointer to the component object inside that message.
    pub(crate) pointer: String,
    /// References it makes: pointer inside the message, and the id referred to.
    pub(crate) refs: Vec<(String, &'v str)>,
}

/// The components one surface gathered over a response.
#[derive(Debug, Default)]
pub(crate) struct Surface<'v> {
    /// Whether this response created the surface (so the whole tree is in view).
    pub(crate) created_here: bool,
    /// The root id and where it was named (message, pointer), if the response names one.
    pub(crate) root: Option<(&'v str, usize, String)>,
    /// Components by id; a later definition replaces an earlier one.
    pub(crate) nodes: HashMap<&'v str, Node<'v>>,
    /// Where the last component list was, for errors about the surface as a whole.
    pub(crate) last_list: Option<(usize, String)>,
    /// Every id any definition referred to, including definitions replaced since: a
    /// component orphaned by a later update was part of the tree, not a mistake.
    pub(crate) ever_referenced: HashSet<&'v str>,
}

/// Adds the components of one component list (`components` at `list_pointer` in message
/// `message`), reporting ids repeated within the list.
pub(crate) fn add_components<'v>(
    surface: &mut Surface<'v>,
    surface_id: &str,
    message: usize,
    list_pointer: &str,
    components: &'v [Value],
    refs_of: &dyn Fn(&'v Value) -> Option<(&'v Value, &'v ComponentRefs, String)>,
    errors: &mut Vec<ValidationError>,
) {
    let mut seen: HashMap<&str, usize> = HashMap::new();
    for (i, component) in components.iter().enumerate() {
        let pointer = format!("{list_pointer}/{i}");
        let Some(id) = component.get("id").and_then(Value::as_str) else {
            continue;
        };
        if let Some(first) = seen.insert(id, i) {
            errors.push(ValidationError::new(
                format!("{pointer}/id"),
                format!("duplicate component id '{id}': already defined at {list_pointer}/{first}"),
                Some(surface_id),
                Some(message),
            ));
            continue;
        }
        let mut refs = Vec::new();
        if let Some((props, shapes, props_pointer)) = refs_of(component) {
            for (key, shape) in shapes {
                if let Some(value) = props.get(key) {
                    let at = format!("{pointer}{props_pointer}/{}", escape(key));
                    collect_refs(value, shape, &at, &mut refs);
                }
            }
        }
        surface
            .ever_referenced
            .extend(refs.iter().map(|(_, child)| *child));
        surface.nodes.insert(
            id,
            Node {
                message,
                pointer,
                refs,
            },
        );
    }
    surface.last_list = Some((message, list_pointer.to_owned()));
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
    let (root, root_message, root_pointer) = match &surface.root {
        Some((id, message, pointer)) => (*id, *message, pointer.clone()),
        None => {
            let (message, pointer) = surface.last_list.clone().unwrap_or_default();
            ("root", message, pointer)
        }
    };
    let mut ids: Vec<&&str> = surface.nodes.keys().collect();
    ids.sort_by_key(|id| {
        surface
            .nodes
            .get(**id)
            .map(|n| (n.message, n.pointer.clone()))
    });
    for id in &ids {
        let Some(node) = surface.nodes.get(**id) else {
            continue;
        };
        for (pointer, child) in &node.refs {
            if !surface.nodes.contains_key(child) {
                errors.push(ValidationError::new(
                    pointer.clone(),
                    format!(
                        "component '{id}' refers to '{child}', which no component of surface '{surface_id}' defines"
                    ),
                    Some(surface_id),
                    Some(node.message),
                ));
            }
        }
    }
    if !surface.nodes.contains_key(root) {
        errors.push(ValidationError::new(
            root_pointer,
            format!("surface '{surface_id}' has no root component: no component has id '{root}'"),
            Some(surface_id),
            Some(root_message),
        ));
        return;
    }
    let reached = walk(surface_id, surface, root, errors);
    for id in ids {
        if reached.contains(*id) || surface.ever_referenced.contains(*id) {
            continue;
        }
        if let Some(node) = surface.nodes.get(*id) {
            errors.push(ValidationError::new(
                format!("{}/id", node.pointer),
                format!("component '{id}' is not reachable from the root '{root}' of surface '{surface_id}'"),
                Some(surface_id),
                Some(node.message),
            ));
        }
    }
}

/// Depth-first walk from the root (iterative, so a deep tree cannot overflow the stack),
/// reporting each reference that closes a cycle. Returns the ids reached.
fn walk<'v>(
    surface_id: &str,
    surface: &Surface<'v>,
    root: &'v str,
    errors: &mut Vec<ValidationError>,
) -> HashSet<&'v str> {
    let mut done: HashSet<&str> = HashSet::new();
    let mut on_path: Vec<&str> = vec![root];
    let mut stack: Vec<(&str, usize)> = vec![(root, 0)];
    while let Some((id, next)) = stack.pop() {
        let Some(node) = surface.nodes.get(id) else {
            done.insert(id);
            on_path.pop();
            continue;
        };
        let Some((pointer, child)) = node.refs.get(next) else {
            done.insert(id);
            on_path.pop();
            continue;
        };
        stack.push((id, next + 1));
        if on_path.contains(child) {
            let start = on_path.iter().position(|p| p == child).unwrap_or(0);
            let mut cycle: Vec<&str> = on_path
                .get(start..)
                .map(<[&str]>::to_vec)
                .unwrap_or_default();
            cycle.push(child);
            errors.push(ValidationError::new(
                pointer.clone(),
                format!(
                    "component '{id}' refers to '{child}', which closes a cycle: {}",
                    cycle.join(" -> ")
                ),
                Some(surface_id),
                Some(node.message),
            ));
            continue;
        }
        if done.contains(child) || !surface.nodes.contains_key(child) {
            continue;
        }
        on_path.push(child);
        stack.push((child, 0));
    }
    done
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn child_list_refs_read_both_the_static_list_and_the_template() {
        let mut out = Vec::new();
        let list = json!(["a", "b"]);
        collect_refs(&list, &RefShape::ChildList, "/children", &mut out);
        let template = json!({"componentId": "row", "path": "/items"});
        collect_refs(&template, &RefShape::ChildList, "/children", &mut out);
        let ids: Vec<_> = out.iter().map(|(p, id)| (p.as_str(), *id)).collect();
        assert_eq!(
            ids,
            [
                ("/children/0", "a"),
                ("/children/1", "b"),
                ("/children/componentId", "row")
            ]
        );
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
