//! The HTTP+JSON binding of A2A 1.0 (spec §11), mounted beside the JSON-RPC route.
//!
//! - `POST /message:send`, `POST /message:stream` (SSE of bare `StreamResponse`s);
//! - `GET /tasks/{id}`, `GET /tasks` (filters and cursor pagination in the query),
//!   `POST /tasks/{id}:cancel`, `GET|POST /tasks/{id}:subscribe` (the proto says GET, the
//!   spec's prose and the Python SDK POST);
//! - `POST|GET /tasks/{id}/pushNotificationConfigs`, `GET|DELETE
//!   /tasks/{id}/pushNotificationConfigs/{configId}` (push notification configs, see
//!   [`super::push_methods`]); `GET /extendedAgentCard` the extended card, if one is configured.
//!
//! Errors are `google.rpc.Status` bodies with the status code of spec §5.4 and a
//! `google.rpc.ErrorInfo` detail. Only 1.0 is served here: `A2A-Version` (header or query
//! parameter) absent or `1.0`; anything else is `VersionNotSupportedError`. Bodies are read as
//! JSON whatever their content type (`application/a2a+json` or `application/json`), and
//! members the binding does not define are ignored.
//!
//! Answers are `application/a2a+json`, the type spec §11.1 says SHOULD be used, to a client
//! that asks for it: its `Accept` names it, or names no JSON type and its body was sent as
//! `application/a2a+json`. Other clients (`Accept: */*` or `application/json`, as the A2A TCK
//! and most HTTP libraries send) get the same JSON as `application/json`.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{Path, RawQuery, Request, State};
use axum::http::header::{ACCEPT, CONTENT_TYPE};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::ServerState;
use super::admission::with_retry_after;
use super::error::{ApiError, status_outcome};
use super::ops::{self, with_extensions_header};
use super::push_methods;
use super::sse::Framing;
use super::version::{self, Version};
use crate::a2a::budget;
use crate::a2a::jsonrpc::{ErrorCode, RpcError};
use crate::a2a::{PushConfigQuery, v1_0};
use crate::observe::Binding;
use crate::request::Principal;

const CONTENT_TYPE_A2A: &str = "application/a2a+json";

/// Labels a JSON answer `application/json` unless the client asked for
/// `application/a2a+json` (see the module docs). A route layer of the binding's routes.
pub(crate) async fn negotiate_content_type(request: Request, next: Next) -> Response {
    let a2a_json = wants_a2a_json(request.headers());
    let mut response = next.run(request).await;
    let labeled_a2a = response
        .headers()
        .get(CONTENT_TYPE)
        .is_some_and(|value| value.as_bytes() == CONTENT_TYPE_A2A.as_bytes());
    if labeled_a2a && !a2a_json {
        response
            .headers_mut()
            .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    }
    response
}

/// Whether the request asks for `application/a2a+json` answers.
fn wants_a2a_json(headers: &HeaderMap) -> bool {
    let media_types = |name| {
        headers
            .get_all(name)
            .iter()
            .filter_map(|value| value.to_str().ok())
            .flat_map(|value| value.split(','))
            .map(|item| {
                item.split(';')
                    .next()
                    .unwrap_or("")
                    .trim()
                    .to_ascii_lowercase()
            })
            .collect::<Vec<_>>()
    };
    let accepted = media_types(ACCEPT);
    if accepted.iter().any(|mime| mime == CONTENT_TYPE_A2A) {
        return true;
    }
    if accepted.iter().any(|mime| mime == "application/json") {
        return false;
    }
    media_types(CONTENT_TYPE)
        .first()
        .is_some_and(|mime| mime == CONTENT_TYPE_A2A)
}

/// A JSON answer of the binding.
fn json(status: StatusCode, body: &Value) -> Response {
    (status, [(CONTENT_TYPE, CONTENT_TYPE_A2A)], body.to_string()).into_response()
}

/// A 200 answer whose body is `result` serialized straight from the model (no `Value`).
fn encoded(result: &impl Serialize) -> Result<Response, RpcError> {
    // Serializing borrowed strings and JSON values cannot fail.
    let body = serde_json::to_string(result).map_err(|_| RpcError::internal())?;
    Ok((StatusCode::OK, [(CONTENT_TYPE, CONTENT_TYPE_A2A)], body).into_response())
}

/// The error answer: status code, `google.rpc.Status` body. Logged like a JSON-RPC error.
fn error_response(error: ApiError, operation: &str) -> Response {
    let error = error.into_rpc(operation);
    let (status, body) = v1_0::rest_error_body(&error);
    let response = json(
        StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
        &body,
    );
    with_retry_after(response, &error)
}

/// The HTTP+JSON answer to a request refused before its handler.
pub(crate) fn refusal(error: RpcError) -> Response {
    error_response(error.into(), "tenant")
}

