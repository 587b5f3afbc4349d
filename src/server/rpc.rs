//! `POST /`: the JSON-RPC endpoint of A2A 0.3.
//!
//! Reads the envelope, dispatches by method, and answers every outcome — success or error —
//! with HTTP 200 and a JSON-RPC response (or an SSE stream for the streaming methods). The
//! only non-200 answers come before an envelope exists, from the gate in front of it (415,
//! 403, 413, 408, 401; see [`super::gate`]) and 405 for another HTTP method, from axum.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{ConnectInfo, State};
use axum::http::{HeaderMap, HeaderValue};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use serde_json::Value;

use super::ServerState;
use super::error::ApiError;
use super::sse::{self, CancelOnDrop};
use crate::a2a::SendRequest;
use crate::a2a::jsonrpc::{self, ErrorCode, Id, RpcError};
use crate::a2a::v0_3::{self, encode_task};

/// A JSON-RPC response: HTTP 200 and the envelope. The one place an outcome becomes HTTP.
pub(crate) struct RpcResponse {
    id: Id,
    outcome: Result<Value, RpcError>,
}

impl IntoResponse for RpcResponse {
    fn into_response(self) -> Response {
        let body = match &self.outcome {
            Ok(result) => jsonrpc::success(&self.id, result.clone()),
            Err(error) => jsonrpc::failure(&self.id, error),
        };
        Json(body).into_response()
    }
}

/// Handles one JSON-RPC request.
pub(crate) async fn handle(
    State(state): State<Arc<ServerState>>,
    peer: Option<Extension<ConnectInfo<SocketAddr>>>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let peer = peer.map(|Extension(ConnectInfo(peer))| peer);
    let request = match jsonrpc::decode_request(&body) {
        Ok(request) => request,
        Err((id, error)) => {
            tracing::debug!(code = error.code.code(), message = %error.message, "bad envelope");
            return RpcResponse {
                id,
                outcome: Err(error),
            }
            .into_response();
        }
    };
    let jsonrpc::Request { id, method, params } = request;
    tracing::debug!(%method, "json-rpc request");
    let streaming = matches!(method.as_str(), "message/stream" | "tasks/resubscribe");
    let caller = Caller {
        headers: &headers,
        peer,
    };
    match dispatch(&state, &caller, &id, &method, params).await {
        Ok(Answer::Json(result)) => RpcResponse {
            id,
            outcome: Ok(result),
        }
        .into_response(),
        Ok(Answer::Echoed(Answered { result, activated })) => with_extensions_header(
            RpcResponse {
                id,
                outcome: Ok(result),
            }
            .into_response(),
            &activated,
        ),
        Ok(Answer::Stream(response)) => response,
        Err(error) => {
            let error = error.into_rpc(&method);
            if streaming {
                sse::error_stream(&id, &error, state.keep_alive)
            } else {
                RpcResponse {
                    id,
                    outcome: Err(error),
                }
                .into_response()
            }
        }
    }
}

/// Who sent a request: its headers and, when known, the peer address.
struct Caller<'a> {
    headers: &'a HeaderMap,
    peer: Option<SocketAddr>,
}

enum Answer {
    Json(Value),
    Echoed(Answered),
    Stream(Response),
}

