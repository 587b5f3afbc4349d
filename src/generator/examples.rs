//! The example the built-in generators show the model: one small surface per version that
//! uses the habits a renderer needs (root first, parents before children, a label as a
//! child Text, data bound by path, a button that sends an action with context).

use serde_json::{Value, json};

use crate::a2ui::ProtocolVersion;

/// An order confirmation card for `version`'s basic catalog, as a JSON array of messages.
pub(super) fn confirmation(version: ProtocolVersion) -> String {
    let surface = "order_confirmation";
    let catalog = version.basic_catalog_id();
    let data = json!({"id": "A-1042", "summary": "2 Margherita pizzas, delivered at 19:30"});
    let messages: Value = match version {
        ProtocolVersion::V0_8 => json!([
            {"beginRendering": {"surfaceId": surface, "root": "root"}},
            {"surfaceUpdate": {"surfaceId": surface, "components": [
                {"id": "root", "component": {"Card": {"child": "content"}}},
                {"id": "content", "component": {"Column": {
                    "children": {"explicitList": ["title", "details", "confirm"]}}}},
                {"id": "title", "component": {"Text": {
                    "text": {"literalString": "Confirm your order"}, "usageHint": "h2"}}},
                {"id": "details", "component": {"Text": {"text": {"path": "/order/summary"}}}},
                {"id": "confirm", "component": {"Button": {"child": "confirm_label",
                    "primary": true, "action": {"name": "confirm_order",
                        "context": [{"key": "orderId", "value": {"path": "/order/id"}}]}}}},
                {"id": "confirm_label", "component": {"Text": {
                    "text": {"literalString": "Confirm"}}}}
            ]}},
            {"dataModelUpdate": {"surfaceId": surface, "path": "/order", "contents": [
                {"key": "id", "valueString": data["id"]},
                {"key": "summary", "valueString": data["summary"]}
            ]}}
        ]),
        _ => {
            // v0.9.1 renderers accept "v0.9", which every v0.9.1 schema in the wild allows.
            let v = version
                .schema_family()
                .message_version()
                .unwrap_or_default();
            // v1.0 binds with `@path` and writes headings in Markdown.
            let (bind, title) = if version == ProtocolVersion::V1_0 {
                ("@path", json!({"text": "## Confirm your order"}))
            } else {
                (
                    "path",
                    json!({"text": "Confirm your order", "variant": "h2"}),
                )
            };
            let mut heading = json!({"id": "title", "component": "Text"});
            if let (Some(h), Some(t)) = (heading.as_object_mut(), title.as_object()) {
                h.extend(t.clone());
            }
            json!([
                {"version": v, "createSurface": {"surfaceId": surface, "catalogId": catalog}},
                {"version": v, "updateComponents": {"surfaceId": surface, "components": [
                    {"id": "root", "component": "Card", "child": "content"},
                    {"id": "content", "component": "Column",
                        "children": ["title", "details", "confirm"]},
                    heading,
                    {"id": "details", "component": "Text", "text": {bind: "/order/summary"}},
                    {"id": "confirm", "component": "Button", "child": "confirm_label",
                        "variant": "primary", "action": {"event": {"name": "confirm_order",
                            "context": {"orderId": {bind: "/order/id"}}}}},
                    {"id": "confirm_label", "component": "Text", "text": "Confirm"}
                ]}},
                {"version": v, "updateDataModel": {"surfaceId": surface, "path": "/order",
                    "value": data}}
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
            let messages: Vec<Value> = serde_json::from_str(&confirmation(version)).unwrap();
            let validator = Validator::basic(version);
            assert!(
                validator.check_response(&messages).is_ok(),
                "{version}: {:?}",
                validator.check_response(&messages)
            );
        }
    }
}