/// The answer to `operation`, counted in the request metrics.
fn answer(
    state: &ServerState,
    result: Result<Response, ApiError>,
    operation: &'static str,
) -> Response {
    let response = result.unwrap_or_else(|error| error_response(error, operation));
    let outcome = status_outcome(response.status());
    state.meter.request(Binding::Rest, operation, outcome);
    response
}

/// The version check of every route: absent or 1.0.
fn check_version(headers: &HeaderMap, query: Option<&str>) -> Result<(), ApiError> {
    let from_query = query.and_then(version::from_query);
    match version::requested(headers, from_query.as_deref())? {
        None | Some(Version::V1_0) => Ok(()),
        Some(Version::V0_3) => Err(version::not_supported("0.3").into()),
    }
}

/// The body as JSON, once it has passed the decoding budget (which also refuses repeated
/// keys): any refusal is a 400.
fn parse_body(state: &ServerState, body: &Bytes) -> Result<Value, ApiError> {
    budget::check(body, &state.budget).map_err(|refusal| ApiError::from(refusal.to_rpc(false)))?;
    serde_json::from_slice(body).map_err(|error| {
        RpcError::new(ErrorCode::ParseError, format!("Parse error: {error}")).into()
    })
}

/// A `SendMessageRequest` body within the decoding budget, decoded straight from its text
/// when it reads that way.
fn send_body(state: &ServerState, body: &Bytes) -> Result<crate::a2a::SendRequest, ApiError> {
    budget::check(body, &state.budget).map_err(|refusal| ApiError::from(refusal.to_rpc(false)))?;
    let decoded = std::str::from_utf8(body)
        .ok()
        .and_then(v1_0::decode_send_json);
    match decoded {
        Some(decoded) => Ok(decoded?),
        None => Ok(v1_0::decode_send_params(Some(&parse_body(state, body)?))?),
    }
}

/// `POST /message:send`.
pub(crate) async fn message_send(
    State(state): State<Arc<ServerState>>,
    principal: Principal,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let result = async {
        check_version(&headers, query.as_deref())?;
        let sent = ops::send(&state, principal, &headers, send_body(&state, &body)?).await?;
        let response = match &sent.answer {
            ops::Answer::Task(task) => encoded(&v1_0::send_result(task))?,
            ops::Answer::Message(message) => encoded(&v1_0::message_result(message))?,
        };
        Ok(with_extensions_header(response, &sent.activated))
    };
    answer(&state, result.await, "message:send")
}

/// `POST /message:stream`.
pub(crate) async fn message_stream(
    State(state): State<Arc<ServerState>>,
    principal: Principal,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let result = async {
        check_version(&headers, query.as_deref())?;
        let send = send_body(&state, &body)?;
        ops::stream(&state, principal, &headers, send, Framing::Rest).await
    };
    answer(&state, result.await, "message:stream")
}

/// `GET /tasks`: one page of tasks.
pub(crate) async fn list_tasks(
    State(state): State<Arc<ServerState>>,
    principal: Principal,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
) -> Response {
    let result = async {
        check_version(&headers, query.as_deref())?;
        let params = query_params(query.as_deref())?;
        let query = v1_0::decode_list_params(Some(&params))?;
        let page = state.tasks.list(&principal.owner(), &query).await?;
        Ok(encoded(&v1_0::page_result(&page, query.include_artifacts))?)
    };
    answer(&state, result.await, "tasks:list")
}

/// The `{target}` of a task route (`id`, `id:cancel`, ...); under `/{tenant}/` the path
/// also holds the tenant, which [`super::tenancy`] checks.
#[derive(Deserialize)]
pub(crate) struct TaskTarget {
    target: String,
}

/// `GET /tasks/{id}` and `GET /tasks/{id}:subscribe`.
pub(crate) async fn get_task(
    State(state): State<Arc<ServerState>>,
    principal: Principal,
    Path(TaskTarget { target }): Path<TaskTarget>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
) -> Response {
    if let Some(id) = target.strip_suffix(":subscribe") {
        return subscribe(&state, &principal, id, query.as_deref(), &headers).await;
    }
    let result = async {
        check_version(&headers, query.as_deref())?;
        let mut params = query_params(query.as_deref())?;
        if let Value::Object(map) = &mut params {
            map.insert("id".into(), Value::String(target));
        }
        let query = v1_0::decode_query_params(Some(&params))?;
        let task = state.tasks.get(&principal.owner(), &query.id).await?;
        Ok(json(
            StatusCode::OK,
            &v1_0::encode_task(&task.with_history_length(query.history_length)),
        ))
    };
    answer(&state, result.await, "tasks:get")
}

