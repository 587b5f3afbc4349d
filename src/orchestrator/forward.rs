//! A sub-agent's streamed answer as the orchestrator's own reply: its text and A2UI parts
//! as they arrive (surface ids namespaced), its artifacts as the orchestrator's artifacts,
//! its status lines as status lines, its failure as the orchestrator task's failure naming
//! it; and its context and waiting task recorded for the conversation's next turn.
//!
//! The orchestrator's task ends in the state the sub-agent's task ended in: completed (or a
//! bare message), waiting for input or authentication, or failed with a message naming the
//! sub-agent (a rejected or canceled sub-agent task fails the turn too).
//!
//! When the orchestrator's task is canceled its reply stream is dropped, and the sub-agent's
//! task, if still running, is canceled in turn.
//!
//! An A2A agent's working updates each carry a piece of its reply message, and its last
//! update may repeat the whole message (ours does: the final status message is the whole
//! reply). Parts are counted per message id, so a message seen before sends only what it
//! adds, and nothing reaches the user twice.

use std::collections::HashMap;
use std::sync::Arc;

use futures::{Stream, StreamExt};

use super::conversations::{Conversations, Key, Thread};
use super::screening::Screening;
use super::sub_agent::SubAgent;
use super::surfaces::{namespaced, outgoing};
use crate::a2a::{Artifact, Part, StreamEvent, TaskState, TaskStatus};
use crate::agent::{AgentError, ArtifactChunk, ReplyEvent, STATUS_METADATA};
use crate::client::ClientError;

/// The most message ids of one answer whose parts are counted (an agent that gives every
/// update a fresh id gets its updates forwarded whole once this is reached).
const MAX_MESSAGES: usize = 4096;

/// A sub-agent's answer: its events, in order.
pub(super) type Events = futures::stream::BoxStream<'static, Result<StreamEvent, ClientError>>;

/// The most characters of a sub-agent's own failure message passed on to the user.
const MAX_SAID: usize = 500;

/// Where the conversation's record of one sub-agent goes.
pub(super) struct Record {
    pub(super) conversations: Arc<Conversations>,
    pub(super) key: Key,
    pub(super) index: usize,
}

impl Record {
    fn save(&self, thread: &Thread) {
        self.conversations
            .record(&self.key, self.index, thread.clone());
    }
}

/// The reply events of sub-agent `agent`'s answer `events`, its thread starting at
/// `thread` and saved through `record` as the answer goes, its A2UI judged by `screening`.
pub(super) fn forward(
    mut events: Events,
    agent: SubAgent,
    mut thread: Thread,
    record: Record,
    mut screening: Screening,
) -> impl Stream<Item = Result<ReplyEvent, AgentError>> + Send + 'static {
    async_stream::stream! {
        // Dropped before the answer ends (the orchestrator's task was canceled), it cancels
        // the sub-agent's task too.
        let mut running = Running { agent: agent.clone(), task_id: None };
        let mut reading = Reading { agent, seen: HashMap::new() };
        while let Some(event) = events.next().await {
            let event = match event {
                Ok(event) => event,
                Err(error) => {
                    running.task_id = None;
                    record.save(&thread);
                    yield Err(unavailable(&reading.agent, &error));
                    return;
                }
            };
            let (out, ended) = reading.read(event, &mut thread);
            running.task_id = if ended { None } else { thread.task_id.clone() };
            if thread.context_id.is_some() {
                record.save(&thread);
            }
            for item in out {
                for item in screening.event(item).await {
                    yield item;
                }
            }
            if ended {
                return;
            }
        }
        running.task_id = None;
        record.save(&thread);
    }
}

/// The sub-agent's task while it runs: canceled when dropped with a task id (the answer was
/// given up before it ended).
struct Running {
    agent: SubAgent,
    task_id: Option<String>,
}

impl Drop for Running {
    fn drop(&mut self) {
        let Some(id) = self.task_id.take() else {
            return;
        };
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let client = self.agent.client().clone();
        runtime.spawn(async move {
            if let Err(error) = client.cancel_task(&id).await {
                tracing::debug!(%error, "the sub-agent's task was not canceled");
            }
        });
    }
}

/// What is known of the answer so far.
struct Reading {
    agent: SubAgent,
    /// How many parts of each message were forwarded.
    seen: HashMap<String, usize>,
}

