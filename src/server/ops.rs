//! The operations both bindings and both protocol versions share: send, stream, subscribe.
//!
//! [`rpc`](super::rpc) and [`rest`](super::rest) decode their requests into the model, call
//! these, and encode what comes back for their caller; the checks (accepted
//! output modes), the request step and the task layer are the same for every caller.

use std::task::Poll;

use futures::future::BoxFuture;

use axum::http::{HeaderMap, HeaderValue};
use axum::response::Response;
use serde_json::Value;

use super::ServerState;
use super::admission::Permit;
use super::error::ApiError;
use super::sse::{self, CancelOnDrop, Framing, Opened};
use super::version::Version;
use crate::a2a::jsonrpc::{ErrorCode, RpcError};
use crate::a2a::{Message, SendRequest, StreamEvent, Task, TaskListQuery};
use crate::request::Principal;
use crate::request::prepared::Prepared;
use crate::store::Owner;
use crate::task::Begun;

/// A finished (or, when not blocking, just started) send, and the extensions to echo.
pub(crate) struct Sent {
    pub(crate) answer: Answer,
    pub(crate) activated: Vec<String>,
}

/// What a send is answered with.
pub(crate) enum Answer {
    /// The task (finished, or just started when not blocking).
    Task(Task),
    /// A bare message from the agent: no task was created.
    Message(Message),
}

/// Sends a message for `principal` (its task is the principal's owner's) and, unless the
/// client asked not to, waits for the task to stop.
pub(crate) async fn send(
    state: &ServerState,
    principal: Principal,
    headers: &HeaderMap,
    mut send: SendRequest,
) -> Result<Sent, ApiError> {
    let blocking = send.configuration.blocking;
    let history_length = send.configuration.history_length;
    let owner = principal.owner();
    let push = super::push_methods::inline(state, &mut send).await?;
    let (permit, prepared) = admit(state, headers, send, principal)?;
    let started = match state
        .tasks
        .start(owner, prepared, false, blocking, push)
        .await?
    {
        Begun::Task(started) => started,
        Begun::Message { message, activated } => {
            return Ok(Sent {
                answer: Answer::Message(message),
                activated,
            });
        }
    };
    permit.release_when_done(&started.running);
    let task = if blocking {
        let done = started.running.wait_done().await;
        if let Some(reason) = done.invalid {
            return Err(RpcError::new(
                ErrorCode::InvalidAgentResponse,
                format!("Invalid agent response: {reason}"),
            )
            .with_data(serde_json::json!({"taskId": done.task.id}))
            .into());
        }
        done.task
    } else {
        started.snapshot
    };
    Ok(Sent {
        answer: Answer::Task(task.with_history_length(history_length)),
        activated: started.activated,
    })
}

/// Sends a message for `principal` and streams the task's events as they come.
pub(crate) async fn stream(
    state: &ServerState,
    principal: Principal,
    headers: &HeaderMap,
    send: SendRequest,
    framing: Framing,
) -> Result<Response, ApiError> {
    let how = StreamOptions {
        cancel_on_disconnect: state.cancel_on_disconnect,
        history_length: send.configuration.history_length,
        operation: "message/stream",
        client_history: Vec::new(),
    };
    let (opening, activated) = open(state, principal, headers, send, how).await?;
    let response = match opening {
        Opening::Ready(opened) => sse::event_stream(
            framing,
            async { Ok(opened) },
            state.keep_alive,
            state.meter.clone(),
        ),
        Opening::Later(later) => {
            sse::event_stream(framing, later, state.keep_alive, state.meter.clone())
        }
    };
    Ok(with_extensions_header(response, &activated))
}

