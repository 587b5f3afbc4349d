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
//! the instance that runs it, and every local event is published for the others.
//!
//! Cancel drops the agent's future or stream (the runner `select!`s on the cancel signal), so
//! the agent stops at its next `.await`.

use std::any::Any;
use std::collections::{HashMap, HashSet};
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::task::Poll;
use std::time::Duration;

use futures::{FutureExt, StreamExt, TryStreamExt};
use tokio::sync::{Notify, mpsc, oneshot};
use tracing::Instrument;

pub(crate) use super::running::{Delivery, Done, Running, SharedEvent, Stop};
use super::{IdGenerator, Lifecycle, TaskError};
use crate::a2a::{
    Message, Part, StreamEvent, Task, TaskListQuery, TaskPage, TaskState, TaskStatus,
    TaskStatusUpdateEvent,
};
use crate::agent::{Agent, ReplyBody, ReplyChunk, status_part};
use crate::clock::{Clock, timestamp};
use crate::reply::output::{OutputError, OutputPipeline, coalesce_text};
use crate::reply::{Guard, RepairPolicy};
use crate::request::Request;
use crate::request::prepared::Prepared;
use crate::store::{Cluster, StoreError, TaskStore};

/// A `working` write running on its own; awaited by the run and again before settling.
type WorkingWrite = futures::future::Shared<futures::future::BoxFuture<'static, ()>>;

/// How many bytes of agent output that are already waiting are read as one chunk at most.
const JOIN_READY_BYTES: usize = 16 * 1024;

/// Runs tasks for one server.
pub(crate) struct TaskManager {
    pub(crate) store: Arc<dyn TaskStore>,
    pub(crate) agent: Arc<dyn Agent>,
    pub(crate) clock: Arc<dyn Clock>,
    pub(crate) ids: Arc<dyn IdGenerator>,
    pub(crate) output: Arc<dyn OutputPipeline>,
    pub(crate) final_state: TaskState,
    /// The most messages a task's history keeps; older ones are dropped first.
    max_history: usize,
    /// What happens to an A2UI message that does not validate.
    repair: RepairPolicy,
    running: tokio::sync::Mutex<HashMap<String, Arc<Running>>>,
    /// Ids of idle tasks being continued or canceled here (see the module doc).
    claims: Mutex<HashSet<String>>,
    /// Wakes those waiting for a claim.
    released: Notify,
    /// The other instances sharing the store, if any.
    cluster: Option<Arc<dyn Cluster>>,
    /// Whether the loop that takes other instances' cancel requests runs.
    listening: AtomicBool,
    /// Whether the last event could not be published (one warning per outage, not per event).
    publish_failing: AtomicBool,
}

/// How long a cancel waits for the instance that runs the task to stop it.
const REMOTE_CANCEL_WAIT: Duration = Duration::from_secs(10);
/// How often a cancel of a task running elsewhere is asked again while it waits.
const REMOTE_CANCEL_RETRY: Duration = Duration::from_millis(500);

/// An id claimed by [`TaskManager::try_claim`]; released when dropped.
struct Claim<'a> {
    manager: &'a TaskManager,
    id: String,
}

impl Drop for Claim<'_> {
    fn drop(&mut self) {
        self.manager.claims().remove(&self.id);
        self.manager.released.notify_waiters();
    }
}

/// A freshly started (or continued) task.
pub(crate) struct Started {
    pub(crate) running: Arc<Running>,
    pub(crate) snapshot: Task,
    /// The events that follow `snapshot`, when the caller asked to stream them.
    pub(crate) events: Option<mpsc::Receiver<SharedEvent>>,
    /// The extension URIs activated for the request, to echo in the response header.
    pub(crate) activated: Vec<String>,
}

/// What a resubscriber gets: the current task, and the events that follow if it runs.
pub(crate) struct Subscription {
    pub(crate) snapshot: Task,
    pub(crate) events: Option<mpsc::Receiver<SharedEvent>>,
}

/// What a run does: call the agent, or fail the task without calling it.
enum Job {
    Answer {
        request: Box<Request>,
        streaming: bool,
    },
    Refuse(String),
}

/// How one call of the agent ended: the run's outcome, or A2UI that did not validate.
enum Attempt {
    Done(Outcome),
    Invalid(Vec<crate::a2ui::ValidationError>),
}