impl Reading {
    /// The events to send for `event`, and whether it ended the answer; `thread` follows
    /// the sub-agent's context and task.
    fn read(
        &mut self,
        event: StreamEvent,
        thread: &mut Thread,
    ) -> (Vec<Result<ReplyEvent, AgentError>>, bool) {
        let mut out = Vec::new();
        match event {
            StreamEvent::Task(task) => {
                thread.context_id = Some(task.context_id);
                thread.task_id = Some(task.id);
                for artifact in task.artifacts {
                    out.push(Ok(self.artifact(artifact, false, true)));
                }
                let ended = task.status.state.is_settled();
                self.status(task.status, thread, &mut out);
                (out, ended)
            }
            StreamEvent::StatusUpdate(update) => {
                thread.context_id = Some(update.context_id);
                thread.task_id = Some(update.task_id);
                let ended = update.is_final || update.status.state.is_settled();
                self.status(update.status, thread, &mut out);
                (out, ended)
            }
            StreamEvent::ArtifactUpdate(update) => {
                let append = update.append.unwrap_or(false);
                let last = update.last_chunk.unwrap_or(true);
                out.push(Ok(self.artifact(update.artifact, append, last)));
                (out, false)
            }
            StreamEvent::Message(message) => {
                if message.context_id.is_some() {
                    thread.context_id = message.context_id;
                }
                thread.task_id = None;
                out.extend(message.parts.into_iter().map(|part| Ok(self.part(part))));
                // A bare message answers without a task: the turn is done.
                out.push(Ok(ReplyEvent::FinalState(TaskState::Completed)));
                (out, true)
            }
        }
    }

    /// The events of a status: its message's new parts; for a failed, rejected or canceled
    /// task, the orchestrator task's failure naming the sub-agent.
    fn status(
        &mut self,
        status: TaskStatus,
        thread: &mut Thread,
        out: &mut Vec<Result<ReplyEvent, AgentError>>,
    ) {
        let state = status.state;
        if state.is_terminal() {
            // A task that ended is not continued; one waiting for the user is.
            thread.task_id = None;
        }
        let parts = match status.message {
            Some(message) => self.new_parts(message.message_id, message.parts, state.is_settled()),
            None => Vec::new(),
        };
        let verb = match state {
            TaskState::Failed => Some("failed"),
            TaskState::Rejected => Some("declined the request"),
            TaskState::Canceled => Some("canceled the request"),
            _ => None,
        };
        match verb {
            Some(verb) => {
                let said: String = parts.iter().filter_map(Part::as_text).collect();
                let said: String = said.trim().chars().take(MAX_SAID).collect();
                let name = self.agent.name();
                out.push(Err(if said.is_empty() {
                    AgentError::new(format!("The agent \"{name}\" {verb}."))
                } else {
                    AgentError::new(format!("The agent \"{name}\" {verb}: {said}"))
                }));
            }
            None => {
                out.extend(parts.into_iter().map(|part| Ok(self.part(part))));
                if state.is_settled() {
                    // The turn ends as the sub-agent's task did: done, or waiting for the
                    // user. The conversation goes on either way (a later turn in the same
                    // context starts a new task where this one ended).
                    out.push(Ok(ReplyEvent::FinalState(state)));
                }
            }
        }
    }

    /// The parts of message `id` not forwarded yet. A working update carries a new piece
    /// of its message; a last one (`settled`) may repeat the whole message, so when the
    /// message was seen before, the parts already sent are skipped.
    fn new_parts(&mut self, id: String, parts: Vec<Part>, settled: bool) -> Vec<Part> {
        let sent = self.seen.get(&id).copied().unwrap_or(0);
        let (fresh, count): (Vec<Part>, usize) = if settled && sent > 0 {
            let count = sent.max(parts.len());
            (parts.into_iter().skip(sent).collect(), count)
        } else {
            let count = sent + parts.len();
            (parts, count)
        };
        if self.seen.len() < MAX_MESSAGES || self.seen.contains_key(&id) {
            self.seen.insert(id, count);
        }
        fresh
    }

    /// `part` as the user gets it: a status line stays one, anything else goes into the
    /// orchestrator's reply with its surface ids namespaced.
    fn part(&self, part: Part) -> ReplyEvent {
        if let Part::Text {
            text,
            metadata: Some(metadata),
        } = &part
            && metadata.get(STATUS_METADATA) == Some(&serde_json::Value::Bool(true))
        {
            return ReplyEvent::Status(text.clone());
        }
        ReplyEvent::Part(Box::new(outgoing(part, self.agent.namespace())))
    }

    /// A sub-agent's artifact as the orchestrator's: its id and surface ids namespaced.
    fn artifact(&self, mut artifact: Artifact, append: bool, last_chunk: bool) -> ReplyEvent {
        let namespace = self.agent.namespace();
        artifact.artifact_id = namespaced(namespace, &artifact.artifact_id);
        artifact.parts = artifact
            .parts
            .into_iter()
            .map(|part| outgoing(part, namespace))
            .collect();
        ReplyEvent::Artifact(Box::new(ArtifactChunk {
            artifact,
            append,
            last_chunk,
        }))
    }
}

/// The failure to give the user when sub-agent `agent` could not be called: it names the
/// agent and what went wrong, while the error (with the agent's address) goes to the log.
pub(super) fn unavailable(agent: &SubAgent, error: &ClientError) -> AgentError {
    let what = match error {
        ClientError::Transport(_) => "could not be reached",
        ClientError::Timeout { .. } => "did not answer in time",
        ClientError::Agent { .. } | ClientError::Http { .. } => "refused the request",
        _ => "did not answer as A2A agents do",
    };
    AgentError::with_detail(format!("The agent \"{}\" {what}.", agent.name()), error)
}
