//! Reading one streamed answer: its SSE events in, content pieces and tool calls out.
//!
//! The waits differ before and after the first token: a local model may read a long prompt
//! for minutes before it writes anything (the first-token timeout), then writes a token every
//! fraction of a second (the idle timeout, between two events).

use std::sync::Arc;
use std::time::Duration;

use std::collections::VecDeque;

use futures::StreamExt;
use tokio::time::Instant;

use super::call_deltas::{Arguments, Calls};
use super::client::Inner;
use super::error::LlmError;
use super::tools::ToolCall;
use super::wire::Chunk;
use crate::error_chain::chain;
use crate::event_stream::{Decoder, SseError};
use crate::observe::ModelCall;

/// What an answer streams.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Piece {
    /// A piece of the answer's text.
    Text(String),
    /// The model began writing tool calls (once, at their first piece).
    Calling,
    /// A piece of a call's arguments, as it streamed.
    Arguments(Arguments),
    /// The tool calls the answer asked for (once, at its end, when it asked for any).
    Calls(Vec<ToolCall>),
}

/// The pieces of a streamed answer. Ends after `[DONE]` (or, from a server that omits it,
/// the end of the body after a `finish_reason`); anything else ends it with an error. Until
/// the first token (a content or tool-call piece) it waits up to `first_token` (counted from
/// `started`, when the request was sent), then up to the idle timeout between two events.
pub(crate) fn pieces(
    response: reqwest::Response,
    started: Instant,
    first_token: Duration,
    inner: Arc<Inner>,
    round: u32,
    mut call: ModelCall,
) -> impl futures::Stream<Item = Result<Piece, LlmError>> + Send + 'static {
    let idle = inner.options.idle_timeout;
    async_stream::stream! {
        let mut body = response.bytes_stream();
        let mut decoder = Decoder::new();
        let mut ready = VecDeque::new();
        let mut finished = false;
        let mut calls = Calls::default();
        let mut wait = Wait::new(started + first_token, idle);
        loop {
            let next = next_event(&mut body, &mut decoder, &mut ready);
            let data = match wait.on(next).await {
                Ok(Some(Ok(data))) => data,
                Ok(None) if finished => break,
                Err(()) if wait.begun() => {
                    yield Err(LlmError::Idle(idle));
                    return;
                }
                Err(()) => {
                    yield Err(LlmError::FirstToken(first_token));
                    return;
                }
                Ok(None) => {
                    yield Err(LlmError::Interrupted(
                        "the stream ended before the model finished (no finish_reason, no [DONE])".into(),
                    ));
                    return;
                }
                Ok(Some(Err(error))) => {
                    yield Err(error.into_llm_error(&inner));
                    return;
                }
            };
            wait.event();
            let data = data.trim();
            if data == "[DONE]" {
                break;
            }
            if data.is_empty() {
                continue;
            }
            let chunk = match read_chunk(data, &inner, &call) {
                Ok(chunk) => chunk,
                Err(error) => { yield Err(error); return; }
            };
            for choice in chunk.choices.into_iter().take(1) {
                if let Some(delta) = choice.delta {
                    if let Some(content) = delta.content.filter(|content| !content.is_empty()) {
                        wait.begin();
                        call.token();
                        yield Ok(Piece::Text(content));
                    }
                    if let Some(pieces) = delta.tool_calls.filter(|pieces| !pieces.is_empty()) {
                        if calls.is_empty() {
                            yield Ok(Piece::Calling);
                        }
                        wait.begin();
                        call.token();
                        match calls.add(pieces) {
                            Ok(streamed) => for arguments in streamed { yield Ok(Piece::Arguments(arguments)); },
                            Err(error) => { yield Err(error); return; }
                        }
                    }
                }
                finished |= has_finished(choice.finish_reason, &call);
            }
        }
        call.finished();
        if !calls.is_empty() {
            yield Ok(Piece::Calls(calls.finish(round)));
        }
    }
}

/// The wait for the model's next event, up to a deadline that moves with every event.
///
/// One timer for the whole answer, moved only when it fires early: a model writes tens of
/// tokens a second, and a timer armed and cancelled per event would cost more than reading
/// the event. Between events only the clock is read.
struct Wait {
    /// When the wait ends: the first-token deadline, then the last event plus `idle`.
    deadline: Instant,
    idle: Duration,
    /// The first token came: the waits are the idle timeout's.
    begun: bool,
    timer: std::pin::Pin<Box<tokio::time::Sleep>>,
}

