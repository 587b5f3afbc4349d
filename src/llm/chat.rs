//! The conversation a model is sent, built from a [`Request`].
//!
//! In order: the system turn (the A2UI prompt of the negotiated catalogs, then the agent's
//! own instructions), the task's earlier turns, the new message, then one assistant and one
//! user turn per repair (or, under [`RepairTurns::Retry`], the new message asked again with
//! what was refused). A user turn holds the message's text and its A2UI actions and
//! renderer errors as the JSON messages the prompt tells the model it receives (one per
//! line). An agent turn holds its text and its A2UI messages written back in the negotiated
//! output format, so the model sees its own earlier answers the way it wrote them.

use serde::Serialize;
use serde_json::{Map, Value};

use super::tools::{ToolCall, ToolRecord};
use crate::a2a::{Message, Part, Role};
use crate::agent::STATUS_METADATA;
use crate::request::Request;
use crate::request::actions::from_parts;
use crate::request::client_tools::{client_call_of, client_result_of};

/// One turn of a chat: `{"role": "system" | "user" | "assistant" | "tool", "content": text}`,
/// an assistant turn's tool calls, a tool turn's call id.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ChatMessage {
    /// `system`, `user`, `assistant` or `tool`.
    pub role: &'static str,
    /// The turn's text.
    pub content: String,
    /// The calls an assistant turn asks for.
    #[serde(skip_serializing_if = "Vec::is_empty", serialize_with = "wire_calls")]
    pub tool_calls: Vec<ToolCall>,
    /// The call a tool turn answers.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
}

impl ChatMessage {
    fn new(role: &'static str, content: String) -> Self {
        Self {
            role,
            content,
            tool_calls: Vec::new(),
            tool_call_id: None,
        }
    }

    /// A system turn.
    pub fn system(content: impl Into<String>) -> Self {
        Self::new("system", content.into())
    }

    /// A user turn.
    pub fn user(content: impl Into<String>) -> Self {
        Self::new("user", content.into())
    }

    /// An assistant turn.
    pub fn assistant(content: impl Into<String>) -> Self {
        Self::new("assistant", content.into())
    }

    /// An assistant turn that asks for `calls` (after `content`, possibly empty).
    pub fn assistant_calls(content: impl Into<String>, calls: Vec<ToolCall>) -> Self {
        Self {
            tool_calls: calls,
            ..Self::new("assistant", content.into())
        }
    }

    /// The answer to the call `id`.
    pub fn tool(id: impl Into<String>, content: impl Into<String>) -> Self {
        Self {
            tool_call_id: Some(id.into()),
            ..Self::new("tool", content.into())
        }
    }
}

/// `tool_calls` as the API spells them: `{"id", "type": "function", "function": {"name",
/// "arguments"}}`.
fn wire_calls<S: serde::Serializer>(calls: &[ToolCall], serializer: S) -> Result<S::Ok, S::Error> {
    #[derive(Serialize)]
    struct Call<'a> {
        id: &'a str,
        #[serde(rename = "type")]
        kind: &'static str,
        function: Function<'a>,
    }
    #[derive(Serialize)]
    struct Function<'a> {
        name: &'a str,
        arguments: &'a str,
    }
    serializer.collect_seq(calls.iter().map(|call| Call {
        id: &call.id,
        kind: "function",
        function: Function {
            name: &call.name,
            arguments: &call.arguments,
        },
    }))
}

/// How a repair turn is put to a model.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum RepairTurns {
    /// The rejected answer as the assistant's turn, then the repair prompt as the user's
    /// ([`Repair::prompt`](crate::request::Repair::prompt)): the model continues its reply,
    /// and what the client already holds stays as it is.
    #[default]
    Continue,
    /// The user's message asked again, with what was refused and why
    /// ([`Repair::retry_note`](crate::request::Repair::retry_note)), and not the rejected
    /// answer: a small model shown its answer tends to write it again. On four requests
    /// whose Express answers kept failing, Qwen2.5-Coder-1.5B at temperature 0.7 wrote 16
    /// answers each way: 4 of those asked again were valid and showed what was asked for,
    /// none of those shown their answer. The new answer is a whole
    /// answer: A2UI the client already holds is not sent again, but text the rejected
    /// answer delivered before its problem is. It suits Express, whose answer is read when
    /// it ends: a block that cannot be read has sent nothing.
    Retry,
}

