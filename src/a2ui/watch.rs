//! The tree checks a stream can make while it is still arriving.
//!
//! [`Validator::check_response`] checks a finished response; a renderer, though, draws the
//! messages as they stream, and a cycle among components it already has makes it loop or
//! fail (the official parsers raise "circular reference" mid-stream). [`TreeWatch`] is fed
//! each message as it is sent, keeps each surface's child references (owned, so it lives
//! across chunks), and reports a cycle or self-reference as soon as the component closing it
//! arrives.
//!
//! A component that can never be reached from its surface's root is known once the surface's
//! tree is complete, which the official A2UI agent SDK takes to be the close of the block (the
//! `<a2ui-json>` element) that created the surface: its validator checks each block's message
//! list on its own, and raises "Component 'x' is not reachable from 'root'" only for a
//! surface whose creation (`createSurface`, v0.8 `beginRendering`) is in that block, never
//! looking at later blocks. So [`TreeWatch::block_closed`] reports, for each surface created
//! in the block that just closed (and whose root component has arrived), every component
//! sent for it so far that its root does not reach: a later block cannot attach it. A surface
//! whose root is still missing at that close is checked at the close of the block that brings
//! it. Components a later block adds to a surface created earlier may still be attached by a
//! block after them (the official validator does not check such a block), so those are
//! reported when the reply ends, by [`TreeWatch::finish`], with anything never checked.
//! Unlike the official validator, which reads each components message alone, the tree is
//! the surface's: a component listed in another message of the block is reachable through it.
//! A component an update orphaned (something referred to it before) is never reported:
//! renderers drop it.
//!
//! The watch is the server's one tree check: [`TreeWatch::finish`] also reports what only the
//! end of a reply settles (a missing root, a reference no component answers, a cycle too long
//! for the per-component check), with the same messages as [`Validator::check_response`].
//! A message [`TreeWatch::observe`] refuses is not taken in, so a caller that holds it back
//! (and asks for a repair) keeps a tree that matches what its client has.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use super::error::ValidationError;
use super::tree::{self, Step, collect_refs, describe_cycle};
use super::validate::message_body;
use super::{MAX_ERRORS, Validator};

/// The most components one cycle check visits, so a hostile chain costs bounded time per
/// component (a longer cycle is caught by [`TreeWatch::finish`]).
const MAX_VISITS: usize = 4096;

/// Follows the component trees of a response as its messages are sent.
///
/// # Example
///
/// ```
/// use a2ui_agent::a2ui::{ProtocolVersion, TreeWatch, Validator};
/// use serde_json::json;
///
/// let v = ProtocolVersion::V0_9;
/// let mut watch = TreeWatch::new(Validator::basic(v));
/// let first = json!({"version": "v0.9", "updateComponents": {"surfaceId": "s", "components": [
///     {"id": "root", "component": "Card", "child": "body"}]}});
/// assert!(watch.observe(&first).is_ok());
/// let closing = json!({"version": "v0.9", "updateComponents": {"surfaceId": "s", "components": [
///     {"id": "body", "component": "Card", "child": "root"}]}});
/// let error = watch.observe(&closing).unwrap_err();
/// assert!(error.message.contains("circular reference: body -> root -> body"));
/// ```
#[derive(Debug)]
pub struct TreeWatch {
    validator: Validator,
    surfaces: HashMap<String, Watched>,
    /// Surfaces in the order they appeared, for stable reports.
    order: Vec<String>,
}

#[derive(Debug, Default)]
struct Watched {
    /// Whether this response created the surface (so its whole tree is in view).
    created_here: bool,
    /// The root named by v0.8 `beginRendering`, if any (else `root`).
    root: Option<String>,
    /// The catalog the surface was created with (an index into the validator's catalogs).
    catalog: Option<usize>,
    /// Child ids of each component sent, by id.
    children: HashMap<String, Vec<String>>,
    /// Ids in the order components first came.
    ids: Vec<String>,
    /// Every id any component referred to, even one replaced since.
    referenced: HashSet<String>,
    /// Whether the surface was created in the open block and is checked when a block closes.
    check_at_close: bool,
}

