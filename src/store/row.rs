//! A task as the SQL stores keep it: one row of text columns, JSON where the value is nested.
//!
//! SQLite and PostgreSQL store the same columns, so the encoding (the store's own JSON for
//! messages and artifacts, see `codec`) and the checked decoding live here once; each engine only moves the
//! strings in and out. Decoding never trusts the database: a row that does not read back
//! is a [`StoreError`] naming the task, not a panic.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::Value;

use super::StoreError;
use super::budget::Budget;
use super::codec::{self, Artifacts, Kept, Messages, state_from_name, state_name, to_json};
use super::projection::Projection;
use crate::a2a::{Message, Part, Task, TaskState, TaskStatus};
use crate::clock::timestamp;

/// The setters of [`Limits`] both SQL stores' builders offer, written once: `$limits` names
/// the builder's `Limits` field. Its budget's setters are every store's
/// ([`budget_setters`](super::budget::budget_setters)).
macro_rules! limit_setters {
    ($limits:ident) => {
        $crate::store::budget::budget_setters!($limits.budget);

        /// How long a terminal task is kept after its last update.
        #[must_use]
        pub fn finished_ttl(mut self, ttl: std::time::Duration) -> Self {
            self.$limits.finished_ttl = ttl;
            self
        }

        /// How long a task waiting for input (or authorization) is kept after its last
        /// update.
        #[must_use]
        pub fn interrupted_ttl(mut self, ttl: std::time::Duration) -> Self {
            self.$limits.interrupted_ttl = ttl;
            self
        }
    };
}
pub(super) use limit_setters;

/// What a task that was running when its server stopped says afterwards.
pub const STOPPED_MESSAGE: &str = "The server stopped while this task was running.";

/// What an SQL store keeps of a task ([`Budget`]) and for how long after its last update.
/// A task that runs never expires.
#[derive(Debug, Clone, Copy)]
pub(super) struct Limits {
    pub(super) budget: Budget,
    pub(super) finished_ttl: Duration,
    pub(super) interrupted_ttl: Duration,
}

impl Limits {
    /// Default: terminal tasks are forgotten an hour after their last update.
    pub(super) const DEFAULT_FINISHED_TTL: Duration = Duration::from_secs(3600);
    /// Default: tasks waiting for input are forgotten a week after their last update.
    pub(super) const DEFAULT_INTERRUPTED_TTL: Duration = Duration::from_secs(7 * 24 * 3600);

    pub(super) const DEFAULT: Limits = Limits {
        budget: Budget::DEFAULT,
        finished_ttl: Self::DEFAULT_FINISHED_TTL,
        interrupted_ttl: Self::DEFAULT_INTERRUPTED_TTL,
    };

    /// When a task in `state` written at `now_ms` is forgotten (`None`: never, it runs).
    pub(super) fn expires_ms(&self, state: TaskState, now_ms: i64) -> Option<i64> {
        let ttl = if state.is_terminal() {
            self.finished_ttl
        } else if state.is_interrupted() {
            self.interrupted_ttl
        } else {
            return None;
        };
        Some(add_ms(now_ms, ttl))
    }
}

/// `time` in milliseconds since the Unix epoch, as the `expires_ms` columns keep it.
pub(super) fn millis(time: SystemTime) -> i64 {
    time.duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// `ttl` after `now_ms`, saturating.
pub(super) fn add_ms(now_ms: i64, ttl: Duration) -> i64 {
    now_ms.saturating_add(i64::try_from(ttl.as_millis()).unwrap_or(i64::MAX))
}

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
    StoreError::corrupt(engine, id, what)
}

impl Row {
    /// The columns of `task`.
    pub(super) fn encode(task: &Task) -> Self {
        Row {
            id: task.id.clone(),
            context_id: task.context_id.clone(),
            state: state_name(task.status.state).to_owned(),
            status_ts: task.status.timestamp.clone().unwrap_or_default(),
            status_message: task
                .status
                .message
                .as_ref()
                .map(|message| to_json(&codec::message(message))),
            history: to_json(&Messages(&task.history)),
            artifacts: to_json(&Artifacts(&task.artifacts)),
            metadata: task
                .metadata
                .as_ref()
                .map(|map| Value::Object(map.clone()).to_string()),
        }
    }

    /// The task these columns hold; `engine` names the database in errors.
    pub(super) fn decode(self, engine: &str) -> Result<Task, StoreError> {
        self.decode_wanted(engine, Projection::ALL)
    }

    /// The task these columns hold with only the `wanted` parts decoded: the history
    /// messages and artifacts left out are skipped as text, never built as values.
    pub(super) fn decode_wanted(
        self,
        engine: &str,
        wanted: Projection,
    ) -> Result<Task, StoreError> {
        let id = self.id;
        let corrupt = |what: &dyn std::fmt::Display| corrupt(engine, &id, what);
        let state = state_from_name(&self.state)
            .ok_or_else(|| corrupt(&format!("unknown state {:?}", self.state)))?;
        let metadata = match &self.metadata {
            Some(text) => match serde_json::from_str::<Value>(text).map_err(|e| corrupt(&e))? {
                Value::Object(map) => Some(map),
                _ => return Err(corrupt(&"metadata is not an object")),
            },
            None => None,
        };
        let kept = Kept {
            message: self.status_message.as_deref(),
            history: &self.history,
            artifacts: &self.artifacts,
        };
        let mut task = Task {
            id: id.clone(),
            context_id: self.context_id,
            status: TaskStatus {
                state,
                message: None,
                timestamp: (!self.status_ts.is_empty()).then_some(self.status_ts),
            },
            artifacts: Vec::new(),
            history: Vec::new(),
            metadata,
        };
        kept.decode_into(&mut task, wanted, &corrupt)?;
        Ok(task)
    }
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

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn every_task_reads_back_from_its_columns(task in crate::store::arbitrary::task()) {
            prop_assert_eq!(Row::encode(&task).decode("test").unwrap(), task);
        }
    }
}
