//! The task runner: starts or continues a task, drives the agent, fans events out.
//!
//! One [`TaskManager`] per server. While an agent works on a task, the task lives in a
//! [`Running`] entry (see [`super::running`]). The runner is the only writer of a
//! running task; continuing, finishing and canceling an idle task are serialized by one lock
//! over the running map, held across their [`TaskStore`] call, so a client that continues a
//! task right after its final event always finds it settled in the store. (With a slow store,
//! that lock is the throughput limit of those operations; new tasks take it only to register.)
//!
//! Cancel drops the agent's future or stream (the runner `select!`s on the cancel signal), so
//! the agent stops at its next `.await`.

use std::any::Any;
use std::collections::HashMap;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::task::Poll;

use futures::{FutureExt, StreamExt};
use tokio::sync::{mpsc, oneshot};
use tracing::Instrument;

use super::output::{OutputPipeline, coalesce_text};
use super::repair::{Guard, RepairPolicy};
pub(crate) use super::running::{Done, Running, SharedEvent, Stop};
use super::{Clock, IdGenerator, Lifecycle, TaskError, TaskStore, timestamp};
use crate::a2a::{
    Message, Part, StreamEvent, Task, TaskListQuery, TaskPage, TaskState, TaskStatus,
    TaskStatusUpdateEvent,
};
use crate::agent::{Agent, ReplyBody};
use crate::request::Request;
use crate::request::prepared::Prepared;

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
        let Prepared {
            mut message,
            decided,
        } = prepared;
        // A continuation holds the lock from its checks until it is registered as running;
        // a new task has a fresh id nobody else knows, so it takes the lock only to register.
        let mut held = None;
        let (mut task, lifecycle, prior) = match message.task_id.clone() {
            Some(id) => {
                let running_map = held.insert(self.running.lock().await);
                self.continuation(running_map, &id, &mut message).await?
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
        self.store.put(task.clone()).await?;
        let (running, cancel_rx) = Running::start(task.clone(), lifecycle);
        let events = stream.then(|| running.subscribe().1);
        let mut running_map = match held {
            Some(running_map) => running_map,
            None => self.running.lock().await,
        };
        running_map.insert(task.id.clone(), running.clone());
        drop(running_map);
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
    async fn continuation(
        &self,
        running_map: &HashMap<String, Arc<Running>>,
        id: &str,
        message: &mut Message,
    ) -> Result<(Task, Lifecycle, Vec<Message>), TaskError> {
        if let Some(running) = running_map.get(id) {
            return Err(TaskError::Busy {
                id: id.to_owned(),
                state: running.snapshot().status.state,
            });
        }
        let mut task = self
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
        if !state.is_interrupted() {
            return Err(TaskError::Busy {
                id: id.to_owned(),
                state,
            });
        }
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
        Ok((task, lifecycle, prior))
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
        let work = async {
            // The `working` state is stored so a listing filtered by state finds the task. A
            // run that ends without the agent ever waiting needs no such write (its final
            // state is stored right after): it is stored before a subscriber sees `working`,
            // else only once the agent first waits.
            let watched = started.is_some();
            if watched {
                self.store_working(&running).await;
            }
            running.deliver(started).await;
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
                    self.store_working(&running).await;
                    job.await
                }
            }
        };
        let outcome = tokio::select! {
            biased;
            outcome = stopped => outcome,
            outcome = work => outcome,
        };
        self.settle(&running, &reply_id, outcome).await;
    }

    /// Stores the running task as it is now (`working`).
    async fn store_working(&self, running: &Running) {
        if let Err(error) = self.store.put(running.snapshot()).await {
            tracing::warn!(%error, "could not store the working task");
        }
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
        if !(final_state.is_terminal() || final_state.is_interrupted()) {
            return Attempt::Done(Outcome::Invalid(format!(
                "the agent asked to end the task in state {final_state}"
            )));
        }
        let chunks = match reply.body {
            ReplyBody::Text(text) => futures::stream::once(async { Ok(text) }).boxed(),
            ReplyBody::Stream(stream) => stream,
        };
        let mut chunks = AssertUnwindSafe(chunks).catch_unwind();
        while let Some(item) = chunks.next().await {
            let new = match item {
                Ok(Ok(chunk)) => {
                    guard.record(&chunk);
                    sink.push(&chunk)
                }
                Ok(Err(error)) => {
                    return Attempt::Done(Outcome::Failed(error.message().to_owned()));
                }
                Err(panic) => return Attempt::Done(self.panicked(running, &*panic)),
            };
            match new {
                Ok(new) => {
                    let (new, invalid) = guard.screen(new);
                    self.progress(running, reply_id, new, parts).await;
                    if let Some(errors) = invalid {
                        // Dropping the rest of the reply stops the agent (and its model).
                        return Attempt::Invalid(errors);
                    }
                }
                Err(error) => return Attempt::Done(Outcome::Failed(error.0)),
            }
        }
        match sink.finish() {
            Ok(new) => {
                let (new, invalid) = guard.screen(new);
                self.progress(running, reply_id, new, parts).await;
                if let Some(errors) = invalid.or_else(|| guard.finish()) {
                    return Attempt::Invalid(errors);
                }
            }
            Err(error) => return Attempt::Done(Outcome::Failed(error.0)),
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
        running.deliver(delivery).await;
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
        let mut running_map = self.running.lock().await;
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
        if running_map
            .get(&task.id)
            .is_some_and(|entry| Arc::ptr_eq(entry, running))
        {
            running_map.remove(&task.id);
        }
        drop(running_map);
        tracing::debug!(task_id = %task.id, state = %task.status.state, "task settled");
        running.finish(Done { task, invalid });
        // The final event goes out after the task is stored and the run is over: a client
        // that reacts to it (continues the task, asks for it) finds it settled.
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

    /// The current task and, if it runs, the events that follow.
    pub(crate) async fn subscribe(&self, id: &str) -> Result<Subscription, TaskError> {
        if let Some(running) = self.running.lock().await.get(id) {
            let (snapshot, events) = running.subscribe();
            return Ok(Subscription {
                snapshot,
                events: Some(events),
            });
        }
        let task = self
            .store
            .get(id)
            .await?
            .ok_or_else(|| TaskError::NotFound { id: id.to_owned() })?;
        if task.status.state.is_terminal() {
            return Err(TaskError::Terminal {
                id: id.to_owned(),
                state: task.status.state,
            });
        }
        Ok(Subscription {
            snapshot: task,
            events: None,
        })
    }

    /// Cancels task `id`: stops its agent if it runs, and settles it as `canceled`.
    pub(crate) async fn cancel(&self, id: &str) -> Result<Task, TaskError> {
        // A run may end on its own while the cancel is on its way; then cancel the settled
        // task. Two rounds cover that race; a third run cannot start in between because
        // starting needs an interrupted task, which this loop cancels under the lock.
        for _ in 0..3 {
            let running_map = self.running.lock().await;
            if let Some(running) = running_map.get(id).cloned() {
                drop(running_map);
                running.request_cancel();
                let done = running.wait_done().await;
                if done.task.status.state == TaskState::Canceled {
                    return Ok(done.task);
                }
                continue;
            }
            let mut task = self
                .store
                .get(id)
                .await?
                .ok_or_else(|| TaskError::NotFound { id: id.to_owned() })?;
            let mut lifecycle = Lifecycle::resume(task.status.state);
            if lifecycle.transition(TaskState::Canceled).is_err() {
                return Err(TaskError::NotCancelable {
                    id: id.to_owned(),
                    state: task.status.state,
                });
            }
            if let Some(reply) = task.status.message.take() {
                task.history.push(reply);
            }
            task.status = TaskStatus {
                state: TaskState::Canceled,
                message: None,
                timestamp: Some(self.now()),
            };
            self.store.put(task.clone()).await?;
            drop(running_map);
            return Ok(task);
        }
        let task = self.get(id).await?;
        Err(TaskError::NotCancelable {
            id: id.to_owned(),
            state: task.status.state,
        })
    }
}

fn status_event(task: &Task, is_final: bool) -> StreamEvent {
    StreamEvent::StatusUpdate(TaskStatusUpdateEvent {
        task_id: task.id.clone(),
        context_id: task.context_id.clone(),
        status: task.status.clone(),
        is_final,
        metadata: None,
    })
}
