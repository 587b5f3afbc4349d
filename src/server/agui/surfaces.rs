//! The A2UI surfaces of a thread, as AG-UI activities: each surface's messages so far.
//!
//! A renderer builds a surface from the `a2ui_operations` its `a2ui-surface` activity holds.
//! The first time a run shows a surface it sends an `ACTIVITY_SNAPSHOT` with all of the
//! surface's messages from its creation on (a surface drawn in an earlier turn is known from
//! the task's history, so a follow-up that only updates it can still be drawn from scratch);
//! each message after that is an `ACTIVITY_DELTA` appending it (a JSON Patch `add` at
//! `/a2ui_operations/-`), so a surface of n components costs n messages on the wire, not
//! n²/2 as a snapshot per component would.

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
    list: Vec<Surface>,
}

#[derive(Debug)]
struct Surface {
    id: String,
    /// The messages the client does not hold yet.
    messages: Vec<Value>,
    /// Whether this run sent the client the surface's activity already.
    shown: bool,
}

/// How a surface message reaches the client: the activity's whole content, or a JSON Patch
/// onto the content the client holds.
#[derive(Debug, PartialEq)]
pub(super) enum Shown {
    Snapshot(Value),
    Delta(Value),
}

impl Surfaces {
    /// Adds `message` (an A2UI message to the renderer) to its surface; the surface's
    /// activity (its `messageId`) and how to show it, when it is one.
    pub(super) fn add(&mut self, message: &Map<String, Value>) -> Option<(String, Shown)> {
        let (index, kind, created) = self.record(message)?;
        let surface = &mut self.list[index];
        // Once shown, the client holds the messages: only a surface created afresh is shown
        // whole again, so they need not be kept.
        let messages = std::mem::take(&mut surface.messages);
        let shown = if surface.shown && !created {
            Shown::Delta(json!([{"op": "add", "path": "/a2ui_operations/-",
                "value": Value::Object(message.clone())}]))
        } else {
            Shown::Snapshot(json!({ "a2ui_operations": messages }))
        };
        surface.shown = true;
        let id = activity_id(&surface.id);
        if kind == "deleteSurface" {
            self.list.remove(index);
        }
        Some((id, shown))
    }

    /// Adds `message` of an earlier turn to its surface without showing it.
    pub(super) fn recall(&mut self, message: &Map<String, Value>) {
        if let Some((index, "deleteSurface", _)) = self.record(message) {
            self.list.remove(index);
        }
    }

    /// Records `message` on its surface: the surface's index, the message's kind and
    /// whether it created the surface afresh.
    fn record(&mut self, message: &Map<String, Value>) -> Option<(usize, &'static str, bool)> {
        let (kind, surface) = surface_of(message)?;
        let index = match self.list.iter().position(|s| s.id == surface) {
            Some(index) => index,
            None => {
                self.list.push(Surface {
                    id: surface.to_owned(),
                    messages: Vec::new(),
                    shown: false,
                });
                self.list.len() - 1
            }
        };
        let surface = &mut self.list[index];
        let created = CREATES.contains(&kind);
        if created {
            surface.messages.clear();
        }
        surface.messages.push(Value::Object(message.clone()));
        Some((index, kind, created))
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

    /// The operations the client holds for `id` after `shown`, applied to what it held.
    fn apply(held: &mut Value, shown: Shown) {
        match shown {
            Shown::Snapshot(content) => *held = content,
            Shown::Delta(patch) => {
                assert_eq!(patch[0]["op"], "add");
                assert_eq!(patch[0]["path"], "/a2ui_operations/-");
                let value = patch[0]["value"].clone();
                held["a2ui_operations"].as_array_mut().unwrap().push(value);
            }
        }
    }

    #[test]
    fn a_surface_is_shown_whole_once_a_run_then_grows_by_deltas() {
        let mut surfaces = Surfaces::default();
        let create = json!({"version": "v0.9", "createSurface": {"surfaceId": "a",
            "catalogId": "c"}});
        let (id, shown) = surfaces.add(&message(create.clone())).unwrap();
        assert_eq!(id, "a2ui-surface-a");
        assert!(matches!(shown, Shown::Snapshot(_)));
        let mut held = json!({});
        apply(&mut held, shown);
        assert_eq!(operations(&held), ["createSurface"]);
        let update = json!({"version": "v0.9", "updateComponents": {"surfaceId": "a",
            "components": []}});
        let (_, shown) = surfaces.add(&message(update.clone())).unwrap();
        assert!(matches!(shown, Shown::Delta(_)), "{shown:?}");
        apply(&mut held, shown);
        assert_eq!(operations(&held), ["createSurface", "updateComponents"]);
        // Another surface keeps its own list.
        let other = json!({"version": "v0.9", "updateDataModel": {"surfaceId": "b"}});
        let (id, Shown::Snapshot(content)) = surfaces.add(&message(other)).unwrap() else {
            panic!("a new surface is shown whole");
        };
        assert_eq!(
            (id.as_str(), operations(&content)),
            ("a2ui-surface-b", vec!["updateDataModel"])
        );
        // Created again: shown afresh.
        let (_, shown) = surfaces.add(&message(create)).unwrap();
        apply(&mut held, shown);
        assert_eq!(operations(&held), ["createSurface"]);
        // Deleted: the last delta says so, and the surface is forgotten.
        let delete = json!({"version": "v0.9", "deleteSurface": {"surfaceId": "a"}});
        let (_, shown) = surfaces.add(&message(delete)).unwrap();
        apply(&mut held, shown);
        assert_eq!(operations(&held), ["createSurface", "deleteSurface"]);
        let (_, Shown::Snapshot(content)) = surfaces.add(&message(update)).unwrap() else {
            panic!("a forgotten surface is shown whole");
        };
        assert_eq!(operations(&content), ["updateComponents"]);
    }

    #[test]
    fn a_surface_of_an_earlier_turn_is_shown_whole_with_its_history_when_updated() {
        let mut surfaces = Surfaces::default();
        let create = json!({"version": "v0.9", "createSurface": {"surfaceId": "a",
            "catalogId": "c"}});
        surfaces.recall(&message(create));
        let gone = json!({"version": "v0.9", "createSurface": {"surfaceId": "g",
            "catalogId": "c"}});
        surfaces.recall(&message(gone));
        surfaces.recall(&message(
            json!({"version": "v0.9", "deleteSurface": {"surfaceId": "g"}}),
        ));
        let update = json!({"version": "v0.9", "updateDataModel": {"surfaceId": "a"}});
        let (_, Shown::Snapshot(content)) = surfaces.add(&message(update.clone())).unwrap() else {
            panic!("the first message of a run is shown whole");
        };
        assert_eq!(operations(&content), ["createSurface", "updateDataModel"]);
        assert!(matches!(
            surfaces.add(&message(update)),
            Some((_, Shown::Delta(_)))
        ));
        let again = json!({"version": "v0.9", "updateDataModel": {"surfaceId": "g"}});
        let (_, Shown::Snapshot(content)) = surfaces.add(&message(again)).unwrap() else {
            panic!("a deleted surface is forgotten");
        };
        assert_eq!(operations(&content), ["updateDataModel"]);
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
