//! The server-streaming methods: `SendStreamingMessage` and `SubscribeToTask`, each a
//! stream of `StreamResponse` messages (the task first, then its updates, ending after the
//! final one), opened by the same operations as the SSE streams of the other bindings.
//!
//! A refusal before the stream opens is the call's status; one decided later (the agent's
//! first answer) and a stream cut short end the stream with an error status. A client that
//! goes away drops the stream, and with it the subscription's place and, when the server
//! cancels on disconnect, the task.

use std::pin::Pin;

use futures::Stream;
use tonic::{Response, Status};

use super::proto::StreamResponse;
use super::wire::Wire;
use super::{Call, status};
use crate::a2a::jsonrpc::{ErrorCode, RpcError};
use crate::a2a::{StreamEvent, v1_0};
use crate::observe::{Binding, Meter};
use crate::server::ServerState;
use crate::server::ops::{self, Opening, StreamOptions};
use crate::server::sse::Opened;
use crate::store::Owner;

/// The stream both methods answer with.
pub(crate) type EventStream = Pin<Box<dyn Stream<Item = Result<StreamResponse, Status>> + Send>>;

/// `SendStreamingMessage`: sends the call's message and streams its task's events.
pub(super) async fn send_streaming(
    state: &ServerState,
    wire: &Wire,
    call: Call,
) -> Result<Response<EventStream>, Status> {
    const OP: &str = "SendStreamingMessage";
    let result = async {
        let send = super::send_request(&call)?;
        let how = StreamOptions {
            cancel_on_disconnect: state.cancel_on_disconnect,
            history_length: send.configuration.history_length,
            operation: OP,
            client_history: Vec::new(),
        };
        ops::open(state, call.principal, &call.headers, send, how).await
    };
    let (opening, activated) = result.await.map_err(|error| status::of(error, OP))?;
    let stream = match opening {
        Opening::Ready(opened) => {
            events(wire.clone(), &state.meter, Box::pin(async { Ok(opened) }))
        }
        Opening::Later(later) => events(wire.clone(), &state.meter, later),
    };
    Ok(super::echoed(Response::new(stream), &activated))
}

/// `SubscribeToTask`: the task as it is, then its events until it reaches a terminal state.
pub(super) async fn subscribe(
    state: &ServerState,
    wire: &Wire,
    owner: &Owner,
    id: &str,
) -> Result<Response<EventStream>, Status> {
    let result = async {
        let slot = state.subscribers.claim(owner)?;
        let subscription = state.tasks.subscribe_until_terminal(owner, id).await?;
        Ok::<_, crate::server::error::ApiError>(Opened {
            first: StreamEvent::Task(subscription.snapshot),
            events: subscription.events,
            guard: None,
            slot: Some(slot),
        })
    };
    let opened = result
        .await
        .map_err(|error| status::of(error, "SubscribeToTask"))?;
    Ok(Response::new(events(
        wire.clone(),
        &state.meter,
        Box::pin(async { Ok(opened) }),
    )))
}

/// The messages of a stream once `opening` is ready: its first event, then its events
/// until a final one. The stream is counted as open (under binding `a2a-grpc`) from the
/// moment the call is answered until the client has it no more.
fn events(
    wire: Wire,
    meter: &Meter,
    opening: futures::future::BoxFuture<'static, Result<Opened, RpcError>>,
) -> EventStream {
    let open = meter.stream_open(Binding::Grpc);
    Box::pin(async_stream::stream! {
        let _open = open;
        let Opened { first, events, guard, slot } = match opening.await {
            Ok(opened) => opened,
            Err(error) => {
                yield Err(status::from_rpc(&error));
                return;
            }
        };
        let _guard = guard;
        let _slot = slot;
        let last = matches!(first, StreamEvent::Message(_));
        yield message(&wire, &first);
        drop(first);
        let Some(mut events) = events.filter(|_| !last) else { return };
        loop {
            match events.recv().await {
                Some(event) => {
                    let last = event.is_final();
                    yield message(&wire, &event);
                    if last {
                        break;
                    }
                }
                None => {
                    let error = RpcError::new(
                        ErrorCode::InternalError,
                        "The stream ended early; use GetTask or SubscribeToTask",
                    );
                    yield Err(status::from_rpc(&error));
                    break;
                }
            }
        }
    })
}

/// `event` as a `StreamResponse`.
fn message(wire: &Wire, event: &StreamEvent) -> Result<StreamResponse, Status> {
    wire.message_of(&v1_0::event_result(event), "StreamResponse")
}
