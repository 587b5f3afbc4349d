//! The A2UI surfaces of a thread, as AG-UI activities: each surface's messages so far.
//!
//! An `a2ui-surface` activity snapshot replaces the activity whole, and a renderer builds
//! the surface from the `a2ui_operations` it holds, so every snapshot carries all of the
//! surface's messages from its creation on, not only the newest. A surface drawn in an
//! earlier turn of the thread is known from the task's history, so a follow-up turn that
//! only updates it still sends a snapshot the renderer can draw from scratch.

use serde_json::{Map, Value, json};

/// The A2UI message kinds that draw a surface (v0.9 and later; v0.8), each an object
/// naming its `surfaceId`.
const SURFACE_MESSAGES: [&str; 7] = [
    "createSurface",
    "updateComponents",
    "updateDataModel",
    "deleteSurface",
    "beginRendering",
    "surfaceUpdate",
    "dataModelUpdate",
];

/// The messages that start a surface afresh.
const CREATES: [&str; 1] = ["createSurface"];

/// The surfaces of one thread and their messages, in the order they were first drawn.
#[derive(Debug, Default)]
pub(super) struct Surfaces {
    list: Vec<(String, Vec<Value>)>,
}

impl Surfaces {
    /// Adds `message` (an A2UI message to the renderer) to its surface; the surface's
    /// activity (its `messageId` and content) when it is one.
    pub(super) fn add(&mut self, message: &Map<String, Value>) -> Option<(String, Value)> {
        let (kind, surface) = surface_of(message)?;
        let index = match self.list.iter().position(|(id, _)| id == surface) {
            Some(index) => index,
            None => {
                self.list.push((surface.to_owned(), Vec::new()));
                self.list.len() - 1
            }
        };
        let (_, messages) = &mut self.list[index];
        if CREATES.contains(&kind) {
            messages.clear();
        }
        messages.push(Value::Object(message.clone()));
        let content = json!({ "a2ui_operations": messages });
        if kind == "deleteSurface" {
            self.list.remove(index);
        }
        Some((activity_id(surface), content))
    }
}

/// The activity message id of `surface`: stable for the thread, so a later snapshot of
/// the surface replaces the earlier one in the client's conversation.
pub(super) fn activity_id(surface: &str) -> String {
    format!("a2ui-surface-{surface}")
}

/// The kind of a surface message and the surface it is about.
fn surface_of(message: &Map<String, Value>) -> Option<(&'static str, &str)> {
    SURFACE_MESSAGES.iter().find_map(|kind| {
        let surface = message.get(*kind)?.get("surfaceId")?.as_str()?;
        Some((*kind, surface))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(value: Value) -> Map<String, Value> {
        value.as_object().cloned().unwrap()
    }

    fn operations(content: &Value) -> Vec<&str> {
        content["a2ui_operations"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| {
                m.as_object()
                    .unwrap()
                    .keys()
                    .find(|k| *k != "version")
                    .unwrap()
                    .as_str()
            })
            .collect()
    }

    #[test]
    fn each_snapshot_holds_the_surfaces_messages_from_its_creation_on() {
        let mut surfaces = Surfaces::default();
        let create = json!({"version": "v0.9", "createSurface": {"surfaceId": "a",
            "catalogId": "c"}});
        let (id, content) = surfaces.add(&message(create.clone())).unwrap();
        assert_eq!(id, "a2ui-surface-a");
        assert_eq!(operations(&content), ["createSurface"]);
        let update = json!({"version": "v0.9", "updateComponents": {"surfaceId": "a",
            "components": []}});
        let (_, content) = surfaces.add(&message(update.clone())).unwrap();
        assert_eq!(operations(&content), ["createSurface", "updateComponents"]);
        // Another surface keeps its own list.
        let other = json!({"version": "v0.9", "updateDataModel": {"surfaceId": "b"}});
        let (id, content) = surfaces.add(&message(other)).unwrap();
        assert_eq!(
            (id.as_str(), operations(&content)),
            ("a2ui-surface-b", vec!["updateDataModel"])
        );
        // Created again: starts afresh.
        let (_, content) = surfaces.add(&message(create)).unwrap();
        assert_eq!(operations(&content), ["createSurface"]);
        // Deleted: the last snapshot says so, and the surface is forgotten.
        let delete = json!({"version": "v0.9", "deleteSurface": {"surfaceId": "a"}});
        let (_, content) = surfaces.add(&message(delete)).unwrap();
        assert_eq!(operations(&content), ["createSurface", "deleteSurface"]);
        let (_, content) = surfaces.add(&message(update)).unwrap();
        assert_eq!(operations(&content), ["updateComponents"]);
    }

    #[test]
    fn data_that_is_not_a_surface_message_is_no_activity() {
        let mut surfaces = Surfaces::default();
        for data in [
            json!({"version": "v0.9", "action": {"name": "x", "surfaceId": "a"}}),
            json!({"createSurface": "a"}),
            json!({"anything": 1}),
        ] {
            assert!(surfaces.add(&message(data)).is_none());
        }
    }
}