/// The chat for `request`, with the agent's own `instructions` (if any) at the end of the
/// system turn, and its repairs as [`RepairTurns::Continue`] puts them.
///
/// The A2UI prompt comes first for two reasons measured with Qwen2.5-Coder-1.5B on
/// llama.cpp. A server caches the longest prefix it has read before: with the A2UI prompt
/// first, agents sharing a catalog share it, and an edit to the instructions costs only their
/// own tokens (618 tokens read again, 24 s, against all 2,500 and 99 s with the instructions
/// first). And a small model follows what it read last: asked for restaurants with the same
/// words and tools, it wrote the search call alone with the instructions last, and copied
/// the tools' descriptions out before the call with them first.
///
/// # Example
///
/// ```
/// use a2ui_agent::a2a::{Message, Part};
/// use a2ui_agent::generator::Generator;
/// use a2ui_agent::llm::chat_messages;
/// use a2ui_agent::request::Request;
///
/// let processor = Generator::v0_9().negotiate(None)?;
/// let request = Request::new(Message::user("m", vec![Part::text("Book a table")]), "t", "c")
///     .with_a2ui(processor);
/// let chat = chat_messages(&request, Some("You are a restaurant guide."));
/// assert_eq!(chat[0].role, "system");
/// assert!(chat[0].content.contains("<a2ui-json>") && chat[0].content.ends_with("\n\nYou are a restaurant guide."));
/// assert_eq!((chat[1].role, chat[1].content.as_str()), ("user", "Book a table"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn chat_messages(request: &Request, instructions: Option<&str>) -> Vec<ChatMessage> {
    chat_messages_with(request, instructions, RepairTurns::Continue)
}

/// [`chat_messages`], with the repairs put as `repairs` says.
///
/// # Example
///
/// ```
/// use a2ui_agent::a2a::{Message, Part};
/// use a2ui_agent::a2ui::ProtocolVersion;
/// use a2ui_agent::llm::{RepairTurns, chat_messages_with};
/// use a2ui_agent::request::{Repair, Request};
///
/// let request = Request::new(Message::user("m", vec![Part::text("A login form")]), "t", "c")
///     .with_repair(Repair::unreadable(ProtocolVersion::V0_9, "<a2ui>x = +</a2ui>", "cannot read '+'"));
/// let chat = chat_messages_with(&request, None, RepairTurns::Retry);
/// assert_eq!(chat.len(), 1, "no assistant turn: the answer is not shown");
/// assert!(chat[0].content.starts_with("A login form\n\n(An earlier answer"));
/// ```
pub fn chat_messages_with(
    request: &Request,
    instructions: Option<&str>,
    repairs: RepairTurns,
) -> Vec<ChatMessage> {
    let mut chat = Vec::with_capacity(request.history().len() + 2 + 2 * request.repairs().len());
    let system: Vec<&str> = request
        .a2ui()
        .map(|processor| processor.prompt())
        .into_iter()
        .chain(instructions)
        .filter(|text| !text.is_empty())
        .collect();
    if !system.is_empty() {
        chat.push(ChatMessage::system(system.join("\n\n")));
    }
    // The calls the agent asked the client to run, until a user message answers them.
    let mut unanswered: Vec<String> = Vec::new();
    for message in request.history() {
        match message.role {
            Role::User => {
                let answered = answer_client_calls(message, &mut unanswered, &mut chat);
                let said = user_turn(message);
                if !(answered && said.is_empty()) {
                    chat.push(ChatMessage::user(said));
                }
            }
            Role::Agent => agent_turns(message, request, &mut unanswered, &mut chat),
        }
    }
    let answered = answer_client_calls(request.message(), &mut unanswered, &mut chat);
    let mut asked = user_turn(request.message());
    if answered && asked.is_empty() && request.repairs().is_empty() {
        return chat;
    }
    match repairs {
        RepairTurns::Retry => {
            for repair in request.repairs() {
                asked.push_str("\n\n(");
                asked.push_str(&repair.retry_note());
                asked.push(')');
            }
            chat.push(ChatMessage::user(asked));
        }
        RepairTurns::Continue => {
            chat.push(ChatMessage::user(asked));
            for repair in request.repairs() {
                chat.push(ChatMessage::assistant(repair.answer()));
                chat.push(ChatMessage::user(repair.prompt()));
            }
        }
    }
    chat
}

