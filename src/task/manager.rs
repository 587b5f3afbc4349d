//! The task runner: starts or continues a task, drives the agent, fans events out.
//!
//! One [`TaskManager`] per server. While an agent works on a task, the task lives in a
//! [`Running`] entry (see [`super::running`]). The runner is the only writer of a
//! running task. Continuing and canceling an idle task first *claim* its id in this process
//! (a set of ids, never held across an `.await`), then write through the store's
//! compare-and-set ([`TaskStore::replace`]), which serializes writers across the instances
//! sharing a store: the loser gets the same "task is running" error a local one gets. The
//! lock over the running map is held only to look up, register or remove an entry, never
//! across a store call. A run stores its final state before it leaves the map and before its
//! final event goes out, so a client that reacts to that event finds the task settled; a
//! continuation that finds the run still settling waits for it.
//!
//! When the store is shared ([`TaskStore::cluster`]), a task that does not run here may run
//! on another instance: subscribing watches its events through the cluster, canceling asks
//! the instance that runs it, and a local run's state changes are published for the others,
//! its chunks too while another instance watches it (see [`crate::store::Cluster::run`]).
//!
//! Cancel drops the agent's future or stream (the runner `select!`s on the cancel signal), so
//! the agent stops at its next `.await`.
//!
//! This file holds the manager's state and the helpers its parts share; the parts are
//! [`super::start`], [`super::run`], [`super::answer`], [`super::cancel`] and [`super::read`].

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use tokio::sync::{Notify, mpsc};

use super::deciding::Deciding;
pub(crate) use super::fanout::SharedEvent;
use super::run_watchers::RunWatchers;
pub(crate) use super::running::{Delivery, Done, Running, Stop};
use super::{IdGenerator, TaskError};
use crate::a2a::{Message, Part, StreamEvent, Task, TaskState, TaskStatusUpdateEvent};
use crate::agent::Agent;
use crate::clock::{Clock, timestamp};
use crate::observe::Meter;
use crate::pipeline::RepairPolicy;
use crate::pipeline::sink::OutputPipeline;
use crate::push::Pusher;
use crate::store::{Cluster, Owner, TaskStore};

/// Runs tasks for one server.
pub(crate) struct TaskManager {
    pub(crate) store: Arc<dyn TaskStore>,
    pub(crate) agent: Arc<dyn Agent>,
    pub(crate) clock: Arc<dyn Clock>,
    pub(crate) ids: Arc<dyn IdGenerator>,
    pub(crate) output: Arc<dyn OutputPipeline>,
    pub(crate) final_state: TaskState,
    /// The most messages a task's history keeps; older ones are dropped first.
    pub(super) max_history: usize,
    /// What happens to an A2UI message that does not validate (shared with every request,
    /// so that an agent relaying another's A2UI screens it by the same policy).
    pub(super) repair: Arc<RepairPolicy>,
    /// The most stream subscribers one running task may have (at least 1).
    pub(super) max_subscribers: usize,
    /// How long a chunk of agent output waits for more before it is fed (see
    /// `answer::Chunks`).
    pub(super) coalesce_window: Duration,
    /// The tasks running here. A `std` mutex: it is only held to look up, register or
    /// remove an entry, never across an `.await` (see [`TaskManager::running`]).
    running: Mutex<HashMap<String, Arc<Running>>>,
    /// Wakes those waiting for the running map to empty (a server shutting down).
    idle: Notify,
    /// The agent calls made before their task exists (see [`super::deciding`]).
    pub(super) deciding: Deciding,
    /// Subscribers waiting for an interrupted task's next run.
    pub(super) watchers: RunWatchers,
    /// Ids of idle tasks being continued or canceled here (see the module doc).
    claims: Mutex<HashSet<String>>,
    /// Wakes those waiting for a claim.
    released: Notify,
    /// The other instances sharing the store, if any.
    pub(super) cluster: Option<Arc<dyn Cluster>>,
    /// Whether the loop that takes other instances' cancel requests runs.
    listening: AtomicBool,
    /// Whether the last event could not be published (one warning per outage, not per event).
    publish_failing: AtomicBool,
    /// Where the updates of tasks with webhooks go, when push is on.
    pub(crate) push: Option<Pusher>,
    /// Where runs, A2UI messages, repairs and latencies are counted.
    pub(crate) meter: Meter,
}

/// An id claimed by [`TaskManager::try_claim`]; released when dropped.
pub(super) struct Claim<'a> {
    manager: &'a TaskManager,
    pub(super) id: String,
}

impl Drop for Claim<'_> {
    fn drop(&mut self) {
        self.manager.claims().remove(&self.id);
        self.manager.released.notify_waiters();
    }
}