/// How a stream opens: at once, or once the agent's first answer decided whether a task
/// exists (the stream may open before, keep-alives flowing).
// Made once per stream and moved straight into it: boxing `Ready` would only add an
// allocation to every stream that opens at once.
#[allow(clippy::large_enum_variant)]
pub(crate) enum Opening {
    /// The stream's first event and what follows are known.
    Ready(Opened),
    /// They will be: a refusal then is an error in the stream, named for the operation.
    Later(BoxFuture<'static, Result<Opened, RpcError>>),
}

/// What a binding asks of the stream [`open`] opens.
pub(crate) struct StreamOptions {
    /// Whether dropping the stream (the client went away) cancels the task.
    pub(crate) cancel_on_disconnect: bool,
    /// How many history messages the first task snapshot keeps (`None`: all).
    pub(crate) history_length: Option<usize>,
    /// The operation a later refusal is named for (in the log).
    pub(crate) operation: &'static str,
    /// The conversation's earlier turns as the client sent them: the agent's history when
    /// the task keeps none (see [`Prepared::with_client_history`]).
    pub(crate) client_history: Vec<Message>,
}

/// Sends a message for `principal` and opens the stream of its task's events, for any
/// binding to encode its own way, as `how` says. A refusal before the agent runs is an
/// error here (the binding answers it before its stream); one decided later comes out of
/// [`Opening::Later`]. Also the extension URIs the request activates.
pub(crate) async fn open(
    state: &ServerState,
    principal: Principal,
    headers: &HeaderMap,
    mut send: SendRequest,
    how: StreamOptions,
) -> Result<(Opening, Vec<String>), ApiError> {
    let StreamOptions {
        cancel_on_disconnect,
        history_length,
        operation,
        client_history,
    } = how;
    let owner = principal.owner();
    let push = super::push_methods::inline(state, &mut send).await?;
    let (permit, prepared) = admit(state, headers, send, principal)?;
    let prepared = prepared.with_client_history(client_history);
    // Known before the agent runs: the stream may open before the task does.
    let activated = prepared.activated().to_vec();
    let opened = move |begun: Begun| match begun {
        Begun::Task(started) => {
            permit.release_when_done(&started.running);
            Opened {
                guard: cancel_on_disconnect.then(|| CancelOnDrop(started.running.clone())),
                first: StreamEvent::Task(started.snapshot.with_history_length(history_length)),
                events: started.events,
                slot: None,
            }
        }
        Begun::Message { message, .. } => Opened {
            first: StreamEvent::Message(message),
            events: None,
            guard: None,
            slot: None,
        },
    };
    // The agent may be called before the task exists (see `task::kinds`): when that does
    // not end at once, the stream opens now (keep-alives flow) and its first event follows.
    let tasks = state.tasks.clone();
    let mut starting =
        Box::pin(async move { tasks.start(owner, prepared, true, true, push).await });
    let opening = match futures::poll!(starting.as_mut()) {
        Poll::Ready(begun) => Opening::Ready(opened(begun?)),
        Poll::Pending => Opening::Later(Box::pin(async move {
            match starting.await {
                Ok(begun) => Ok(opened(begun)),
                Err(error) => Err(ApiError::from(error).into_rpc(operation)),
            }
        })),
    };
    Ok((opening, activated))
}

/// The task of `owner`'s conversation `context_id` that waits for the next turn, if its
/// latest does: what a binding whose turns carry no task id (AG-UI threads, MCP sessions)
/// continues.
pub(crate) async fn waiting_task(
    state: &ServerState,
    owner: &Owner,
    context_id: &str,
) -> Result<Option<Task>, ApiError> {
    let query = TaskListQuery {
        context_id: Some(context_id.to_owned()),
        page_size: 1,
        history_length: Some(0),
        ..TaskListQuery::default()
    };
    let page = state.tasks.list(owner, &query).await?;
    Ok(page
        .tasks
        .into_iter()
        .next()
        .filter(|task| task.status.state.is_interrupted()))
}

/// Checks `send`, takes a place for it under the running-task caps and runs the request
/// step (the agent's request will carry `principal`); the caller holds the place until the
/// run ends (or drops it when no task runs).
fn admit(
    state: &ServerState,
    headers: &HeaderMap,
    send: SendRequest,
    principal: Principal,
) -> Result<(Permit, Prepared), ApiError> {
    check_send(state, &send)?;
    let permit = state
        .admission
        .admit(headers, super::admission::peer(), &principal)?;
    let prepared = state
        .a2ui
        .prepare(send, requested_extensions(headers), principal);
    Ok((permit, prepared))
}

/// Streams the events of `owner`'s task `id` from now on, starting with the task as it is.
/// A 1.0 subscription goes on across the runs that continue an interrupted task, until it
/// reaches a terminal state (1.0 §3.1.6); a 0.3 one ends at the interruption, as 0.3's
/// `final` says. The stream holds one of the caller's subscriber places while it lasts.
pub(crate) async fn subscribe(
    state: &ServerState,
    owner: &Owner,
    id: &str,
    framing: Framing,
) -> Result<Response, ApiError> {
    let slot = state
        .subscribers
        .claim(owner)
        .inspect_err(|_| state.meter.shed("caller_streams"))?;
    let subscription = match framing {
        Framing::Rpc(_, Version::V0_3) => state.tasks.subscribe(owner, id).await?,
        Framing::Rpc(_, Version::V1_0) | Framing::Rest => {
            state.tasks.subscribe_until_terminal(owner, id).await?
        }
    };
    let opened = Opened {
        first: StreamEvent::Task(subscription.snapshot),
        events: subscription.events,
        guard: None,
        slot: Some(slot),
    };
    Ok(sse::event_stream(
        framing,
        async { Ok(opened) },
        state.keep_alive,
        state.meter.clone(),
    ))
}

/// The extended card in `shape`, for a caller the auth layer let through. None configured:
/// 1.0 answers `UnsupportedOperationError`, as spec §3.3.4 asks of an agent whose card does
/// not declare one; 0.3 has `AuthenticatedExtendedCardNotConfiguredError` for that.
pub(crate) fn extended_card(
    state: &ServerState,
    headers: &HeaderMap,
    shape: Version,
) -> Result<Value, ApiError> {
    if let Some(card) = state
        .signed
        .as_ref()
        .and_then(|signed| signed.extended(shape))
    {
        return Ok(card.clone());
    }
    match (&state.extended_card, shape) {
        (Some(card), shape) => Ok(super::card::encode(card, &state.tenants, headers, shape)),
        (None, Version::V1_0) => Err(RpcError::new(
            ErrorCode::UnsupportedOperation,
            "Unsupported operation: this agent has no extended agent card",
        )
        .into()),
        (None, Version::V0_3) => Err(RpcError::new(
            ErrorCode::AuthenticatedExtendedCardNotConfigured,
            "Authenticated extended card is not configured",
        )
        .into()),
    }
}

/// Checks the client accepts what the agent produces (the push config was taken already).
fn check_send(state: &ServerState, send: &SendRequest) -> Result<(), ApiError> {
    if let Some(accepted) = &send.configuration.accepted_output_modes {
        let produced = &state.card.default_output_modes;
        let compatible = accepted.is_empty()
            || accepted
                .iter()
                .any(|mode| produced.iter().any(|out| mime_matches(mode, out)));
        if !compatible {
            return Err(RpcError::new(
                ErrorCode::ContentTypeNotSupported,
                format!(
                    "Content type not supported: the agent produces {}",
                    produced.join(", ")
                ),
            )
            .into());
        }
    }
    Ok(())
}

/// `response` with the activated extension URIs in `A2A-Extensions` and `X-A2A-Extensions`
/// (the 1.0 and 0.3 names; none: unchanged).
pub(crate) fn with_extensions_header(mut response: Response, activated: &[String]) -> Response {
    if activated.is_empty() {
        return response;
    }
    match HeaderValue::from_str(&activated.join(", ")) {
        Ok(value) => {
            let headers = response.headers_mut();
            headers.insert("a2a-extensions", value.clone());
            headers.insert("x-a2a-extensions", value);
        }
        Err(error) => tracing::warn!(%error, "an activated extension URI is not a header value"),
    }
    response
}

/// Whether the accepted `pattern` (`text/plain`, `text/*`, `*/*`) covers `mime`.
fn mime_matches(pattern: &str, mime: &str) -> bool {
    let pattern = pattern.split(';').next().unwrap_or("").trim();
    let mime = mime.split(';').next().unwrap_or("").trim();
    if pattern == "*/*" || pattern == "*" || pattern.eq_ignore_ascii_case(mime) {
        return true;
    }
    match (pattern.split_once('/'), mime.split_once('/')) {
        (Some((kind, "*")), Some((mime_kind, _))) => kind.eq_ignore_ascii_case(mime_kind),
        _ => false,
    }
}

/// The extension URIs in the `X-A2A-Extensions` and `A2A-Extensions` headers: every value
/// of either, split on commas, trimmed.
pub(crate) fn requested_extensions(headers: &HeaderMap) -> Vec<String> {
    ["x-a2a-extensions", "a2a-extensions"]
        .into_iter()
        .flat_map(|name| headers.get_all(name))
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(','))
        .map(str::trim)
        .filter(|uri| !uri.is_empty())
        .map(str::to_owned)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extension_headers_are_read_from_both_names_split_and_trimmed() {
        let mut headers = HeaderMap::new();
        headers.append("X-A2A-Extensions", HeaderValue::from_static("urn:a, urn:b"));
        headers.append("x-a2a-extensions", HeaderValue::from_static("urn:c"));
        headers.append("A2A-EXTENSIONS", HeaderValue::from_static(" ,urn:d"));
        assert_eq!(
            requested_extensions(&headers),
            ["urn:a", "urn:b", "urn:c", "urn:d"]
        );
    }

    #[test]
    fn accepted_output_modes_match_with_wildcards() {
        assert!(mime_matches("text/plain", "text/plain"));
        assert!(mime_matches("TEXT/*", "text/plain"));
        assert!(mime_matches("*/*", "application/json"));
        assert!(!mime_matches("image/png", "text/plain"));
        assert!(!mime_matches("text/*", "application/json"));
    }
}
