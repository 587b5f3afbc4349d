//! The AG-UI binding: `POST` a `RunAgentInput`, read the run as AG-UI 1.0 events over SSE.
//!
//! AG-UI is how CopilotKit and other agent frontends talk to an agent, and A2UI rides on it
//! as `a2ui-surface` activities. This module is an adapter over the same operations layer
//! as A2A ([`super::ops`]): the input becomes an A2A send — `threadId` is the conversation
//! (the A2A context, the caller's own), the newest turn its message (`input`) — that goes
//! through the same gate, admission, request step, task layer and reply pipeline, and the
//! task's events are encoded as AG-UI's (`mapping`, `events`). A thread's turns continue its
//! interrupted task, so the agent sees the earlier turns and a follow-up updates the
//! surfaces it drew before; a thread the server keeps no history of gets the earlier texts
//! the client sent as its history.
//!
//! A2UI: the renderer's version is v0.9 with the basic catalog unless the client says
//! otherwise in `forwardedProps`: `a2uiVersion` (`"v0.8"`, `"v0.9"`, `"v1.0"`) picks the
//! version, and `a2uiClientCapabilities` / `a2uiClientDataModel` are what an A2A client puts
//! in its message metadata; without them, the catalog a CopilotKit renderer names in its
//! `context` is the one the agent draws with (`renderer`). Input refused before the run is
//! an HTTP error with a JSON body (the A2A HTTP+JSON error shape); a failure after the
//! stream opened is a `RUN_ERROR`. The client closing the stream cancels the run.
//!
//! Frontend tools (`RunAgentInput.tools`) reach the agent as
//! [`Request::client_tools`](crate::request::Request::client_tools); a call the agent asks the client to run is sent
//! as `TOOL_CALL_START/ARGS/END` without a result, and the trailing tool messages of the
//! next run answer it.

mod events;
mod input;
mod mapping;
mod renderer;
mod surfaces;

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::header::CONTENT_TYPE;
use axum::http::{HeaderMap, StatusCode};
use axum::response::sse::{KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value};

use super::ServerState;
use super::admission::with_retry_after;
use super::error::ApiError;
use super::ops::{self, Opening, StreamOptions};
use super::sse::Opened;
use super::turn::{CLIENT_CAPABILITIES, CLIENT_DATA_MODEL, Said, Turn as TurnOf};
use crate::a2a::jsonrpc::{ErrorCode, RpcError};
use crate::a2a::{Message, Part, SendRequest, Task, v1_0};
use crate::a2ui::ProtocolVersion;
use crate::observe::Binding;
use crate::request::client_tools::{client_call_of, client_result_part};
use crate::request::{CLIENT_TOOLS_METADATA, Principal};
use crate::store::Owner;
use input::{RunInput, Turn};
use mapping::Mapping;

/// The path the binding is served at unless told otherwise.
pub(crate) const DEFAULT_PATH: &str = "/ag-ui";

/// `path` when it can serve the binding (see [`super::paths::checked`]); else why not, for
/// [`BuildError::InvalidAgUiPath`](super::BuildError::InvalidAgUiPath).
pub(crate) fn checked_path(path: String) -> Result<String, super::BuildError> {
    super::paths::checked(path).map_err(super::BuildError::InvalidAgUiPath)
}

/// `POST` a `RunAgentInput`: the run's events, or an HTTP error before any.
pub(crate) async fn handle(
    State(state): State<Arc<ServerState>>,
    principal: Principal,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let input = match input::decode(&body, &state.budget) {
        Ok(input) => input,
        Err(refused) => {
            let error = RpcError::new(ErrorCode::InvalidParams, refused.0);
            state.meter.request(Binding::AgUi, "run", "client_error");
            return error_response(error.into());
        }
    };
    let owner = principal.owner();
    let result = async {
        let send = send_request(&state, &owner, &input).await?;
        let how = StreamOptions {
            cancel_on_disconnect: true,
            history_length: None,
            operation: "ag-ui",
            client_history: earlier_messages(&input, state.tasks.max_history()),
        };
        ops::open(&state, principal, &headers, send, how).await
    };
    let response = match result.await {
        Ok((opening, _)) => stream(&state, input, opening),
        Err(error) => error_response(error),
    };
    let outcome = super::error::status_outcome(response.status());
    state.meter.request(Binding::AgUi, "run", outcome);
    response
}

/// The A2A send of `input`'s newest turn, in `owner`'s thread: continuing the thread's
/// task when it waits for input.
async fn send_request(
    state: &ServerState,
    owner: &Owner,
    input: &RunInput,
) -> Result<SendRequest, ApiError> {
    let version = requested_version(state, &input.forwarded)?;
    let said = match &input.turn {
        Turn::Text(text) => Said::Text(text.clone()),
        Turn::Action(action) => Said::Action(action.clone()),
        Turn::ToolResults(results) => Said::Parts(
            results
                .iter()
                .map(|(id, content)| client_result_part(id, content))
                .collect(),
        ),
    };
    let waiting = ops::waiting_task(state, owner, &input.thread_id).await?;
    if let Turn::ToolResults(results) = &input.turn {
        check_answers(waiting.as_ref(), results)?;
    }
    let forwarded = |key: &str| input.forwarded.get(key).cloned();
    let capabilities = version
        .and_then(|version| {
            renderer::capabilities(&input.forwarded, input.passed.get("context"), version)
        })
        .or_else(|| forwarded(CLIENT_CAPABILITIES));
    let turn = TurnOf {
        id: input.run_id.clone(),
        conversation: input.thread_id.clone(),
        version,
        said,
        capabilities,
        data_model: forwarded(CLIENT_DATA_MODEL),
    };
    let message = turn.into_message(waiting.as_ref());
    let mut request_metadata = Map::new();
    request_metadata.insert("agUi".into(), Value::Object(input.passed.clone()));
    if let Some(tools) = input.passed.get("tools") {
        request_metadata.insert(CLIENT_TOOLS_METADATA.into(), tools.clone());
    }
    Ok(SendRequest {
        message,
        configuration: Default::default(),
        metadata: Some(request_metadata),
    })
}