/// One component of the message being observed, before it is taken in.
struct Pending<'m> {
    id: &'m str,
    children: Vec<String>,
}

impl TreeWatch {
    /// A watch reading component references through `validator`'s catalogs.
    pub fn new(validator: Validator) -> Self {
        Self {
            validator,
            surfaces: HashMap::new(),
            order: Vec::new(),
        }
    }

    /// Takes in one message as sent.
    ///
    /// # Errors
    ///
    /// A [`ValidationError`] if a component of `message` closes a cycle (or refers to itself)
    /// among the components of its surface sent so far, or if the message lists one id
    /// twice. The watch then stays as it was before the message.
    pub fn observe(&mut self, message: &Value) -> Result<(), ValidationError> {
        let Some((kind, body)) = message_body(message) else {
            return Ok(());
        };
        let Some(surface_id) = body.get("surfaceId").and_then(Value::as_str) else {
            return Ok(());
        };
        if kind == "deleteSurface" {
            self.surfaces.remove(surface_id);
            return Ok(());
        }
        let creates = matches!(kind, "createSurface" | "beginRendering");
        // A createSurface starts the surface over: its components join an empty tree.
        let base = self
            .surfaces
            .get(surface_id)
            .filter(|_| kind != "createSurface");
        let named = body.get("catalogId").and_then(Value::as_str);
        let catalog = match named {
            Some(id) if creates => self
                .validator
                .catalogs()
                .iter()
                .position(|c| c.answers_to(id)),
            _ => base.and_then(|surface| surface.catalog),
        };
        let pending = self.check(kind, body, surface_id, base, catalog)?;
        if !self.surfaces.contains_key(surface_id) {
            self.order.push(surface_id.to_owned());
        }
        let surface = self.surfaces.entry(surface_id.to_owned()).or_default();
        if kind == "createSurface" {
            *surface = Watched::default();
        }
        if creates {
            surface.created_here = true;
            surface.check_at_close = true;
            surface.catalog = catalog;
        }
        if kind == "beginRendering" {
            surface.root = body.get("root").and_then(Value::as_str).map(str::to_owned);
        }
        for Pending { id, children } in pending {
            surface.referenced.extend(children.iter().cloned());
            if !surface.children.contains_key(id) {
                surface.ids.push(id.to_owned());
            }
            surface.children.insert(id.to_owned(), children);
        }
        Ok(())
    }

