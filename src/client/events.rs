//! [`EventStream`]: a streamed answer (`message/stream`, a subscription) as typed events.
//!
//! The body is read chunk by chunk through the crate's one SSE decoder
//! ([`crate::event_stream`]), each event bounded by the client's answer limit; each event's
//! JSON is walked by the decoding budget, its envelope checked (the request's id, or an A2A
//! error), and its result decoded by the interface's codec. The stream checks what a
//! subscriber relies on: every event is about the same task, and the stream does not end
//! before its last event (a terminal or interrupted state, or a message). It ends there, or
//! at the first error, which it yields once; a silence longer than the stream idle timeout is
//! [`ClientError::Timeout`].

use std::collections::VecDeque;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use futures::{Stream, StreamExt};
use serde_json::Value;

use super::answer::{Expect, read_result};
use super::error::{ClientError, STREAM_CUT};
use super::http::answer_budget;
use super::transport::Transport;
use crate::a2a::StreamEvent;
use crate::event_stream::{Decoder, SseError};

/// The events of a streamed answer, in order: the task, its updates, up to the last one (a
/// terminal or interrupted state, or a message), where it ends.
///
/// Each event is bounded by [`ClientBuilder::max_answer_bytes`](super::ClientBuilder::max_answer_bytes)
/// and the decoding budget, checked to answer the request and to be about the stream's task.
/// The stream yields at most one error, then ends: the agent's A2A error, a stream cut before
/// its last event ([`ClientError::BadAnswer`]), a silence longer than the stream idle
/// timeout or a stream longer than the stream timeout ([`ClientError::Timeout`]).
///
/// # Example
///
/// ```no_run
/// use a2ui_agent::client::{Client, text_request};
/// use futures::StreamExt;
///
/// # async fn run() -> Result<(), a2ui_agent::client::ClientError> {
/// let client = Client::connect("http://localhost:8080/").await?;
/// let mut events = client.send_streaming(text_request("Dinner for two?")).await?;
/// while let Some(event) = events.next().await {
///     println!("{:?}", event?);
/// }
/// # Ok(())
/// # }
/// ```
pub struct EventStream {
    inner: Pin<Box<dyn Stream<Item = Result<StreamEvent, ClientError>> + Send>>,
}

impl std::fmt::Debug for EventStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("EventStream")
    }
}

impl Stream for EventStream {
    type Item = Result<StreamEvent, ClientError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.inner.as_mut().poll_next(cx)
    }
}

/// What one stream reads with.
pub(super) struct Reading {
    pub(super) transport: Transport,
    pub(super) expect: Expect,
    pub(super) event_bytes: usize,
    pub(super) idle: Duration,
    /// How long the whole stream may last.
    pub(super) total: Duration,
    /// The task the events must be about, when known before the first (a subscription).
    pub(super) task_id: Option<String>,
}

impl EventStream {
    /// The events of `response`, an SSE body.
    pub(super) fn read(response: reqwest::Response, reading: Reading) -> Self {
        let Reading {
            transport,
            expect,
            event_bytes,
            idle,
            total,
            mut task_id,
        } = reading;
        let deadline = tokio::time::Instant::now() + total;
        let budget = answer_budget(event_bytes);
        let stream = async_stream::stream! {
            let mut body = response.bytes_stream();
            let mut decoder = Decoder::with_limit(event_bytes);
            let mut frames: VecDeque<String> = VecDeque::new();
            loop {
                while let Some(frame) = frames.pop_front() {
                    let event = super::http::json(frame.as_bytes(), &budget)
                        .and_then(|value| read_result(value, &expect))
                        .and_then(|result| transport.event(&result))
                        .and_then(|event| same_task(event, &mut task_id));
                    let last = event.as_ref().map_or(true, StreamEvent::is_final);
                    yield event;
                    if last {
                        return;
                    }
                }
                let now = tokio::time::Instant::now();
                let whole = deadline.saturating_duration_since(now) <= idle;
                let until = deadline.min(now + idle);
                match tokio::time::timeout_at(until, body.next()).await {
                    Err(_) if whole => {
                        yield Err(ClientError::Timeout { what: "stream", after: total });
                        return;
                    }
                    Err(_) => {
                        yield Err(ClientError::Timeout { what: "stream idle", after: idle });
                        return;
                    }
                    Ok(None) => {
                        yield Err(ClientError::BadAnswer(STREAM_CUT.into()));
                        return;
                    }
                    Ok(Some(Err(error))) => {
                        yield Err(ClientError::from_reqwest(&error, idle));
                        return;
                    }
                    Ok(Some(Ok(chunk))) => {
                        if let Err(error) = decoder.feed(&chunk, &mut frames) {
                            yield Err(framing(error));
                            return;
                        }
                    }
                }
            }
        };
        Self {
            inner: Box::pin(stream),
        }
    }

    /// A stream of `events`.
    pub(super) fn of(
        events: impl Stream<Item = Result<StreamEvent, ClientError>> + Send + 'static,
    ) -> Self {
        Self {
            inner: Box::pin(events),
        }
    }

    /// A stream holding only `event` (an answer that came as one JSON body).
    pub(super) fn once(event: Result<StreamEvent, ClientError>) -> Self {
        Self {
            inner: Box::pin(futures::stream::once(async move { event })),
        }
    }
}

fn framing(error: SseError) -> ClientError {
    match error {
        SseError::TooLong(limit) => {
            ClientError::TooLarge(format!("a stream event is longer than {limit} bytes"))
        }
        SseError::NotUtf8 => ClientError::BadAnswer(error.to_string()),
    }
}

/// `event`, checked to be about the stream's task (the first event that names one sets it).
fn same_task(event: StreamEvent, task_id: &mut Option<String>) -> Result<StreamEvent, ClientError> {
    let about = match &event {
        StreamEvent::Task(task) => Some(task.id.as_str()),
        StreamEvent::StatusUpdate(update) => Some(update.task_id.as_str()),
        StreamEvent::ArtifactUpdate(update) => Some(update.task_id.as_str()),
        StreamEvent::Message(message) => message.task_id.as_deref(),
    };
    match (about, task_id.as_deref()) {
        (Some(about), Some(expected)) if about != expected => Err(ClientError::BadAnswer(format!(
            "an event about task {about:?} in the stream of task {expected:?}"
        ))),
        (Some(about), None) => {
            *task_id = Some(about.to_owned());
            Ok(event)
        }
        _ => Ok(event),
    }
}

/// The value of a streamed answer that came as one JSON body instead (an error before the
/// stream started), as the one event of a stream.
pub(super) fn single(value: Value, expect: &Expect, transport: Transport) -> EventStream {
    EventStream::once(read_result(value, expect).and_then(|result| transport.event(&result)))
}
