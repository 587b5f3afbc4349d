//! From the task layer's events to AG-UI's: one [`Mapping`] per run.
//!
//! The task layer streams what every binding gets: the task as it starts, `working` updates
//! each holding the new pieces of the reply, and a final update. Here those become the
//! events an AG-UI frontend reads: the reply's text as `TEXT_MESSAGE_*` (a message closes
//! before anything else is shown, so the conversation keeps the order the agent wrote in),
//! each A2UI message as its surface's `a2ui-surface` activity (a snapshot, then deltas), each tool
//! call of the model's as `TOOL_CALL_START/ARGS/END/RESULT`, passing statuses as `CUSTOM`
//! events, and the end as `RUN_FINISHED` or `RUN_ERROR`. The failure message is the task's,
//! which the task layer already wrote for clients (it names no host, key or internal error).

use serde_json::{Map, Value};

use super::events::{A2UI_SURFACE, Event, Outcome, PROTOCOL_VERSION, STATUS_EVENT};
use super::surfaces::{Shown, Surfaces};
use crate::a2a::{Message, Part, Role, StreamEvent, Task, TaskState};
use crate::agent::STATUS_METADATA;
use crate::request::CLIENT_TOOL_CALL_METADATA;

/// The metadata member of a tool call's text part (the `llm` connector's
/// `TOOL_CALL_METADATA`), holding the call (`id`, `name`, `arguments`) and its `result`.
const TOOL_CALL_METADATA: &str = "a2uiAgentToolCall";

/// The state of one run's event stream.
#[derive(Debug)]
pub(super) struct Mapping {
    thread_id: String,
    run_id: String,
    /// The open text message, if any.
    open_text: Option<String>,
    /// How many text messages were opened (their ids count up).
    texts: usize,
    surfaces: Surfaces,
    /// The ids of the tool calls already shown (a call is shown once).
    tool_calls: Vec<String>,
}

impl Mapping {
    /// A run of thread `thread_id`, and its first event.
    pub(super) fn start(thread_id: String, run_id: String) -> (Self, Event) {
        let started = Event::RunStarted {
            thread_id: thread_id.clone(),
            run_id: run_id.clone(),
            protocol_version: PROTOCOL_VERSION,
        };
        let mapping = Mapping {
            thread_id,
            run_id,
            open_text: None,
            texts: 0,
            surfaces: Surfaces::default(),
            tool_calls: Vec::new(),
        };
        (mapping, started)
    }

    /// The events for one of the task's, into `out`; `true` once the run has ended.
    pub(super) fn map(&mut self, event: &StreamEvent, out: &mut Vec<Event>) -> bool {
        match event {
            StreamEvent::Task(task) => {
                self.remember(task);
                if task.status.state.is_settled() {
                    self.finish(task.status.state, task.status.message.as_ref(), out);
                    return true;
                }
                false
            }
            StreamEvent::Message(message) => {
                self.parts(&message.parts, out);
                self.finish(TaskState::Completed, None, out);
                true
            }
            StreamEvent::StatusUpdate(update) => {
                let message = update.status.message.as_ref();
                if update.is_final {
                    self.finish(update.status.state, message, out);
                    return true;
                }
                if let Some(message) = message {
                    self.parts(&message.parts, out);
                }
                false
            }
            StreamEvent::ArtifactUpdate(update) => {
                self.parts(&update.artifact.parts, out);
                false
            }
        }
    }

    /// The end of a stream the task layer cut off (a reader too slow, a run gone).
    pub(super) fn cut_off(&mut self, out: &mut Vec<Event>) {
        self.close_text(out);
        out.push(Event::RunError {
            message: "The stream ended early".to_owned(),
            code: Some("stream_ended"),
        });
    }

    /// The surfaces the thread drew before this run, from the task's history: a snapshot
    /// of one this run updates carries them all.
    fn remember(&mut self, task: &Task) {
        let agent_parts = task
            .history
            .iter()
            .filter(|message| message.role == Role::Agent)
            .flat_map(|message| &message.parts);
        for part in agent_parts {
            if let Part::Data { data, .. } = part {
                self.surfaces.recall(data);
            }
        }
    }

