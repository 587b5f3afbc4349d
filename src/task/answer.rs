//! The agent's answer during a run: calling it, turning its output into `working` updates
//! through the reply's [`Pipeline`], and asking it again when the pipeline refuses what it
//! wrote (a repair turn).

use futures::stream::StreamExt;
use std::time::Instant;
use tracing::Instrument;

use super::call::{call, failed};
use super::feed::{Fed, Feed};
use super::handoff::{Called, Outcome};
use super::lifecycle::transition;
use super::manager::{Running, TaskManager, agent_message, status_event};
use super::reply_kinds::{self, ArtifactLog};
use crate::a2a::{Part, Task, TaskState};
use crate::a2ui::is_a2ui_mime;
use crate::agent::{Reply, ReplyEvent};
use crate::observe::{Meter, trace};
use crate::pipeline::{End, Pipeline, Resolved, SentParts, Step};
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
    /// How many A2UI messages went out so far (counted only when traced or metered).
    sent: usize,
}

/// How one call of the agent ended: the run's outcome, or a problem the pipeline may answer
/// with a repair turn.
enum Attempt {
    Done(Outcome),
    Ended(End),
}

/// Calls the agent and turns its output into `working` updates; an attempt the
/// pipeline refuses is followed by a repair turn while the policy allows.
pub(super) async fn drive(
    tasks: &TaskManager,
    running: &Running,
    reply_id: &str,
    mut request: Box<Request>,
    streaming: bool,
    mut first: Option<Called>,
) -> Outcome {
    // The request stays boxed: a run's future is held for as long as the reply streams,
    // and every level of it would otherwise carry its own copy of the request's bytes.
    let mut pipeline = Pipeline::new(&tasks.repair, tasks.output.clone(), &request, streaming);
    let mut answer = Answer {
        running,
        reply_id,
        parts: SentParts::default(),
        artifacts: ArtifactLog::default(),
        sent: 0,
    };
    let mut repairs = 0_u32;
    let mut span = trace::attempt(0, &request);
    loop {
        let sent_before = answer.sent;
        let attempt = attempt(tasks, &mut answer, &mut pipeline, request, first.take());
        // Entered at every poll (every chunk) only when some subscriber wants the span.
        let attempt = if span.is_disabled() {
            attempt.await
        } else {
            attempt.instrument(span.clone()).await
        };
        span.record("a2ui.messages_sent", (answer.sent - sent_before) as i64);
        let end = match attempt {
            Attempt::Done(outcome) => {
                if repairs > 0 {
                    let mended = matches!(outcome, Outcome::Finished { .. });
                    tasks.meter.repair(if mended { "mended" } else { "failed" });
                }
                return outcome;
            }
            Attempt::Ended(end) => end,
        };
        refused(&tasks.meter, &end);
        span.record("a2ui.messages_refused", trace::refused_count(&end) as i64);
        // The repair turn's span shows what caused it; `end` goes to the pipeline.
        let cause = (!span.is_disabled()).then(|| end.clone());
        request = match pipeline.retry(end, &answer.parts) {
            Ok(next) => {
                repairs += 1;
                tasks.meter.repair("started");
                span = trace::attempt(repairs, &next);
                if let Some(cause) = cause {
                    trace::refused(&span, &cause);
                }
                Box::new(next)
            }
            Err(reason) => {
                tasks
                    .meter
                    .repair(if repairs > 0 { "failed" } else { "not_allowed" });
                return Outcome::Failed(reason);
            }
        };
    }
}