/// The last `most` of the earlier turns `input` sent, as the conversation's messages.
fn earlier_messages(input: &RunInput, most: usize) -> Vec<Message> {
    let skip = input.earlier.len().saturating_sub(most);
    input.earlier[skip..]
        .iter()
        .enumerate()
        .map(|(index, (user, text))| {
            let id = format!("{}-earlier-{index}", input.run_id);
            let mut message = match user {
                true => Message::user(id, vec![Part::text(text.clone())]),
                false => Message::agent(id, vec![Part::text(text.clone())]),
            };
            message.context_id = Some(input.thread_id.clone());
            message
        })
        .collect()
}

/// The A2UI version the client asked for (`forwardedProps.a2uiVersion`), else v0.9 when
/// the server speaks it, else the server's first; `None` when the server speaks no A2UI.
fn requested_version(
    state: &ServerState,
    forwarded: &Map<String, Value>,
) -> Result<Option<ProtocolVersion>, ApiError> {
    let advertised = state.a2ui.advertised();
    let speaks = |version: &ProtocolVersion| advertised.contains(&version.extension_uri());
    if let Some(asked) = forwarded.get("a2uiVersion") {
        let asked = asked.as_str().unwrap_or_default();
        return ProtocolVersion::ALL
            .into_iter()
            .filter(speaks)
            .find(|version| version.as_str() == asked)
            .map(Some)
            .ok_or_else(|| {
                let spoken: Vec<&str> = ProtocolVersion::ALL
                    .into_iter()
                    .filter(speaks)
                    .map(ProtocolVersion::as_str)
                    .collect();
                RpcError::new(
                    ErrorCode::InvalidParams,
                    format!(
                        "forwardedProps.a2uiVersion: this agent speaks A2UI {}",
                        spoken.join(", ")
                    ),
                )
                .into()
            });
    }
    let default = ProtocolVersion::V0_9;
    Ok(Some(default).filter(speaks).or_else(|| {
        advertised
            .first()
            .and_then(|uri| ProtocolVersion::from_extension_uri(uri))
    }))
}

/// Refuses tool `results` that answer no call the thread's `waiting` task asked the client
/// to run.
fn check_answers(waiting: Option<&Task>, results: &[(String, String)]) -> Result<(), ApiError> {
    let asked: Vec<&str> = waiting
        .and_then(|task| task.status.message.as_ref())
        .map(|message| {
            message
                .parts
                .iter()
                .filter_map(client_call_of)
                .filter_map(|call| call.get("id")?.as_str())
                .collect()
        })
        .unwrap_or_default();
    match results.iter().find(|(id, _)| !asked.contains(&id.as_str())) {
        None => Ok(()),
        Some((id, _)) => Err(RpcError::new(
            ErrorCode::InvalidParams,
            format!("Invalid RunAgentInput: the tool result for {id:?} answers no call this thread is waiting for"),
        )
        .into()),
    }
}

/// The SSE response of the run: `RUN_STARTED`, the run's events, its end.
fn stream(state: &ServerState, input: RunInput, opening: Opening) -> Response {
    let (mut mapping, started) = Mapping::start(input.thread_id, input.run_id);
    let clock = state.tasks.clock.clone();
    let meter = state.meter.clone();
    let events = async_stream::stream! {
        let _open = meter.stream_open(Binding::AgUi);
        let written = meter.sse_events(Binding::AgUi);
        written.add(1);
        yield events::frame(&started, clock.now());
        let opened = match opening {
            Opening::Ready(opened) => Ok(opened),
            Opening::Later(later) => later.await,
        };
        let Opened { first, events, guard, slot } = match opened {
            Ok(opened) => opened,
            Err(error) => {
                let refused = events::Event::RunError {
                    message: error.message,
                    code: Some("refused"),
                };
                written.add(1);
                yield events::frame(&refused, clock.now());
                return;
            }
        };
        // Held for as long as the client reads: dropping the stream cancels the run.
        let _guard = guard;
        let _slot = slot;
        let mut out = Vec::new();
        let mut ended = mapping.map(&first, &mut out);
        drop(first);
        written.add(out.len());
        for event in out.drain(..) {
            yield events::frame(&event, clock.now());
        }
        let mut events = events;
        while !ended {
            let Some(receiver) = events.as_mut() else {
                mapping.cut_off(&mut out);
                ended = true;
                continue;
            };
            match receiver.recv().await {
                Some(event) => ended = mapping.map(&event, &mut out),
                None => {
                    mapping.cut_off(&mut out);
                    ended = true;
                }
            }
            written.add(out.len());
            for event in out.drain(..) {
                yield events::frame(&event, clock.now());
            }
        }
    };
    let keep_alive = KeepAlive::new()
        .interval(state.keep_alive)
        .text("keep-alive");
    let sse = Sse::new(events).keep_alive(keep_alive);
    ([(axum::http::header::CACHE_CONTROL, "no-store")], sse).into_response()
}

/// An error before the stream: its HTTP status and a JSON body (`google.rpc.Status`, as
/// the A2A HTTP+JSON binding answers).
fn error_response(error: ApiError) -> Response {
    let error = error.into_rpc("ag-ui");
    let (status, body) = v1_0::rest_error_body(&error);
    let status = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let response = (
        status,
        [(CONTENT_TYPE, "application/json")],
        body.to_string(),
    );
    with_retry_after(response.into_response(), &error)
}