    /// The components of one message, checked against the surface's tree (`base`) without
    /// changing it: no id twice in the list, none closing a cycle.
    fn check<'m>(
        &self,
        kind: &str,
        body: &'m Value,
        surface_id: &str,
        base: Option<&Watched>,
        catalog: Option<usize>,
    ) -> Result<Vec<Pending<'m>>, ValidationError> {
        let list = match kind {
            "createSurface" | "updateComponents" | "surfaceUpdate" => {
                body.get("components").and_then(Value::as_array)
            }
            _ => None,
        };
        let mut pending: Vec<Pending<'m>> = Vec::new();
        // Where each id of the list is: its position, and its index in `pending`.
        let mut at: HashMap<&str, (usize, usize)> = HashMap::new();
        for (position, component) in list.into_iter().flatten().enumerate() {
            let Some(id) = component.get("id").and_then(Value::as_str) else {
                continue;
            };
            let pointer = format!("/{kind}/components/{position}");
            if let Some(&(first, _)) = at.get(id) {
                return Err(ValidationError::new(
                    format!("{pointer}/id"),
                    format!(
                        "duplicate component id '{id}': already defined at /{kind}/components/{first}"
                    ),
                    Some(surface_id),
                    None,
                ));
            }
            at.insert(id, (position, pending.len()));
            pending.push(Pending {
                id,
                children: self.child_ids(catalog, component),
            });
            // The tree as it would be with this message's components so far.
            let lookup = |of: &str| -> Option<&[String]> {
                match at.get(of) {
                    Some(&(_, index)) => pending.get(index).map(|c| c.children.as_slice()),
                    None => base
                        .and_then(|surface| surface.children.get(of))
                        .map(Vec::as_slice),
                }
            };
            if let Some(cycle) = cycle_through(lookup, id) {
                return Err(ValidationError::new(
                    pointer,
                    format!(
                        "component '{id}' closes a circular reference: {}",
                        describe_cycle(&cycle)
                    ),
                    Some(surface_id),
                    None,
                ));
            }
        }
        Ok(pending)
    }

    /// A block (an `<a2ui-json>` element) closed: the components of the surfaces created in
    /// it that their root can never reach (see the [module docs](self) for which).
    ///
    /// # Example
    ///
    /// ```
    /// use a2ui_agent::a2ui::{ProtocolVersion, TreeWatch, Validator};
    /// use serde_json::json;
    ///
    /// let v = ProtocolVersion::V0_9;
    /// let mut watch = TreeWatch::new(Validator::basic(v));
    /// let block = [
    ///     json!({"version": "v0.9", "createSurface": {"surfaceId": "s", "catalogId": v.basic_catalog_id()}}),
    ///     json!({"version": "v0.9", "updateComponents": {"surfaceId": "s", "components": [
    ///         {"id": "root", "component": "Text", "text": "hi"},
    ///         {"id": "stray", "component": "Text", "text": "lost"}]}}),
    /// ];
    /// for message in &block {
    ///     watch.observe(message).unwrap();
    /// }
    /// let errors = watch.block_closed();
    /// assert!(errors[0].message.contains("component 'stray' is not reachable"));
    /// ```
    pub fn block_closed(&mut self) -> Vec<ValidationError> {
        let mut errors = Vec::new();
        for surface_id in &self.order {
            let Some(surface) = self.surfaces.get_mut(surface_id) else {
                continue;
            };
            if surface.check_at_close && surface.children.contains_key(surface.root()) {
                surface.check_at_close = false;
                surface.unreachable(surface_id, &mut errors);
            }
        }
        errors.truncate(MAX_ERRORS);
        errors
    }

    /// The response ended: for each surface it created, each reference no component
    /// answers, a missing root, a cycle, and the components their root can never reach. A
    /// component an update orphaned (something referred to it before) is not reported:
    /// renderers drop it.
    ///
    /// # Example
    ///
    /// ```
    /// use a2ui_agent::a2ui::{ProtocolVersion, TreeWatch, Validator};
    /// use serde_json::json;
    ///
    /// let v = ProtocolVersion::V0_9;
    /// let mut watch = TreeWatch::new(Validator::basic(v));
    /// watch.observe(&json!({"version": "v0.9", "createSurface": {"surfaceId": "s", "catalogId": v.basic_catalog_id()}})).unwrap();
    /// watch.observe(&json!({"version": "v0.9", "updateComponents": {"surfaceId": "s", "components": [
    ///     {"id": "root", "component": "Card", "child": "body"}]}})).unwrap();
    /// let errors = watch.finish();
    /// assert!(errors[0].message.contains("refers to 'body', which no component of surface 's' defines"));
    /// ```
    pub fn finish(&self) -> Vec<ValidationError> {
        let mut errors = Vec::new();
        for surface_id in &self.order {
            if let Some(surface) = self.surfaces.get(surface_id) {
                if surface.created_here && !surface.children.is_empty() {
                    surface.check(surface_id, &mut errors);
                }
            }
        }
        errors.truncate(MAX_ERRORS);
        errors
    }

    /// The ids `component` refers to, by the reference shapes of its catalog (see
    /// [`Validator::refs_of`]).
    fn child_ids(&self, catalog: Option<usize>, component: &Value) -> Vec<String> {
        let Some((props, shapes)) = self.validator.refs_of(catalog, component) else {
            return Vec::new();
        };
        let mut refs = Vec::new();
        for (key, shape) in shapes {
            if let Some(value) = props.get(key) {
                collect_refs(value, shape, &mut refs);
            }
        }
        refs.into_iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect()
    }
}

