//! What an AG-UI client asks for: a `RunAgentInput` body, decoded within the same budget as
//! an A2A body, and the one new turn in it.
//!
//! AG-UI sends the whole conversation on every run; the agent answers only its newest turn,
//! so this module finds that turn: the action in `forwardedProps.a2uiAction` (what
//! CopilotKit's renderer sends), else the `log_a2ui_event` tool result the A2UI middleware
//! appends for one, else the last user message. Everything else the agent may want
//! (`state`, `context`, the rest of `forwardedProps`, the tools) rides in the request's
//! metadata. Any input that cannot be read is refused with a message saying where.

use axum::body::Bytes;
use serde::Deserialize;
use serde_json::{Map, Value};

use crate::a2a::budget::{self, DecodeBudget};

/// The tool the A2UI middleware answers for a surface action (`log_a2ui_event`).
pub(super) const LOG_A2UI_EVENT: &str = "log_a2ui_event";

/// The most bytes of a `threadId` or `runId`.
const MAX_ID_BYTES: usize = 512;

/// A `RunAgentInput`, as far as the server reads it.
#[derive(Debug)]
pub(super) struct RunInput {
    /// The conversation (an A2A context of the caller's).
    pub(super) thread_id: String,
    /// This run.
    pub(super) run_id: String,
    /// What the user did this turn.
    pub(super) turn: Turn,
    /// `forwardedProps`, when it is an object.
    pub(super) forwarded: Map<String, Value>,
    /// `state`, `context`, `tools` and `forwardedProps` as sent, for the request metadata.
    pub(super) passed: Map<String, Value>,
    /// The earlier turns as the client sent them, oldest first: who said it (`true`: the
    /// user) and the text, for an agent whose thread the server keeps none of.
    pub(super) earlier: Vec<(bool, String)>,
}

/// The newest turn of the conversation.
#[derive(Debug, PartialEq)]
pub(super) enum Turn {
    /// The user wrote this.
    Text(String),
    /// The user acted on a surface: the A2UI `userAction` object (`name`, `surfaceId`,
    /// `sourceComponentId`, `context`, `timestamp`).
    Action(Map<String, Value>),
    /// The client ran tools the agent asked it to: each call's id and result, in order.
    ToolResults(Vec<(String, String)>),
}

/// Why an input is refused, said to the client.
#[derive(Debug, PartialEq, thiserror::Error)]
#[error("{0}")]
pub(super) struct Refused(pub(super) String);

/// The wire shape read: unknown members are ignored, as AG-UI asks of a consumer.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Wire {
    thread_id: String,
    run_id: String,
    messages: Vec<WireMessage>,
    #[serde(default)]
    tools: Option<Value>,
    #[serde(default)]
    context: Option<Value>,
    #[serde(default)]
    state: Option<Value>,
    #[serde(default)]
    forwarded_props: Option<Value>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct WireMessage {
    role: String,
    #[serde(default)]
    content: Option<Value>,
    #[serde(default)]
    tool_calls: Option<Vec<WireToolCall>>,
    #[serde(default)]
    tool_call_id: Option<String>,
}

#[derive(Deserialize)]
struct WireToolCall {
    id: String,
    function: WireFunction,
}

#[derive(Deserialize)]
struct WireFunction {
    name: String,
    arguments: String,
}

/// Decodes `body` within `budget` (its values, depth and repeated keys as for A2A; the new
/// turn's text within the budget's message bytes).
pub(super) fn decode(body: &Bytes, budget: &DecodeBudget) -> Result<RunInput, Refused> {
    budget::check(body, budget).map_err(|refusal| Refused(refusal.to_rpc(false).message))?;
    let wire: Wire = serde_json::from_slice(body)
        .map_err(|error| Refused(format!("Invalid RunAgentInput: {error}")))?;
    for (name, id) in [("threadId", &wire.thread_id), ("runId", &wire.run_id)] {
        if id.is_empty() || id.len() > MAX_ID_BYTES {
            return Err(Refused(format!(
                "Invalid RunAgentInput: `{name}` must hold 1 to {MAX_ID_BYTES} bytes"
            )));
        }
    }
    let forwarded = match &wire.forwarded_props {
        Some(Value::Object(map)) => map.clone(),
        _ => Map::new(),
    };
    let turn = newest_turn(&wire.messages, &forwarded)?;
    let earlier = earlier_turns(&wire.messages, &turn);
    if let Turn::Text(text) = &turn
        && text.len() > budget.max_message_bytes
    {
        return Err(Refused(format!(
            "Invalid RunAgentInput: the user message is longer than {} bytes",
            budget.max_message_bytes
        )));
    }
    let mut passed = Map::new();
    for (key, value) in [
        ("state", wire.state),
        ("context", wire.context),
        ("tools", wire.tools),
        ("forwardedProps", wire.forwarded_props),
    ] {
        if let Some(value) = value.filter(|value| !value.is_null()) {
            passed.insert(key.to_owned(), value);
        }
    }
    Ok(RunInput {
        thread_id: wire.thread_id,
        run_id: wire.run_id,
        turn,
        forwarded,
        passed,
        earlier,
    })
}