impl Wait {
    /// Waiting for the first token until `first_token`, then `idle` between events.
    fn new(first_token: Instant, idle: Duration) -> Self {
        Self {
            deadline: first_token,
            idle,
            begun: false,
            timer: Box::pin(tokio::time::sleep_until(first_token)),
        }
    }

    /// Whether the first token came.
    fn begun(&self) -> bool {
        self.begun
    }

    /// A token came: from the first on, the idle timeout counts.
    fn begin(&mut self) {
        if !self.begun {
            self.begun = true;
            self.extend();
        }
    }

    /// An event came: after the first token, the wait now ends the idle timeout from now.
    fn event(&mut self) {
        if self.begun {
            self.extend();
        }
    }

    /// The wait ends `idle` from now; the timer moves only if that is sooner than it is
    /// armed for (once: when the first token ends a longer first-token wait).
    fn extend(&mut self) {
        self.deadline = Instant::now() + self.idle;
        if self.deadline < self.timer.deadline() {
            let deadline = self.deadline;
            self.timer.as_mut().reset(deadline);
        }
    }

    /// `next`, or `Err` once the deadline passes first. A timer that fires before the
    /// deadline (it was armed for an earlier one) is armed again for it, and `next` goes on.
    async fn on<T>(&mut self, next: impl Future<Output = T>) -> Result<T, ()> {
        let mut next = std::pin::pin!(next);
        loop {
            tokio::select! {
                biased;
                value = next.as_mut() => return Ok(value),
                () = self.timer.as_mut() => {
                    if Instant::now() >= self.deadline {
                        return Err(());
                    }
                    let deadline = self.deadline;
                    self.timer.as_mut().reset(deadline);
                }
            }
        }
    }
}

/// One event's data as a chunk of the answer: an error when it is not JSON or is the
/// server's error, the usage it reports logged.
fn read_chunk(data: &str, inner: &Inner, call: &ModelCall) -> Result<Chunk, LlmError> {
    let chunk: Chunk = serde_json::from_str(data)
        .map_err(|error| LlmError::Protocol(format!("an event is not a JSON chunk ({error})")))?;
    if let Some(error) = &chunk.error {
        return Err(LlmError::Stream(inner.scrub(&error.describe())));
    }
    if let Some(usage) = &chunk.usage {
        tracing::debug!(%usage, "model usage");
        let count = |name| usage.get(name).and_then(serde_json::Value::as_u64);
        call.usage(
            count("prompt_tokens").unwrap_or(0),
            count("completion_tokens").unwrap_or(0),
        );
    }
    Ok(chunk)
}

/// Whether a choice's `finish_reason` says the model finished (told to `call`); one that
/// stopped for another reason than its answer or its calls being done is logged.
fn has_finished(reason: Option<String>, call: &ModelCall) -> bool {
    let Some(reason) = reason else {
        return false;
    };
    call.finish_reason(&reason);
    if reason != "stop" && reason != "tool_calls" {
        tracing::warn!(%reason, "the model stopped early");
    }
    true
}

/// Why the next event could not be read.
enum EventError {
    Transport(reqwest::Error),
    Framing(SseError),
}

impl EventError {
    /// The error that ends the answer, with the API key scrubbed from its reason.
    fn into_llm_error(self, inner: &Inner) -> LlmError {
        let reason = match &self {
            EventError::Transport(error) => chain(error),
            EventError::Framing(error) => error.to_string(),
        };
        LlmError::Interrupted(inner.scrub(&reason))
    }
}

/// The data of the next event of `body`: one decoded already (`ready`), or one the next
/// chunks complete; `None` at the end of the body.
async fn next_event(
    body: &mut (impl futures::Stream<Item = reqwest::Result<bytes::Bytes>> + Unpin),
    decoder: &mut Decoder,
    ready: &mut VecDeque<String>,
) -> Option<Result<String, EventError>> {
    loop {
        if let Some(data) = ready.pop_front() {
            return Some(Ok(data));
        }
        match body.next().await? {
            Ok(chunk) => {
                if let Err(error) = decoder.feed(&chunk, ready) {
                    return Some(Err(EventError::Framing(error)));
                }
            }
            Err(error) => return Some(Err(EventError::Transport(error))),
        }
    }
}
