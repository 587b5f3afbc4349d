//! `POST /`: the JSON-RPC endpoint of A2A 0.3 and 1.0.
//!
//! Reads the envelope, picks the protocol version ([`super::version`]: slash methods are
//! 0.3, PascalCase ones 1.0), dispatches by method, and answers every outcome — success or
//! error — with HTTP 200 and a JSON-RPC response in that version's shape (or an SSE stream for
//! the streaming methods). The only non-200 answers come before an envelope exists: from the
//! gate ([`super::gate`]) 413, 408 or 400 for a body over the limit, too slow or unreadable
//! (each with a JSON-RPC error body, id null) and 415 for a body that is not JSON; 405 from
//! axum for another HTTP method.
//!
//! The body is walked within the decoding budget ([`crate::a2a::budget`]) before it is
//! decoded: a key repeated among the envelope's members is -32600, one repeated deeper or a
//! broken budget (too many parts, too long a part or message, too many values) -32602.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use serde::Serialize;
use serde_json::Value;
use serde_json::value::RawValue;

use super::ServerState;
use super::admission::with_retry_after;
use super::error::{ApiError, outcome_label};
use super::ops::{self, with_extensions_header};
use super::push_methods;
use super::sse::{self, Framing};
use super::tenancy::{self, PathTenant};
use super::version::{self, Version};
use crate::a2a::budget;
use crate::a2a::jsonrpc::{self, ErrorCode, Id, RpcError, Success};
use crate::a2a::{SendRequest, v0_3, v1_0};
use crate::observe::Binding;
use crate::request::Principal;
use crate::store::Owner;

/// A JSON-RPC response: HTTP 200 and the envelope. The one place an outcome becomes HTTP.
pub(crate) struct RpcResponse {
    id: Id,
    version: Version,
    outcome: Result<Payload, RpcError>,
}

/// A method's result: a `Value`, or JSON text encoded straight from the model.
#[derive(Serialize)]
#[serde(untagged)]
enum Payload {
    Value(Value),
    Encoded(Box<RawValue>),
}

impl Payload {
    /// `result` serialized straight from the model (no `Value` tree).
    fn encoded(result: &impl Serialize) -> Result<Payload, RpcError> {
        // Serializing borrowed strings and JSON values cannot fail.
        serde_json::value::to_raw_value(result)
            .map(Payload::Encoded)
            .map_err(|_| RpcError::internal())
    }
}

impl IntoResponse for RpcResponse {
    fn into_response(self) -> Response {
        match self.outcome {
            Ok(result) => Json(Success::new(&self.id, result)).into_response(),
            Err(error) => with_retry_after(
                Json(Framing::Rpc(self.id, self.version).error(&error)).into_response(),
                &error,
            ),
        }
    }
}

/// Handles one JSON-RPC request.
pub(crate) async fn handle(
    State(state): State<Arc<ServerState>>,
    principal: Principal,
    path_tenant: Option<Extension<PathTenant>>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let requested = version::requested(&headers, None);
    // Errors before the method is known answer in the shape the header asked for.
    let header_version = requested.clone().ok().flatten().unwrap_or(Version::V0_3);
    // The budget walk first: a body that breaks it is never decoded into a model.
    let decoded = budget::check(&body, &state.budget)
        .map_err(|refusal| refused_envelope(&body, &refusal))
        .and_then(|()| jsonrpc::decode_request_raw(&body));
    let request = match decoded {
        Ok(request) => request,
        Err((id, error)) => {
            tracing::debug!(code = error.code.code(), message = %error.message, "bad envelope");
            state
                .meter
                .request(Binding::JsonRpc, "none", outcome_label(error.code));
            return RpcResponse {
                id,
                version: header_version,
                outcome: Err(error),
            }
            .into_response();
        }
    };
    let jsonrpc::RawRequest { id, method, params } = request;
    let params = params.as_deref();
    tracing::debug!(%method, "json-rpc request");
    let version = version::of_method(&method);
    let other_tenant = if state.tenancy {
        let named = tenancy::Named::of(params.map_or(&[][..], |params| params.get().as_bytes()));
        tenancy::check(&principal, path_tenant.as_deref(), &named).err()
    } else {
        None
    };
    let streaming = matches!(
        &*method,
        "message/stream" | "tasks/resubscribe" | "SendStreamingMessage" | "SubscribeToTask"
    );
    let outcome = match (requested, version, other_tenant) {
        (Err(error), _, _) => Err(ApiError::from(error)),
        (Ok(_), _, Some(refusal)) => Err(refusal.into()),
        (Ok(Some(Version::V0_3)), Version::V1_0, None) => Err(RpcError::new(
            ErrorCode::MethodNotFound,
            format!("Method not found: {method} is an A2A 1.0 method, but A2A-Version is 0.3"),
        )
        .into()),
        (Ok(_), Version::V0_3, None) => {
            dispatch_0_3(&state, &principal, &headers, &id, &method, params).await
        }
        (Ok(_), Version::V1_0, None) => {
            dispatch_1_0(&state, &principal, &headers, &id, &method, params).await
        }
    };
    respond(outcome, id, version, &method, streaming, &state)
}

