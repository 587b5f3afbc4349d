//! The agent's answer during a run: calling it, turning its output into `working` updates,
//! and asking it again when its A2UI does not validate (the repair loop of
//! [`crate::reply`]).

use std::any::Any;
use std::panic::AssertUnwindSafe;

use futures::future::FutureExt;
use futures::stream::StreamExt;

use super::feed::{Feed, Step};
use super::handoff::{Called, Failure, Outcome};
use super::kinds::ArtifactLog;
use super::lifecycle::transition;
use super::manager::{Running, TaskManager, agent_message, status_event};
use crate::a2a::{Part, Task, TaskState};
use crate::a2ui::ValidationError;
use crate::agent::{AgentError, Reply, ReplyEvent};
use crate::parser::ParseErrorKind;
use crate::reply::output::{Batch, OutputError};
use crate::reply::{Guard, SentParts};
use crate::request::Request;

/// The reply being written in one run: what every attempt, update and failure of it shares.
pub(super) struct Answer<'r> {
    running: &'r Running,
    /// The id of the agent message every update of the reply carries a piece of.
    reply_id: &'r str,
    /// Whether the client reads the reply as it comes.
    streaming: bool,
    /// Checks the reply's A2UI, attempt after attempt.
    guard: Guard,
    /// The parts sent so far, for the final status message (and a repair turn).
    parts: SentParts,
    /// The reply's artifacts so far.
    artifacts: ArtifactLog,
    /// The text the last attempt wrote, when it may go to a repair turn (which shows the
    /// agent what it wrote).
    said: String,
}

/// How one call of the agent ended: the run's outcome, A2UI that did not validate, or A2UI
/// that could not be read (why the task fails if it is not repaired; whether the answer was
/// cut off inside a message).
enum Attempt {
    Done(Outcome),
    Invalid(Vec<ValidationError>),
    Unreadable(String, bool),
}

impl TaskManager {
    /// Calls the agent and turns its output into `working` updates; an attempt whose A2UI
    /// does not validate goes to the repair loop.
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
        let mut answer = Answer {
            running,
            reply_id,
            streaming,
            guard: self.repair.guard(&request),
            parts: SentParts::default(),
            artifacts: ArtifactLog::default(),
            said: String::new(),
        };
        loop {
            let attempt = self.attempt(&mut answer, request, first.take()).await;
            let said = std::mem::take(&mut answer.said);
            let next = match attempt {
                Attempt::Done(outcome) => return outcome,
                Attempt::Invalid(errors) => answer.guard.next(errors, said, &answer.parts),
                Attempt::Unreadable(reason, cut) => {
                    answer.guard.unreadable(&reason, cut, said, &answer.parts)
                }
            };
            request = match next {
                Ok(next) => Box::new(next),
                Err(reason) => return Outcome::Failed(reason),
            };
        }
    }

    /// One call of the agent (or `first`, its answer given before the task existed), its
    /// output screened by the answer's guard.
    async fn attempt(
        &self,
        answer: &mut Answer<'_>,
        request: Box<Request>,
        first: Option<Called>,
    ) -> Attempt {
        let sink = self.output.start(&request, answer.streaming);
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
        let keep = answer.guard.keeps_answer();
        let mut feed = Feed::new(events, sink, keep, self.coalesce_window);
        while let Some(step) = feed.next().await {
            let fed = match step {
                Step::Fed(fed) => fed,
                // The feed reads the text itself: it never hands on a chunk.
                Step::Event(ReplyEvent::Text(_)) => continue,
                Step::Event(ReplyEvent::Status(text)) => {
                    self.status_text(answer.running, text).await;
                    continue;
                }
                Step::Event(ReplyEvent::Artifact(chunk)) => {
                    self.add_artifact(answer.running, *chunk, &mut answer.artifacts)
                        .await;
                    continue;
                }
                Step::Event(ReplyEvent::Part(part)) => {
                    self.progress(answer, vec![*part]).await;
                    continue;
                }
                Step::Failed(failure) => {
                    return Attempt::Done(self.failed(answer.running, failure));
                }
            };
            if let Some(end) = self.take(answer, fed, false).await {
                answer.said = feed.said();
                // Dropping the rest of the reply stops the agent (and its model).
                return end;
            }
        }
        let (last, said) = feed.finish();
        answer.said = said;
        if let Some(end) = self.take(answer, last, true).await {
            return end;
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

    /// Sends the parts a feed of the output completed. Ends the attempt (`Some`) when they
    /// hold A2UI that does not validate, or the output cannot be read on; with `last` (the
    /// feed that ends the reply), the component trees of the whole reply are checked too.
    async fn take(
        &self,
        answer: &mut Answer<'_>,
        fed: Result<Batch, OutputError>,
        last: bool,
    ) -> Option<Attempt> {
        let batch = match fed {
            Ok(fed) => fed,
            Err(error) => return Some(self.fail_after(answer, error).await),
        };
        let (new, invalid) = answer.guard.screen(batch);
        self.progress(answer, new).await;
        let invalid = match invalid {
            None if last => {
                let (mended, invalid) = answer.guard.finish();
                self.progress(answer, mended).await;
                invalid
            }
            invalid => invalid,
        };
        invalid.map(Attempt::Invalid)
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

    /// Sends what the read completed before `error` (text before a broken block, say), then
    /// fails the attempt with the error's reason; a block that cannot be read, or an answer
    /// cut off inside a message, goes to the repair loop instead (which fails with the same
    /// reason when it does not repair). A limit exceeded fails at once.
    async fn fail_after(&self, answer: &mut Answer<'_>, error: OutputError) -> Attempt {
        let (before, _) = answer.guard.screen(error.before);
        self.progress(answer, before).await;
        match error.kind {
            Some(ParseErrorKind::Truncated) => Attempt::Unreadable(error.reason, true),
            Some(ParseErrorKind::Syntax) => Attempt::Unreadable(error.reason, false),
            _ => Attempt::Done(Outcome::Failed(error.reason)),
        }
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
