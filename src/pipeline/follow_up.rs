//! What a follow-up turn sends for a surface an earlier turn of the task created.
//!
//! The client still holds the surfaces the task's earlier replies created, and renderers
//! refuse a `createSurface` for one of them (`@a2ui/web_core`: "Surface todo_list already
//! exists"). Models asked to change a surface write it again whole, its creation included:
//! Qwen2.5-Coder 0.5B and 1.5B did so on every follow-up turn of the eval, and an Express
//! block that redefines `root` (the only way to change what the root holds) compiles to a
//! creation. [`Earlier`] knows those surfaces from the request's history and sends what the
//! model meant:
//!
//! - a v0.9/v1.0 `createSurface` with the creation the client holds (same catalog, same
//!   theme) is not sent again: the components and data after it update the surface;
//! - one with another creation goes out after a `deleteSurface` for the surface, because
//!   `createSurface` is the only way to set those; the surface then starts empty.
//!
//! What the message says is still checked as it was written (the guard screens it first),
//! so a surface written again must be whole, as in the turn that created it. v0.8's
//! `beginRendering` is left as it is: it names the root, and a second one is how a v0.8
//! agent moves it.

use std::collections::HashMap;

use serde_json::{Value, json};

use crate::a2a::{Message, Part, Role};

/// The surfaces the client holds from the task's earlier turns, by id, with the payload
/// of the `createSurface` that made each.
#[derive(Debug, Default)]
pub(crate) struct Earlier {
    surfaces: HashMap<String, Value>,
}

impl Earlier {
    /// The surfaces `history`'s agent messages created and did not delete.
    pub(crate) fn from_history(history: &[Message]) -> Self {
        let mut earlier = Earlier::default();
        let messages = history
            .iter()
            .filter(|message| message.role == Role::Agent)
            .flat_map(|message| &message.parts);
        for part in messages {
            let Part::Data { data, .. } = part else {
                continue;
            };
            if let Some((id, creation)) = created(data.get("createSurface")) {
                earlier.surfaces.insert(id, creation.clone());
            } else if let Some(id) = surface_id(data.get("deleteSurface")) {
                earlier.surfaces.remove(&id);
            }
        }
        earlier
    }

    /// `messages` as they go to a client that holds the earlier surfaces.
    pub(crate) fn rewrite(&mut self, messages: Vec<Value>) -> Vec<Value> {
        if self.surfaces.is_empty() {
            return messages;
        }
        let mut out = Vec::with_capacity(messages.len());
        for message in messages {
            if let Some((id, creation)) = created(message.get("createSurface")) {
                match self.surfaces.get(&id) {
                    Some(held) if held == creation => continue,
                    Some(_) => {
                        self.surfaces.remove(&id);
                        out.push(json!({"version": message["version"].clone(),
                            "deleteSurface": {"surfaceId": id}}));
                    }
                    None => {}
                }
            } else if let Some(id) = surface_id(message.get("deleteSurface")) {
                self.surfaces.remove(&id);
            }
            out.push(message);
        }
        out
    }
}

/// The surface id and payload of a `createSurface` payload.
fn created(payload: Option<&Value>) -> Option<(String, &Value)> {
    let payload = payload.filter(|p| p.is_object())?;
    Some((surface_id(Some(payload))?, payload))
}

fn surface_id(payload: Option<&Value>) -> Option<String> {
    payload?.get("surfaceId")?.as_str().map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;

    const CATALOG: &str = "https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json";

    fn create(id: &str, catalog: &str) -> Value {
        json!({"version": "v0.9", "createSurface": {"surfaceId": id, "catalogId": catalog}})
    }

    fn update(id: &str) -> Value {
        json!({"version": "v0.9", "updateComponents": {"surfaceId": id,
            "components": [{"id": "root", "component": "Text", "text": "hi"}]}})
    }

    fn agent(messages: &[Value]) -> Message {
        let parts = messages
            .iter()
            .map(|m| Part::data(m.as_object().cloned().unwrap_or_default()))
            .collect();
        Message::agent("a", parts)
    }

    #[test]
    fn a_surface_created_again_the_same_way_is_updated_instead() {
        let history = [agent(&[create("list", CATALOG), update("list")])];
        let mut earlier = Earlier::from_history(&history);
        let out = earlier.rewrite(vec![create("list", CATALOG), update("list")]);
        assert_eq!(out, vec![update("list")]);
        // A repair turn that writes it again is rewritten the same way.
        assert_eq!(
            earlier.rewrite(vec![create("list", CATALOG)]),
            Vec::<Value>::new()
        );
    }

    #[test]
    fn a_surface_created_with_another_catalog_is_deleted_first() {
        let history = [agent(&[create("list", CATALOG)])];
        let mut earlier = Earlier::from_history(&history);
        let out = earlier.rewrite(vec![create("list", "urn:other"), update("list")]);
        let delete = json!({"version": "v0.9", "deleteSurface": {"surfaceId": "list"}});
        assert_eq!(
            out,
            vec![delete, create("list", "urn:other"), update("list")]
        );
        // From then on the surface is this reply's own.
        assert_eq!(
            earlier.rewrite(vec![create("list", CATALOG)]),
            vec![create("list", CATALOG)]
        );
    }

    #[test]
    fn new_and_deleted_surfaces_are_created_as_written() {
        let delete = json!({"version": "v0.9", "deleteSurface": {"surfaceId": "gone"}});
        let history = [
            agent(&[create("gone", CATALOG), create("kept", CATALOG)]),
            agent(&[delete]),
            Message::user(
                "u",
                vec![Part::data(
                    create("kept", "urn:user")
                        .as_object()
                        .cloned()
                        .unwrap_or_default(),
                )],
            ),
        ];
        let mut earlier = Earlier::from_history(&history);
        let written = vec![create("gone", CATALOG), create("new", CATALOG)];
        assert_eq!(earlier.rewrite(written.clone()), written);
        assert_eq!(
            earlier.rewrite(vec![create("kept", CATALOG)]),
            Vec::<Value>::new()
        );
    }
}
