//! What a repair turn sends: its answer measured against what the client already holds.
//!
//! A repair turn asks the agent again, and the agent rewrites its whole answer: the surface
//! it created, every component and every data update, again. The client already holds what
//! the earlier attempts sent before their problem, and the official renderers refuse a
//! surface created twice ("Surface menu already exists"). [`Held`] remembers what went out
//! and, once a repair turn starts, rewrites the new attempt's messages into what changes
//! the client's state into the one the repaired answer describes:
//!
//! - a surface's creation that the client holds unchanged is not sent again. A **v0.9/v1.0**
//!   `createSurface` that differs (another catalog, theme) goes out after a `deleteSurface`
//!   for the surface, because `createSurface` is the only way to set those and renderers
//!   refuse it for a surface that exists; the surface then starts empty, so everything after
//!   it is sent in full. A **v0.8** `beginRendering` that differs (another root or styles)
//!   also goes out after a `deleteSurface`, since the official Python processor refuses a
//!   second one (`@a2ui/web_core` would take it), but then the surface is given back what
//!   the client held of it (its components and data, which in v0.8 may have come before
//!   the `beginRendering`), so nothing the repair already sent is lost;
//! - a component the client holds with the same content is left out of its update (an
//!   update left with none is not sent); a changed or new one goes out. A **v0.8**
//!   `surfaceUpdate` goes out whole when any of its components changed, and not at all when
//!   none did: the official v0.8 renderer (`@a2ui/web_core`) refuses an update whose
//!   components name one the same update does not hold, so leaving out an unchanged child
//!   would break it;
//! - a data update that sets a path to the value the client already holds there is not sent.
//!
//! Before a repair turn nothing is rewritten: the first attempt goes out as the agent wrote
//! it.

use std::collections::HashMap;

use serde_json::{Map, Value};

/// What the client holds of one reply's surfaces, and whether a repair turn is under way.
#[derive(Debug, Default)]
pub(crate) struct Held {
    surfaces: HashMap<String, Surface>,
    /// Whether the current attempt is a repair turn (then messages are rewritten).
    repairing: bool,
}

/// What the client holds of one surface.
#[derive(Debug, Default)]
struct Surface {
    /// The payload of its `createSurface` / `beginRendering`.
    creation: Option<Value>,
    /// Its components as last sent, by id.
    components: HashMap<String, Value>,
    /// Data model values as last sent, by path (no path is another's prefix).
    data: HashMap<String, Value>,
}

impl Held {
    /// From now on, attempts are repair turns: what the client holds is not sent again.
    /// Whether a repair turn is under way (messages are rewritten, not only noted).
    pub(crate) fn is_repairing(&self) -> bool {
        self.repairing
    }

    pub(crate) fn repairing(&mut self) {
        self.repairing = true;
    }

    /// The messages to send for `messages`, the current attempt's, noting what they give the
    /// client.
    pub(crate) fn reconcile(&mut self, messages: Vec<Value>) -> Vec<Value> {
        let mut out = Vec::with_capacity(messages.len());
        for message in messages {
            self.one(message, &mut out);
        }
        out
    }

    fn one(&mut self, mut message: Value, out: &mut Vec<Value>) {
        let Some((kind, surface_id)) = kind_and_surface(&message) else {
            out.push(message);
            return;
        };
        let send = match kind {
            "deleteSurface" => {
                self.surfaces.remove(&surface_id);
                true
            }
            "createSurface" | "beginRendering" => {
                return self.created(kind, surface_id, message, out);
            }
            "updateComponents" | "surfaceUpdate" => self.components(kind, surface_id, &mut message),
            "updateDataModel" | "dataModelUpdate" => self.data(kind, surface_id, &message),
            _ => true,
        };
        if send {
            out.push(message);
        }
    }

    /// A surface created (`kind` `createSurface`, or v0.8's `beginRendering`): on a repair
    /// turn, nothing when the client holds the same creation; a different one deletes the
    /// surface first (v0.8: and gives it back what it held).
    fn created(&mut self, kind: &str, surface_id: String, message: Value, out: &mut Vec<Value>) {
        let creation = message[kind].clone();
        let surface = self.surfaces.entry(surface_id.clone()).or_default();
        match &surface.creation {
            Some(held) if self.repairing && *held == creation => return,
            Some(_) if self.repairing && kind == "createSurface" => {
                out.push(delete_surface(&message, &surface_id));
                *surface = Surface::default();
            }
            Some(_) if self.repairing => {
                // v0.8: deleted, begun again, and given back what it held.
                out.push(delete_surface(&message, &surface_id));
                surface.creation = Some(creation);
                out.push(message);
                out.extend(surface.restore(&surface_id));
                return;
            }
            _ => {}
        }
        surface.creation = Some(creation);
        out.push(message);
    }

