//! One turn of a conversation as the A2A message it is, whichever binding brought it.
//!
//! AG-UI threads and MCP sessions carry no A2A message of their own: each binding says what
//! the user did (words, an action on a surface, answers to client tools), which
//! conversation it belongs to and what the renderer declared, and this module writes the
//! message an A2A client would have sent: the A2UI version's extension activated, the
//! conversation as its context, the conversation's waiting task continued, the renderer's
//! capabilities and data model in the metadata keys an A2A client uses, and a user's action
//! in the shape the A2UI client-to-server schema of that version gives it (v0.8:
//! `{"userAction": {...}}`; v0.9 and later: `{"version": ..., "action": {...}}`). Written
//! once, the bindings cannot drift apart on any of it.

use serde_json::{Map, Value};

use crate::a2a::{Message, Part, Task};
use crate::a2ui::ProtocolVersion;

/// The message metadata key of the renderer's declared capabilities (what an A2A client
/// sends; A2UI's `a2uiClientCapabilities`).
pub(crate) const CLIENT_CAPABILITIES: &str = "a2uiClientCapabilities";

/// The message metadata key of the data model of the surfaces the renderer sends along
/// (`sendDataModel`; A2UI's `a2uiClientDataModel`).
pub(crate) const CLIENT_DATA_MODEL: &str = "a2uiClientDataModel";

/// What the user did this turn.
pub(crate) enum Said {
    /// Words.
    Text(String),
    /// An action on a surface: the A2UI action object (`name`, `surfaceId`,
    /// `sourceComponentId`, `timestamp`, `context`).
    Action(Map<String, Value>),
    /// Parts written by the binding itself (answers to the client's tools).
    Parts(Vec<Part>),
}

/// One turn, before it is a message.
pub(crate) struct Turn {
    /// The message's id.
    pub(crate) id: String,
    /// The conversation: the A2A context id, the caller's own.
    pub(crate) conversation: String,
    /// The A2UI version of the turn; `None` when it is text only.
    pub(crate) version: Option<ProtocolVersion>,
    /// What the user did.
    pub(crate) said: Said,
    /// The renderer's capabilities ([`CLIENT_CAPABILITIES`]), when it declared them.
    pub(crate) capabilities: Option<Value>,
    /// The surfaces' data model ([`CLIENT_DATA_MODEL`]), when the renderer sent it.
    pub(crate) data_model: Option<Value>,
}

impl Turn {
    /// The A2A message of the turn, continuing `waiting` (the conversation's task that
    /// waits for the next turn) when there is one.
    pub(crate) fn into_message(self, waiting: Option<&Task>) -> Message {
        let parts = match self.said {
            Said::Text(text) => vec![Part::text(text)],
            Said::Action(action) => vec![action_part(self.version, action)],
            Said::Parts(parts) => parts,
        };
        let mut message = Message::user(self.id, parts);
        message.context_id = Some(self.conversation);
        message.task_id = waiting.map(|task| task.id.clone());
        message.extensions = self
            .version
            .map(|version| vec![version.extension_uri().to_owned()])
            .unwrap_or_default();
        let mut metadata = Map::new();
        if let Some(capabilities) = self.capabilities {
            metadata.insert(CLIENT_CAPABILITIES.into(), capabilities);
        }
        if let Some(model) = self.data_model {
            metadata.insert(CLIENT_DATA_MODEL.into(), model);
        }
        message.metadata = (!metadata.is_empty()).then_some(metadata);
        message
    }
}

/// The data part of the user's `action` as a renderer of `version` sends it: v0.8's
/// `userAction`, else the `version`ed `action` envelope (v0.9 when the turn has no version).
pub(crate) fn action_part(version: Option<ProtocolVersion>, action: Map<String, Value>) -> Part {
    let mut data = Map::new();
    match version {
        Some(ProtocolVersion::V0_8) => {
            data.insert("userAction".into(), Value::Object(action));
        }
        version => {
            let name = version.unwrap_or(ProtocolVersion::V0_9).as_str();
            data.insert("version".into(), Value::String(name.to_owned()));
            data.insert("action".into(), Value::Object(action));
        }
    }
    Part::data(data)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::a2ui::check_client_message;
    use serde_json::json;

    fn action() -> Map<String, Value> {
        let value = json!({"name": "book", "surfaceId": "s", "sourceComponentId": "b",
            "timestamp": "2026-01-01T00:00:00Z", "context": {"people": 2}});
        value.as_object().cloned().unwrap_or_default()
    }

    #[test]
    fn every_versions_action_is_a_valid_renderer_message_of_that_version() {
        for version in ProtocolVersion::ALL {
            let Part::Data { data, .. } = action_part(Some(version), action()) else {
                panic!("{version}: an action is a data part");
            };
            let data = Value::Object((*data).clone());
            check_client_message(version, &data)
                .unwrap_or_else(|error| panic!("{version}: {error:?} in {data}"));
        }
    }

    #[test]
    fn the_message_carries_the_conversation_version_and_metadata() {
        let turn = Turn {
            id: "m1".into(),
            conversation: "c1".into(),
            version: Some(ProtocolVersion::V0_8),
            said: Said::Action(action()),
            capabilities: Some(json!({"supportedCatalogIds": ["x"]})),
            data_model: None,
        };
        let message = turn.into_message(None);
        assert_eq!(message.context_id.as_deref(), Some("c1"));
        assert_eq!(message.task_id, None);
        assert_eq!(
            message.extensions,
            vec![ProtocolVersion::V0_8.extension_uri().to_owned()]
        );
        let metadata = message.metadata.unwrap_or_default();
        assert!(metadata.contains_key(CLIENT_CAPABILITIES));
        assert!(!metadata.contains_key(CLIENT_DATA_MODEL));
    }
}
