//! What the user did on a surface: A2UI actions and renderer errors sent back in DataParts.
//!
//! Clients disagree on the envelope (WIRE.md §5): the MIME type sits in `metadata.mimeType` or
//! nowhere, with either A2UI MIME type, and `data` holds one message or `{"messages": [...]}`.
//! This module accepts every such shape and hands the agent plain [`UserAction`] values, so
//! an agent never parses envelopes. A part that is not A2UI, or a message that is not an
//! action or an error, is passed over (and logged at debug level).

use serde_json::{Map, Value};

use crate::a2a::Part;
use crate::a2ui::{ProtocolVersion, is_a2ui_mime};

/// At most this many actions are read from one message; the rest are ignored.
pub(crate) const MAX_ACTIONS: usize = 64;

/// One thing the renderer reported: a user action (v0.8 `userAction`, v0.9 `action`), a
/// renderer error (`error`), or, in v1.0, a function call for the agent (`callAgentFunction`)
/// or the answer to one of the agent's (`rendererFunctionResponse`).
///
/// # Example
///
/// ```
/// use a2ui_agent::a2a::{Message, Part};
/// use a2ui_agent::request::{Request, UserActionKind};
/// use serde_json::json;
///
/// let data = json!({"version": "v0.9", "action": {"name": "book", "surfaceId": "s",
///     "sourceComponentId": "ok", "timestamp": "2026-01-01T00:00:00Z", "context": {"n": 2}}});
/// let part = Part::data(data.as_object().unwrap().clone());
/// let request = Request::new(Message::user("m", vec![part]), "t", "c");
/// let action = &request.actions()[0];
/// assert_eq!(action.name, "book");
/// assert_eq!(action.kind, UserActionKind::Action);
/// assert_eq!(action.context["n"], 2);
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct UserAction {
    /// Whether the user acted or the renderer reported an error.
    pub kind: UserActionKind,
    /// The protocol version of the message (v0.8 for `userAction`; else its `version` field,
    /// v0.9 when it has none).
    pub version: ProtocolVersion,
    /// The action's name, or the error's `code`.
    pub name: String,
    /// The surface it happened on, if given.
    pub surface_id: Option<String>,
    /// The component that triggered it, if given.
    pub source_component_id: Option<String>,
    /// The action's resolved context (an error's whole body); an empty object if absent.
    pub context: Map<String, Value>,
    /// The message as the renderer sent it.
    pub message: Value,
}

/// What a [`UserAction`] reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum UserActionKind {
    /// The user triggered an action (a button press, a submitted form).
    Action,
    /// The renderer reports an error (e.g. a message it could not render).
    Error,
    /// The renderer asks the agent to run a function (v1.0 `callAgentFunction`): `name` is
    /// the function, `context` its arguments, the call in [`UserAction::message`].
    FunctionCall,
    /// The renderer answers a `callRendererFunction` (v1.0 `rendererFunctionResponse`):
    /// `name` is the `functionCallId`, `context` the whole response (`value` or `error`).
    FunctionResponse,
}

/// The actions in `parts`, in order, at most [`MAX_ACTIONS`].
pub(crate) fn from_parts(parts: &[Part]) -> Vec<UserAction> {
    parts
        .iter()
        .filter_map(|part| match part {
            Part::Data { data, metadata } => Some((data, metadata.as_deref())),
            _ => None,
        })
        .filter(|(_, metadata)| mime_allows(*metadata))
        .flat_map(|(data, _)| messages(data))
        .filter_map(from_message)
        .take(MAX_ACTIONS)
        .collect()
}

/// A part is read when it names an A2UI MIME type, or names none (its shape decides).
fn mime_allows(metadata: Option<&Map<String, Value>>) -> bool {
    match metadata
        .and_then(|m| m.get("mimeType"))
        .and_then(Value::as_str)
    {
        Some(mime) => is_a2ui_mime(mime),
        None => true,
    }
}

/// The messages in a DataPart's `data`: `{"messages": [...]}` or one message.
fn messages(data: &Map<String, Value>) -> Vec<&Map<String, Value>> {
    match data.get("messages") {
        Some(Value::Array(list)) => list.iter().filter_map(Value::as_object).collect(),
        Some(Value::Object(one)) => vec![one],
        _ => vec![data],
    }
}

