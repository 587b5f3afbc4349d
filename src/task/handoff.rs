//! What the steps of a run hand each other, in the order they run: a send [`Begun`] as a
//! task ([`Started`]) or a bare message, the agent's [`First`] answer when it was called
//! before the task existed, the [`Job`] a run does, what a call of the agent gave
//! ([`Called`], [`Failure`]), and the [`Outcome`] the run settles the task with.
//!
//! They live here, above the steps, so that each step imports the types it shares with the
//! others and no step imports another for them: `start → run → answer → feed` stays a line.

use std::any::Any;
use std::fmt::Display;
use std::sync::Arc;

use tokio::sync::mpsc;

use super::fanout::SharedEvent;
use super::running::Running;
use crate::a2a::{Message, Part, Task, TaskState};
use crate::agent::{AgentError, Reply};
use crate::request::Request;
use crate::request::adapter::Refusal;

/// A freshly started (or continued) task.
pub(crate) struct Started {
    pub(crate) running: Arc<Running>,
    pub(crate) snapshot: Task,
    /// The events that follow `snapshot`, when the caller asked to stream them.
    pub(crate) events: Option<mpsc::Receiver<SharedEvent>>,
    /// The extension URIs activated for the request, to echo in the response header.
    pub(crate) activated: Vec<String>,
}

/// How a send began: a task, or a bare message that answered it without one.
pub(crate) enum Begun {
    /// A task was created (or continued) and runs.
    Task(Started),
    /// The agent answered with a bare message: no task exists.
    Message {
        /// The agent's message, in the request's context.
        message: Message,
        /// The extension URIs activated for the request.
        activated: Vec<String>,
    },
}

/// A new task's request and its agent's first answer, decided before the task exists.
pub(super) struct First {
    pub(super) task_id: String,
    pub(super) context_id: String,
    pub(super) request: Result<Request, Refusal>,
    pub(super) activated: Vec<String>,
    /// `None` when the request was refused: the agent is never called.
    pub(super) called: Option<Called>,
}

/// What a run does: call the agent, or fail the task without calling it.
pub(super) enum Job {
    Answer {
        request: Box<Request>,
        streaming: bool,
        /// The agent's answer, when it was called before the task existed.
        first: Option<Called>,
    },
    Refuse(String),
}

impl Job {
    /// Answers `request` (`first`: with the answer the agent already gave to it), or fails
    /// task `task_id` for the request step's refusal.
    pub(super) fn new(
        task_id: &str,
        request: Result<Request, impl Display>,
        streaming: bool,
        first: Option<Called>,
    ) -> Self {
        match request {
            Ok(request) => Job::Answer {
                request: Box::new(request),
                streaming,
                first,
            },
            Err(refusal) => {
                tracing::debug!(%task_id, reason = %refusal, "A2UI negotiation failed");
                Job::Refuse(refusal.to_string())
            }
        }
    }
}

/// How a run ended.
pub(super) enum Outcome {
    /// The agent answered: the task ends in `state`, its status message holding `parts`.
    Finished { state: TaskState, parts: Vec<Part> },
    /// An explicit reply (see [`super::reply_kinds`]): the task ends in `state`, its final update
    /// holding `parts` (none when empty).
    Settled { state: TaskState, parts: Vec<Part> },
    /// The task fails with this reason, shown to the client.
    Failed(String),
    /// The agent answered something the protocol cannot carry (logged, and shown).
    Invalid(String),
    /// The client canceled the task.
    Canceled,
}

/// What one call of the agent gave: its reply, or why there is none.
pub(super) type Called = Result<Reply, Failure>;

/// Why the agent gave no (more) output.
pub(super) enum Failure {
    /// It answered an error.
    Agent(AgentError),
    /// It panicked (the payload).
    Panic(Box<dyn Any + Send>),
}
