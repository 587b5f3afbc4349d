//! Following a task across its runs, for A2A 1.0 `SubscribeToTask`.
//!
//! A run's events end at its final update, which may only interrupt the task
//! (`input-required`, `auth-required`); 1.0 says a subscription ends when the task reaches a
//! terminal state. So [`follow`] chains the runs' events into one stream that ends with the
//! terminal update, waiting between runs for the next one (see [`super::run_watchers`]).
//!
//! With a store shared by several instances (a cluster), the next run may start on any of
//! them: the wait also watches the task through the cluster, and whichever brings the next
//! run's first event first (a run here, or an event another instance published) is
//! followed. A run that started elsewhere before the watch began is told by the task's
//! stored status, sent as the first update of that run.

use std::sync::Arc;

use tokio::sync::mpsc;

use super::error::TaskError;
use super::fanout::SharedEvent;
use super::manager::TaskManager;
use super::run_watchers::Next;
use crate::a2a::{StreamEvent, TaskStatusUpdateEvent};
use crate::store::Owner;

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
            let next = next_run(&manager, &owner, &id);
            let next = tokio::select! {
                next = next => next,
                () = sender.closed() => return,
            };
            match next {
                Ok(Next::Run(events)) => current = Some(events),
                Ok(Next::Elsewhere(first, events)) => {
                    if sender.send(first).await.is_err() {
                        return;
                    }
                    current = Some(events);
                }
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

/// What comes after `owner`'s task `id`'s interruption: the next run's events (here, or
/// on another instance of a cluster), or the task if it settled without one.
pub(super) async fn next_run(
    tasks: &TaskManager,
    owner: &Owner,
    id: &str,
) -> Result<Next, TaskError> {
    let waiting = tasks.watchers.register(id);
    if let Some(running) = tasks.entry(owner, id) {
        let (_, events) = tasks.subscribe_to(&running, id)?;
        return Ok(Next::Run(events));
    }
    // Watched before the task is read, so no run's event falls in between.
    let mut elsewhere = match &tasks.cluster {
        Some(cluster) => Some(cluster.watch(id).await?),
        None => None,
    };
    let task = tasks.load(owner, id).await?;
    let state = task.status.state;
    if state.is_terminal() {
        return Ok(Next::Settled(Box::new(task)));
    }
    if let Some(events) = elsewhere.take_if(|_| !state.is_interrupted()) {
        // A run on another instance continued it before the watch began.
        let first = StreamEvent::StatusUpdate(TaskStatusUpdateEvent::of(&task, false));
        return Ok(Next::Elsewhere(Arc::new(first), events));
    }
    let lost = || TaskError::NotFound { id: id.to_owned() };
    let Some(mut events) = elsewhere else {
        return waiting.await.map_err(|_| lost());
    };
    tokio::select! {
        next = waiting => next.map_err(|_| lost()),
        first = events.recv() => match first {
            Some(first) => Ok(Next::Elsewhere(first, events)),
            None => Err(lost()),
        },
    }
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