impl TaskManager {
    pub(crate) fn new(
        store: Arc<dyn TaskStore>,
        agent: Arc<dyn Agent>,
        clock: Arc<dyn Clock>,
        ids: Arc<dyn IdGenerator>,
        output: Arc<dyn OutputPipeline>,
        final_state: TaskState,
    ) -> Self {
        let cluster = store.cluster();
        Self {
            store,
            agent,
            clock,
            ids,
            output,
            final_state,
            max_history: usize::MAX,
            repair: Arc::default(),
            max_subscribers: usize::MAX,
            coalesce_window: Duration::ZERO,
            running: Mutex::new(HashMap::new()),
            watchers: RunWatchers::default(),
            idle: Notify::new(),
            deciding: Deciding::default(),
            claims: Mutex::new(HashSet::new()),
            released: Notify::new(),
            cluster,
            listening: AtomicBool::new(false),
            publish_failing: AtomicBool::new(false),
            push: None,
            meter: Meter::default(),
        }
    }

    /// Counts runs, A2UI messages, repairs and latencies on `meter`.
    pub(crate) fn with_meter(mut self, meter: Meter) -> Self {
        self.meter = meter;
        self
    }

    /// Sends the updates of tasks with push configs to their webhooks through `pusher`
    /// (none: push is off).
    pub(crate) fn with_push(mut self, pusher: Option<Pusher>) -> Self {
        self.push = pusher;
        self
    }

    /// Keeps at most `max` messages of each task's history (at least 1: the current one).
    pub(crate) fn with_max_history(mut self, max: usize) -> Self {
        self.max_history = max.max(1);
        self
    }

    /// How many messages of each task's history are kept.
    pub(crate) fn max_history(&self) -> usize {
        self.max_history
    }

    /// Lets at most `max` stream subscribers follow one running task (at least 1: the
    /// client that started it); more get [`TaskError::TooManySubscribers`].
    pub(crate) fn with_max_subscribers(mut self, max: usize) -> Self {
        self.max_subscribers = max.max(1);
        self
    }

    /// Lets a chunk of agent output wait up to `window` for more before it is fed.
    pub(crate) fn with_coalesce_window(mut self, window: Duration) -> Self {
        self.coalesce_window = window;
        self
    }

    /// Handles invalid A2UI messages by `policy`.
    pub(crate) fn with_repair(mut self, policy: RepairPolicy) -> Self {
        self.repair = Arc::new(policy);
        self
    }

    /// The map of running tasks, locked. The guard must not live across an `.await` (the
    /// lock is a `std` one; holding it there could block a runtime thread).
    pub(super) fn running(&self) -> MutexGuard<'_, HashMap<String, Arc<Running>>> {
        self.running
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The entry of task `id` if it runs here, whoever owns it: for the server's own work
    /// (another instance's cancel request), never for a caller's.
    pub(super) fn any_entry(&self, id: &str) -> Option<Arc<Running>> {
        self.running().get(id).cloned()
    }

    /// The entry of task `id` if it runs here and is `owner`'s.
    pub(super) fn entry(&self, owner: &Owner, id: &str) -> Option<Arc<Running>> {
        self.running()
            .get(id)
            .filter(|running| running.owner == *owner)
            .cloned()
    }

    /// Subscribes to `running`, the run of task `id`: its snapshot and the events that
    /// follow, unless the task has as many stream subscribers as the server lets it have.
    pub(super) fn subscribe_to(
        &self,
        running: &Running,
        id: &str,
    ) -> Result<(Task, mpsc::Receiver<SharedEvent>), TaskError> {
        running
            .subscribe(self.max_subscribers)
            .ok_or_else(|| TaskError::TooManySubscribers {
                id: id.to_owned(),
                max: self.max_subscribers,
            })
    }

    /// Registers `running` as the run of its task.
    pub(super) fn register(&self, id: &str, running: Arc<Running>) {
        let mut map = self.running();
        map.insert(id.to_owned(), running);
        self.meter.tasks_running(map.len());
    }

    /// Removes `running` from the map, unless a newer run of the same task replaced it.
    pub(super) fn unregister(&self, id: &str, running: &Arc<Running>) {
        let mut map = self.running();
        if map.get(id).is_some_and(|entry| Arc::ptr_eq(entry, running)) {
            map.remove(id);
            self.meter.tasks_running(map.len());
            if map.is_empty() {
                self.idle.notify_waiters();
            }
        }
    }

    /// Waits until no task runs here and no agent call waits to start one.
    pub(crate) async fn wait_idle(&self) {
        loop {
            // Registered before looking, so an emptying between the two is not missed.
            let emptied = self.idle.notified();
            if self.running().is_empty() {
                self.deciding.wait_idle().await;
                // A call that ended may have started a task.
                if self.running().is_empty() {
                    return;
                }
                continue;
            }
            emptied.await;
        }
    }

    /// The stored task `id` of `owner`.
    ///
    /// # Errors
    ///
    /// [`TaskError::NotFound`] when the store has no such task of `owner` (another owner's
    /// task is not found either), or the store's error.
    pub(super) async fn load(&self, owner: &Owner, id: &str) -> Result<Task, TaskError> {
        self.store
            .get(owner, id)
            .await?
            .ok_or_else(|| TaskError::NotFound { id: id.to_owned() })
    }

