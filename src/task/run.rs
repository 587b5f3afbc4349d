//! One run of a task: `working`, the agent's answer (see [`super::answer`]), then the final
//! state, stored before the final event goes out.

use std::sync::{Arc, Mutex};
use std::task::Poll;

use futures::FutureExt;
use tokio::sync::oneshot;
use tokio::task::JoinError;
use tracing::Instrument;

use super::answer;
use super::call::panicked;
use super::handoff::{Job, Outcome};
use super::lifecycle::{self, transition};
use super::manager::{Delivery, Done, Running, Stop, TaskManager, agent_message, status_event};
use crate::a2a::{Part, StreamEvent, Task, TaskState};
use crate::pipeline::sink::coalesce_text;

/// A `working` write running on its own; awaited by the run and again before settling.
type WorkingWrite = futures::future::Shared<futures::future::BoxFuture<'static, ()>>;

/// The final status an [`Outcome`] gives.
struct Ending {
    state: TaskState,
    parts: Option<Vec<Part>>,
    invalid: Option<String>,
    /// Whether stream subscribers already received every part in `working` updates.
    already_streamed: bool,
}

impl Ending {
    fn of(outcome: Outcome) -> Self {
        let already_streamed = matches!(outcome, Outcome::Finished { .. });
        let (state, parts, invalid) = match outcome {
            Outcome::Finished { state, parts } => (state, Some(coalesce_text(parts)), None),
            Outcome::Settled { state, parts } => (state, Some(parts), None),
            Outcome::Failed(reason) => {
                tracing::warn!(%reason, "the agent failed");
                (TaskState::Failed, Some(vec![Part::text(reason)]), None)
            }
            Outcome::Invalid(reason) => {
                tracing::error!(%reason, "invalid agent response");
                let shown = format!("Invalid agent response: {reason}");
                (
                    TaskState::Failed,
                    Some(vec![Part::text(shown)]),
                    Some(reason),
                )
            }
            Outcome::Canceled => (TaskState::Canceled, None, None),
        };
        Ending {
            state,
            parts,
            invalid,
            already_streamed,
        }
    }
}

/// Drives the agent for one request (or refuses it), then settles the task.
pub(super) async fn run(
    tasks: Arc<TaskManager>,
    running: Arc<Running>,
    job: Job,
    stop: oneshot::Receiver<Stop>,
) {
    // One message id for the whole reply: every `working` update carries a piece of the
    // same agent message, and the final update carries all of it.
    let reply_id = tasks.ids.new_id();
    let timestamp = tasks.now();
    let started = running.update(|task| {
        transition(task, TaskState::Working, None, timestamp).ok()?;
        Some(|task: &Task| status_event(task, false))
    });
    let stopped = async {
        match stop.await {
            Ok(Stop::Cancel) => Outcome::Canceled,
            Ok(Stop::Fail(reason)) => Outcome::Failed(reason),
            Err(_) => std::future::pending().await,
        }
    };
    // The `working` write in flight, if any. A stop drops `work` below, but a store may
    // finish a write whose future was dropped (one that hands writes to a thread does):
    // the write runs as a task of its own, and the task is settled only after it landed,
    // so the final state is the one kept.
    let working_write = Arc::new(Mutex::new(None));
    // The work is a task of its own. Were it one future with the stop signal, every
    // chunk of the reply would wake that future, which would poll the signal too: a read
    // of memory that is cold by then (3% of the server's CPU at 3,000 streams).
    let mut work = tokio::spawn({
        let (manager, running, slot) = (tasks.clone(), running.clone(), working_write.clone());
        let reply_id = reply_id.clone();
        async move { work(&manager, &running, &reply_id, job, started, &slot).await }
            .in_current_span()
    });
    let outcome = tokio::select! {
        biased;
        outcome = stopped => {
            // Dropped (the agent's reply with it) before the task settles.
            work.abort();
            let _ = (&mut work).await;
            outcome
        }
        joined = &mut work => joined.unwrap_or_else(|error| unjoined(&running, error)),
    };
    let in_flight = working_write.lock().ok().and_then(|mut slot| slot.take());
    if let Some(write) = in_flight {
        write.await;
    }
    // Boxed: settling happens once, at the end, and inline its future would widen the
    // run's, held for as long as the reply streams, by a kilobyte.
    Box::pin(settle(&tasks, &running, &reply_id, outcome)).await;
}

/// Sends the `started` update and does the job, storing the `working` state on the way.
async fn work(
    tasks: &TaskManager,
    running: &Running,
    reply_id: &str,
    job: Job,
    started: Option<Delivery>,
    slot: &Mutex<Option<WorkingWrite>>,
) -> Outcome {
    // The `working` state is stored so a listing filtered by state finds the task. A run
    // that ends without the agent ever waiting needs no such write (its final state is
    // stored right after): it is stored before a subscriber sees `working`, else only
    // once the agent first waits.
    let watched = started.is_some();
    if watched {
        store_working(tasks, running, slot).await;
    }
    tasks.send(running, started).await;
    let job = async {
        match job {
            Job::Answer {
                request,
                streaming,
                first,
            } => answer::drive(tasks, running, reply_id, request, streaming, first).await,
            Job::Refuse(reason) => Outcome::Failed(reason),
        }
    };
    let mut job = std::pin::pin!(job);
    if watched {
        return job.await;
    }
    match futures::poll!(job.as_mut()) {
        Poll::Ready(outcome) => outcome,
        Poll::Pending => {
            store_working(tasks, running, slot).await;
            job.await
        }
    }
}