    /// The events of a reply's new `parts`.
    fn parts(&mut self, parts: &[Part], out: &mut Vec<Event>) {
        for part in parts {
            match part {
                Part::Text { text, metadata } => match metadata.as_deref() {
                    Some(metadata) if metadata.contains_key(STATUS_METADATA) => {
                        self.close_text(out);
                        out.push(Event::Custom {
                            name: STATUS_EVENT,
                            value: Value::String(text.clone()),
                        });
                    }
                    Some(metadata) if metadata.contains_key(TOOL_CALL_METADATA) => {
                        self.close_text(out);
                        self.tool_call(&metadata[TOOL_CALL_METADATA], out);
                    }
                    Some(metadata) if metadata.contains_key(CLIENT_TOOL_CALL_METADATA) => {
                        self.close_text(out);
                        self.client_call(&metadata[CLIENT_TOOL_CALL_METADATA], out);
                    }
                    _ => self.text(text, out),
                },
                Part::Data { data, .. } => self.surface(data, out),
                Part::File { .. } => {
                    tracing::debug!("a file part is not shown over AG-UI");
                }
            }
        }
    }

    fn text(&mut self, text: &str, out: &mut Vec<Event>) {
        if text.is_empty() {
            return;
        }
        let message_id = match &self.open_text {
            Some(id) => id.clone(),
            None => {
                self.texts += 1;
                let id = format!("{}-text-{}", self.run_id, self.texts);
                out.push(Event::TextMessageStart {
                    message_id: id.clone(),
                    role: "assistant",
                });
                self.open_text = Some(id.clone());
                id
            }
        };
        out.push(Event::TextMessageContent {
            message_id,
            delta: text.to_owned(),
        });
    }

    fn close_text(&mut self, out: &mut Vec<Event>) {
        if let Some(message_id) = self.open_text.take() {
            out.push(Event::TextMessageEnd { message_id });
        }
    }

    fn surface(&mut self, data: &Map<String, Value>, out: &mut Vec<Event>) {
        let Some((message_id, shown)) = self.surfaces.add(data) else {
            tracing::debug!("a data part that is no A2UI surface message is not shown");
            return;
        };
        self.close_text(out);
        out.push(match shown {
            Shown::Snapshot(content) => Event::ActivitySnapshot {
                message_id,
                activity_type: A2UI_SURFACE,
                content,
                replace: true,
            },
            Shown::Delta(patch) => Event::ActivityDelta {
                message_id,
                activity_type: A2UI_SURFACE,
                patch,
            },
        });
    }

    /// A tool call the agent made and answered itself: its whole life at once.
    fn tool_call(&mut self, record: &Value, out: &mut Vec<Event>) {
        let Some(tool_call_id) = self.call(record, out) else {
            return;
        };
        out.push(Event::ToolCallResult {
            message_id: format!("{}-tool-{}", self.run_id, self.tool_calls.len()),
            tool_call_id,
            content: text_of(record, "result").to_owned(),
            role: "tool",
        });
    }

    /// A call the client is to run: opened and closed, with no result (the client's next
    /// run brings it).
    fn client_call(&mut self, call: &Value, out: &mut Vec<Event>) {
        self.call(call, out);
    }

    /// A call's `TOOL_CALL_START/ARGS/END` (its `id`, `name` and `arguments`), once per id;
    /// the id when they were sent.
    fn call(&mut self, call: &Value, out: &mut Vec<Event>) -> Option<String> {
        let id = text_of(call, "id");
        if id.is_empty() || self.tool_calls.iter().any(|seen| seen == id) {
            return None;
        }
        self.tool_calls.push(id.to_owned());
        out.push(Event::ToolCallStart {
            tool_call_id: id.to_owned(),
            tool_call_name: text_of(call, "name").to_owned(),
            parent_message_id: None,
        });
        out.push(Event::ToolCallArgs {
            tool_call_id: id.to_owned(),
            delta: text_of(call, "arguments").to_owned(),
        });
        out.push(Event::ToolCallEnd {
            tool_call_id: id.to_owned(),
        });
        Some(id.to_owned())
    }

    /// The run's end for a task that stopped in `state` with `message` (a final update
    /// carries a reply only when it was not streamed, or says why the task failed).
    fn finish(&mut self, state: TaskState, message: Option<&Message>, out: &mut Vec<Event>) {
        let ended = match state {
            TaskState::Completed | TaskState::InputRequired => {
                if let Some(message) = message {
                    self.parts(&message.parts, out);
                }
                None
            }
            TaskState::Canceled => Some(Outcome::Cancelled),
            _ => {
                self.close_text(out);
                let said = message.map(Message::text).filter(|text| !text.is_empty());
                out.push(Event::RunError {
                    message: said.unwrap_or_else(|| format!("The run ended {state}")),
                    code: Some(error_code(state)),
                });
                return;
            }
        };
        self.close_text(out);
        out.push(Event::RunFinished {
            thread_id: self.thread_id.clone(),
            run_id: self.run_id.clone(),
            outcome: ended,
        });
    }
}