impl Watched {
    /// The root's id: named by v0.8 `beginRendering`, else `root`.
    fn root(&self) -> &str {
        self.root.as_deref().unwrap_or("root")
    }

    /// The end-of-reply checks of a surface created in the reply.
    fn check(&self, surface_id: &str, errors: &mut Vec<ValidationError>) {
        for id in &self.ids {
            for child in self.children.get(id).into_iter().flatten() {
                if !self.children.contains_key(child) {
                    errors.push(tree::dangling(id, child, surface_id, String::new()));
                }
            }
        }
        let root = self.root();
        if !self.children.contains_key(root) {
            errors.push(tree::no_root(surface_id, root, ""));
            return;
        }
        self.unreachable(surface_id, errors);
    }

    /// Reports each cycle the root reaches, and each component the root does not reach and
    /// nothing ever referred to.
    fn unreachable(&self, surface_id: &str, errors: &mut Vec<ValidationError>) {
        let root = self.root();
        let step = |id: &str, next: usize| match self.children.get(id) {
            None => Step::End,
            Some(children) => children
                .get(next)
                .map_or(Step::End, |child| Step::Child(child.as_str())),
        };
        let reached = tree::walk(root, step, |id, _, cycle| {
            errors.push(tree::closes_cycle(id, cycle, surface_id, String::new()));
        });
        for id in &self.ids {
            if !reached.contains(id.as_str()) && !self.referenced.contains(id) {
                errors.push(tree::not_reachable(id, root, surface_id, String::new()));
            }
        }
    }
}