/// Stores the running task as it is now (`working`), as a task of its own that `slot`
/// keeps until the run is settled (see `run`).
async fn store_working(tasks: &TaskManager, running: &Running, slot: &Mutex<Option<WorkingWrite>>) {
    let store = tasks.store.clone();
    let task = running.snapshot();
    let owner = running.owner.clone();
    let write = tokio::spawn(
        async move {
            if let Err(error) = store.put(&owner, task).await {
                tracing::warn!(%error, "could not store the working task");
            }
        }
        .in_current_span(),
    )
    .map(|_joined| ())
    .boxed()
    .shared();
    if let Ok(mut slot) = slot.lock() {
        *slot = Some(write.clone());
    }
    write.await;
}

/// Moves the task to its final state, stores it and sends the final update.
async fn settle(tasks: &TaskManager, running: &Arc<Running>, reply_id: &str, outcome: Outcome) {
    // The stored task's status message holds the whole reply (what message/send and
    // tasks/get return). Stream subscribers already received every part in `working`
    // updates, so their final update repeats none of them: a client that appends each
    // update's parts, or a renderer that applies each A2UI message, sees each once.
    let Ending {
        state,
        parts,
        invalid,
        already_streamed,
    } = Ending::of(outcome);
    let timestamp = tasks.now();
    let mut final_task = None;
    let delivery = running.update(|task| {
        // A message needs at least one part: an empty reply ends without one.
        let message = parts
            .filter(|parts| !parts.is_empty())
            .map(|parts| agent_message(task, reply_id, parts));
        lifecycle::settle(task, state, message, timestamp);
        final_task = Some(task.clone());
        Some(move |task: &Task| final_event(task, already_streamed))
    });
    let task = final_task.unwrap_or_else(|| running.snapshot());
    match tasks.store.put(&running.owner, task.clone()).await {
        Ok(()) => {}
        // The store writes it once it can, and logs how that went.
        Err(error) if error.is_deferred() => {
            tracing::warn!(task_id = %task.id, %error, "the finished task is not stored yet");
        }
        Err(error) => {
            tracing::error!(task_id = %task.id, %error, "could not store the finished task");
        }
    }
    tasks.unregister(&task.id, running);
    tracing::debug!(task_id = %task.id, state = %task.status.state, "task settled");
    // The final event goes out after the task is stored and the run is over: a client
    // that reacts to it (continues the task, asks for it) finds it settled. Other
    // instances hear of it before the run is marked done, which a shutting-down server
    // waits for before it exits.
    let event = delivery.as_ref().map(Delivery::event);
    tasks.push_event(running, event.as_ref());
    tasks
        .publish(delivery.as_ref().and_then(Delivery::published))
        .await;
    running.finish(Done { task, invalid });
    running.deliver(delivery).await;
}

/// The outcome of a run whose work ended without one: it panicked, or the runtime stopped.
fn unjoined(running: &Running, error: JoinError) -> Outcome {
    match error.try_into_panic() {
        Ok(panic) => panicked(running, &*panic),
        Err(_) => Outcome::Failed("The server stopped the task.".to_owned()),
    }
}

/// The final status update of `task`; without the reply when it was streamed already.
fn final_event(task: &Task, already_streamed: bool) -> StreamEvent {
    let mut event = status_event(task, true);
    if already_streamed && let StreamEvent::StatusUpdate(update) = &mut event {
        update.status.message = None;
    }
    event
}

#[cfg(test)]
mod tests {
    use super::*;

    fn working_task() -> Task {
        Task::new("t", "c", TaskState::Working)
    }

    #[test]
    fn a_run_forced_to_failed_takes_no_later_update() {
        // Watched by other instances: every accepted change yields a delivery, so a refused
        // one shows.
        let (running, _stop) = Running::start(
            working_task(),
            crate::store::Owner::anonymous(),
            Some(crate::store::Watched::always()),
        );
        let forced = running.update(|task| {
            // `submitted` cannot follow `working`: settling there forces `failed`.
            lifecycle::settle(task, TaskState::Submitted, None, "t1".into());
            Some(|task: &Task| status_event(task, true))
        });
        assert!(forced.is_some());
        let late = running.update(|task| {
            transition(task, TaskState::Working, None, "t2".into()).ok()?;
            Some(|task: &Task| status_event(task, false))
        });
        assert!(late.is_none(), "a failed run took a `working` update");
        let task = running.snapshot();
        assert_eq!(task.status.state, TaskState::Failed);
        assert_eq!(task.status.timestamp.as_deref(), Some("t1"));
    }
}
