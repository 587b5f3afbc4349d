//! What the frontend's renderer draws, said the way an A2A client says it.
//!
//! An AG-UI client may forward A2A's `a2uiClientCapabilities` in `forwardedProps`. A
//! CopilotKit frontend does not: on every run it sends the catalog its A2UI renderer
//! registered as a `context` entry (the inline catalog JSON, under the description the A2UI
//! middleware also reads). The renderer finds a surface only by the catalog id it
//! registered (CopilotKit's id for the basic catalog is not the spec's), so that id becomes
//! the request's supported catalog, and negotiation answers in it.

use serde_json::{Map, Value, json};

use crate::a2ui::ProtocolVersion;
use crate::server::turn::CLIENT_CAPABILITIES;

/// The description of the context entry CopilotKit's renderer and the A2UI middleware use
/// for the renderer's catalog (`A2UI_SCHEMA_CONTEXT_DESCRIPTION`).
const SCHEMA_CONTEXT: &str = "A2UI Component Schema — available components for generating UI \
                              surfaces. Use these component names and properties when \
                              creating A2UI operations.";

/// The renderer's capabilities for `version`: `forwarded` ones as sent, else the catalog
/// the `context` entry names; `None` when the client said neither.
pub(super) fn capabilities(
    forwarded: &Map<String, Value>,
    context: Option<&Value>,
    version: ProtocolVersion,
) -> Option<Value> {
    if let Some(sent) = forwarded.get(CLIENT_CAPABILITIES) {
        return Some(sent.clone());
    }
    let catalog = context?
        .as_array()?
        .iter()
        .filter(|entry| entry.get("description").and_then(Value::as_str) == Some(SCHEMA_CONTEXT))
        .find_map(|entry| catalog_id(entry.get("value")?.as_str()?))?;
    let entry = json!({"supportedCatalogIds": [catalog]});
    Some(match version {
        ProtocolVersion::V0_8 => entry,
        version => json!({ version.as_str(): entry }),
    })
}

/// The `catalogId` of an inline catalog written as JSON text.
fn catalog_id(text: &str) -> Option<String> {
    let value: Value = serde_json::from_str(text).ok()?;
    let id = value.get("catalogId")?.as_str()?;
    (!id.is_empty()).then(|| id.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn context(value: &str) -> Value {
        json!([
            {"description": "something else", "value": "{\"catalogId\": \"wrong\"}"},
            {"description": SCHEMA_CONTEXT, "value": value},
        ])
    }

    #[test]
    fn copilotkits_catalog_context_names_the_supported_catalog() {
        let id = "https://a2ui.org/specification/v0_9/basic_catalog.json";
        let value = json!({"catalogId": id, "components": {}}).to_string();
        let caps = capabilities(&Map::new(), Some(&context(&value)), ProtocolVersion::V0_9);
        assert_eq!(caps, Some(json!({"v0.9": {"supportedCatalogIds": [id]}})));
    }

    #[test]
    fn forwarded_capabilities_win_and_unreadable_context_says_nothing() {
        let mut forwarded = Map::new();
        forwarded.insert("a2uiClientCapabilities".into(), json!({"v0.9": {}}));
        let value = json!({"catalogId": "x"}).to_string();
        let caps = capabilities(&forwarded, Some(&context(&value)), ProtocolVersion::V0_9);
        assert_eq!(caps, Some(json!({"v0.9": {}})));
        for bad in [
            "not json",
            "{\"catalogId\": 3}",
            "{\"catalogId\": \"\"}",
            "[]",
        ] {
            let caps = capabilities(&Map::new(), Some(&context(bad)), ProtocolVersion::V0_9);
            assert_eq!(caps, None, "{bad}");
        }
        assert_eq!(capabilities(&Map::new(), None, ProtocolVersion::V0_9), None);
        let not_a_list = json!({"description": SCHEMA_CONTEXT});
        let caps = capabilities(&Map::new(), Some(&not_a_list), ProtocolVersion::V0_9);
        assert_eq!(caps, None);
    }
}