fn from_message(message: &Map<String, Value>) -> Option<UserAction> {
    let declared = message
        .get("version")
        .and_then(Value::as_str)
        .and_then(ProtocolVersion::from_message_version);
    let (kind, version, body) = if let Some(body) = message.get("userAction") {
        (UserActionKind::Action, ProtocolVersion::V0_8, body)
    } else if let Some(body) = message.get("action") {
        (
            UserActionKind::Action,
            declared.unwrap_or(ProtocolVersion::V0_9),
            body,
        )
    } else if let (Some(body), Some(ProtocolVersion::V1_0)) =
        (message.get("callAgentFunction"), declared)
    {
        (UserActionKind::FunctionCall, ProtocolVersion::V1_0, body)
    } else if let (Some(body), Some(ProtocolVersion::V1_0)) =
        (message.get("rendererFunctionResponse"), declared)
    {
        (
            UserActionKind::FunctionResponse,
            ProtocolVersion::V1_0,
            body,
        )
    } else if let Some(body) = message.get("error") {
        let version = match message.get("version") {
            Some(_) => declared.unwrap_or(ProtocolVersion::V0_9),
            None => ProtocolVersion::V0_8,
        };
        (UserActionKind::Error, version, body)
    } else {
        tracing::debug!("a DataPart without an A2UI action or error was passed over");
        return None;
    };
    let Some(body) = body.as_object() else {
        tracing::debug!("an A2UI action whose body is not an object was passed over");
        return None;
    };
    let text = |key: &str| body.get(key).and_then(Value::as_str).map(str::to_owned);
    let (name, context) = match kind {
        UserActionKind::Action => (
            text("name")?,
            body.get("context")
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default(),
        ),
        UserActionKind::Error => (
            text("code").unwrap_or_else(|| "error".to_owned()),
            body.clone(),
        ),
        UserActionKind::FunctionCall => {
            let function = body.get("callFunction").and_then(Value::as_object)?;
            let name = ["@call", "call"]
                .iter()
                .find_map(|key| function.get(*key).and_then(Value::as_str))?;
            let args = function.get("args").and_then(Value::as_object).cloned();
            (name.to_owned(), args.unwrap_or_default())
        }
        UserActionKind::FunctionResponse => (text("functionCallId")?, body.clone()),
    };
    Some(UserAction {
        kind,
        version,
        name,
        surface_id: text("surfaceId"),
        source_component_id: text("sourceComponentId"),
        context,
        message: Value::Object(message.clone()),
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn part(data: Value, mime: Option<&str>) -> Part {
        let data = data.as_object().cloned().unwrap();
        Part::Data {
            data: std::sync::Arc::new(data),
            metadata: mime.map(|m| {
                let mut metadata = Map::new();
                metadata.insert("mimeType".into(), m.into());
                std::sync::Arc::new(metadata)
            }),
        }
    }

    fn v0_8_action() -> Value {
        json!({"userAction": {"name": "book", "surfaceId": "s", "sourceComponentId": "b",
            "timestamp": "2026-01-01T00:00:00Z", "context": {"people": 2}}})
    }

    #[test]
    fn a_v0_8_user_action_is_read_with_either_mime_type_or_none() {
        for mime in [
            Some("application/json+a2ui"),
            Some("application/a2ui+json"),
            None,
        ] {
            let actions = from_parts(&[part(v0_8_action(), mime)]);
            assert_eq!(actions.len(), 1, "{mime:?}");
            let action = &actions[0];
            assert_eq!(action.version, ProtocolVersion::V0_8);
            assert_eq!(action.name, "book");
            assert_eq!(action.surface_id.as_deref(), Some("s"));
            assert_eq!(action.source_component_id.as_deref(), Some("b"));
            assert_eq!(action.context["people"], 2);
        }
    }

    #[test]
    fn v1_0_function_calls_and_responses_from_the_renderer_are_read() {
        let call = json!({"version": "v1.0", "callAgentFunction": {"surfaceId": "s",
            "functionCallId": "f-1", "callFunction": {"@call": "lookup", "args": {"q": "x"}}}});
        let response = json!({"version": "v1.0", "rendererFunctionResponse":
            {"functionCallId": "call_1", "value": true}});
        let actions = from_parts(&[part(call, None), part(response, None)]);
        assert_eq!(actions.len(), 2);
        assert_eq!(actions[0].kind, UserActionKind::FunctionCall);
        assert_eq!(actions[0].name, "lookup");
        assert_eq!(actions[0].surface_id.as_deref(), Some("s"));
        assert_eq!(actions[0].context["q"], "x");
        assert_eq!(actions[1].kind, UserActionKind::FunctionResponse);
        assert_eq!(actions[1].name, "call_1");
        assert_eq!(actions[1].context["value"], true);
        // Not v1.0 messages: passed over.
        let old = json!({"version": "v0.9", "callAgentFunction": {"surfaceId": "s"}});
        assert!(from_parts(&[part(old, None)]).is_empty());
    }

    #[test]
    fn a_part_of_another_mime_type_is_not_read_as_an_action() {
        assert!(from_parts(&[part(v0_8_action(), Some("application/json"))]).is_empty());
    }

    #[test]
    fn a_messages_list_gives_every_action_in_order() {
        let data = json!({"messages": [
            {"version": "v0.9", "action": {"name": "a", "surfaceId": "s", "context": {}}},
            {"version": "v0.9", "error": {"code": "VALIDATION_FAILED", "surfaceId": "s",
                "message": "bad", "path": "/x"}},
            "not a message"
        ]});
        let actions = from_parts(&[part(data, Some("application/json+a2ui"))]);
        let summary: Vec<_> = actions.iter().map(|a| (a.kind, a.name.as_str())).collect();
        assert_eq!(
            summary,
            [
                (UserActionKind::Action, "a"),
                (UserActionKind::Error, "VALIDATION_FAILED")
            ]
        );
        assert_eq!(actions[1].context["message"], "bad");
        assert_eq!(actions[1].version, ProtocolVersion::V0_9);
    }

    #[test]
    fn an_action_without_a_name_or_with_a_scalar_body_is_passed_over() {
        let parts = [
            part(
                json!({"version": "v0.9", "action": {"surfaceId": "s"}}),
                None,
            ),
            part(json!({"version": "v0.9", "action": "press"}), None),
            part(json!({"surfaceUpdate": {}}), None),
        ];
        assert!(from_parts(&parts).is_empty());
    }

    #[test]
    fn no_more_than_the_limit_of_actions_is_read() {
        let one = json!({"version": "v0.9", "action": {"name": "a"}});
        let data = json!({"messages": vec![one; MAX_ACTIONS + 10]});
        assert_eq!(from_parts(&[part(data, None)]).len(), MAX_ACTIONS);
    }

    fn any_json() -> impl proptest::strategy::Strategy<Value = Value> {
        use proptest::prelude::*;
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            any::<i64>().prop_map(Value::from),
            prop_oneof![
                Just("userAction".to_owned()),
                Just("action".to_owned()),
                Just("error".to_owned()),
                Just("messages".to_owned()),
                "[a-z]{0,6}",
            ]
            .prop_map(Value::from),
        ];
        leaf.prop_recursive(4, 64, 6, |inner| {
            let key = prop_oneof![
                Just("userAction".to_owned()),
                Just("action".to_owned()),
                Just("error".to_owned()),
                Just("messages".to_owned()),
                Just("name".to_owned()),
                Just("context".to_owned()),
                Just("version".to_owned()),
                "[a-z]{1,6}",
            ];
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
                proptest::collection::btree_map(key, inner, 0..6)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    proptest::proptest! {
        #[test]
        fn any_data_part_gives_at_most_the_limit_of_named_actions_without_panicking(
            data in proptest::collection::btree_map("[a-zA-Z]{1,10}", any_json(), 0..6),
            mime in proptest::option::of("[a-z+/]{0,24}"),
        ) {
            let data = Value::Object(data.into_iter().collect());
            let actions = from_parts(&[part(data, mime.as_deref())]);
            proptest::prop_assert!(actions.len() <= MAX_ACTIONS);
            for action in actions {
                proptest::prop_assert!(action.message.is_object());
            }
        }
    }
}