/// One call of the agent (or `first`, its answer given before the task existed), its
/// output read through `pipeline`.
async fn attempt(
    tasks: &TaskManager,
    answer: &mut Answer<'_>,
    pipeline: &mut Pipeline,
    request: Box<Request>,
    first: Option<Called>,
) -> Attempt {
    let called = match first {
        Some(called) => called,
        None => call(tasks, *request).await,
    };
    let reply = match called {
        Ok(reply) => reply,
        Err(failure) => return Attempt::Done(failed(tasks, answer.running, failure)),
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
            let outcome = Box::pin(reply_kinds::explicit(tasks, answer.running, explicit)).await;
            return Attempt::Done(outcome);
        }
    };
    let mut final_state = final_state.unwrap_or(tasks.final_state);
    if let Some(invalid) = unsettled(final_state) {
        return Attempt::Done(invalid);
    }
    let mut feed = Feed::new(events, pipeline, tasks.coalesce_window);
    while let Some(fed) = feed.next().await {
        let step = match fed {
            Fed::Step(step) => step,
            // The feed reads the text itself: it never hands on a chunk.
            Fed::Event(ReplyEvent::Text(_)) => continue,
            Fed::Event(ReplyEvent::Status(text)) => {
                reply_kinds::status_text(tasks, answer.running, text).await;
                continue;
            }
            Fed::Event(ReplyEvent::Artifact(chunk)) => {
                reply_kinds::add_artifact(tasks, answer.running, *chunk, &mut answer.artifacts)
                    .await;
                continue;
            }
            Fed::Event(ReplyEvent::Part(part)) => {
                metered_progress(tasks, answer, vec![*part]).await;
                continue;
            }
            Fed::Event(ReplyEvent::FinalState(state)) => match unsettled(state) {
                None => {
                    final_state = state;
                    continue;
                }
                Some(invalid) => return Attempt::Done(invalid),
            },
            Fed::Failed(failure) => {
                return Attempt::Done(failed(tasks, answer.running, failure));
            }
        };
        if let Some(end) = settle(tasks, answer, step, |resolved| feed.resume(resolved)).await {
            // Dropping the rest of the reply stops the agent (and its model).
            return Attempt::Ended(end);
        }
    }
    drop(feed);
    let last = pipeline.finish();
    if let Some(end) = settle(tasks, answer, last, |resolved| pipeline.resume(resolved)).await {
        return Attempt::Ended(end);
    }
    Attempt::Done(Outcome::Finished {
        state: final_state,
        parts: std::mem::take(&mut answer.parts).into_parts(),
    })
}

/// The outcome of an agent that asked to end the task in `state`, when no task stops there.
fn unsettled(state: TaskState) -> Option<Outcome> {
    (!state.is_settled())
        .then(|| Outcome::Invalid(format!("the agent asked to end the task in state {state}")))
}

/// Sends `step`'s parts; while it waits for host names to be judged, looks them up (the
/// agent's stream is not read meanwhile) and sends what then passes. How the attempt ends,
/// if it does.
async fn settle(
    tasks: &TaskManager,
    answer: &mut Answer<'_>,
    mut step: Step,
    mut resume: impl FnMut(Resolved) -> Step,
) -> Option<End> {
    loop {
        let Step { send, end, wait } = step;
        metered_progress(tasks, answer, send).await;
        if end.is_some() {
            return end;
        }
        step = resume(wait?.run().await);
    }
}

/// Sends a `working` update holding `new` parts (none: nothing to send).
async fn progress(tasks: &TaskManager, answer: &mut Answer<'_>, new: Vec<Part>) {
    if new.is_empty() {
        return;
    }
    answer.parts.extend(&new);
    let kept = answer.parts.last(new.len());
    let timestamp = tasks.now();
    let delivery = answer.running.progress(kept, |task| {
        let message = agent_message(task, answer.reply_id, new);
        transition(task, TaskState::Working, Some(message), timestamp).ok()?;
        Some(|task: &Task| status_event(task, false))
    });
    tasks.send(answer.running, delivery).await;
}

/// [`progress`] with `new`, the A2UI messages among them counted and the time it took (the
/// chunk's way to its frame) recorded.
async fn metered_progress(tasks: &TaskManager, answer: &mut Answer<'_>, new: Vec<Part>) {
    if !tasks.meter.is_on() {
        if !new.is_empty() && !tracing::Span::current().is_disabled() {
            answer.sent += a2ui_messages(&new);
        }
        return progress(tasks, answer, new).await;
    }
    let arrived = Instant::now();
    let sent = a2ui_messages(&new);
    answer.sent += sent;
    progress(tasks, answer, new).await;
    tasks.meter.chunk_to_frame(arrived);
    tasks.meter.a2ui_sent(sent);
}

/// How many of `parts` are A2UI messages (data parts with an A2UI media type).
fn a2ui_messages(parts: &[Part]) -> usize {
    parts
        .iter()
        .filter(|part| match part {
            Part::Data {
                metadata: Some(metadata),
                ..
            } => metadata
                .get("mimeType")
                .and_then(serde_json::Value::as_str)
                .is_some_and(is_a2ui_mime),
            _ => false,
        })
        .count()
}

/// Counts what the pipeline refused at `end`, by kind.
fn refused(meter: &Meter, end: &End) {
    match end {
        End::Invalid(errors) => meter.a2ui_refused("invalid", errors.len()),
        End::Unreadable { cut: true, .. } => meter.a2ui_refused("truncated", 1),
        End::Unreadable { cut: false, .. } => meter.a2ui_refused("unreadable", 1),
        End::Failed(_) => meter.a2ui_refused("limit", 1),
    }
}
