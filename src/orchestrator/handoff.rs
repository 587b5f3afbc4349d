//! The message a sub-agent gets for the user's turn: the user's parts with only the
//! sub-agent's own surfaces in them (ids as it drew them), the user's A2UI capabilities and
//! the sub-agent's share of the renderer's data model, in the sub-agent's own context and
//! waiting task. Nothing else of the user's metadata goes on: it may hold another agent's
//! data, or what the orchestrator's caller meant for the orchestrator alone.

use super::conversations::Thread;
use super::surfaces::{incoming, own_data_model};
use crate::a2a::{Message, Metadata, SendConfiguration, SendRequest};
use crate::a2ui::ProtocolVersion;
use crate::request::Request;

/// The metadata members that carry the renderer's capabilities (v0.9's, the v1.0 draft's).
const CAPABILITY_KEYS: [&str; 2] = ["a2uiClientCapabilities", "a2uiRendererCapabilities"];
/// The metadata members that carry the renderer's data model.
const DATA_MODEL_KEYS: [&str; 2] = ["a2uiClientDataModel", "a2uiRendererDataModel"];

/// The send that hands `request` to the sub-agent of `namespace`, continuing `thread`;
/// `None` when nothing of the message is the sub-agent's (an action on another's surface).
pub(super) fn send_request(
    request: &Request,
    namespace: &str,
    thread: &Thread,
) -> Option<SendRequest> {
    let parts = incoming(request.parts(), namespace);
    if parts.is_empty() {
        return None;
    }
    let mut message = Message::user(uuid::Uuid::new_v4().to_string(), parts);
    message.context_id = thread.context_id.clone();
    message.task_id = thread.task_id.clone();
    message.extensions = a2ui_extensions(request);
    message.metadata = metadata(request.metadata(), namespace);
    Some(SendRequest {
        message,
        configuration: SendConfiguration::default(),
        metadata: None,
    })
}

/// The A2UI extensions the user asked for (any version: the sub-agent picks the newest it
/// shares), and the one negotiated with the orchestrator when it was inferred from the
/// capabilities alone.
fn a2ui_extensions(request: &Request) -> Vec<String> {
    let mut uris: Vec<String> = request
        .requested_extensions()
        .iter()
        .filter(|uri| ProtocolVersion::from_extension_uri(uri).is_some())
        .cloned()
        .collect();
    if let Some(version) = request.a2ui_version() {
        let uri = version.extension_uri();
        if !uris.iter().any(|known| known == uri) {
            uris.push(uri.to_owned());
        }
    }
    uris
}

/// The user's A2UI capabilities and the sub-agent's own data model, from `user`.
fn metadata(user: &Metadata, namespace: &str) -> Option<Metadata> {
    let mut kept = Metadata::new();
    for key in CAPABILITY_KEYS.iter().chain(DATA_MODEL_KEYS.iter()) {
        if let Some(value) = user.get(*key) {
            kept.insert((*key).to_owned(), value.clone());
        }
    }
    own_data_model(&mut kept, namespace);
    (!kept.is_empty()).then_some(kept)
}

/// The surfaces of the data model in `metadata`.
#[cfg(test)]
fn surfaces_of(metadata: &Metadata) -> Option<&serde_json::Value> {
    metadata.get("a2uiClientDataModel")?.get("surfaces")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::a2a::Part;

    #[test]
    fn the_sub_agent_gets_the_capabilities_and_its_own_data_model_only() {
        let mut message = Message::user("m", vec![Part::text("hi")]);
        message.metadata = json!({
            "a2uiClientCapabilities": {"v0.9": {"supportedCatalogIds": ["c"]}},
            "a2uiClientDataModel": {"version": "v0.9", "surfaces": {
                "weather:main": {"city": "Oslo"}, "food:main": {"party": 2}}},
            "secret": "for the orchestrator only",
        })
        .as_object()
        .cloned();
        let request = Request::new(message, "t", "c");
        let thread = Thread {
            context_id: Some("sub-c".into()),
            task_id: None,
        };
        let sent = send_request(&request, "food", &thread).unwrap();
        let metadata = sent.message.metadata.clone().unwrap();
        assert_eq!(surfaces_of(&metadata), Some(&json!({"main": {"party": 2}})));
        assert!(metadata.contains_key("a2uiClientCapabilities"));
        assert!(!metadata.contains_key("secret"));
        assert_eq!(sent.message.context_id.as_deref(), Some("sub-c"));
        assert_eq!(sent.message.text(), "hi");
    }
}