    /// Checks that task `id` is `owner`'s (running here or stored) before anything else
    /// touches it: a claim, a wait, a cluster request.
    ///
    /// # Errors
    ///
    /// [`TaskError::NotFound`], exactly as for a task that does not exist, or the store's
    /// error.
    pub(super) async fn check_owner(&self, owner: &Owner, id: &str) -> Result<(), TaskError> {
        if self.entry(owner, id).is_some() {
            return Ok(());
        }
        self.load(owner, id).await.map(drop)
    }

    fn claims(&self) -> MutexGuard<'_, HashSet<String>> {
        self.claims
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Claims `id` unless another continuation or cancel holds it.
    pub(super) fn try_claim(&self, id: &str) -> Option<Claim<'_>> {
        self.claims().insert(id.to_owned()).then(|| Claim {
            manager: self,
            id: id.to_owned(),
        })
    }

    /// Claims `id`, waiting for whoever holds it.
    pub(super) async fn claim(&self, id: &str) -> Claim<'_> {
        loop {
            let released = self.released.notified();
            if let Some(claim) = self.try_claim(id) {
                return claim;
            }
            released.await;
        }
    }

    /// Starts the loop that stops the tasks other instances ask to cancel (once).
    pub(super) fn listen_for_cancels(self: &Arc<Self>) {
        let Some(cluster) = &self.cluster else {
            return;
        };
        if self.listening.swap(true, Ordering::AcqRel) {
            return;
        }
        let Some(mut requests) = cluster.cancel_requests() else {
            return;
        };
        let manager = Arc::downgrade(self);
        tokio::spawn(async move {
            while let Some(id) = requests.recv().await {
                let Some(manager) = manager.upgrade() else {
                    break;
                };
                if let Some(running) = manager.any_entry(&id) {
                    tracing::debug!(task_id = %id, "another instance asked to cancel the task");
                    running.request_cancel();
                }
            }
        });
    }

    /// Sends an event to the local subscribers, then to the other instances and the task's
    /// webhooks.
    pub(super) async fn send(&self, running: &Running, delivery: Option<Delivery>) {
        let event = delivery.as_ref().map(Delivery::event);
        let published = delivery.as_ref().and_then(Delivery::published);
        running.deliver(delivery).await;
        self.push_event(running, event.as_ref());
        self.publish(published).await;
    }

    /// Hands `event` of `running` to its webhooks, if it has some (or may: with a shared
    /// store, another instance may have given it one). Never waits.
    pub(super) fn push_event(&self, running: &Running, event: Option<&SharedEvent>) {
        if let (Some(pusher), Some(event)) = (&self.push, event)
            && (running.is_pushed() || self.cluster.is_some())
        {
            pusher.notify(&running.owner, event, &|| running.snapshot());
        }
    }

    /// Marks task `id` of `owner`, if it runs here, as having webhooks (a config was just
    /// set on it).
    pub(crate) fn push_on(&self, owner: &Owner, id: &str) {
        if let Some(running) = self.entry(owner, id) {
            running.push_on();
        }
    }

    /// Sends an event to the other instances, if the store is shared.
    pub(super) async fn publish(&self, event: Option<SharedEvent>) {
        if let (Some(cluster), Some(event)) = (&self.cluster, event) {
            match cluster.publish(&event).await {
                Err(error) if !self.publish_failing.swap(true, Ordering::Relaxed) => {
                    tracing::warn!(%error, "could not publish a task event to the other instances");
                }
                Err(error) => tracing::debug!(%error, "could not publish a task event"),
                Ok(()) if self.publish_failing.swap(false, Ordering::Relaxed) => {
                    tracing::info!("task events reach the other instances again");
                }
                Ok(()) => {}
            }
        }
    }

    /// The clock's time, as a status timestamp.
    pub(super) fn now(&self) -> String {
        timestamp(self.clock.now())
    }
}

/// The agent's message `reply_id` on `task`, holding `parts`.
pub(super) fn agent_message(task: &Task, reply_id: &str, parts: Vec<Part>) -> Message {
    let mut message = Message::agent(reply_id, parts);
    message.task_id = Some(task.id.clone());
    message.context_id = Some(task.context_id.clone());
    message
}

/// The error for continuing a task in `state` that is not waiting for input.
pub(super) fn busy_or_terminal(id: &str, state: TaskState) -> TaskError {
    if state.is_terminal() {
        TaskError::Terminal {
            id: id.to_owned(),
            state,
        }
    } else {
        TaskError::Busy {
            id: id.to_owned(),
            state,
        }
    }
}

/// The status update of `task` as it is now.
pub(super) fn status_event(task: &Task, is_final: bool) -> StreamEvent {
    StreamEvent::StatusUpdate(TaskStatusUpdateEvent::of(task, is_final))
}