/// A path `id -> ... -> id` through `children`, if `id` reaches itself.
fn cycle_through<'c>(
    children: impl Fn(&str) -> Option<&'c [String]>,
    id: &'c str,
) -> Option<Vec<&'c str>> {
    // Depth-first from `id`, remembering how each component was first reached.
    let mut parent: HashMap<&str, &str> = HashMap::new();
    let mut stack: Vec<&str> = vec![id];
    let mut visits = 0;
    while let Some(at) = stack.pop() {
        visits += 1;
        if visits > MAX_VISITS {
            return None;
        }
        for child in children(at).into_iter().flatten() {
            if child == id {
                // Walk back from `at` to `id` through the recorded parents.
                let mut path = vec![id];
                let mut back = at;
                while back != id {
                    path.push(back);
                    back = parent.get(back).copied().unwrap_or(id);
                }
                path[1..].reverse();
                path.push(id);
                return Some(path);
            }
            if !parent.contains_key(child.as_str()) {
                parent.insert(child, at);
                stack.push(child);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::a2ui::ProtocolVersion;
    use serde_json::json;

    fn watch(version: ProtocolVersion) -> TreeWatch {
        TreeWatch::new(Validator::basic(version))
    }

    fn update(components: Value) -> Value {
        json!({"version": "v0.9", "updateComponents": {"surfaceId": "s", "components": components}})
    }

    #[test]
    fn a_self_reference_is_an_error_as_soon_as_it_arrives() {
        let mut w = watch(ProtocolVersion::V0_9);
        let error = w
            .observe(&update(
                json!([{"id": "root", "component": "Card", "child": "root"}]),
            ))
            .unwrap_err();
        assert_eq!(error.pointer, "/updateComponents/components/0");
        assert!(error.message.contains("root -> root"), "{error}");
    }

    #[test]
    fn a_cycle_is_caught_by_the_component_that_closes_it_in_a_later_message() {
        let mut w = watch(ProtocolVersion::V0_9);
        let parts = [
            json!([{"id": "root", "component": "Column", "children": ["a", "b"]}]),
            json!([{"id": "a", "component": "Card", "child": "c"}]),
            json!([{"id": "b", "component": "Text", "text": "fine"}]),
        ];
        for part in parts {
            w.observe(&update(part)).unwrap();
        }
        let error = w
            .observe(&update(
                json!([{"id": "c", "component": "Card", "child": "a"}]),
            ))
            .unwrap_err();
        assert!(error.message.contains("c -> a -> c"), "{error}");
    }

    #[test]
    fn a_wide_tree_sent_one_component_at_a_time_is_fine() {
        let mut w = watch(ProtocolVersion::V0_9);
        let ids: Vec<String> = (0..200).map(|i| format!("t{i}")).collect();
        w.observe(&json!({"version": "v0.9", "createSurface": {"surfaceId": "s", "catalogId": ProtocolVersion::V0_9.basic_catalog_id()}}))
            .unwrap();
        w.observe(&update(
            json!([{"id": "root", "component": "Column", "children": ids}]),
        ))
        .unwrap();
        for id in &ids {
            w.observe(&update(
                json!([{"id": id, "component": "Text", "text": id}]),
            ))
            .unwrap();
        }
        assert!(w.finish().is_empty());
    }

    #[test]
    fn an_unreachable_component_is_reported_at_the_end_but_an_orphaned_one_is_not() {
        let mut w = watch(ProtocolVersion::V0_9);
        w.observe(&json!({"version": "v0.9", "createSurface": {"surfaceId": "s", "catalogId": ProtocolVersion::V0_9.basic_catalog_id()}}))
            .unwrap();
        w.observe(&update(json!([
            {"id": "root", "component": "Card", "child": "old"},
            {"id": "old", "component": "Text", "text": "x"},
            {"id": "stray", "component": "Text", "text": "y"}
        ])))
        .unwrap();
        w.observe(&update(json!([{"id": "root", "component": "Card", "child": "new"}, {"id": "new", "component": "Text", "text": "z"}])))
            .unwrap();
        let errors = w.finish();
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(
            errors[0].message.contains("'stray' is not reachable"),
            "{}",
            errors[0]
        );
    }

    fn create() -> Value {
        json!({"version": "v0.9", "createSurface": {"surfaceId": "s", "catalogId": ProtocolVersion::V0_9.basic_catalog_id()}})
    }

    #[test]
    fn an_unreachable_component_is_reported_when_the_creating_block_closes() {
        let mut w = watch(ProtocolVersion::V0_9);
        w.observe(&create()).unwrap();
        w.observe(&update(json!([
            {"id": "root", "component": "Card", "child": "body"},
            {"id": "stray", "component": "Text", "text": "y"}
        ])))
        .unwrap();
        let errors = w.block_closed();
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(
            errors[0].message.contains("'stray' is not reachable"),
            "{}",
            errors[0]
        );
        // Checked once: the next block's close does not report it again.
        assert!(w.block_closed().is_empty());
    }

    #[test]
    fn a_child_sent_in_a_later_block_is_not_an_orphan() {
        let mut w = watch(ProtocolVersion::V0_9);
        w.observe(&create()).unwrap();
        w.observe(&update(
            json!([{"id": "root", "component": "Card", "child": "body"}]),
        ))
        .unwrap();
        assert!(w.block_closed().is_empty());
        w.observe(&update(
            json!([{"id": "body", "component": "Text", "text": "x"}]),
        ))
        .unwrap();
        assert!(w.block_closed().is_empty());
        assert!(w.finish().is_empty());
    }

    #[test]
    fn a_surface_without_its_root_yet_is_checked_at_the_block_that_brings_it() {
        let mut w = watch(ProtocolVersion::V0_9);
        w.observe(&create()).unwrap();
        w.observe(&update(
            json!([{"id": "stray", "component": "Text", "text": "y"}]),
        ))
        .unwrap();
        assert!(w.block_closed().is_empty());
        w.observe(&update(
            json!([{"id": "root", "component": "Text", "text": "x"}]),
        ))
        .unwrap();
        let errors = w.block_closed();
        assert!(
            errors[0].message.contains("'stray' is not reachable"),
            "{errors:?}"
        );
    }

    #[test]
    fn a_stray_in_a_later_update_block_waits_for_the_end_of_the_reply() {
        let mut w = watch(ProtocolVersion::V0_9);
        w.observe(&create()).unwrap();
        w.observe(&update(json!([{"id": "root", "component": "Column", "children": ["a"]}, {"id": "a", "component": "Text", "text": "a"}])))
            .unwrap();
        assert!(w.block_closed().is_empty());
        w.observe(&update(
            json!([{"id": "b", "component": "Text", "text": "b"}]),
        ))
        .unwrap();
        assert!(
            w.block_closed().is_empty(),
            "a later block may still attach it"
        );
        let errors = w.finish();
        assert!(
            errors[0].message.contains("'b' is not reachable"),
            "{errors:?}"
        );
    }

    #[test]
    fn v0_8_children_and_the_named_root_are_followed() {
        let mut w = watch(ProtocolVersion::V0_8);
        let surface = |components: Value| json!({"surfaceUpdate": {"surfaceId": "s", "components": components}});
        w.observe(&surface(
            json!([{"id": "top", "component": {"Column": {"children": {"explicitList": ["a"]}}}}]),
        ))
        .unwrap();
        w.observe(&json!({"beginRendering": {"surfaceId": "s", "root": "top"}}))
            .unwrap();
        let error = w
            .observe(&surface(
                json!([{"id": "a", "component": {"Card": {"child": "top"}}}]),
            ))
            .unwrap_err();
        assert!(error.message.contains("a -> top -> a"), "{error}");
    }
    #[test]
    fn a_refused_message_leaves_the_tree_as_it_was() {
        let mut w = watch(ProtocolVersion::V0_9);
        w.observe(&create()).unwrap();
        w.observe(&update(
            json!([{"id": "root", "component": "Card", "child": "a"}]),
        ))
        .unwrap();
        // `b` is fine alone, but `a` in the same message closes a cycle: neither is taken in.
        let refused = update(json!([
            {"id": "b", "component": "Text", "text": "b"},
            {"id": "a", "component": "Card", "child": "root"}
        ]));
        assert!(w.observe(&refused).is_err());
        // The repair: `a` as a leaf. Had the refused `a` been kept, `b` would be a stray.
        w.observe(&update(
            json!([{"id": "a", "component": "Text", "text": "a"}]),
        ))
        .unwrap();
        assert_eq!(w.block_closed(), Vec::new());
        assert_eq!(w.finish(), Vec::new());
    }

    #[test]
    fn an_id_listed_twice_in_one_message_is_refused() {
        let mut w = watch(ProtocolVersion::V0_9);
        let error = w
            .observe(&update(json!([
                {"id": "root", "component": "Text", "text": "a"},
                {"id": "root", "component": "Text", "text": "b"}
            ])))
            .unwrap_err();
        assert_eq!(error.pointer, "/updateComponents/components/1/id");
        assert!(
            error.message.contains("duplicate component id 'root'"),
            "{error}"
        );
    }

    #[test]
    fn the_end_reports_a_missing_root_a_dangling_reference_and_a_long_cycle() {
        let mut w = watch(ProtocolVersion::V0_9);
        w.observe(&create()).unwrap();
        w.observe(&update(
            json!([{"id": "top", "component": "Card", "child": "gone"}]),
        ))
        .unwrap();
        let errors = w.finish();
        assert!(errors[0].message.contains("refers to 'gone'"), "{errors:?}");
        assert!(
            errors[1].message.contains("has no root component"),
            "{errors:?}"
        );

        // A chain longer than one component's check may walk, closed at its end.
        let mut w = watch(ProtocolVersion::V0_9);
        w.observe(&create()).unwrap();
        let n = MAX_VISITS + 10;
        for i in 0..n {
            let child = if i + 1 == n {
                "root".to_owned()
            } else {
                format!("c{}", i + 1)
            };
            let id = if i == 0 {
                "root".to_owned()
            } else {
                format!("c{i}")
            };
            let component = json!([{"id": id, "component": "Card", "child": child}]);
            w.observe(&update(component)).unwrap();
        }
        let errors = w.finish();
        assert!(
            errors.iter().any(|e| e.message.contains("closes a cycle")),
            "{errors:?}"
        );
    }
}