/// The string member `key` of `value` (empty when it has none).
fn text_of<'v>(value: &'v Value, key: &str) -> &'v str {
    value.get(key).and_then(Value::as_str).unwrap_or_default()
}

/// The `RUN_ERROR.code` of a run whose task stopped in `state`.
fn error_code(state: TaskState) -> &'static str {
    match state {
        TaskState::Rejected => "rejected",
        TaskState::AuthRequired => "auth_required",
        _ => "failed",
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use serde_json::json;

    use super::*;
    use crate::a2a::{TaskStatus, TaskStatusUpdateEvent};

    fn update(state: TaskState, parts: Option<Vec<Part>>, is_final: bool) -> StreamEvent {
        StreamEvent::StatusUpdate(TaskStatusUpdateEvent {
            task_id: "task".into(),
            context_id: "thread".into(),
            status: TaskStatus {
                state,
                message: parts.map(|parts| Message::agent("reply", parts)),
                timestamp: None,
            },
            is_final,
            metadata: None,
        })
    }

    fn data(value: Value) -> Part {
        Part::data(value.as_object().cloned().unwrap())
    }

    fn run(events: &[StreamEvent]) -> Vec<Value> {
        let (mut mapping, started) = Mapping::start("thread".into(), "run".into());
        let mut out = vec![started];
        for event in events {
            if mapping.map(event, &mut out) {
                break;
            }
        }
        out.iter()
            .map(|e| serde_json::to_value(e).unwrap())
            .collect()
    }

    fn types(events: &[Value]) -> Vec<&str> {
        events.iter().map(|e| e["type"].as_str().unwrap()).collect()
    }

    #[test]
    fn text_surfaces_and_text_again_keep_their_order() {
        let create = json!({"version": "v0.9", "createSurface": {"surfaceId": "s",
            "catalogId": "c"}});
        let components = json!({"version": "v0.9", "updateComponents": {"surfaceId": "s",
            "components": [{"id": "root", "component": "Text", "text": "hi"}]}});
        let events = run(&[
            StreamEvent::Task(Task::new("task", "thread", TaskState::Submitted)),
            update(TaskState::Working, Some(vec![Part::text("Here")]), false),
            update(TaskState::Working, Some(vec![Part::text(" you go")]), false),
            update(TaskState::Working, Some(vec![data(create)]), false),
            update(TaskState::Working, Some(vec![data(components)]), false),
            update(TaskState::Working, Some(vec![Part::text("Done.")]), false),
            update(TaskState::InputRequired, None, true),
        ]);
        assert_eq!(
            types(&events),
            [
                "RUN_STARTED",
                "TEXT_MESSAGE_START",
                "TEXT_MESSAGE_CONTENT",
                "TEXT_MESSAGE_CONTENT",
                "TEXT_MESSAGE_END",
                "ACTIVITY_SNAPSHOT",
                "ACTIVITY_DELTA",
                "TEXT_MESSAGE_START",
                "TEXT_MESSAGE_CONTENT",
                "TEXT_MESSAGE_END",
                "RUN_FINISHED",
            ]
        );
        assert_ne!(events[1]["messageId"], events[7]["messageId"]);
        assert_eq!(events[6]["messageId"], "a2ui-surface-s");
        assert_eq!(
            events[5]["content"]["a2ui_operations"][0]["createSurface"]["surfaceId"],
            "s"
        );
        assert_eq!(events[6]["activityType"], "a2ui-surface");
        assert_eq!(events[6]["patch"][0]["path"], "/a2ui_operations/-");
        assert_eq!(
            events[6]["patch"][0]["value"]["updateComponents"]["components"][0]["id"],
            "root"
        );
        assert_eq!(events[10]["threadId"], "thread");
    }

    #[test]
    fn a_follow_up_that_updates_an_earlier_surface_sends_it_whole() {
        let mut task = Task::new("task", "thread", TaskState::Working);
        let create = json!({"version": "v0.9", "createSurface": {"surfaceId": "s",
            "catalogId": "c"}});
        task.history
            .push(Message::agent("earlier", vec![data(create)]));
        let events = run(&[
            StreamEvent::Task(task),
            update(
                TaskState::Working,
                Some(vec![data(json!({"version": "v0.9",
                    "updateDataModel": {"surfaceId": "s", "path": "/x", "value": 1}}))]),
                false,
            ),
            update(TaskState::InputRequired, None, true),
        ]);
        let operations = events[1]["content"]["a2ui_operations"].as_array().unwrap();
        assert_eq!(operations.len(), 2, "{events:?}");
        assert!(operations[0].get("createSurface").is_some());
    }

    #[test]
    fn tool_calls_statuses_and_failures_become_their_ag_ui_events() {
        let record = json!({"id": "call_1", "name": "lookup", "arguments": "{\"q\":1}",
            "result": "42", "isError": false});
        let mut metadata = Map::new();
        metadata.insert(TOOL_CALL_METADATA.into(), record);
        let tool_part = Part::Text {
            text: "Called lookup".into(),
            metadata: Some(Arc::new(metadata)),
        };
        let mut status = Map::new();
        status.insert(STATUS_METADATA.into(), Value::Bool(true));
        let status_part = Part::Text {
            text: "Reading…".into(),
            metadata: Some(Arc::new(status)),
        };
        let events = run(&[
            update(TaskState::Working, Some(vec![status_part]), false),
            update(TaskState::Working, Some(vec![Part::text("a")]), false),
            update(TaskState::Working, Some(vec![tool_part]), false),
            update(
                TaskState::Failed,
                Some(vec![Part::text("The model is unavailable")]),
                true,
            ),
        ]);
        assert_eq!(
            types(&events),
            [
                "RUN_STARTED",
                "CUSTOM",
                "TEXT_MESSAGE_START",
                "TEXT_MESSAGE_CONTENT",
                "TEXT_MESSAGE_END",
                "TOOL_CALL_START",
                "TOOL_CALL_ARGS",
                "TOOL_CALL_END",
                "TOOL_CALL_RESULT",
                "RUN_ERROR",
            ]
        );
        assert_eq!(events[6]["delta"], "{\"q\":1}");
        assert_eq!(events[8]["content"], "42");
        assert_eq!(events[9]["message"], "The model is unavailable");
    }

    #[test]
    fn a_settled_reply_not_streamed_is_shown_before_the_end_and_a_cancel_is_no_error() {
        let events = run(&[update(
            TaskState::Completed,
            Some(vec![Part::text("all at once")]),
            true,
        )]);
        assert_eq!(
            types(&events),
            [
                "RUN_STARTED",
                "TEXT_MESSAGE_START",
                "TEXT_MESSAGE_CONTENT",
                "TEXT_MESSAGE_END",
                "RUN_FINISHED",
            ]
        );
        let canceled = run(&[update(TaskState::Canceled, None, true)]);
        assert_eq!(canceled[1]["outcome"]["type"], "cancelled");
    }

    #[cfg(feature = "llm")]
    #[test]
    fn a_tool_call_is_read_as_the_connector_records_it() {
        use crate::llm::{TOOL_CALL_METADATA as WRITTEN, ToolCall, ToolRecord};
        assert_eq!(TOOL_CALL_METADATA, WRITTEN);
        let record = ToolRecord {
            call: ToolCall {
                id: "call_9".into(),
                name: "book_table".into(),
                arguments: r#"{"people":2}"#.into(),
            },
            result: "booked".into(),
            is_error: false,
        };
        let events = run(&[update(
            TaskState::Working,
            Some(vec![record.to_part()]),
            false,
        )]);
        assert_eq!(events[1]["toolCallId"], "call_9");
        assert_eq!(events[1]["toolCallName"], "book_table");
        assert_eq!(events[2]["delta"], r#"{"people":2}"#);
        assert_eq!(events[4]["content"], "booked");
    }

    #[test]
    fn a_call_for_the_client_is_opened_and_closed_without_a_result() {
        let call = json!({"id": "call_c", "name": "pick_date", "arguments": "{}"});
        let part =
            crate::request::client_tools::client_call_part(call.as_object().cloned().unwrap());
        let events = run(&[
            update(
                TaskState::Working,
                Some(vec![Part::text("Which day?"), part]),
                false,
            ),
            update(TaskState::InputRequired, None, true),
        ]);
        assert_eq!(
            types(&events),
            [
                "RUN_STARTED",
                "TEXT_MESSAGE_START",
                "TEXT_MESSAGE_CONTENT",
                "TEXT_MESSAGE_END",
                "TOOL_CALL_START",
                "TOOL_CALL_ARGS",
                "TOOL_CALL_END",
                "RUN_FINISHED",
            ]
        );
        assert_eq!(events[4]["toolCallName"], "pick_date");
    }
}