    /// Notes the components `message` (of `kind`) sends; on a repair turn drops those the
    /// client holds as they are. Whether the message still goes out.
    fn components(&mut self, kind: &str, surface_id: String, message: &mut Value) -> bool {
        let surface = self.surfaces.entry(surface_id).or_default();
        let Some(components) = message[kind]
            .get_mut("components")
            .and_then(Value::as_array_mut)
        else {
            return true;
        };
        let repairing = self.repairing;
        let mut changed = |component: &Value| {
            let Some(id) = component.get("id").and_then(Value::as_str) else {
                return true;
            };
            if repairing && surface.components.get(id) == Some(component) {
                return false;
            }
            surface.components.insert(id.to_owned(), component.clone());
            true
        };
        if kind == "surfaceUpdate" {
            // v0.8 renderers check each update's references within it: it goes out whole,
            // or not at all.
            let mut any = false;
            for component in components.iter() {
                any |= changed(component);
            }
            any
        } else {
            components.retain(changed);
            !components.is_empty()
        }
    }

    /// Notes the data `message` (of `kind`) sets; on a repair turn, whether the client does
    /// not hold that value at that path already. Whether the message goes out.
    fn data(&mut self, kind: &str, surface_id: String, message: &Value) -> bool {
        let payload = &message[kind];
        let path = payload
            .get("path")
            .and_then(Value::as_str)
            .unwrap_or("/")
            .to_owned();
        let field = if kind == "updateDataModel" {
            "value"
        } else {
            "contents"
        };
        let value = payload.get(field).cloned().unwrap_or(Value::Null);
        let surface = self.surfaces.entry(surface_id).or_default();
        if self.repairing && surface.data.get(&path) == Some(&value) {
            return false;
        }
        // What was set at an ancestor or a descendant of `path` is no longer known as it
        // was sent.
        surface
            .data
            .retain(|held, _| !overlaps(held.as_str(), path.as_str()));
        surface.data.insert(path, value);
        true
    }
}

impl Surface {
    /// v0.8 messages that give a surface begun again what the client held of it: its
    /// components in one update (each update the client took held its own references, so
    /// all of them together do too) and its data, path by path.
    fn restore(&self, surface_id: &str) -> Vec<Value> {
        let mut messages = Vec::with_capacity(1 + self.data.len());
        if !self.components.is_empty() {
            let mut ids: Vec<&String> = self.components.keys().collect();
            ids.sort();
            let components: Vec<&Value> = ids.iter().map(|id| &self.components[*id]).collect();
            messages.push(serde_json::json!({"surfaceUpdate": {
                "surfaceId": surface_id, "components": components}}));
        }
        let mut paths: Vec<&String> = self.data.keys().collect();
        paths.sort();
        for path in paths {
            let mut update = Map::new();
            update.insert("surfaceId".into(), surface_id.into());
            if path != "/" {
                update.insert("path".into(), path.as_str().into());
            }
            update.insert("contents".into(), self.data[path].clone());
            messages.push(serde_json::json!({ "dataModelUpdate": update }));
        }
        messages
    }
}

/// The message's kind (its one known key) and surface id.
fn kind_and_surface(message: &Value) -> Option<(&'static str, String)> {
    const KINDS: [&str; 7] = [
        "createSurface",
        "beginRendering",
        "updateComponents",
        "surfaceUpdate",
        "updateDataModel",
        "dataModelUpdate",
        "deleteSurface",
    ];
    let object = message.as_object()?;
    let kind = KINDS.into_iter().find(|kind| object.contains_key(*kind))?;
    let surface_id = object[kind].get("surfaceId")?.as_str()?.to_owned();
    Some((kind, surface_id))
}

/// A `deleteSurface` for `surface_id`, in the version `like` is written in.
fn delete_surface(like: &Value, surface_id: &str) -> Value {
    let mut message = Map::new();
    if let Some(version) = like.get("version") {
        message.insert("version".into(), version.clone());
    }
    message.insert(
        "deleteSurface".into(),
        serde_json::json!({ "surfaceId": surface_id }),
    );
    Value::Object(message)
}

