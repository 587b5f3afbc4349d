//! Server-sent events for `message/stream` and `tasks/resubscribe` (WIRE.md §2).
//!
//! One `data:` line per event, each a whole JSON-RPC response; a `: keep-alive` comment while
//! the agent is silent (clients time out after 5 s of silence); the response closes after the
//! final event. Model text only ever goes through [`Event::json_data`], never into comments,
//! event names or ids.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::http::header::CACHE_CONTROL;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use serde_json::Value;
use tokio::sync::mpsc;

use crate::a2a::jsonrpc::{self, ErrorCode, Id, RpcError};
use crate::a2a::v0_3::{encode_event, encode_task};
use crate::a2a::{StreamEvent, Task};
use crate::task::manager::Running;

/// Cancels the task when the stream is dropped before the task ends (the client went away).
pub(crate) struct CancelOnDrop(pub(crate) Arc<Running>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        if !self.0.is_done() {
            tracing::debug!("stream client disconnected: canceling its task");
            self.0.request_cancel();
        }
    }
}

/// The SSE response: `first` as a Task, then `events` until a final one.
pub(crate) fn task_stream(
    id: Id,
    first: Task,
    events: Option<mpsc::Receiver<StreamEvent>>,
    guard: Option<CancelOnDrop>,
    keep_alive: Duration,
) -> Response {
    let stream = async_stream::stream! {
        let _guard = guard;
        yield frame(&jsonrpc::success(&id, encode_task(&first)));
        let Some(mut events) = events else { return };
        loop {
            match events.recv().await {
                Some(event) => {
                    let last = event.is_final();
                    yield frame(&jsonrpc::success(&id, encode_event(&event)));
                    if last {
                        break;
                    }
                }
                None => {
                    // Cut off as too slow, or the run vanished without a final event.
                    let error = RpcError::new(
                        ErrorCode::InternalError,
                        "The stream ended early; use tasks/get or tasks/resubscribe",
                    );
                    yield frame(&jsonrpc::failure(&id, &error));
                    break;
                }
            }
        }
    };
    sse_response(stream, keep_alive)
}

/// An SSE response holding one JSON-RPC error, then closing.
pub(crate) fn error_stream(id: &Id, error: &RpcError, keep_alive: Duration) -> Response {
    let event = frame(&jsonrpc::failure(id, error));
    sse_response(futures::stream::once(async move { event }), keep_alive)
}

fn sse_response(
    stream: impl futures::Stream<Item = Result<Event, Infallible>> + Send + 'static,
    keep_alive: Duration,
) -> Response {
    let sse = Sse::new(stream).keep_alive(KeepAlive::new().interval(keep_alive).text("keep-alive"));
    ([(CACHE_CONTROL, "no-store")], sse).into_response()
}

fn frame(response: &Value) -> Result<Event, Infallible> {
    Ok(Event::default()
        .json_data(response)
        .unwrap_or_else(|error| {
            // Serializing a `Value` cannot fail; keep the stream well-formed regardless.
            tracing::error!(%error, "could not serialize an SSE event");
            Event::default().data(
                r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"Internal error"}}"#,
            )
        }))
}
