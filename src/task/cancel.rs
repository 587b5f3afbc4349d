//! Canceling a task: the run here, the run on another instance, or the idle task in the
//! store; and stopping every run when the server stops.

use std::sync::Arc;
use std::time::Duration;

use super::TaskError;
use super::lifecycle::{archive_reply, transition};
use super::manager::{Running, Stop, TaskManager, status_event};
use super::read;
use crate::a2a::{Task, TaskState};
use crate::store::{Cluster, Owner};

/// How long a cancel waits for the instance that runs the task to stop it.
const REMOTE_CANCEL_WAIT: Duration = Duration::from_secs(10);
/// How often a cancel of a task running elsewhere is asked again while it waits.
const REMOTE_CANCEL_RETRY: Duration = Duration::from_millis(500);

/// Cancels task `id` of `owner`: stops its agent if it runs (here, or through the cluster on the
/// instance that runs it), and settles it as `canceled`.
pub(super) async fn cancel(
    tasks: &TaskManager,
    owner: &Owner,
    id: &str,
) -> Result<Task, TaskError> {
    // A run may end on its own while the cancel is on its way; then cancel the settled
    // task. A few rounds cover that race: a new run cannot start in between because
    // starting needs an interrupted task, which this loop cancels under a claim with a
    // compare-and-set.
    for _ in 0..4 {
        let canceled = match tasks.entry(owner, id) {
            Some(running) => cancel_run(&running).await,
            None => cancel_idle(tasks, owner, id).await?,
        };
        if let Some(task) = canceled {
            return Ok(task);
        }
    }
    let task = read::get(tasks, owner, id).await?;
    Err(TaskError::NotCancelable {
        id: id.to_owned(),
        state: task.status.state,
    })
}

/// Cancels task `id` when it does not run here: in the store, or on the instance that
/// runs it. `None`: it started or settled some other way meanwhile (look again).
async fn cancel_idle(
    tasks: &TaskManager,
    owner: &Owner,
    id: &str,
) -> Result<Option<Task>, TaskError> {
    // Another owner's task is not waited for, nor claimed.
    tasks.check_owner(owner, id).await?;
    // Waits for a continuation here to register its run.
    let claim = tasks.claim(id).await;
    if tasks.entry(owner, id).is_some() {
        return Ok(None);
    }
    let mut task = tasks.load(owner, id).await?;
    let state = task.status.state;
    if let (Some(cluster), TaskState::Submitted | TaskState::Working) = (&tasks.cluster, state) {
        // It runs on another instance.
        drop(claim);
        return cancel_elsewhere(tasks, cluster.as_ref(), owner, id).await;
    }
    let read = task.status.clone();
    archive_reply(&mut task);
    if transition(&mut task, TaskState::Canceled, None, tasks.now()).is_err() {
        return Err(TaskError::NotCancelable {
            id: id.to_owned(),
            state,
        });
    }
    let kept = tasks.store.replace(owner, &read, task.clone()).await?;
    if kept {
        tasks.watchers.settled(&task);
        let event = Arc::new(status_event(&task, true));
        if let Some(pusher) = &tasks.push {
            pusher.notify(owner, &event, &|| task.clone());
        }
        // Subscribers following it through other instances hear that it ended.
        tasks.publish(Some(event)).await;
    }
    Ok(kept.then_some(task))
}

/// Asks the instance that runs task `id` to cancel it and waits until the task settles:
/// the canceled task, or `None` when it settled some other way (the caller looks again).
async fn cancel_elsewhere(
    tasks: &TaskManager,
    cluster: &dyn Cluster,
    owner: &Owner,
    id: &str,
) -> Result<Option<Task>, TaskError> {
    let mut events = cluster.watch(id).await?;
    let deadline = tokio::time::Instant::now() + REMOTE_CANCEL_WAIT;
    loop {
        cluster.request_cancel(id).await?;
        let settled = async {
            loop {
                match events.recv().await {
                    Some(event) if event.is_final() => return,
                    Some(_) => {}
                    None => std::future::pending::<()>().await,
                }
            }
        };
        let _ = tokio::time::timeout(REMOTE_CANCEL_RETRY, settled).await;
        let task = tasks.load(owner, id).await?;
        match task.status.state {
            TaskState::Canceled => return Ok(Some(task)),
            TaskState::Submitted | TaskState::Working => {
                if tokio::time::Instant::now() >= deadline {
                    return Err(TaskError::NotCancelable {
                        id: id.to_owned(),
                        state: task.status.state,
                    });
                }
            }
            _ => return Ok(None),
        }
    }
}

/// Stops every running task: each ends `failed` with `reason` as its final update; an agent
/// call made before its task exists ends too, its client told the server is stopping. Used
/// when the server shuts down after its drain deadline.
pub(super) async fn stop_all(tasks: &TaskManager, reason: &str) {
    tasks.deciding.stop();
    let running: Vec<Arc<Running>> = tasks.running().values().cloned().collect();
    for entry in &running {
        entry.request_stop(Stop::Fail(reason.to_owned()));
    }
    for entry in running {
        entry.wait_done().await;
    }
}

/// Stops the run of a task here and waits for it to settle: the canceled task, or `None`
/// when the run ended some other way first.
async fn cancel_run(running: &Running) -> Option<Task> {
    running.request_cancel();
    let done = running.wait_done().await;
    (done.task.status.state == TaskState::Canceled).then_some(done.task)
}
