//! What the bindings ask of the tasks: start or continue one, read, list, follow and cancel
//! them, and stop them all at shutdown.
//!
//! This file exists so that the operations a binding calls are methods in one place, while
//! each step behind them is a free function of its own file (`start`, `read`, `cancel`):
//! the steps use the [`TaskManager`]'s state, and only this façade uses the steps, so no
//! two files of the module import each other.

use std::sync::Arc;

use super::error::TaskError;
use super::handoff::Begun;
use super::manager::TaskManager;
use super::read::{self, Subscription};
use super::{cancel, start};
use crate::a2a::{PushConfig, Task, TaskListQuery, TaskPage};
use crate::request::prepared::Prepared;
use crate::store::Owner;

impl TaskManager {
    /// Creates a task of `owner` for the prepared message, or continues the interrupted
    /// task of `owner`'s it names, and starts the agent on it (see [`start::start`]).
    pub(crate) async fn start(
        self: &Arc<Self>,
        owner: Owner,
        prepared: Prepared,
        stream: bool,
        waits: bool,
        push: Option<PushConfig>,
    ) -> Result<Begun, TaskError> {
        start::start(self, owner, prepared, stream, waits, push).await
    }

    /// The task `id` of `owner`: the live snapshot while it runs here, else the stored one.
    pub(crate) async fn get(&self, owner: &Owner, id: &str) -> Result<Task, TaskError> {
        read::get(self, owner, id).await
    }

    /// One page of `owner`'s tasks.
    pub(crate) async fn list(
        &self,
        owner: &Owner,
        query: &TaskListQuery,
    ) -> Result<TaskPage, TaskError> {
        read::list(self, owner, query).await
    }

    /// The task's snapshot and its events until its run ends (A2A 0.3 `tasks/resubscribe`).
    pub(crate) async fn subscribe(
        &self,
        owner: &Owner,
        id: &str,
    ) -> Result<Subscription, TaskError> {
        read::subscribe(self, owner, id).await
    }

    /// The task's snapshot and its events until it reaches a terminal state, following it
    /// into its next runs (A2A 1.0 `SubscribeToTask`).
    pub(crate) async fn subscribe_until_terminal(
        self: &Arc<Self>,
        owner: &Owner,
        id: &str,
    ) -> Result<Subscription, TaskError> {
        read::subscribe_until_terminal(self, owner, id).await
    }

    /// Cancels the task `id` of `owner`, wherever it runs.
    pub(crate) async fn cancel(&self, owner: &Owner, id: &str) -> Result<Task, TaskError> {
        cancel::cancel(self, owner, id).await
    }

    /// Fails every task running here with `reason` and waits until each has settled.
    pub(crate) async fn stop_all(&self, reason: &str) {
        cancel::stop_all(self, reason).await;
    }

    /// How many tasks run here now.
    pub(crate) fn running_count(&self) -> usize {
        read::running_count(self)
    }
}
