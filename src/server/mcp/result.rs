//! From the task layer's events to a tool result: the reply's text, its A2UI messages in
//! order, and how the run ended.
//!
//! The task layer streams the reply in pieces (each working update holds the new ones; a
//! component that did not change is not sent again, and an `updateComponents` upserts by
//! id, so the pieces in order are the reply). They are gathered here; the result carries
//! the text as a text block and the messages as one embedded resource of MIME
//! `application/a2ui+json` (A2UI over MCP Apps). A failure is a tool error (`isError`)
//! with the task's message, which the task layer already wrote for clients.

use rmcp::model::{ProgressNotificationParam, ProgressToken};
use serde_json::{Map, Value, json};

use super::keys::{A2UI_MIME, CONTEXT_KEY};
use crate::a2a::{Message, Part, StreamEvent, TaskState};
use crate::a2ui::is_a2ui_mime;
use crate::agent::STATUS_METADATA;

/// The `_meta` key of a progress notification holding the A2UI messages new since the
/// last one.
const PROGRESS_KEY: &str = "a2ui-agent/messages";

/// What the progress notifications of a call said so far.
#[derive(Debug, Default)]
pub(super) struct Sent {
    step: u32,
    messages: usize,
    text: usize,
}

/// What a run produced so far.
#[derive(Debug, Default)]
pub(super) struct Collector {
    text: String,
    messages: Vec<Value>,
    task_id: Option<String>,
    /// How the run ended, and the end's message text; `None` while it runs.
    end: Option<(TaskState, String)>,
    cut: bool,
}

impl Collector {
    /// Adds one of the task's events; `true` once the run has ended.
    pub(super) fn add(&mut self, event: &StreamEvent) -> bool {
        match event {
            StreamEvent::Task(task) => {
                self.task_id = Some(task.id.clone());
                if task.status.state.is_settled() {
                    let said = task.status.message.as_ref().map(Message::text);
                    self.end = Some((task.status.state, said.unwrap_or_default()));
                    return true;
                }
                false
            }
            StreamEvent::Message(message) => {
                self.parts(&message.parts);
                self.end = Some((TaskState::Completed, String::new()));
                true
            }
            StreamEvent::StatusUpdate(update) => {
                let message = update.status.message.as_ref();
                if update.is_final {
                    let said = message.map(Message::text).unwrap_or_default();
                    self.end = Some((update.status.state, said));
                    return true;
                }
                if let Some(message) = message {
                    self.parts(&message.parts);
                }
                false
            }
            StreamEvent::ArtifactUpdate(update) => {
                self.parts(&update.artifact.parts);
                false
            }
        }
    }

    /// The run's events stopped before its end (a reader too slow, a run gone).
    pub(super) fn cut_off(&mut self) {
        self.cut = true;
    }

    /// The progress notification of what is new since `sent` (then sent): the reply's
    /// text so far and the A2UI messages new since the last one; `None` when nothing is.
    pub(super) fn progress(
        &self,
        token: &ProgressToken,
        sent: &mut Sent,
    ) -> Option<ProgressNotificationParam> {
        let new = self.messages.get(sent.messages..).unwrap_or_default();
        if new.is_empty() && self.text.len() == sent.text {
            return None;
        }
        sent.step += 1;
        let mut param = ProgressNotificationParam::new(token.clone(), f64::from(sent.step))
            .with_message(self.text.clone());
        param.meta = serde_json::from_value(json!({ PROGRESS_KEY: new })).ok();
        sent.messages = self.messages.len();
        sent.text = self.text.len();
        Some(param)
    }

    fn parts(&mut self, parts: &[Part]) {
        for part in parts {
            match part {
                Part::Text { text, metadata } => {
                    let aside = metadata.as_deref().is_some_and(|metadata| {
                        metadata.contains_key(STATUS_METADATA)
                            || metadata.keys().any(|key| key.ends_with("ToolCall"))
                    });
                    if !aside {
                        self.text.push_str(text);
                    }
                }
                Part::Data { data, metadata } => {
                    let mime = metadata
                        .as_deref()
                        .and_then(|metadata| metadata.get("mimeType"))
                        .and_then(Value::as_str);
                    if mime.is_some_and(is_a2ui_mime) {
                        self.messages.push(Value::Object(Map::clone(data)));
                    }
                }
                Part::File { .. } => {}
            }
        }
    }

    /// The action events the reply's surfaces name (each once, in order).
    pub(super) fn action_names(&self) -> Vec<String> {
        let mut names = Vec::new();
        for message in &self.messages {
            action_names(message, &mut names);
        }
        names
    }

    /// The tool result of the run of `tool` in `conversation`.
    pub(super) fn into_result(self, tool: &str, conversation: &str) -> rmcp::model::CallToolResult {
        let mut meta = json!({ CONTEXT_KEY: conversation });
        if let Some(id) = &self.task_id {
            meta["a2ui-agent/taskId"] = Value::String(id.clone());
        }
        let failed = match &self.end {
            Some((state, said))
                if matches!(
                    state,
                    TaskState::Failed | TaskState::Rejected | TaskState::Canceled
                ) =>
            {
                let said = match said.is_empty() {
                    true => format!("The agent's turn ended: {}", state.as_str()),
                    false => said.clone(),
                };
                Some(said)
            }
            None if self.cut => Some("The agent's reply ended early".to_owned()),
            _ => None,
        };
        let mut content = Vec::new();
        let text = match &failed {
            Some(said) if self.text.is_empty() => said.clone(),
            Some(said) => format!("{}\n\n{said}", self.text),
            None => self.text,
        };
        if !text.is_empty() {
            content.push(json!({"type": "text", "text": text}));
        }
        if !self.messages.is_empty() {
            let messages = Value::Array(self.messages).to_string();
            content.push(json!({
                "type": "resource",
                "resource": {
                    "uri": format!("ui://{tool}/surfaces.a2ui"),
                    "mimeType": A2UI_MIME,
                    "text": messages,
                },
            }));
        }
        let result = json!({
            "content": content,
            "isError": failed.is_some(),
            "_meta": meta,
        });
        serde_json::from_value(result).unwrap_or_else(|error| {
            tracing::error!(%error, "an MCP tool result does not decode");
            rmcp::model::CallToolResult::error(vec![rmcp::model::ContentBlock::text(
                "The agent's reply could not be sent",
            )])
        })
    }
}

/// Adds to `names` the action events `value` holds: v0.9 and v1.0 `action.event.name`,
/// v0.8 `action.name`.
fn action_names(value: &Value, names: &mut Vec<String>) {
    match value {
        Value::Object(members) => {
            if let Some(action) = members.get("action") {
                let name = action
                    .pointer("/event/name")
                    .or_else(|| action.get("name"))
                    .and_then(Value::as_str);
                if let Some(name) = name
                    && !names.iter().any(|known| known == name)
                {
                    names.push(name.to_owned());
                }
            }
            members
                .values()
                .for_each(|value| action_names(value, names));
        }
        Value::Array(items) => items.iter().for_each(|value| action_names(value, names)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn action_events_of_every_version_are_found_once() {
        let messages = json!([
            {"updateComponents": {"components": [
                {"id": "a", "component": "Button", "action": {"event": {"name": "select"}}},
                {"id": "b", "component": "Button", "action": {"event": {"name": "select"}}},
            ]}},
            {"surfaceUpdate": {"components": [
                {"id": "c", "component": {"Button": {"action": {"name": "book"}}}},
            ]}},
        ]);
        let mut names = Vec::new();
        action_names(&messages, &mut names);
        assert_eq!(names, ["select", "book"]);
    }
}