enum Outcome {
    Finished { state: TaskState, parts: Vec<Part> },
    Failed(String),
    Invalid(String),
    Canceled,
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
            repair: RepairPolicy::default(),
            running: tokio::sync::Mutex::new(HashMap::new()),
            claims: Mutex::new(HashSet::new()),
            released: Notify::new(),
            cluster,
            listening: AtomicBool::new(false),
            publish_failing: AtomicBool::new(false),
        }
    }

    fn claims(&self) -> std::sync::MutexGuard<'_, HashSet<String>> {
        self.claims
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Claims `id` unless another continuation or cancel holds it.
    fn try_claim(&self, id: &str) -> Option<Claim<'_>> {
        self.claims().insert(id.to_owned()).then(|| Claim {
            manager: self,
            id: id.to_owned(),
        })
    }

    /// Claims `id`, waiting for whoever holds it.
    async fn claim(&self, id: &str) -> Claim<'_> {
        loop {
            let released = self.released.notified();
            if let Some(claim) = self.try_claim(id) {
                return claim;
            }
            released.await;
        }
    }

    /// Starts the loop that stops the tasks other instances ask to cancel (once).
    fn listen_for_cancels(self: &Arc<Self>) {
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
                let running = manager.running.lock().await.get(&id).cloned();
                if let Some(running) = running {
                    tracing::debug!(task_id = %id, "another instance asked to cancel the task");
                    running.request_cancel();
                }
            }
        });
    }

    /// Sends an event to the local subscribers, then to the other instances.
    async fn send(&self, running: &Running, delivery: Option<Delivery>) {
        let event = delivery.as_ref().map(Delivery::event);
        running.deliver(delivery).await;
        self.publish(event).await;
    }

    /// Sends an event to the other instances, if the store is shared.
    async fn publish(&self, event: Option<SharedEvent>) {
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

    /// Keeps at most `max` messages of each task's history (at least 1: the current one).
    pub(crate) fn with_max_history(mut self, max: usize) -> Self {
        self.max_history = max.max(1);
        self
    }

    /// Handles invalid A2UI messages by `policy`.
    pub(crate) fn with_repair(mut self, policy: RepairPolicy) -> Self {
        self.repair = policy;
        self
    }

    fn now(&self) -> String {
        timestamp(self.clock.now())
    }

    fn agent_message(task: &Task, reply_id: &str, parts: Vec<Part>) -> Message {
        let mut message = Message::agent(reply_id, parts);
        message.task_id = Some(task.id.clone());
        message.context_id = Some(task.context_id.clone());
        message
    }

    /// Creates a task for the prepared message, or continues the interrupted task it names,
    /// and starts the agent on it (or fails the task at once when the request step refused
    /// its A2UI). With `stream`, the client reads the reply as it comes and the caller also
    /// gets every event from the first on (a caller that will not read them must not
    /// subscribe: the runner waits for its subscribers).
    pub(crate) async fn start(
        self: &Arc<Self>,
        prepared: Prepared,
        stream: bool,
    ) -> Result<Started, TaskError> {
        // A client that hangs up drops the request's future, and a store may still finish a
        // write whose future was dropped. Stopped between storing the task and starting its
        // run, the task would stay stored `submitted` (or `working`) with nothing running
        // it. So a start that does not end at its first poll (it waits on the store or a
        // lock) ends on a task of its own; one that does (the in-memory store) costs no
        // spawn.
        let mut begin = Box::pin(self.clone().begin(prepared, stream));
        match futures::poll!(begin.as_mut()) {
            Poll::Ready(started) => started,
            Poll::Pending => tokio::spawn(begin).await.unwrap_or_else(|joined| {
                Err(TaskError::Store(StoreError::Other(format!(
                    "starting the task stopped: {joined}"
                ))))
            }),
        }
    }

    /// [`start`](Self::start), run to its end whether or not its caller still waits.
    async fn begin(
        self: Arc<Self>,
        prepared: Prepared,
        stream: bool,
    ) -> Result<Started, TaskError> {
        let Prepared {
            mut message,
            decided,
        } = prepared;
        self.listen_for_cancels();
        // A continuation holds a claim on the id from its checks until it is registered as
        // running; a new task has a fresh id nobody else knows.
        let mut claim = None;
        let mut expected = None;
        let (mut task, lifecycle, prior) = match message.task_id.clone() {
            Some(id) => {
                let held = claim.insert(self.try_claim(&id).ok_or(TaskError::Busy {
                    id: id.clone(),
                    state: TaskState::Working,
                })?);
                let (task, lifecycle, prior, read) =
                    self.continuation(&held.id, &mut message).await?;
                expected = Some(read);
                (task, lifecycle, prior)
            }
            None => {
                let context_id = message
                    .context_id
                    .clone()
                    .unwrap_or_else(|| self.ids.new_id());
                message.context_id = Some(context_id.clone());
                let task = Task {
                    id: self.ids.new_id(),
                    context_id,
                    status: TaskStatus {
                        state: TaskState::Submitted,
                        message: None,
                        timestamp: Some(self.now()),
                    },
                    artifacts: Vec::new(),
                    history: Vec::new(),
                    metadata: None,
                };
                (task, Lifecycle::new(), Vec::new())
            }
        };
        message.task_id = Some(task.id.clone());
        task.history.push(message.clone());
        let excess = task.history.len().saturating_sub(self.max_history);
        task.history.drain(..excess);
        match &expected {
            // Another instance may have continued or canceled it since it was read.
            Some(read) => {
                if !self.store.replace(read, task.clone()).await? {
                    let state = self
                        .store
                        .get(&task.id)
                        .await?
                        .map_or(read.state, |kept| kept.status.state);
                    return Err(busy_or_terminal(&task.id, state));
                }
            }
            None => self.store.put(task.clone()).await?,
        }
        let (running, cancel_rx) = Running::start(task.clone(), lifecycle, self.cluster.is_some());
        let events = stream.then(|| running.subscribe().1);
        self.running
            .lock()
            .await
            .insert(task.id.clone(), running.clone());
        drop(claim);
        tracing::debug!(task_id = %task.id, context_id = %task.context_id, "task started");
        let (request, activated) = decided.into_request(message, &task.id, &task.context_id, prior);
        let job = match request {
            Err(refusal) => {
                tracing::debug!(task_id = %task.id, reason = %refusal, "A2UI negotiation failed");
                Job::Refuse(refusal.to_string())
            }
            Ok(request) => Job::Answer {
                request: Box::new(request),
                streaming: stream,
            },
        };
        // The agent's own tracing events carry the task and context ids.
        let span = tracing::info_span!("task", task_id = %task.id, context_id = %task.context_id);
        tokio::spawn(
            self.clone()
                .run(running.clone(), job, cancel_rx)
                .instrument(span),
        );
        Ok(Started {
            running,
            snapshot: task,
            events,
            activated,
        })
    }

    /// Checks that `message` may continue task `id` and prepares the task for it.
    /// Also returns the status read, for the compare-and-set that claims it in the store.
    async fn continuation(
        &self,
        id: &str,
        message: &mut Message,
    ) -> Result<(Task, Lifecycle, Vec<Message>, TaskStatus), TaskError> {
        let running = self.running.lock().await.get(id).cloned();
        if let Some(running) = running {
            let state = running.snapshot().status.state;
            if !state.is_settled() {
                return Err(TaskError::Busy {
                    id: id.to_owned(),
                    state,
                });
            }
            // The run is storing its final state: wait for it to be done.
            running.wait_done().await;
        }
        let mut task = self
            .store
            .get(id)
            .await?
            .ok_or_else(|| TaskError::NotFound { id: id.to_owned() })?;
        let state = task.status.state;
        if !state.is_interrupted() {
            return Err(busy_or_terminal(id, state));
        }
        let read = task.status.clone();
        match &message.context_id {
            Some(given) if *given != task.context_id => {
                return Err(TaskError::ContextMismatch {
                    id: id.to_owned(),
                    expected: task.context_id.clone(),
                    given: given.clone(),
                });
            }
            _ => message.context_id = Some(task.context_id.clone()),
        }
        let mut lifecycle = Lifecycle::resume(state);
        lifecycle.transition(TaskState::Working)?;
        if let Some(reply) = task.status.message.take() {
            task.history.push(reply);
        }
        task.status = TaskStatus {
            state: TaskState::Working,
            message: None,
            timestamp: Some(self.now()),
        };
        let keep = self.max_history.saturating_sub(1);
        let excess = task.history.len().saturating_sub(keep);
        task.history.drain(..excess);
        let prior = task.history.clone();
        Ok((task, lifecycle, prior, read))
    }

    /// Drives the agent for one request (or refuses it), then settles the task.
    async fn run(self: Arc<Self>, running: Arc<Running>, job: Job, stop: oneshot::Receiver<Stop>) {
        // One message id for the whole reply: every `working` update carries a piece of the
        // same agent message, and the final update carries all of it.
        let reply_id = self.ids.new_id();
        let timestamp = self.now();
        let started = running.update(|task, lifecycle| {
            lifecycle.transition(TaskState::Working).ok()?;
            task.status = TaskStatus {
                state: TaskState::Working,
                message: None,
                timestamp: Some(timestamp),
            };
            Some(|task: &Task| status_event(task, false))
        });
        let stopped = async {
            match stop.await {
                Ok(Stop::Cancel) => Outcome::Canceled,
                Ok(Stop::Fail(reason)) => Outcome::Failed(reason),
                Err(_) => std::future::pending().await,
            }
        };
        // The `working` write in flight, if any. A cancel drops `work` below, but a store may
        // finish a write whose future was dropped (one that hands writes to a thread does):
        // the write runs as a task of its own, and the task is settled only after it landed,
        // so the final state is the one kept.
        let working_write = Mutex::new(None);
        let work = async {
            // The `working` state is stored so a listing filtered by state finds the task. A
            // run that ends without the agent ever waiting needs no such write (its final
            // state is stored right after): it is stored before a subscriber sees `working`,
            // else only once the agent first waits.
            let watched = started.is_some();
            if watched {
                self.store_working(&running, &working_write).await;
            }
            self.send(&running, started).await;
            let job = async {
                match job {
                    Job::Answer { request, streaming } => {
                        self.drive(&running, &reply_id, *request, streaming).await
                    }
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
                    self.store_working(&running, &working_write).await;
                    job.await
                }
            }
        };
        let outcome = tokio::select! {
            biased;
            outcome = stopped => outcome,
            outcome = work => outcome,
        };
        let in_flight = working_write.lock().ok().and_then(|mut slot| slot.take());
        if let Some(write) = in_flight {
            write.await;
        }
        self.settle(&running, &reply_id, outcome).await;
    }

    /// Stores the running task as it is now (`working`), as a task of its own that `slot`
    /// keeps until the run is settled (see `run`).
    async fn store_working(&self, running: &Running, slot: &Mutex<Option<WorkingWrite>>) {
        let store = self.store.clone();
        let task = running.snapshot();
        let write = tokio::spawn(async move {
            if let Err(error) = store.put(task).await {
                tracing::warn!(%error, "could not store the working task");
            }
        })
        .map(|_joined| ())
        .boxed()
        .shared();
        if let Ok(mut slot) = slot.lock() {
            *slot = Some(write.clone());
        }
        write.await;
    }

    /// Calls the agent and turns its output into `working` updates; an attempt whose A2UI
    /// does not validate goes to the repair loop ([`super::repair`]).
    async fn drive(
        &self,
        running: &Running,
        reply_id: &str,
        mut request: Request,
        streaming: bool,
    ) -> Outcome {
        let mut guard = self.repair.guard(&request);
        let mut parts = Vec::new();
        loop {
            let errors = match self
                .attempt(
                    running, reply_id, request, streaming, &mut guard, &mut parts,
                )
                .await
            {
                Attempt::Done(outcome) => return outcome,
                Attempt::Invalid(errors) => errors,
            };
            request = match guard.next(errors) {
                Ok(next) => next,
                Err(reason) => return Outcome::Failed(reason),
            };
        }
    }

    /// One call of the agent, its output screened by `guard`; the parts sent are added to
    /// `parts`.
    async fn attempt(
        &self,
        running: &Running,
        reply_id: &str,
        request: Request,
        streaming: bool,
        guard: &mut Guard,
        parts: &mut Vec<Part>,
    ) -> Attempt {
        let mut sink = self.output.start(&request, streaming);
        let call = std::panic::catch_unwind(AssertUnwindSafe(|| self.agent.call(request)));
        let reply = match call {
            Ok(future) => AssertUnwindSafe(future).catch_unwind().await,
            Err(panic) => Err(panic),
        };
        let reply = match reply {
            Ok(Ok(reply)) => reply,
            Ok(Err(error)) => return Attempt::Done(Outcome::Failed(error.message().to_owned())),
            Err(panic) => return Attempt::Done(self.panicked(running, &*panic)),
        };
        let final_state = reply.final_state.unwrap_or(self.final_state);
        if !final_state.is_settled() {
            return Attempt::Done(Outcome::Invalid(format!(
                "the agent asked to end the task in state {final_state}"
            )));
        }
        let chunks = match reply.body {
            ReplyBody::Text(text) => {
                futures::stream::once(async { Ok(ReplyChunk::Text(text)) }).boxed()
            }
            ReplyBody::Stream(stream) => stream.map_ok(ReplyChunk::Text).boxed(),
            ReplyBody::Chunks(chunks) => chunks,
        };
        let mut chunks = AssertUnwindSafe(chunks).catch_unwind();
        // An item (or the end) read ahead while joining chunks that were already waiting.
        let mut ahead = None;
        loop {
            let item = match ahead.take() {
                Some(item) => item,
                None => chunks.next().await,
            };
            let Some(item) = item else { break };
            let mut chunk = match item {
                Ok(Ok(ReplyChunk::Text(chunk))) => chunk,
                Ok(Ok(ReplyChunk::Part(part))) => {
                    self.progress(running, reply_id, vec![part], parts).await;
                    continue;
                }
                Ok(Ok(ReplyChunk::Status(text))) => {
                    self.status(running, reply_id, text).await;
                    continue;
                }
                Ok(Err(error)) => {
                    return Attempt::Done(Outcome::Failed(error.message().to_owned()));
                }
                Err(panic) => return Attempt::Done(self.panicked(running, &*panic)),
            };
            // Chunks that are already there join this one: one feed, one update and one SSE
            // frame for all they complete, instead of one per chunk. Nothing waits for a chunk
            // still to come, so no part is sent later than it would be alone.
            while chunk.len() < JOIN_READY_BYTES {
                match chunks.next().now_or_never() {
                    Some(Some(Ok(Ok(ReplyChunk::Text(more))))) => chunk.push_str(&more),
                    Some(other) => {
                        ahead = Some(other);
                        break;
                    }
                    None => break,
                }
            }
            guard.record(&chunk);
            match sink.push_checked(&chunk) {
                Ok((new, checked)) => {
                    let (new, invalid) = guard.screen(new, checked);
                    self.progress(running, reply_id, new, parts).await;
                    if let Some(errors) = invalid {
                        // Dropping the rest of the reply stops the agent (and its model).
                        return Attempt::Invalid(errors);
                    }
                }
                Err(error) => {
                    return self
                        .fail_after(running, reply_id, guard, error, parts)
                        .await;
                }
            }
        }
        match sink.finish() {
            Ok(new) => {
                let (new, invalid) = guard.screen(new, 0);
                self.progress(running, reply_id, new, parts).await;
                if let Some(errors) = invalid.or_else(|| guard.finish()) {
                    return Attempt::Invalid(errors);
                }
            }
            Err(error) => {
                return self
                    .fail_after(running, reply_id, guard, error, parts)
                    .await;
            }
        }
        Attempt::Done(Outcome::Finished {
            state: final_state,
            parts: std::mem::take(parts),
        })
    }

    fn panicked(&self, running: &Running, panic: &(dyn Any + Send)) -> Outcome {
        let detail = panic
            .downcast_ref::<&str>()
            .map(|text| (*text).to_owned())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_default();
        tracing::error!(task_id = %running.snapshot().id, panic = %detail, "agent panicked");
        Outcome::Failed("The agent failed unexpectedly.".to_owned())
    }

    /// Sends what the read completed before `error` (text before a broken block, say), then
    /// fails the attempt with the error's reason.
    async fn fail_after(
        &self,
        running: &Running,
        reply_id: &str,
        guard: &mut Guard,
        error: OutputError,
        parts: &mut Vec<Part>,
    ) -> Attempt {
        let (before, _) = guard.screen(error.before, 0);
        self.progress(running, reply_id, before, parts).await;
        Attempt::Done(Outcome::Failed(error.reason))
    }

    /// Sends a `working` update holding `new` parts (none: nothing to send).
    async fn progress(
        &self,
        running: &Running,
        reply_id: &str,
        new: Vec<Part>,
        all: &mut Vec<Part>,
    ) {
        if new.is_empty() {
            return;
        }
        all.extend(new.iter().cloned());
        let timestamp = self.now();
        let delivery = running.update(|task, lifecycle| {
            lifecycle.transition(TaskState::Working).ok()?;
            let message = Self::agent_message(task, reply_id, new);
            task.status = TaskStatus {
                state: TaskState::Working,
                message: Some(message),
                timestamp: Some(timestamp),
            };
            Some(|task: &Task| status_event(task, false))
        });
        self.send(running, delivery).await;
    }

    /// Sends a `working` update whose message is `text` alone, not kept in the reply.
    async fn status(&self, running: &Running, reply_id: &str, text: String) {
        let timestamp = self.now();
        let delivery = running.update(|task, lifecycle| {
            lifecycle.transition(TaskState::Working).ok()?;
            let status_id = format!("{reply_id}-status");
            let message = Self::agent_message(task, &status_id, vec![status_part(text)]);
            task.status = TaskStatus {
                state: TaskState::Working,
                message: Some(message),
                timestamp: Some(timestamp),
            };
            Some(|task: &Task| status_event(task, false))
        });
        self.send(running, delivery).await;
    }

    /// Moves the task to its final state, stores it and sends the final update.
    async fn settle(&self, running: &Arc<Running>, reply_id: &str, outcome: Outcome) {
        // The stored task's status message holds the whole reply (what message/send and
        // tasks/get return). Stream subscribers already received every part in `working`
        // updates, so their final update repeats none of them: a client that appends each
        // update's parts, or a renderer that applies each A2UI message, sees each once.
        let already_streamed = matches!(outcome, Outcome::Finished { .. });
        let (state, parts, invalid) = match outcome {
            Outcome::Finished { state, parts } => (state, Some(coalesce_text(parts)), None),
            Outcome::Failed(reason) => {
                tracing::warn!(%reason, "the agent failed");
                (TaskState::Failed, Some(vec![Part::text(reason)]), None)
            }
            Outcome::Invalid(reason) => {
                tracing::error!(%reason, "invalid agent response");
                (
                    TaskState::Failed,
                    Some(vec![Part::text(format!(
                        "Invalid agent response: {reason}"
                    ))]),
                    Some(reason),
                )
            }
            Outcome::Canceled => (TaskState::Canceled, None, None),
        };
        let timestamp = self.now();
        let mut final_task = None;
        let delivery = running.update(|task, lifecycle| {
            let state = match lifecycle.transition(state) {
                Ok(()) => state,
                Err(error) => {
                    tracing::error!(task_id = %task.id, %error, "forcing the task to failed");
                    TaskState::Failed
                }
            };
            let message = parts.map(|parts| Self::agent_message(task, reply_id, parts));
            task.status = TaskStatus {
                state,
                message,
                timestamp: Some(timestamp),
            };
            final_task = Some(task.clone());
            Some(move |task: &Task| {
                let mut event = status_event(task, true);
                if already_streamed {
                    if let StreamEvent::StatusUpdate(update) = &mut event {
                        update.status.message = None;
                    }
                }
                event
            })
        });
        let task = final_task.unwrap_or_else(|| running.snapshot());
        if let Err(error) = self.store.put(task.clone()).await {
            tracing::error!(task_id = %task.id, %error, "could not store the finished task");
        }
        let mut running_map = self.running.lock().await;
        if running_map
            .get(&task.id)
            .is_some_and(|entry| Arc::ptr_eq(entry, running))
        {
            running_map.remove(&task.id);
        }
        drop(running_map);
        tracing::debug!(task_id = %task.id, state = %task.status.state, "task settled");
        // The final event goes out after the task is stored and the run is over: a client
        // that reacts to it (continues the task, asks for it) finds it settled. Other
        // instances hear of it before the run is marked done, which a shutting-down server
        // waits for before it exits.
        self.publish(delivery.as_ref().map(Delivery::event)).await;
        running.finish(Done { task, invalid });
        running.deliver(delivery).await;
    }

    /// Stops every running task: each ends `failed` with `reason` as its final update. Used
    /// when the server shuts down after its drain deadline.
    pub(crate) async fn stop_all(&self, reason: &str) {
        let running: Vec<Arc<Running>> = self.running.lock().await.values().cloned().collect();
        for entry in &running {
            entry.request_stop(Stop::Fail(reason.to_owned()));
        }
        for entry in running {
            entry.wait_done().await;
        }
    }

    /// How many tasks run now.
    pub(crate) async fn running_count(&self) -> usize {
        self.running.lock().await.len()
    }

    /// The task with `id`: live if it runs, else from the store.
    pub(crate) async fn get(&self, id: &str) -> Result<Task, TaskError> {
        if let Some(running) = self.running.lock().await.get(id) {
            return Ok(running.snapshot());
        }
        self.store
            .get(id)
            .await?
            .ok_or_else(|| TaskError::NotFound { id: id.to_owned() })
    }

    /// One page of the tasks matching `query` (running ones as they are now), each with at
    /// most `query.history_length` history messages.
    pub(crate) async fn list(&self, query: &TaskListQuery) -> Result<TaskPage, TaskError> {
        let mut page = self
            .store
            .list(query)
            .await?
            .ok_or(TaskError::BadPageToken)?;
        let running_map = self.running.lock().await;
        for task in &mut page.tasks {
            if let Some(running) = running_map.get(&task.id) {
                *task = running.snapshot();
            }
        }
        drop(running_map);
        if let Some(keep) = query.history_length {
            for task in &mut page.tasks {
                let skip = task.history.len().saturating_sub(keep);
                task.history.drain(..skip);
            }
        }
        Ok(page)
    }

    /// The current task and, if it runs (here, or on another instance sharing the store),
    /// the events that follow.
    pub(crate) async fn subscribe(&self, id: &str) -> Result<Subscription, TaskError> {
        if let Some(running) = self.running.lock().await.get(id) {
            let (snapshot, events) = running.subscribe();
            return Ok(Subscription {
                snapshot,
                events: Some(events),
            });
        }
        // Watch before reading, so no event falls between the snapshot and the stream.
        let watching = match &self.cluster {
            Some(cluster) => Some(cluster.watch(id).await?),
            None => None,
        };
        let task = self
            .store
            .get(id)
            .await?
            .ok_or_else(|| TaskError::NotFound { id: id.to_owned() })?;
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

    /// Cancels task `id`: stops its agent if it runs (here, or through the cluster on the
    /// instance that runs it), and settles it as `canceled`.
    pub(crate) async fn cancel(&self, id: &str) -> Result<Task, TaskError> {
        // A run may end on its own while the cancel is on its way; then cancel the settled
        // task. A few rounds cover that race: a new run cannot start in between because
        // starting needs an interrupted task, which this loop cancels under a claim with a
        // compare-and-set.
        for _ in 0..4 {
            let running = self.running.lock().await.get(id).cloned();
            if let Some(running) = running {
                running.request_cancel();
                let done = running.wait_done().await;
                if done.task.status.state == TaskState::Canceled {
                    return Ok(done.task);
                }
                continue;
            }
            // Waits for a continuation here to register its run.
            let claim = self.claim(id).await;
            if self.running.lock().await.contains_key(id) {
                continue;
            }
            let mut task = self
                .store
                .get(id)
                .await?
                .ok_or_else(|| TaskError::NotFound { id: id.to_owned() })?;
            let state = task.status.state;
            if let (Some(cluster), TaskState::Submitted | TaskState::Working) =
                (&self.cluster, state)
            {
                // It runs on another instance.
                drop(claim);
                match self.cancel_elsewhere(cluster.as_ref(), id).await? {
                    Some(canceled) => return Ok(canceled),
                    None => continue,
                }
            }
            let mut lifecycle = Lifecycle::resume(state);
            if lifecycle.transition(TaskState::Canceled).is_err() {
                return Err(TaskError::NotCancelable {
                    id: id.to_owned(),
                    state,
                });
            }
            let read = task.status.clone();
            if let Some(reply) = task.status.message.take() {
                task.history.push(reply);
            }
            task.status = TaskStatus {
                state: TaskState::Canceled,
                message: None,
                timestamp: Some(self.now()),
            };
            if self.store.replace(&read, task.clone()).await? {
                return Ok(task);
            }
        }
        let task = self.get(id).await?;
        Err(TaskError::NotCancelable {
            id: id.to_owned(),
            state: task.status.state,
        })
    }

    /// Asks the instance that runs task `id` to cancel it and waits until the task settles:
    /// the canceled task, or `None` when it settled some other way (the caller looks again).
    async fn cancel_elsewhere(
        &self,
        cluster: &dyn Cluster,
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
            let task = self
                .store
                .get(id)
                .await?
                .ok_or_else(|| TaskError::NotFound { id: id.to_owned() })?;
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
}

/// The error for continuing a task in `state` that is not waiting for input.
fn busy_or_terminal(id: &str, state: TaskState) -> TaskError {
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

fn status_event(task: &Task, is_final: bool) -> StreamEvent {
    StreamEvent::StatusUpdate(TaskStatusUpdateEvent::of(task, is_final))
}
