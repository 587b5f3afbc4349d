//! The example the built-in generators show the model: one small surface per version that
//! uses the habits a renderer needs (root first, parents before children, a label as a
//! child Text, a button that sends an action with context bound by path).
//!
//! Its content is what a small model copies, so it is chosen for that. Every word on it is
//! literal text, the title names the very thing shown, and each entry is a component of its
//! own: shown an order confirmation instead (a generic "Confirm your order"
//! title, the details bound from the data model), Qwen2.5-Coder-1.5B titled Oslo's weather
//! "Today's Weather", wrote scores as data keys (`$/scores/alice`) no renderer shows, and
//! answered "order 1042" with the example's own order. Its subject, a playlist, is far
//! from what users ask of an agent, so what it says is not taken for an answer.

use serde_json::{Value, json};

use crate::a2ui::ProtocolVersion;

/// The surface's title and entries, each shown as literal text.
const TITLE: &str = "Road trip mix";
const ENTRIES: [(&str, &str); 2] = [("first", "Blue Sky, 3:41"), ("second", "Night Drive, 4:05")];

/// A playlist card with a Play button for `version`'s basic catalog, as a JSON array of
/// messages.
pub(super) fn playlist(version: ProtocolVersion) -> String {
    let surface = "playlist";
    let catalog = version.basic_catalog_id();
    let id = "P-17";
    let children = ["title", ENTRIES[0].0, ENTRIES[1].0, "play"];
    let messages: Value = match version {
        ProtocolVersion::V0_8 => {
            let text = |id: &str, text: &str| json!({"id": id, "component": {"Text": {"text": {"literalString": text}}}});
            json!([
                {"beginRendering": {"surfaceId": surface, "root": "root"}},
                {"surfaceUpdate": {"surfaceId": surface, "components": [
                    {"id": "root", "component": {"Card": {"child": "content"}}},
                    {"id": "content", "component": {"Column": {
                        "children": {"explicitList": children}}}},
                    {"id": "title", "component": {"Text": {
                        "text": {"literalString": TITLE}, "usageHint": "h2"}}},
                    text(ENTRIES[0].0, ENTRIES[0].1),
                    text(ENTRIES[1].0, ENTRIES[1].1),
                    {"id": "play", "component": {"Button": {"child": "play_label",
                        "primary": true, "action": {"name": "play",
                            "context": [{"key": "playlistId", "value": {"path": "/playlist/id"}}]}}}},
                    text("play_label", "Play")
                ]}},
                {"dataModelUpdate": {"surfaceId": surface, "path": "/playlist", "contents": [
                    {"key": "id", "valueString": id}
                ]}}
            ])
        }
        _ => {
            // v0.9.1 renderers accept "v0.9", which every v0.9.1 schema in the wild allows.
            let v = version
                .schema_family()
                .message_version()
                .unwrap_or_default();
            // v1.0 binds with `@path` and writes headings in Markdown.
            let (bind, title) = if version == ProtocolVersion::V1_0 {
                let heading = format!("## {TITLE}");
                (
                    "@path",
                    json!({"id": "title", "component": "Text", "text": heading}),
                )
            } else {
                let heading =
                    json!({"id": "title", "component": "Text", "text": TITLE, "variant": "h2"});
                ("path", heading)
            };
            let text = |id: &str, text: &str| json!({"id": id, "component": "Text", "text": text});
            json!([
                {"version": v, "createSurface": {"surfaceId": surface, "catalogId": catalog}},
                {"version": v, "updateComponents": {"surfaceId": surface, "components": [
                    {"id": "root", "component": "Card", "child": "content"},
                    {"id": "content", "component": "Column", "children": children},
                    title,
                    text(ENTRIES[0].0, ENTRIES[0].1),
                    text(ENTRIES[1].0, ENTRIES[1].1),
                    {"id": "play", "component": "Button", "child": "play_label",
                        "variant": "primary", "action": {"event": {"name": "play",
                            "context": {"playlistId": {bind: "/playlist/id"}}}}},
                    text("play_label", "Play")
                ]}},
                {"version": v, "updateDataModel": {"surfaceId": surface, "path": "/playlist",
                    "value": {"id": id}}}
            ])
        }
    };
    messages.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::a2ui::Validator;

    #[test]
    fn every_versions_example_is_a_valid_response() {
        for version in ProtocolVersion::ALL {
            let messages: Vec<Value> = serde_json::from_str(&playlist(version)).unwrap();
            let validator = Validator::basic(version);
            assert!(
                validator.check_response(&messages).is_ok(),
                "{version}: {:?}",
                validator.check_response(&messages)
            );
        }
    }
}