/// `POST /tasks/{id}:cancel` and `POST /tasks/{id}:subscribe`.
pub(crate) async fn task_action(
    State(state): State<Arc<ServerState>>,
    principal: Principal,
    Path(TaskTarget { target }): Path<TaskTarget>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
) -> Response {
    if let Some(id) = target.strip_suffix(":subscribe") {
        return subscribe(&state, &principal, id, query.as_deref(), &headers).await;
    }
    let result = async {
        check_version(&headers, query.as_deref())?;
        let Some(id) = target.strip_suffix(":cancel") else {
            return Err(not_found(&target));
        };
        let task = state.tasks.cancel(&principal.owner(), id).await?;
        Ok(json(StatusCode::OK, &v1_0::encode_task(&task)))
    };
    answer(&state, result.await, "tasks:cancel")
}

async fn subscribe(
    state: &ServerState,
    principal: &Principal,
    id: &str,
    query: Option<&str>,
    headers: &HeaderMap,
) -> Response {
    let result = async {
        check_version(headers, query)?;
        ops::subscribe(state, &principal.owner(), id, Framing::Rest).await
    };
    answer(state, result.await, "tasks:subscribe")
}

/// The task and config of a push-config route.
#[derive(Deserialize)]
pub(crate) struct PushPath {
    id: String,
    config: Option<String>,
}

/// `POST|GET /tasks/{id}/pushNotificationConfigs` (create, list) and
/// `GET|DELETE /tasks/{id}/pushNotificationConfigs/{configId}` (get, delete).
pub(crate) async fn push_configs(
    State(state): State<Arc<ServerState>>,
    principal: Principal,
    method: Method,
    Path(PushPath { id, config }): Path<PushPath>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let owner = principal.owner();
    let result = async {
        check_version(&headers, query.as_deref())?;
        push_methods::enabled(&state)?;
        let query_for = |config_id: String| PushConfigQuery {
            task_id: id.clone(),
            config_id: Some(config_id),
        };
        match (method, config) {
            (Method::POST, None) => {
                let body = parse_body(&state, &body)?;
                let request = v1_0::decode_push_config_params(Some(&body), Some(&id))?;
                let config = push_methods::set(&state, &owner, request).await?;
                Ok(json(
                    StatusCode::OK,
                    &v1_0::encode_push_config(&id, &config),
                ))
            }
            (Method::GET, None) => {
                let params = query_params(query.as_deref())?;
                let list = v1_0::decode_push_list_params(Some(&params), Some(&id))?;
                let (configs, next) = push_methods::page(&state, &owner, &list).await?;
                Ok(json(
                    StatusCode::OK,
                    &v1_0::encode_push_list(&id, &configs, &next),
                ))
            }
            (Method::GET, Some(config_id)) => {
                let config = push_methods::get(&state, &owner, &query_for(config_id)).await?;
                Ok(json(
                    StatusCode::OK,
                    &v1_0::encode_push_config(&id, &config),
                ))
            }
            (Method::DELETE, Some(config_id)) => {
                push_methods::delete(&state, &owner, &query_for(config_id)).await?;
                Ok(json(StatusCode::OK, &Value::Object(Map::new())))
            }
            (method, _) => Err(RpcError::new(
                ErrorCode::MethodNotFound,
                format!("No {method} operation on push notification configs"),
            )
            .into()),
        }
    };
    answer(&state, result.await, "pushNotificationConfigs")
}

/// `GET /extendedAgentCard`.
pub(crate) async fn extended_card(
    State(state): State<Arc<ServerState>>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
) -> Response {
    let result = check_version(&headers, query.as_deref())
        .and_then(|()| ops::extended_card(&state, &headers, Version::V1_0))
        .map(|card| json(StatusCode::OK, &card));
    answer(&state, result, "extendedAgentCard")
}

fn not_found(target: &str) -> ApiError {
    let shown: String = target.chars().take(64).collect();
    RpcError::new(
        ErrorCode::MethodNotFound,
        format!("No operation at /tasks/{shown}"),
    )
    .into()
}

/// The query string as the JSON params of the same request: numbers and booleans typed by
/// the member they fill, repeated names keep the last value.
fn query_params(query: Option<&str>) -> Result<Value, ApiError> {
    let pairs: Vec<(String, String)> = serde_urlencoded::from_str(query.unwrap_or(""))
        .map_err(|error| RpcError::new(ErrorCode::InvalidParams, format!("query: {error}")))?;
    let mut params = Map::new();
    for (key, value) in pairs {
        let typed = match key.as_str() {
            "pageSize" | "historyLength" => match value.parse::<i64>() {
                Ok(number) => Value::from(number),
                Err(_) => {
                    return Err(RpcError::new(
                        ErrorCode::InvalidParams,
                        format!("query.{key}: expected an integer"),
                    )
                    .into());
                }
            },
            "includeArtifacts" => match value.as_str() {
                "true" => Value::Bool(true),
                "false" => Value::Bool(false),
                _ => {
                    return Err(RpcError::new(
                        ErrorCode::InvalidParams,
                        format!("query.{key}: expected true or false"),
                    )
                    .into());
                }
            },
            _ => Value::String(value),
        };
        params.insert(key, typed);
    }
    Ok(Value::Object(params))
}