/// The response to a request of `method` whose id and version are `id` and `version`.
fn respond(
    outcome: Result<Answer, ApiError>,
    id: Id,
    version: Version,
    method: &str,
    streaming: bool,
    state: &ServerState,
) -> Response {
    let label = crate::observe::method_label(method);
    if outcome.is_ok() {
        state.meter.request(Binding::JsonRpc, label, "ok");
    }
    match outcome {
        Ok(Answer::Json(result)) => RpcResponse {
            id,
            version,
            outcome: Ok(result),
        }
        .into_response(),
        Ok(Answer::Echoed(result, activated)) => with_extensions_header(
            RpcResponse {
                id,
                version,
                outcome: Ok(result),
            }
            .into_response(),
            &activated,
        ),
        Ok(Answer::Stream(response)) => response,
        Err(error) => {
            let error = error.into_rpc(method);
            state
                .meter
                .request(Binding::JsonRpc, label, outcome_label(error.code));
            // A 0.3 stream that fails before it starts still answers as a stream (one error
            // event), which 0.3 clients expect; a 1.0 one answers the JSON-RPC error as plain
            // JSON, which the 1.x SDKs read (and the A2A TCK requires).
            if streaming && version == Version::V0_3 {
                let stream =
                    sse::error_stream(&Framing::Rpc(id, version), &error, state.keep_alive);
                with_retry_after(stream, &error)
            } else {
                RpcResponse {
                    id,
                    version,
                    outcome: Err(error),
                }
                .into_response()
            }
        }
    }
}

/// The id and error of a body the decoding budget refused. Only a body that is JSON and a
/// request object has an id to echo: a parse error answers `"id": null` (the id a lenient
/// scan might find is not to be trusted), and anything but an object (a bare array of arrays
/// too deep, say) is not a request at all, -32600.
fn refused_envelope(body: &[u8], refusal: &budget::Refusal) -> (Id, RpcError) {
    let error = refusal.to_rpc(true);
    if error.code == ErrorCode::ParseError {
        return (Id::Null, error);
    }
    let object = body.iter().find(|byte| !byte.is_ascii_whitespace()) == Some(&b'{');
    if !object {
        let error = RpcError::new(
            ErrorCode::InvalidRequest,
            format!(
                "Invalid request: the body is not a JSON-RPC request object ({})",
                refusal.message
            ),
        );
        return (Id::Null, error);
    }
    (jsonrpc::peek_id(body), error)
}

enum Answer {
    Json(Payload),
    /// A result and the extension URIs to echo.
    Echoed(Payload, Vec<String>),
    Stream(Response),
}

impl Answer {
    fn value(result: Value) -> Answer {
        Answer::Json(Payload::Value(result))
    }
}

/// `params` read into a `Value`, for the methods decoded from one.
fn params_value(params: Option<&RawValue>) -> Result<Option<Value>, ApiError> {
    params
        .map(|raw| serde_json::from_str(raw.get()))
        .transpose()
        .map_err(|error| {
            RpcError::new(ErrorCode::ParseError, format!("Parse error: {error}")).into()
        })
}

