//! Who waits for an interrupted task's next run, for A2A 1.0 `SubscribeToTask`.
//!
//! A subscriber to an interrupted task waits for the run that continues it: [`RunWatchers`]
//! hands each waiter the new run's events, subscribed before the run starts, so none is
//! missed. Following a task from run to run is `follow`'s.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use tokio::sync::{mpsc, oneshot};

use super::fanout::SharedEvent;
use super::running::Running;
use crate::a2a::Task;

/// Who waits for the next run of which task.
#[derive(Default)]
pub(crate) struct RunWatchers {
    waiting: Mutex<HashMap<String, Vec<oneshot::Sender<Next>>>>,
}

impl RunWatchers {
    /// Waits for the next run of task `id` (registered before the caller checks whether one
    /// already runs, so none falls in between).
    pub(crate) fn register(&self, id: &str) -> oneshot::Receiver<Next> {
        let (sender, receiver) = oneshot::channel();
        let mut waiting = self.waiting.lock().unwrap_or_else(PoisonError::into_inner);
        let list = waiting.entry(id.to_owned()).or_default();
        // Subscribers that went away leave closed senders: drop them here.
        list.retain(|sender| !sender.is_closed());
        list.push(sender);
        receiver
    }

    /// Run `running` of task `id` is registered and has not started: subscribe each waiter.
    /// A waiter over the run's subscriber cap (`max`) is dropped: its stream ends.
    pub(crate) fn started(&self, id: &str, running: &Running, max: usize) {
        for waiter in self.take(id) {
            let Some((_, events)) = running.subscribe(max) else {
                continue;
            };
            // A waiter that left is no loss.
            let _ = waiter.send(Next::Run(events));
        }
    }

    /// Task `id` settled without a run (canceled while interrupted): tell each waiter.
    pub(crate) fn settled(&self, task: &Task) {
        for waiter in self.take(&task.id) {
            let _ = waiter.send(Next::Settled(Box::new(task.clone())));
        }
    }

    fn take(&self, id: &str) -> Vec<oneshot::Sender<Next>> {
        self.waiting
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(id)
            .unwrap_or_default()
    }
}

/// What comes after an interruption.
pub(crate) enum Next {
    /// A run continues the task: its events.
    Run(mpsc::Receiver<SharedEvent>),
    /// The task reached a terminal state without a run here (canceled, say).
    Settled(Box<Task>),
    /// A run on another instance of a cluster continues the task: its first event, and the
    /// events that follow it.
    Elsewhere(SharedEvent, mpsc::Receiver<SharedEvent>),
}
