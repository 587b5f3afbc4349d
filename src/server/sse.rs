//! Server-sent events for `message/stream`, `tasks/resubscribe` and their 1.0 twins (WIRE.md
//! §2).
//!
//! One `data:` line per event: a whole JSON-RPC response (0.3 or 1.0 payload), or for the
//! HTTP+JSON binding the bare `StreamResponse`; a `: keep-alive` comment while
//! the agent is silent (clients time out after 5 s of silence); the response closes after the
//! final event. Model text only ever reaches a frame as serde_json writes it (compact JSON:
//! no line break), never in comments, event names or ids.

use std::convert::Infallible;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use axum::http::header::CACHE_CONTROL;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use serde_json::Value;
use tokio::sync::mpsc;

use super::version::Version;
use crate::a2a::jsonrpc::{self, ErrorCode, Id, RpcError, Success};
use crate::a2a::{StreamEvent, v0_3, v1_0};
use crate::observe::{Binding, Meter};
use crate::task::manager::{Running, SharedEvent};

/// How each event is framed in a `data:` line.
#[derive(Debug, Clone)]
pub(crate) enum Framing {
    /// A JSON-RPC response with request id `id`, payload in `version`'s shape.
    Rpc(Id, Version),
    /// The HTTP+JSON binding: the `StreamResponse` itself; errors as a `google.rpc.Status`.
    Rest,
}

impl Framing {
    /// The SSE frame of `event`, serialized from the model in one pass (no `Value` tree: a
    /// `working` update's A2UI messages are written, not copied first).
    fn event(&self, event: &StreamEvent) -> Result<Event, Infallible> {
        match self {
            Framing::Rpc(id, Version::V0_3) => frame(&Success::new(id, v0_3::event_result(event))),
            Framing::Rpc(id, Version::V1_0) => frame(&Success::new(id, v1_0::event_result(event))),
            Framing::Rest => frame(&v1_0::event_result(event)),
        }
    }

    pub(crate) fn error(&self, error: &RpcError) -> Value {
        match self {
            Framing::Rpc(id, Version::V0_3) => jsonrpc::failure(id, error),
            Framing::Rpc(id, Version::V1_0) => serde_json::json!({
                "jsonrpc": "2.0", "id": Value::from(id), "error": v1_0::rpc_error(error)
            }),
            Framing::Rest => v1_0::rest_error_body(error).1,
        }
    }
}

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

/// How a stream opens: its first event (the task, or a bare message that is all of it), the
/// events that follow, and what cancels the task if the client goes away.
pub(crate) struct Opened {
    pub(crate) first: StreamEvent,
    pub(crate) events: Option<mpsc::Receiver<SharedEvent>>,
    pub(crate) guard: Option<CancelOnDrop>,
    /// The subscription's place in its caller's count, held as long as the stream.
    pub(crate) slot: Option<super::subscribers::Slot>,
}

/// The SSE response: once `opening` is ready, its first event, then its events until a
/// final one; an error instead when opening fails. Keep-alives flow while it opens.
pub(crate) fn event_stream(
    framing: Framing,
    opening: impl Future<Output = Result<Opened, RpcError>> + Send + 'static,
    keep_alive: Duration,
    meter: Meter,
) -> Response {
    let binding = match framing {
        Framing::Rest => Binding::Rest,
        Framing::Rpc(..) => Binding::JsonRpc,
    };
    // Boxed: the stream lives as long as the client reads, the opening only until the task
    // starts; inline, its state would widen every open stream by its size.
    let opening = Box::pin(opening);
    let stream = async_stream::stream! {
        let _open = meter.stream_open(binding);
        let written = meter.sse_events(binding);
        let Opened { first, events, guard, slot } = match opening.await {
            Ok(opened) => opened,
            Err(error) => {
                written.add(1);
                yield frame(&framing.error(&error));
                return;
            }
        };
        let _guard = guard;
        let _slot = slot;
        // A bare message is the whole stream; a task's snapshot is followed by its events.
        let last = matches!(first, StreamEvent::Message(_));
        let opening_event = framing.event(&first);
        // Sent, the snapshot (the task, its history and the user's message) is not kept for
        // as long as the stream stays open: about 2 KiB of every idle stream's memory.
        drop(first);
        written.add(1);
        yield opening_event;
        let Some(mut events) = events.filter(|_| !last) else { return };
        loop {
            match events.recv().await {
                Some(event) => {
                    let last = event.is_final();
                    written.add(1);
                    yield framing.event(&event);
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
                    written.add(1);
                    yield frame(&framing.error(&error));
                    break;
                }
            }
        }
    };
    sse_response(stream, keep_alive)
}

/// An SSE response holding one error, then closing.
pub(crate) fn error_stream(framing: &Framing, error: &RpcError, keep_alive: Duration) -> Response {
    let event = frame(&framing.error(error));
    sse_response(futures::stream::once(async move { event }), keep_alive)
}

fn sse_response(
    stream: impl futures::Stream<Item = Result<Event, Infallible>> + Send + 'static,
    keep_alive: Duration,
) -> Response {
    let sse = Sse::new(stream).keep_alive(KeepAlive::new().interval(keep_alive).text("keep-alive"));
    ([(CACHE_CONTROL, "no-store")], sse).into_response()
}

/// Room for a frame's JSON: a `working` update holding a component or two is written
/// without growing it.
const FRAME_BYTES: usize = 1024;

fn frame(response: &impl Serialize) -> Result<Event, Infallible> {
    // Written whole, then given to the event in one piece: through `Event::json_data`, each
    // token serde_json writes is a write of its own into the SSE writer, which scans it for
    // line breaks and grows its buffer as it goes (two thirds of a frame's cost).
    let mut json = Vec::with_capacity(FRAME_BYTES);
    let written = serde_json::to_writer(&mut json, response)
        .map_err(|error| error.to_string())
        .and_then(|()| String::from_utf8(json).map_err(|error| error.to_string()));
    Ok(match written {
        Ok(json) => Event::default().data(json),
        Err(error) => {
            // Serializing the model's strings and JSON values cannot fail; keep the stream
            // well-formed regardless.
            tracing::error!(%error, "could not serialize an SSE event");
            Event::default().data(
                r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"Internal error"}}"#,
            )
        }
    })
}