/// The user's and the assistant's texts before the newest `turn` (whose own message, a
/// user's text, is left out).
fn earlier_turns(messages: &[WireMessage], turn: &Turn) -> Vec<(bool, String)> {
    let before = match turn {
        Turn::Text(_) => &messages[..messages.len().saturating_sub(1)],
        Turn::Action(_) | Turn::ToolResults(_) => messages,
    };
    before
        .iter()
        .filter_map(|message| {
            let user = match message.role.as_str() {
                "user" => true,
                "assistant" => false,
                _ => return None,
            };
            let text = text_of(message.content.as_ref()).ok()?;
            (!text.is_empty()).then_some((user, text))
        })
        .collect()
}

/// The newest turn: `forwardedProps.a2uiAction.userAction`, else a trailing
/// `log_a2ui_event` result, else the last message when it is the user's.
fn newest_turn(messages: &[WireMessage], forwarded: &Map<String, Value>) -> Result<Turn, Refused> {
    if let Some(action) = forwarded.get("a2uiAction") {
        return action
            .get("userAction")
            .and_then(Value::as_object)
            .filter(|action| action.get("name").is_some_and(Value::is_string))
            .map(|action| Turn::Action(action.clone()))
            .ok_or_else(|| {
                Refused(
                    "Invalid RunAgentInput: `forwardedProps.a2uiAction` must be \
                     {\"userAction\": {\"name\": ..., ...}}"
                        .to_owned(),
                )
            });
    }
    let Some(last) = messages.last() else {
        return Err(Refused(
            "Invalid RunAgentInput: `messages` is empty: nothing to answer".to_owned(),
        ));
    };
    match last.role.as_str() {
        "user" => Ok(Turn::Text(text_of(last.content.as_ref())?)),
        "tool" => logged_action(messages, last),
        role => Err(Refused(format!(
            "Invalid RunAgentInput: the last message is the {role}'s: nothing to answer"
        ))),
    }
}

/// The action a trailing `log_a2ui_event` tool result answers (its call's arguments), or
/// the results of the client's tools that end the messages.
fn logged_action(messages: &[WireMessage], result: &WireMessage) -> Result<Turn, Refused> {
    let call = result.tool_call_id.as_deref().and_then(|id| {
        messages
            .iter()
            .rev()
            .filter_map(|message| message.tool_calls.as_deref())
            .flatten()
            .find(|call| call.id == id)
    });
    match call {
        Some(call) if call.function.name == LOG_A2UI_EVENT => {
            serde_json::from_str::<Map<String, Value>>(&call.function.arguments)
                .ok()
                .filter(|action| action.get("name").is_some_and(Value::is_string))
                .map(Turn::Action)
                .ok_or_else(|| {
                    Refused(format!(
                        "Invalid RunAgentInput: the `{LOG_A2UI_EVENT}` call's arguments are \
                         not a user action with a `name`"
                    ))
                })
        }
        _ => tool_results(messages),
    }
}

/// The tool results that end `messages`, oldest first.
fn tool_results(messages: &[WireMessage]) -> Result<Turn, Refused> {
    let trailing = messages
        .iter()
        .rev()
        .take_while(|message| message.role == "tool");
    let mut results = Vec::new();
    for message in trailing {
        let id = message.tool_call_id.clone().ok_or_else(|| {
            Refused("Invalid RunAgentInput: a tool message has no `toolCallId`".to_owned())
        })?;
        results.push((id, text_of(message.content.as_ref())?));
    }
    results.reverse();
    Ok(Turn::ToolResults(results))
}

