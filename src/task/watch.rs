//! Following a task across its runs, for A2A 1.0 `SubscribeToTask`.
//!
//! A run's events end at its final update, which may only interrupt the task
//! (`input-required`, `auth-required`); 1.0 says a subscription ends when the task reaches a
//! terminal state. So a subscriber to an interrupted task waits for the run that continues it
//! ([`RunWatchers`] hands each waiter the new run's events, subscribed before the run starts,
//! so none is missed), and [`follow`] chains the runs' events into one stream that ends with
//! the terminal update.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use tokio::sync::{mpsc, oneshot};

use super::manager::{SharedEvent, TaskManager};
use super::running::Running;
use crate::a2a::{StreamEvent, Task, TaskStatusUpdateEvent};
use crate::store::Owner;

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

/// The events of task `id` from `events` (its current run's, if it runs) on, across the runs
/// that continue it, until the terminal update. An interrupting final update is passed on
/// as not final. Ends early when the subscriber goes away or a run ends without a final
/// update (the stream then says so).
pub(crate) fn follow(
    manager: Arc<TaskManager>,
    owner: Owner,
    id: String,
    events: Option<mpsc::Receiver<SharedEvent>>,
) -> mpsc::Receiver<SharedEvent> {
    let (sender, receiver) = mpsc::channel(64);
    tokio::spawn(async move {
        let mut current = events;
        loop {
            if let Some(mut events) = current.take() {
                loop {
                    let Some(event) = events.recv().await else {
                        return;
                    };
                    let ends_run = event.is_final();
                    let terminal = ends_run && is_terminal(&event);
                    let event = if ends_run && !terminal {
                        not_final(&event)
                    } else {
                        event
                    };
                    if sender.send(event).await.is_err() || terminal {
                        return;
                    }
                    if ends_run {
                        break;
                    }
                }
            }
            let next = manager.next_run(&owner, &id);
            let next = tokio::select! {
                next = next => next,
                () = sender.closed() => return,
            };
            match next {
                Ok(Next::Run(events)) => current = Some(events),
                Ok(Next::Settled(task)) => {
                    let last = StreamEvent::StatusUpdate(TaskStatusUpdateEvent::of(&task, true));
                    let _ = sender.send(Arc::new(last)).await;
                    return;
                }
                Err(error) => {
                    tracing::warn!(task_id = %id, %error, "a subscription lost its task");
                    return;
                }
            }
        }
    });
    receiver
}

/// What comes after an interruption.
pub(crate) enum Next {
    /// A run continues the task: its events.
    Run(mpsc::Receiver<SharedEvent>),
    /// The task reached a terminal state without a run here (canceled, say).
    Settled(Box<Task>),
}

fn is_terminal(event: &StreamEvent) -> bool {
    match event {
        StreamEvent::StatusUpdate(update) => update.status.state.is_terminal(),
        StreamEvent::Task(task) => task.status.state.is_terminal(),
        StreamEvent::Message(_) => true,
        StreamEvent::ArtifactUpdate(_) => false,
    }
}

fn not_final(event: &SharedEvent) -> SharedEvent {
    match &**event {
        StreamEvent::StatusUpdate(update) => {
            let mut update = update.clone();
            update.is_final = false;
            Arc::new(StreamEvent::StatusUpdate(update))
        }
        _ => event.clone(),
    }
}
