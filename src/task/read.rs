//! Reading tasks: one task, a page of them, or a task and the events that follow.
//!
//! A task that runs here is read from its live entry, any other from the store; either way
//! only the caller's own tasks are found.

use std::sync::Arc;

use tokio::sync::mpsc;

use super::TaskError;
use super::follow;
use super::manager::{SharedEvent, TaskManager};
use crate::a2a::{Task, TaskListQuery, TaskPage};
use crate::store::Owner;

/// What a resubscriber gets: the current task, and the events that follow if it runs.
pub(crate) struct Subscription {
    pub(crate) snapshot: Task,
    pub(crate) events: Option<mpsc::Receiver<SharedEvent>>,
}

/// How many tasks run now.
pub(super) fn running_count(tasks: &TaskManager) -> usize {
    tasks.running().len()
}

/// The task with `id` of `owner`: live if it runs, else from the store.
pub(super) async fn get(tasks: &TaskManager, owner: &Owner, id: &str) -> Result<Task, TaskError> {
    match tasks.entry(owner, id) {
        Some(running) => Ok(running.snapshot()),
        None => tasks.load(owner, id).await,
    }
}

/// One page of the tasks of `owner` matching `query` (running ones as they are now), each with at
/// most `query.history_length` history messages.
pub(super) async fn list(
    tasks: &TaskManager,
    owner: &Owner,
    query: &TaskListQuery,
) -> Result<TaskPage, TaskError> {
    let mut page = tasks
        .store
        .list(owner, query)
        .await?
        .ok_or(TaskError::BadPageToken)?;
    let running = tasks.running();
    for task in &mut page.tasks {
        if let Some(entry) = running.get(&task.id).filter(|entry| entry.owner == *owner) {
            *task = entry.snapshot();
        }
    }
    drop(running);
    page.tasks = std::mem::take(&mut page.tasks)
        .into_iter()
        .map(|task| task.with_history_length(query.history_length))
        .collect();
    Ok(page)
}

/// Like [`subscribe`](TaskManager::subscribe), but the events go on across the runs that
/// continue an interrupted task, until its terminal update (A2A 1.0 `SubscribeToTask`),
/// wherever they run when the store is shared by several instances.
pub(super) async fn subscribe_until_terminal(
    tasks: &Arc<TaskManager>,
    owner: &Owner,
    id: &str,
) -> Result<Subscription, TaskError> {
    let subscription = subscribe(tasks, owner, id).await?;
    let events = follow::follow(
        tasks.clone(),
        owner.clone(),
        id.to_owned(),
        subscription.events,
    );
    Ok(Subscription {
        snapshot: subscription.snapshot,
        events: Some(events),
    })
}

/// The current task of `owner` and, if it runs (here, or on another instance sharing
/// the store), the events that follow.
pub(super) async fn subscribe(
    tasks: &TaskManager,
    owner: &Owner,
    id: &str,
) -> Result<Subscription, TaskError> {
    if let Some(running) = tasks.entry(owner, id) {
        let (snapshot, events) = tasks.subscribe_to(&running, id)?;
        return Ok(Subscription {
            snapshot,
            events: Some(events),
        });
    }
    // Watch before reading, so no event falls between the snapshot and the stream; and
    // only a task of the caller's is watched.
    let watching = match &tasks.cluster {
        Some(cluster) => {
            tasks.check_owner(owner, id).await?;
            Some(cluster.watch(id).await?)
        }
        None => None,
    };
    let task = tasks.load(owner, id).await?;
    let state = task.status.state;
    if state.is_terminal() {
        return Err(TaskError::Terminal {
            id: id.to_owned(),
            state,
        });
    }
    Ok(Subscription {
        snapshot: task,
        events: watching.filter(|_| !state.is_interrupted()),
    })
}