/// 1.0 send params, decoded straight from their text when they read that way.
fn send_params_1_0(params: Option<&RawValue>) -> Result<SendRequest, ApiError> {
    if let Some(decoded) = params.and_then(|raw| v1_0::decode_send_json(raw.get())) {
        return Ok(decoded?);
    }
    Ok(v1_0::decode_send_params(params_value(params)?.as_ref())?)
}

/// 0.3 delete names the config it deletes.
fn v0_3_missing_config_id() -> ApiError {
    RpcError::new(
        ErrorCode::InvalidParams,
        "Invalid params: params.pushNotificationConfigId: missing",
    )
    .into()
}

fn method_not_found(method: &str) -> ApiError {
    RpcError::new(
        ErrorCode::MethodNotFound,
        format!("Method not found: {method}"),
    )
    .into()
}

async fn dispatch_0_3(
    state: &ServerState,
    principal: &Principal,
    headers: &HeaderMap,
    id: &Id,
    method: &str,
    params: Option<&RawValue>,
) -> Result<Answer, ApiError> {
    let owner = principal.owner();
    let params = params_value(params)?;
    let params = params.as_ref();
    let framing = || Framing::Rpc(id.clone(), Version::V0_3);
    match method {
        "message/send" => {
            let sent = ops::send(
                state,
                principal.clone(),
                headers,
                v0_3::decode_send_params(params)?,
            )
            .await?;
            let result = match &sent.answer {
                ops::Answer::Task(task) => v0_3::encode_task(task),
                ops::Answer::Message(message) => v0_3::encode_message(message),
            };
            Ok(Answer::Echoed(Payload::Value(result), sent.activated))
        }
        "message/stream" => {
            let send = v0_3::decode_send_params(params)?;
            ops::stream(state, principal.clone(), headers, send, framing())
                .await
                .map(Answer::Stream)
        }
        "tasks/get" => {
            let query = v0_3::decode_query_params(params)?;
            let task = state.tasks.get(&owner, &query.id).await?;
            Ok(Answer::value(v0_3::encode_task(
                &task.with_history_length(query.history_length),
            )))
        }
        "tasks/cancel" => {
            let task_id = v0_3::decode_id_params(params)?;
            let task = state.tasks.cancel(&owner, &task_id).await?;
            Ok(Answer::value(v0_3::encode_task(&task)))
        }
        "tasks/resubscribe" => {
            let task_id = v0_3::decode_id_params(params)?;
            ops::subscribe(state, &owner, &task_id, framing())
                .await
                .map(Answer::Stream)
        }
        "tasks/pushNotificationConfig/set"
        | "tasks/pushNotificationConfig/get"
        | "tasks/pushNotificationConfig/list"
        | "tasks/pushNotificationConfig/delete" => push_0_3(state, &owner, method, params).await,
        "agent/getAuthenticatedExtendedCard" => {
            ops::extended_card(state, headers, Version::V0_3).map(Answer::value)
        }
        _ => Err(method_not_found(method)),
    }
}

async fn dispatch_1_0(
    state: &ServerState,
    principal: &Principal,
    headers: &HeaderMap,
    id: &Id,
    method: &str,
    raw: Option<&RawValue>,
) -> Result<Answer, ApiError> {
    let owner = principal.owner();
    let framing = || Framing::Rpc(id.clone(), Version::V1_0);
    match method {
        "SendMessage" => {
            let sent = ops::send(state, principal.clone(), headers, send_params_1_0(raw)?).await?;
            let result = match &sent.answer {
                ops::Answer::Task(task) => Payload::encoded(&v1_0::send_result(task))?,
                ops::Answer::Message(message) => Payload::encoded(&v1_0::message_result(message))?,
            };
            Ok(Answer::Echoed(result, sent.activated))
        }
        "SendStreamingMessage" => {
            let send = send_params_1_0(raw)?;
            ops::stream(state, principal.clone(), headers, send, framing())
                .await
                .map(Answer::Stream)
        }
        "GetTask" => {
            let query = v1_0::decode_query_params(params_value(raw)?.as_ref())?;
            let task = state.tasks.get(&owner, &query.id).await?;
            Ok(Answer::value(v1_0::encode_task(
                &task.with_history_length(query.history_length),
            )))
        }
        "ListTasks" => {
            let query = v1_0::decode_list_params(params_value(raw)?.as_ref())?;
            let page = state.tasks.list(&owner, &query).await?;
            let result = Payload::encoded(&v1_0::page_result(&page, query.include_artifacts))?;
            Ok(Answer::Json(result))
        }
        "CancelTask" => {
            let task_id = v1_0::decode_id_params(params_value(raw)?.as_ref())?;
            let task = state.tasks.cancel(&owner, &task_id).await?;
            Ok(Answer::value(v1_0::encode_task(&task)))
        }
        "SubscribeToTask" => {
            let task_id = v1_0::decode_id_params(params_value(raw)?.as_ref())?;
            ops::subscribe(state, &owner, &task_id, framing())
                .await
                .map(Answer::Stream)
        }
        "CreateTaskPushNotificationConfig"
        | "GetTaskPushNotificationConfig"
        | "ListTaskPushNotificationConfigs"
        | "DeleteTaskPushNotificationConfig" => {
            push_1_0(state, &owner, method, params_value(raw)?.as_ref()).await
        }
        "GetExtendedAgentCard" => {
            ops::extended_card(state, headers, Version::V1_0).map(Answer::value)
        }
        _ => Err(method_not_found(method)),
    }
}