async fn dispatch(
    state: &ServerState,
    caller: &Caller<'_>,
    id: &Id,
    method: &str,
    params: Option<Value>,
) -> Result<Answer, ApiError> {
    let params = params.as_ref();
    match method {
        "message/send" => {
            let answered = message_send(state, caller, params).await?;
            Ok(Answer::Echoed(answered))
        }
        "message/stream" => message_stream(state, caller, id, params)
            .await
            .map(Answer::Stream),
        "tasks/get" => {
            let query = v0_3::decode_query_params(params)?;
            let task = state.tasks.get(&query.id).await?;
            Ok(Answer::Json(encode_task(
                &task.with_history_length(query.history_length),
            )))
        }
        "tasks/cancel" => {
            let task_id = v0_3::decode_id_params(params)?;
            let task = state.tasks.cancel(&task_id).await?;
            Ok(Answer::Json(encode_task(&task)))
        }
        "tasks/resubscribe" => {
            let task_id = v0_3::decode_id_params(params)?;
            let subscription = state.tasks.subscribe(&task_id).await?;
            Ok(Answer::Stream(sse::task_stream(
                id.clone(),
                subscription.snapshot,
                subscription.events,
                None,
                state.keep_alive,
            )))
        }
        "tasks/pushNotificationConfig/set"
        | "tasks/pushNotificationConfig/get"
        | "tasks/pushNotificationConfig/list"
        | "tasks/pushNotificationConfig/delete" => Err(RpcError::new(
            ErrorCode::PushNotificationNotSupported,
            "Push notifications are not supported",
        )
        .into()),
        "agent/getAuthenticatedExtendedCard" => Err(RpcError::new(
            ErrorCode::AuthenticatedExtendedCardNotConfigured,
            "Authenticated extended card is not configured",
        )
        .into()),
        _ => Err(RpcError::new(
            ErrorCode::MethodNotFound,
            format!("Method not found: {method}"),
        )
        .into()),
    }
}

async fn message_send(
    state: &ServerState,
    caller: &Caller<'_>,
    params: Option<&Value>,
) -> Result<Answered, ApiError> {
    let params = decode_send(state, params)?;
    let blocking = params.configuration.blocking;
    let history_length = params.configuration.history_length;
    let permit = state.admission.admit(caller.headers, caller.peer)?;
    let prepared = state
        .a2ui
        .prepare(params, requested_extensions(caller.headers));
    let started = state.tasks.start(prepared, false).await?;
    permit.release_when_done(started.running.clone());
    let activated = started.activated.clone();
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
    Ok(Answered {
        result: encode_task(&task.with_history_length(history_length)),
        activated,
    })
}

async fn message_stream(
    state: &ServerState,
    caller: &Caller<'_>,
    id: &Id,
    params: Option<&Value>,
) -> Result<Response, ApiError> {
    let params = decode_send(state, params)?;
    let history_length = params.configuration.history_length;
    let permit = state.admission.admit(caller.headers, caller.peer)?;
    let prepared = state
        .a2ui
        .prepare(params, requested_extensions(caller.headers));
    let started = state.tasks.start(prepared, true).await?;
    permit.release_when_done(started.running.clone());
    let guard = state
        .cancel_on_disconnect
        .then(|| CancelOnDrop(started.running.clone()));
    let response = sse::task_stream(
        id.clone(),
        started.snapshot.with_history_length(history_length),
        started.events,
        guard,
        state.keep_alive,
    );
    Ok(with_extensions_header(response, &started.activated))
}

/// A `message/send` result and the extensions to echo.
struct Answered {
    result: Value,
    activated: Vec<String>,
}

/// `response` with the activated extension URIs in `X-A2A-Extensions` (none: unchanged).
fn with_extensions_header(mut response: Response, activated: &[String]) -> Response {
    if activated.is_empty() {
        return response;
    }
    match HeaderValue::from_str(&activated.join(", ")) {
        Ok(value) => {
            response.headers_mut().insert("x-a2a-extensions", value);
        }
        Err(error) => tracing::warn!(%error, "an activated extension URI is not a header value"),
    }
    response
}

/// Decodes send params and checks the client accepts what the agent produces.
fn decode_send(state: &ServerState, params: Option<&Value>) -> Result<SendRequest, ApiError> {
    let params = v0_3::decode_send_params(params)?;
    if params.configuration.push_notification_config.is_some() {
        return Err(RpcError::new(
            ErrorCode::PushNotificationNotSupported,
            "Push notifications are not supported",
        )
        .into());
    }
    if let Some(accepted) = &params.configuration.accepted_output_modes {
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
    Ok(params)
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
