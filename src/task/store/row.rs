//! A task as the SQL stores keep it: one row of text columns, JSON where the value is nested.
//!
//! SQLite and PostgreSQL store the same columns, so the encoding (A2A 0.3 JSON for messages
//! and artifacts) and the checked decoding live here once; each engine only moves the
//! strings in and out. Decoding never trusts the database: a row that does not read back
//! is a [`StoreError`] naming the task, not a panic.

use std::time::SystemTime;

use serde_json::Value;
use serde_json::value::RawValue;

use super::StoreError;
use super::packed::decode_artifact;
use super::wanted::Wanted;
use crate::a2a::v0_3::{decode_message, encode_artifact, encode_message};
use crate::a2a::{Message, Part, Task, TaskState, TaskStatus};
use crate::task::timestamp;

/// What a task that was running when its server stopped says afterwards.
pub const STOPPED_MESSAGE: &str = "The server stopped while this task was running.";

/// The columns a task is kept in, in [`Row`]'s field order.
pub(super) const COLUMNS: &str =
    "id, context_id, state, status_ts, status_message, history, artifacts, metadata";

/// A task's columns as text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Row {
    pub(super) id: String,
    pub(super) context_id: String,
    pub(super) state: String,
    /// The status timestamp ("" when unset): the listing order (newest first, then id).
    pub(super) status_ts: String,
    pub(super) status_message: Option<String>,
    pub(super) history: String,
    pub(super) artifacts: String,
    pub(super) metadata: Option<String>,
}

fn corrupt(engine: &str, id: &str, what: impl std::fmt::Display) -> StoreError {
    StoreError::Other(format!("{engine}: task {id} cannot be read back: {what}"))
}

impl Row {
    /// The columns of `task`.
    pub(super) fn encode(task: &Task) -> Self {
        Row {
            id: task.id.clone(),
            context_id: task.context_id.clone(),
            state: task.status.state.as_str().to_owned(),
            status_ts: task.status.timestamp.clone().unwrap_or_default(),
            status_message: task
                .status
                .message
                .as_ref()
                .map(|message| encode_message(message).to_string()),
            history: Value::Array(task.history.iter().map(encode_message).collect()).to_string(),
            artifacts: Value::Array(task.artifacts.iter().map(encode_artifact).collect())
                .to_string(),
            metadata: task
                .metadata
                .as_ref()
                .map(|map| Value::Object(map.clone()).to_string()),
        }
    }

    /// The task these columns hold; `engine` names the database in errors.
    pub(super) fn decode(self, engine: &str) -> Result<Task, StoreError> {
        self.decode_wanted(engine, Wanted::ALL)
    }

    /// The task these columns hold with only the `wanted` parts decoded: the history
    /// messages and artifacts left out are skipped as text, never built as values.
    pub(super) fn decode_wanted(self, engine: &str, wanted: Wanted) -> Result<Task, StoreError> {
        let id = self.id;
        let corrupt = |what: &dyn std::fmt::Display| corrupt(engine, &id, what);
        let state = TaskState::ALL
            .into_iter()
            .find(|state| state.as_str() == self.state)
            .ok_or_else(|| corrupt(&format!("unknown state {:?}", self.state)))?;
        let json = |text: &str| serde_json::from_str::<Value>(text).map_err(|e| corrupt(&e));
        let message = |text: &str| decode_message(&json(text)?, "message").map_err(|e| corrupt(&e));
        let items = |what: &str, error| corrupt(&format!("{what} is not a JSON array: {error}"));
        let status_message = self.status_message.as_deref().map(message).transpose()?;
        let history = raw_items(&self.history).map_err(|e| items("history", e))?;
        let skip = wanted.history_skip(history.len());
        let history = history[skip..]
            .iter()
            .map(|raw| message(raw.get()))
            .collect::<Result<_, _>>()?;
        let artifacts = if wanted.artifacts {
            raw_items(&self.artifacts)
                .map_err(|e| items("artifacts", e))?
                .iter()
                .map(|raw| {
                    decode_artifact(&json(raw.get())?).ok_or_else(|| corrupt(&"bad artifact"))
                })
                .collect::<Result<_, _>>()?
        } else {
            Vec::new()
        };
        let metadata = match &self.metadata {
            Some(text) => match json(text)? {
                Value::Object(map) => Some(map),
                _ => return Err(corrupt(&"metadata is not an object")),
            },
            None => None,
        };
        Ok(Task {
            id,
            context_id: self.context_id,
            status: TaskStatus {
                state,
                message: status_message,
                timestamp: (!self.status_ts.is_empty()).then_some(self.status_ts),
            },
            artifacts,
            history,
            metadata,
        })
    }
}

/// The items of a JSON array, each still text.
fn raw_items(text: &str) -> Result<Vec<&RawValue>, serde_json::Error> {
    serde_json::from_str(text)
}

/// `task` (left running by a server that stopped) as `failed`, saying so; the partial reply
/// the agent had sent is kept in the history.
pub(super) fn stopped(mut task: Task, now: SystemTime) -> Task {
    if let Some(partial) = task.status.message.take() {
        task.history.push(partial);
    }
    let mut message = Message::agent(
        format!("{}-stopped", task.id),
        vec![Part::text(STOPPED_MESSAGE)],
    );
    message.task_id = Some(task.id.clone());
    message.context_id = Some(task.context_id.clone());
    task.status = TaskStatus {
        state: TaskState::Failed,
        message: Some(message),
        timestamp: Some(timestamp(now)),
    };
    task
}