/// The tool turns answering the `unanswered` client calls, from `message`'s answers (a call
/// it does not answer gets a result saying so, since every call needs one); whether there
/// were any.
fn answer_client_calls(
    message: &Message,
    unanswered: &mut Vec<String>,
    chat: &mut Vec<ChatMessage>,
) -> bool {
    if unanswered.is_empty() {
        return false;
    }
    for id in unanswered.drain(..) {
        let answer = message
            .parts
            .iter()
            .filter_map(client_result_of)
            .find(|(answered, _)| *answered == id)
            .map_or("The client gave no result.", |(_, content)| content);
        chat.push(ChatMessage::tool(id, answer));
    }
    true
}

/// The message's text, then its A2UI actions and errors, one JSON message per line.
fn user_turn(message: &Message) -> String {
    let mut lines: Vec<String> = Vec::new();
    let text = message.text();
    if !text.is_empty() {
        lines.push(text);
    }
    for action in from_parts(&message.parts) {
        lines.push(action.message.to_string());
    }
    lines.join("\n")
}

/// The agent's text, with each run of A2UI DataParts written back as one block of the
/// request's output format (Direct JSON when the request has no A2UI), as assistant turns:
/// where the message holds tool calls' records ([`ToolRecord`]), the text before them
/// becomes an assistant turn asking for those calls, each record a tool turn answering one,
/// and the text after them the next assistant turn. Calls the client was asked to run join
/// the calls of their turn, their ids added to `unanswered` (the next user message answers
/// them). Passing statuses are left out.
fn agent_turns(
    message: &Message,
    request: &Request,
    unanswered: &mut Vec<String>,
    chat: &mut Vec<ChatMessage>,
) {
    let mut out = String::new();
    let mut block: Vec<Value> = Vec::new();
    let mut records: Vec<ToolRecord> = Vec::new();
    let mut theirs: Vec<ToolCall> = Vec::new();
    let flush = |out: &mut String, block: &mut Vec<Value>| {
        if block.is_empty() {
            return;
        }
        let written = match request.a2ui() {
            Some(processor) => processor.format().example(block),
            None => crate::format::direct_json_block(block),
        };
        if !out.is_empty() && !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(&written);
        out.push('\n');
        block.clear();
    };
    let mut calls = |out: &mut String,
                     records: &mut Vec<ToolRecord>,
                     theirs: &mut Vec<ToolCall>,
                     chat: &mut Vec<ChatMessage>| {
        if records.is_empty() && theirs.is_empty() {
            return;
        }
        let calls = records
            .iter()
            .map(|record| record.call.clone())
            .chain(theirs.iter().cloned())
            .collect();
        chat.push(ChatMessage::assistant_calls(std::mem::take(out), calls));
        for record in records.drain(..) {
            chat.push(ChatMessage::tool(record.call.id, record.result));
        }
        unanswered.extend(theirs.drain(..).map(|call| call.id));
    };
    for part in &message.parts {
        if let Some(record) = ToolRecord::from_part(part) {
            flush(&mut out, &mut block);
            records.push(record);
            continue;
        }
        if let Some(call) = client_call_of(part)
            .and_then(|call| serde_json::from_value::<ToolCall>(Value::Object(call.clone())).ok())
        {
            flush(&mut out, &mut block);
            theirs.push(call);
            continue;
        }
        if is_status(part) {
            continue;
        }
        calls(&mut out, &mut records, &mut theirs, chat);
        match part {
            Part::Text { text, .. } => {
                flush(&mut out, &mut block);
                out.push_str(text);
            }
            Part::Data { data, .. } => block.push(Value::Object(Map::clone(data))),
            Part::File { .. } => {}
        }
    }
    flush(&mut out, &mut block);
    calls(&mut out, &mut records, &mut theirs, chat);
    let ends_in_calls = chat
        .last()
        .is_some_and(|last| last.role == "tool" || !last.tool_calls.is_empty());
    if !out.is_empty() || !ends_in_calls {
        chat.push(ChatMessage::assistant(out));
    }
}

