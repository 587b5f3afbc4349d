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
use super::tree::{self, Step, describe_cycle};
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
            // Written only for an error: every streamed component comes here.
            let pointer = || format!("/{kind}/components/{position}");
            if let Some(&(first, _)) = at.get(id) {
                return Err(ValidationError::new(
                    format!("{}/id", pointer()),
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
                    pointer(),
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
    /// it that their root can never reach (see the module docs for which).
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
            if let Some(surface) = self.surfaces.get(surface_id)
                && surface.created_here
                && !surface.children.is_empty()
            {
                surface.check(surface_id, &mut errors);
            }
        }
        errors.truncate(MAX_ERRORS);
        errors
    }

    /// The references no component answers at the end of a response, as `(surface, id)`,
    /// each once, for the surfaces [`finish`](Self::finish) checks (those the response
    /// created), in the order the components referring to them came: what a caller may
    /// answer with components of its own before it reports them.
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
    ///     {"id": "root", "component": "Row", "children": ["Send", "later", "Send"]}]}})).unwrap();
    /// assert_eq!(watch.unanswered(), [("s", "Send"), ("s", "later")]);
    /// ```
    pub fn unanswered(&self) -> Vec<(&str, &str)> {
        let mut out = Vec::new();
        for surface_id in &self.order {
            let Some(surface) = self.surfaces.get(surface_id) else {
                continue;
            };
            if !surface.created_here {
                continue;
            }
            let mut seen = HashSet::new();
            for id in &surface.ids {
                for child in surface.children.get(id).into_iter().flatten() {
                    if !surface.children.contains_key(child) && seen.insert(child.as_str()) {
                        out.push((surface_id.as_str(), child.as_str()));
                    }
                }
            }
        }
        out
    }

    /// The ids `component` refers to, by the reference shapes of its catalog (see
    /// [`Validator::refs_of`]).
    fn child_ids(&self, catalog: Option<usize>, component: &Value) -> Vec<String> {
        self.validator.child_ids(catalog, component)
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
    // A component with no children closes no cycle (most are leaves: nothing to allocate).
    if children(id).is_none_or(<[String]>::is_empty) {
        return None;
    }
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
mod tests;