/// The 0.3 push notification config methods (push must be on).
async fn push_0_3(
    state: &ServerState,
    owner: &Owner,
    method: &str,
    params: Option<&Value>,
) -> Result<Answer, ApiError> {
    push_methods::enabled(state)?;
    match method {
        "tasks/pushNotificationConfig/set" => {
            let request = v0_3::decode_push_set_params(params)?;
            let task_id = request.task_id.clone();
            let config = push_methods::set(state, owner, request).await?;
            Ok(Answer::value(v0_3::encode_push_config(&task_id, &config)))
        }
        "tasks/pushNotificationConfig/get" => {
            let query = v0_3::decode_push_query_params(params)?;
            let config = push_methods::get(state, owner, &query).await?;
            Ok(Answer::value(v0_3::encode_push_config(
                &query.task_id,
                &config,
            )))
        }
        "tasks/pushNotificationConfig/list" => {
            let query = v0_3::decode_push_query_params(params)?;
            let configs = push_methods::list(state, owner, &query.task_id).await?;
            let encoded = configs
                .iter()
                .map(|config| v0_3::encode_push_config(&query.task_id, config))
                .collect();
            Ok(Answer::value(Value::Array(encoded)))
        }
        "tasks/pushNotificationConfig/delete" => {
            let query = v0_3::decode_push_query_params(params)?;
            if query.config_id.is_none() {
                return Err(v0_3_missing_config_id());
            }
            push_methods::delete(state, owner, &query).await?;
            Ok(Answer::value(Value::Null))
        }
        _ => Err(method_not_found(method)),
    }
}

/// The 1.0 push notification config methods (push must be on).
async fn push_1_0(
    state: &ServerState,
    owner: &Owner,
    method: &str,
    params: Option<&Value>,
) -> Result<Answer, ApiError> {
    push_methods::enabled(state)?;
    match method {
        "CreateTaskPushNotificationConfig" => {
            let request = v1_0::decode_push_config_params(params, None)?;
            let task_id = request.task_id.clone();
            let config = push_methods::set(state, owner, request).await?;
            Ok(Answer::value(v1_0::encode_push_config(&task_id, &config)))
        }
        "GetTaskPushNotificationConfig" => {
            let query = v1_0::decode_push_config_query(params)?;
            let config = push_methods::get(state, owner, &query).await?;
            Ok(Answer::value(v1_0::encode_push_config(
                &query.task_id,
                &config,
            )))
        }
        "ListTaskPushNotificationConfigs" => {
            let query = v1_0::decode_push_list_params(params, None)?;
            let (configs, next) = push_methods::page(state, owner, &query).await?;
            Ok(Answer::value(v1_0::encode_push_list(
                &query.task_id,
                &configs,
                &next,
            )))
        }
        "DeleteTaskPushNotificationConfig" => {
            let query = v1_0::decode_push_config_query(params)?;
            push_methods::delete(state, owner, &query).await?;
            Ok(Answer::value(Value::Object(serde_json::Map::new())))
        }
        _ => Err(method_not_found(method)),
    }
}