/// Whether `part` is a passing status ([`STATUS_METADATA`]).
fn is_status(part: &Part) -> bool {
    part.metadata()
        .and_then(|metadata| metadata.get(STATUS_METADATA))
        .is_some()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::a2ui::{ProtocolVersion, ValidationError};
    use crate::generator::Generator;
    use crate::request::Repair;

    fn data(value: Value) -> Part {
        Part::data(value.as_object().unwrap().clone())
    }

    #[test]
    fn history_actions_and_repairs_become_turns_in_order() {
        let processor = Generator::v0_9().negotiate(None).unwrap();
        let surface = json!({"version": "v0.9", "deleteSurface": {"surfaceId": "s"}});
        let earlier = vec![
            Message::user("1", vec![Part::text("Dinner?")]),
            Message::agent("2", vec![Part::text("Here:"), data(surface.clone())]),
        ];
        let action = json!({"version": "v0.9", "action": {"name": "book", "surfaceId": "s",
            "sourceComponentId": "ok", "timestamp": "2026-01-01T00:00:00Z", "context": {}}});
        let request = Request::new(Message::user("3", vec![data(action.clone())]), "t", "c")
            .with_history(earlier)
            .with_a2ui(processor)
            .with_repair(Repair::new(
                ProtocolVersion::V0_9,
                "<a2ui-json>[{}]",
                vec![ValidationError::new("/", "bad", None, None)],
            ));
        let chat = chat_messages(&request, None);
        let roles: Vec<&str> = chat.iter().map(|m| m.role).collect();
        assert_eq!(
            roles,
            ["system", "user", "assistant", "user", "assistant", "user"]
        );
        assert_eq!(chat[1].content, "Dinner?");
        assert!(
            chat[2].content.starts_with("Here:\n<a2ui-json>"),
            "{}",
            chat[2].content
        );
        assert!(chat[2].content.contains("deleteSurface"));
        assert_eq!(chat[3].content, action.to_string());
        assert_eq!(chat[4].content, "<a2ui-json>[{}]");
        assert!(chat[5].content.contains("VALIDATION_FAILED"));
    }

    #[test]
    fn a_request_without_a2ui_or_instructions_has_no_system_turn() {
        let request = Request::new(Message::user("1", vec![Part::text("hi")]), "t", "c");
        assert_eq!(chat_messages(&request, None), vec![ChatMessage::user("hi")]);
    }

    #[test]
    fn a_call_the_client_was_asked_to_run_is_answered_by_the_next_user_message() {
        use crate::request::client_tools::{client_call_part, client_result_part};
        let call = |id: &str| {
            let call = json!({"id": id, "name": "pick_date", "arguments": "{}"});
            client_call_part(call.as_object().cloned().unwrap())
        };
        let earlier = vec![
            Message::user("1", vec![Part::text("Book")]),
            Message::agent("2", vec![Part::text("Which day?"), call("a")]),
            // Answered with words instead of a result: the call still gets one.
            Message::user("3", vec![Part::text("never mind")]),
            Message::agent("4", vec![call("b")]),
        ];
        let answer = Message::user("5", vec![client_result_part("b", "Friday")]);
        let request = Request::new(answer, "t", "c").with_history(earlier);
        let chat = chat_messages(&request, None);
        let turns: Vec<(&str, &str, Option<&str>)> = chat
            .iter()
            .map(|m| {
                let called = m.tool_calls.first().map(|c| c.id.as_str());
                (
                    m.role,
                    m.content.as_str(),
                    m.tool_call_id.as_deref().or(called),
                )
            })
            .collect();
        assert_eq!(
            turns,
            [
                ("user", "Book", None),
                ("assistant", "Which day?", Some("a")),
                ("tool", "The client gave no result.", Some("a")),
                ("user", "never mind", None),
                ("assistant", "", Some("b")),
                ("tool", "Friday", Some("b")),
            ]
        );
    }
}