/// The text of a user message's `content`: a string, or the text of its text parts.
fn text_of(content: Option<&Value>) -> Result<String, Refused> {
    match content {
        Some(Value::String(text)) => Ok(text.clone()),
        Some(Value::Array(parts)) => Ok(parts
            .iter()
            .filter(|part| part.get("type").and_then(Value::as_str) == Some("text"))
            .filter_map(|part| part.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n")),
        _ => Err(Refused(
            "Invalid RunAgentInput: a user message's `content` must be a string or a list of \
             parts"
                .to_owned(),
        )),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn decoded(body: Value) -> Result<RunInput, Refused> {
        decode(&Bytes::from(body.to_string()), &DecodeBudget::default())
    }

    fn base(messages: Value) -> Value {
        json!({"threadId": "t", "runId": "r", "messages": messages})
    }

    #[test]
    fn the_last_user_message_is_the_turn_as_a_string_or_as_parts() {
        let input = decoded(base(json!([
            {"id": "1", "role": "user", "content": "earlier"},
            {"id": "2", "role": "assistant", "content": "ok"},
            {"id": "3", "role": "user", "content": "find a table"}
        ])))
        .unwrap();
        assert_eq!(input.turn, Turn::Text("find a table".into()));
        let parts = json!([{"id": "1", "role": "user", "content": [
            {"type": "text", "text": "a"},
            {"type": "image", "source": {"type": "url", "value": "https://x"}},
            {"type": "text", "text": "b"}
        ]}]);
        assert_eq!(
            decoded(base(parts)).unwrap().turn,
            Turn::Text("a\nb".into())
        );
    }

    #[test]
    fn a_forwarded_action_wins_over_the_messages() {
        let mut body = base(json!([{"id": "1", "role": "user", "content": "earlier"}]));
        body["forwardedProps"] = json!({"a2uiAction": {"userAction": {"name": "select",
            "surfaceId": "s", "context": {"restaurant": "Alba"}}}});
        let Turn::Action(action) = decoded(body).unwrap().turn else {
            panic!("not an action");
        };
        assert_eq!(action["name"], "select");
        assert_eq!(action["context"]["restaurant"], "Alba");
    }

    #[test]
    fn the_middlewares_log_event_result_is_read_as_the_action() {
        let arguments = json!({"name": "book", "surfaceId": "s"}).to_string();
        let body = base(json!([
            {"id": "1", "role": "user", "content": "hi"},
            {"id": "2", "role": "assistant", "content": "", "toolCalls": [{"id": "c1",
                "type": "function", "function": {"name": "log_a2ui_event",
                "arguments": arguments}}]},
            {"id": "3", "role": "tool", "toolCallId": "c1", "content": "User performed..."}
        ]));
        let Turn::Action(action) = decoded(body).unwrap().turn else {
            panic!("not an action");
        };
        assert_eq!(action["name"], "book");
    }

    #[test]
    fn the_earlier_turns_are_the_texts_before_the_newest() {
        let input = decoded(base(json!([
            {"id": "1", "role": "user", "content": "hi"},
            {"id": "2", "role": "assistant", "content": "hello"},
            {"id": "3", "role": "assistant", "toolCalls": []},
            {"id": "4", "role": "activity", "activityType": "a2ui-surface", "content": {}},
            {"id": "5", "role": "user", "content": "a table?"}
        ])))
        .unwrap();
        assert_eq!(
            input.earlier,
            [(true, "hi".to_owned()), (false, "hello".to_owned())]
        );
    }

    #[test]
    fn the_results_of_the_clients_tools_at_the_end_are_the_turn() {
        let body = base(json!([
            {"id": "1", "role": "user", "content": "book"},
            {"id": "2", "role": "assistant", "toolCalls": [
                {"id": "a", "type": "function", "function": {"name": "pick", "arguments": "{}"}},
                {"id": "b", "type": "function", "function": {"name": "pick", "arguments": "{}"}}]},
            {"id": "3", "role": "tool", "toolCallId": "a", "content": "Friday"},
            {"id": "4", "role": "tool", "toolCallId": "b", "content": [{"type": "text", "text": "8pm"}]}
        ]));
        assert_eq!(
            decoded(body).unwrap().turn,
            Turn::ToolResults(vec![
                ("a".into(), "Friday".into()),
                ("b".into(), "8pm".into())
            ])
        );
    }

    #[test]
    fn inputs_without_a_turn_or_with_bad_ids_are_refused_saying_why() {
        let cases = [
            (base(json!([])), "empty"),
            (
                base(json!([{"id": "1", "role": "assistant", "content": "x"}])),
                "assistant",
            ),
            (
                base(json!([{"id": "1", "role": "tool", "content": "x"}])),
                "toolCallId",
            ),
            (
                json!({"threadId": "", "runId": "r", "messages": []}),
                "threadId",
            ),
            (json!({"threadId": "t", "messages": []}), "runId"),
            (
                base(json!([{"id": "1", "role": "user", "content": 5}])),
                "content",
            ),
            (
                {
                    let mut body = base(json!([]));
                    body["forwardedProps"] = json!({"a2uiAction": {"userAction": "press"}});
                    body
                },
                "a2uiAction",
            ),
        ];
        for (body, expected) in cases {
            let refused = decoded(body.clone()).unwrap_err();
            assert!(refused.0.contains(expected), "{body}: {refused}");
        }
    }

    #[test]
    fn a_body_beyond_the_budget_is_refused_before_it_is_decoded() {
        let budget = DecodeBudget {
            max_values: 10,
            ..DecodeBudget::default()
        };
        let message = json!({"id": "1", "role": "user", "content": "hi"});
        let body = base(Value::Array(vec![message; 5]));
        assert!(decode(&Bytes::from(body.to_string()), &budget).is_err());
        let repeated = r#"{"threadId":"t","threadId":"u","runId":"r","messages":[]}"#;
        assert!(decode(&Bytes::from(repeated), &DecodeBudget::default()).is_err());
    }
}
