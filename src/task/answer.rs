//! The agent's answer during a run: calling it, turning its output into `working` updates
//! through the reply's [`Pipeline`], and asking it again when the pipeline refuses what it
//! wrote (a repair turn).

use std::any::Any;
use std::panic::AssertUnwindSafe;

use futures::future::FutureExt;
use futures::stream::StreamExt;

use super::feed::{Fed, Feed};
use super::handoff::{Called, Failure, Outcome};
use super::lifecycle::transition;
use super::manager::{Running, TaskManager, agent_message, status_event};
use super::reply_kinds::ArtifactLog;
use crate::a2a::{Part, Task, TaskState};
use crate::agent::{AgentError, Reply, ReplyEvent};
use crate::pipeline::{End, Pipeline, SentParts};
use crate::request::Request;

/// The reply being written in one run: what every attempt, update and failure of it shares.
pub(super) struct Answer<'r> {
    running: &'r Running,
    /// The id of the agent message every update of the reply carries a piece of.
    reply_id: &'r str,
    /// The parts sent so far, for the final status message (and a repair turn).
    parts: SentParts,
    /// The reply's artifacts so far.
    artifacts: ArtifactLog,
}

/// How one call of the agent ended: the run's outcome, or a problem the pipeline may answer
/// with a repair turn.
enum Attempt {
    Done(Outcome),
    Ended(End),
}

impl TaskManager {
    /// Calls the agent and turns its output into `working` updates; an attempt the
    /// pipeline refuses is followed by a repair turn while the policy allows.
    pub(super) async fn drive(
        &self,
        running: &Running,
        reply_id: &str,
        mut request: Box<Request>,
        streaming: bool,
        mut first: Option<Called>,
    ) -> Outcome {
        // The request stays boxed: a run's future is held for as long as the reply streams,
        // and every level of it would otherwise carry its own copy of the request's bytes.
        let mut pipeline = Pipeline::new(&self.repair, self.output.clone(), &request, streaming);
        let mut answer = Answer {
            running,
            reply_id,
            parts: SentParts::default(),
            artifacts: ArtifactLog::default(),
        };
        loop {
            let attempt = self
                .attempt(&mut answer, &mut pipeline, request, first.take())
                .await;
            let end = match attempt {
                Attempt::Done(outcome) => return outcome,
                Attempt::Ended(end) => end,
            };
            request = match pipeline.retry(end, &answer.parts) {
                Ok(next) => Box::new(next),
                Err(reason) => return Outcome::Failed(reason),
            };
        }
    }

    /// One call of the agent (or `first`, its answer given before the task existed), its
    /// output read through `pipeline`.
    async fn attempt(
        &self,
        answer: &mut Answer<'_>,
        pipeline: &mut Pipeline,
        request: Box<Request>,
        first: Option<Called>,
    ) -> Attempt {
        let called = match first {
            Some(called) => called,
            None => self.call(*request).await,
        };
        let reply = match called {
            Ok(reply) => reply,
            Err(failure) => return Attempt::Done(self.failed(answer.running, failure)),
        };
        let (events, final_state) = match reply {
            Reply::Text { text, state } => (
                futures::stream::once(async { Ok(ReplyEvent::Text(text)) }).boxed(),
                state,
            ),
            Reply::Stream { events, state } => (events, state),
            // Boxed: an explicit reply is rare, and its future would otherwise widen every
            // streaming run's future by its size.
            explicit => {
                let outcome = Box::pin(self.explicit(answer.running, explicit)).await;
                return Attempt::Done(outcome);
            }
        };
        let final_state = final_state.unwrap_or(self.final_state);
        if !final_state.is_settled() {
            return Attempt::Done(Outcome::Invalid(format!(
                "the agent asked to end the task in state {final_state}"
            )));
        }
        let mut feed = Feed::new(events, pipeline, self.coalesce_window);
        while let Some(fed) = feed.next().await {
            let step = match fed {
                Fed::Step(step) => step,
                // The feed reads the text itself: it never hands on a chunk.
                Fed::Event(ReplyEvent::Text(_)) => continue,
                Fed::Event(ReplyEvent::Status(text)) => {
                    self.status_text(answer.running, text).await;
                    continue;
                }
                Fed::Event(ReplyEvent::Artifact(chunk)) => {
                    self.add_artifact(answer.running, *chunk, &mut answer.artifacts)
                        .await;
                    continue;
                }
                Fed::Event(ReplyEvent::Part(part)) => {
                    self.progress(answer, vec![*part]).await;
                    continue;
                }
                Fed::Failed(failure) => {
                    return Attempt::Done(self.failed(answer.running, failure));
                }
            };
            self.progress(answer, step.send).await;
            if let Some(end) = step.end {
                // Dropping the rest of the reply stops the agent (and its model).
                return Attempt::Ended(end);
            }
        }
        drop(feed);
        let last = pipeline.finish();
        self.progress(answer, last.send).await;
        if let Some(end) = last.end {
            return Attempt::Ended(end);
        }
        Attempt::Done(Outcome::Finished {
            state: final_state,
            parts: std::mem::take(&mut answer.parts).into_parts(),
        })
    }

    /// Calls the agent, catching a panic in the call or in its future.
    pub(super) async fn call(&self, request: Request) -> Result<Reply, Failure> {
        let call = std::panic::catch_unwind(AssertUnwindSafe(|| self.agent.call(request)));
        let reply = match call {
            Ok(future) => AssertUnwindSafe(future).catch_unwind().await,
            Err(panic) => Err(panic),
        };
        match reply {
            Ok(Ok(reply)) => Ok(reply),
            Ok(Err(error)) => Err(Failure::Agent(error)),
            Err(panic) => Err(Failure::Panic(panic)),
        }
    }

    /// The outcome of a run whose agent failed.
    fn failed(&self, running: &Running, failure: Failure) -> Outcome {
        match failure {
            Failure::Agent(error) => Outcome::Failed(self.shown(&error)),
            Failure::Panic(panic) => panicked(running, &*panic),
        }
    }

    /// What the client is told of the agent's `error`: its message, and when it has a
    /// detail (logged here, never sent) the id the log names it by.
    fn shown(&self, error: &AgentError) -> String {
        let Some(detail) = error.detail() else {
            return error.message().to_owned();
        };
        let error_id = self.ids.new_id();
        tracing::error!(%error_id, %detail, "the agent failed");
        let message = error.message().trim_end_matches('.');
        format!("{message} (error id {error_id}).")
    }

    /// Sends a `working` update holding `new` parts (none: nothing to send).
    async fn progress(&self, answer: &mut Answer<'_>, new: Vec<Part>) {
        if new.is_empty() {
            return;
        }
        answer.parts.extend(&new);
        let kept = answer.parts.last(new.len());
        let timestamp = self.now();
        let delivery = answer.running.progress(kept, |task| {
            let message = agent_message(task, answer.reply_id, new);
            transition(task, TaskState::Working, Some(message), timestamp).ok()?;
            Some(|task: &Task| status_event(task, false))
        });
        self.send(answer.running, delivery).await;
    }
}

/// Logs an agent's panic; the client sees only that the agent failed.
pub(super) fn panicked(running: &Running, panic: &(dyn Any + Send)) -> Outcome {
    let detail = panic
        .downcast_ref::<&str>()
        .map(|text| (*text).to_owned())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_default();
    tracing::error!(task_id = %running.snapshot().id, panic = %detail, "agent panicked");
    Outcome::Failed("The agent failed unexpectedly.".to_owned())
}