/// Whether one JSON Pointer-like path is the other or lies under it.
fn overlaps(a: &str, b: &str) -> bool {
    let (a, b) = (a.trim_end_matches('/'), b.trim_end_matches('/'));
    let under = |long: &str, short: &str| {
        long.strip_prefix(short)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
    };
    under(a, b) || under(b, a)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn create(catalog: &str) -> Value {
        json!({"version": "v0.9", "createSurface": {"surfaceId": "s", "catalogId": catalog}})
    }

    fn update(components: Value) -> Value {
        json!({"version": "v0.9", "updateComponents": {"surfaceId": "s", "components": components}})
    }

    fn data(path: &str, value: Value) -> Value {
        json!({"version": "v0.9", "updateDataModel": {"surfaceId": "s", "path": path, "value": value}})
    }

    fn first_attempt() -> Held {
        let mut held = Held::default();
        let sent = held.reconcile(vec![
            create("c"),
            update(json!([{"id": "root", "component": "Column", "children": ["a"]}])),
            data("/menu", json!(["soup"])),
        ]);
        assert_eq!(sent.len(), 3, "a first attempt goes out as written");
        held.repairing();
        held
    }

    #[test]
    fn a_repair_sends_only_what_changed() {
        let mut held = first_attempt();
        let sent = held.reconcile(vec![
            create("c"),
            update(json!([
                {"id": "root", "component": "Column", "children": ["a"]},
                {"id": "a", "component": "Text", "text": "hi"}
            ])),
            data("/menu", json!(["soup"])),
            data("/open", json!(true)),
        ]);
        assert_eq!(
            sent,
            vec![
                update(json!([{"id": "a", "component": "Text", "text": "hi"}])),
                data("/open", json!(true)),
            ]
        );
    }

    #[test]
    fn an_update_of_only_held_components_is_not_sent() {
        let mut held = first_attempt();
        let root = update(json!([{"id": "root", "component": "Column", "children": ["a"]}]));
        assert_eq!(held.reconcile(vec![root]), Vec::<Value>::new());
    }

    #[test]
    fn a_changed_v0_9_creation_deletes_the_surface_first_and_then_sends_all() {
        let mut held = first_attempt();
        let root = update(json!([{"id": "root", "component": "Column", "children": ["a"]}]));
        let sent = held.reconcile(vec![create("other"), root.clone()]);
        assert_eq!(
            sent,
            vec![
                json!({"version": "v0.9", "deleteSurface": {"surfaceId": "s"}}),
                create("other"),
                root,
            ]
        );
    }

    #[test]
    fn a_changed_v0_8_begin_rendering_starts_over_with_what_the_client_held() {
        let begin = |root: &str| json!({"beginRendering": {"surfaceId": "s", "root": root}});
        let top = json!({"id": "top", "component": {"Text": {"text": {"literalString": "t"}}}});
        let contents = json!([{"key": "k", "valueString": "v"}]);
        let mut held = Held::default();
        held.reconcile(vec![
            json!({"surfaceUpdate": {"surfaceId": "s", "components": [top]}}),
            json!({"dataModelUpdate": {"surfaceId": "s", "path": "/p", "contents": contents}}),
            begin("root"),
        ]);
        held.repairing();
        assert_eq!(held.reconcile(vec![begin("root")]), Vec::<Value>::new());
        assert_eq!(
            held.reconcile(vec![begin("top")]),
            vec![
                json!({"deleteSurface": {"surfaceId": "s"}}),
                begin("top"),
                json!({"surfaceUpdate": {"surfaceId": "s", "components": [top]}}),
                json!({"dataModelUpdate": {"surfaceId": "s", "path": "/p", "contents": contents}}),
            ]
        );
        assert_eq!(held.reconcile(vec![begin("top")]), Vec::<Value>::new());
    }

    #[test]
    fn a_v0_8_update_goes_out_whole_when_one_of_its_components_changed() {
        let update = |text: &str| {
            json!({"surfaceUpdate": {"surfaceId": "s", "components": [
                {"id": "root", "component": {"Column": {"children": {"explicitList": ["t"]}}}},
                {"id": "t", "component": {"Text": {"text": {"literalString": text}}}}
            ]}})
        };
        let mut held = Held::default();
        held.reconcile(vec![update("a")]);
        held.repairing();
        assert_eq!(held.reconcile(vec![update("a")]), Vec::<Value>::new());
        assert_eq!(held.reconcile(vec![update("b")]), vec![update("b")]);
    }

    #[test]
    fn a_value_set_under_a_held_path_makes_the_held_one_unknown() {
        let mut held = first_attempt();
        assert_eq!(
            held.reconcile(vec![data("/menu/0", json!("bread"))]).len(),
            1
        );
        assert_eq!(
            held.reconcile(vec![data("/menu", json!(["soup"]))]).len(),
            1,
            "the client's /menu is no longer the one first sent"
        );
    }

    #[test]
    fn after_a_delete_the_surface_is_sent_in_full() {
        let mut held = first_attempt();
        let delete = json!({"version": "v0.9", "deleteSurface": {"surfaceId": "s"}});
        let sent = held.reconcile(vec![delete.clone(), create("c")]);
        assert_eq!(sent, vec![delete, create("c")]);
    }
}
