//! The gRPC binding of A2A 1.0 (spec §10): the `A2AService` of `a2a.proto`, every method,
//! over the same operations as JSON-RPC and HTTP+JSON.
//!
//! It is served on the HTTP port, beside the other bindings: a request whose path is
//! `/lf.a2a.v1.A2AService/{Method}` goes to tonic's service (HTTP/2; `A2uiServer::serve`
//! speaks it without TLS, and gRPC clients connect with prior knowledge). One port means
//! one set of layers: the `Host` check, authentication (`authorization` metadata is the
//! header), the connection limits and the per-client task cap hold for gRPC as for the
//! rest, and the card's `GRPC` interface is the same URL as the others.
//!
//! Each request message is read as ProtoJSON ([`wire`]) and decoded by the 1.0 codec, under
//! the decoding budget, then handled by [`super::ops`]; answers go back the same way. Its
//! metadata are its headers: `a2a-version` (absent or 1.0), `a2a-extensions` (the activated
//! ones are echoed in the response metadata). A `tenant` field naming another tenant than
//! the caller's is answered as a missing task, as on the other bindings. Errors are gRPC
//! statuses with the code of spec §5.4 and a `google.rpc.ErrorInfo` ([`status`]).

mod codec;
pub(crate) mod counted;
mod events;
mod status;
mod wire;

use std::sync::Arc;

use axum::http::{HeaderMap, HeaderValue};
use serde::Serialize;
use tonic::{Request, Response, Status};

use super::ServerState;
use super::error::ApiError;
use super::ops;
use super::push_methods;
use super::tenancy::{self, PathTenant};
use super::version::{self, Version};
use crate::a2a::budget;
use crate::a2a::jsonrpc::{ErrorCode, RpcError};
use crate::a2a::v1_0;
use crate::request::Principal;
use wire::Wire;

#[allow(
    unreachable_pub,
    missing_docs,
    clippy::all,
    clippy::pedantic,
    rustdoc::all
)]
mod proto {
    tonic::include_proto!("lf.a2a.v1");
}

use proto::a2a_service_server::{A2aService, A2aServiceServer};

/// The path prefix of the service's methods.
pub(crate) const PATH_PREFIX: &str = "/lf.a2a.v1.A2AService/";

/// The tonic service for `state`'s agent, to mount at [`PATH_PREFIX`]; `None` if the
/// compiled descriptors do not read (never for a good build; logged).
pub(crate) fn service(
    state: Arc<ServerState>,
    max_message: usize,
) -> Option<A2aServiceServer<Grpc>> {
    let Some(wire) = Wire::new() else {
        tracing::error!("the compiled a2a.proto descriptors do not decode: gRPC is off");
        return None;
    };
    Some(A2aServiceServer::new(Grpc { state, wire }).max_decoding_message_size(max_message))
}

/// The `A2AService` implementation.
pub(crate) struct Grpc {
    state: Arc<ServerState>,
    wire: Wire,
}

/// What every method reads of its request: who calls, the metadata as headers, and the
/// message as ProtoJSON (checked against the decoding budget and the caller's tenant).
struct Call {
    principal: Principal,
    headers: HeaderMap,
    json: String,
}

impl Call {
    /// The JSON as a `Value`, for the decoders that take one.
    fn value(&self) -> Result<serde_json::Value, ApiError> {
        serde_json::from_str(&self.json).map_err(|error| {
            RpcError::new(ErrorCode::ParseError, format!("Parse error: {error}")).into()
        })
    }
}

impl Grpc {
    /// Reads `request` (a message named `name`) into a [`Call`], refusing a version other
    /// than 1.0, a message over the decoding budget and another tenant.
    fn call<M: prost::Message>(&self, request: Request<M>, name: &str) -> Result<Call, ApiError> {
        let (metadata, extensions, message) = request.into_parts();
        let headers = metadata.into_headers();
        match version::requested(&headers, None)? {
            None | Some(Version::V1_0) => {}
            Some(Version::V0_3) => return Err(version::not_supported("0.3").into()),
        }
        let principal = extensions.get::<Principal>().cloned().unwrap_or_default();
        let json = self.wire.to_json(&message, name)?;
        budget::check(json.as_bytes(), &self.state.budget)
            .map_err(|refusal| ApiError::from(refusal.to_rpc(false)))?;
        if self.state.tenancy {
            let named = tenancy::Named::of(json.as_bytes());
            tenancy::check(&principal, extensions.get::<PathTenant>(), &named)?;
        }
        Ok(Call {
            principal,
            headers,
            json,
        })
    }

    /// `json` (a 1.0 codec answer) as the message named `name`.
    fn reply<M: prost::Message + Default>(
        &self,
        json: &impl Serialize,
        name: &str,
    ) -> Result<Response<M>, Status> {
        self.wire.message_of(json, name).map(Response::new)
    }
}

/// `response` with the activated extensions in its `a2a-extensions` metadata.
fn echoed<M>(mut response: Response<M>, activated: &[String]) -> Response<M> {
    if activated.is_empty() {
        return response;
    }
    match HeaderValue::from_str(&activated.join(", ")) {
        Ok(value) => {
            let mut headers = std::mem::take(response.metadata_mut()).into_headers();
            headers.insert("a2a-extensions", value);
            *response.metadata_mut() = tonic::metadata::MetadataMap::from_headers(headers);
        }
        Err(error) => tracing::warn!(%error, "an activated extension URI is not a header value"),
    }
    response
}

type EventStream = events::EventStream;

#[tonic::async_trait]
impl A2aService for Grpc {
    async fn send_message(
        &self,
        request: Request<proto::SendMessageRequest>,
    ) -> Result<Response<proto::SendMessageResponse>, Status> {
        const OP: &str = "SendMessage";
        let result = async {
            let call = self.call(request, "SendMessageRequest")?;
            let send = send_request(&call)?;
            ops::send(&self.state, call.principal, &call.headers, send).await
        };
        let sent = result.await.map_err(|error| status::of(error, OP))?;
        let response = match &sent.answer {
            ops::Answer::Task(task) => self.reply(&v1_0::send_result(task), "SendMessageResponse"),
            ops::Answer::Message(message) => {
                self.reply(&v1_0::message_result(message), "SendMessageResponse")
            }
        }?;
        Ok(echoed(response, &sent.activated))
    }

    type SendStreamingMessageStream = EventStream;

    async fn send_streaming_message(
        &self,
        request: Request<proto::SendMessageRequest>,
    ) -> Result<Response<EventStream>, Status> {
        let call = self
            .call(request, "SendMessageRequest")
            .map_err(|error| status::of(error, "SendStreamingMessage"))?;
        events::send_streaming(&self.state, &self.wire, call).await
    }

    async fn get_task(
        &self,
        request: Request<proto::GetTaskRequest>,
    ) -> Result<Response<proto::Task>, Status> {
        let result = async {
            let call = self.call(request, "GetTaskRequest")?;
            let query = v1_0::decode_query_params(Some(&call.value()?))?;
            let task = self
                .state
                .tasks
                .get(&call.principal.owner(), &query.id)
                .await?;
            Ok(v1_0::encode_task(
                &task.with_history_length(query.history_length),
            ))
        };
        let task = result.await.map_err(|error| status::of(error, "GetTask"))?;
        self.reply(&task, "Task")
    }

    async fn list_tasks(
        &self,
        request: Request<proto::ListTasksRequest>,
    ) -> Result<Response<proto::ListTasksResponse>, Status> {
        let result = async {
            let call = self.call(request, "ListTasksRequest")?;
            let query = v1_0::decode_list_params(Some(&call.value()?))?;
            let page = self
                .state
                .tasks
                .list(&call.principal.owner(), &query)
                .await?;
            Ok((page, query.include_artifacts))
        };
        let (page, artifacts) = result
            .await
            .map_err(|error| status::of(error, "ListTasks"))?;
        self.reply(&v1_0::page_result(&page, artifacts), "ListTasksResponse")
    }

    async fn cancel_task(
        &self,
        request: Request<proto::CancelTaskRequest>,
    ) -> Result<Response<proto::Task>, Status> {
        let result = async {
            let call = self.call(request, "CancelTaskRequest")?;
            let id = v1_0::decode_id_params(Some(&call.value()?))?;
            Ok(self
                .state
                .tasks
                .cancel(&call.principal.owner(), &id)
                .await?)
        };
        let task = result
            .await
            .map_err(|error| status::of(error, "CancelTask"))?;
        self.reply(&v1_0::encode_task(&task), "Task")
    }

    type SubscribeToTaskStream = EventStream;

    async fn subscribe_to_task(
        &self,
        request: Request<proto::SubscribeToTaskRequest>,
    ) -> Result<Response<EventStream>, Status> {
        let result = async {
            let call = self.call(request, "SubscribeToTaskRequest")?;
            let id = v1_0::decode_id_params(Some(&call.value()?))?;
            Ok((call.principal.owner(), id))
        };
        let (owner, id) = result
            .await
            .map_err(|error| status::of(error, "SubscribeToTask"))?;
        events::subscribe(&self.state, &self.wire, &owner, &id).await
    }

    async fn create_task_push_notification_config(
        &self,
        request: Request<proto::TaskPushNotificationConfig>,
    ) -> Result<Response<proto::TaskPushNotificationConfig>, Status> {
        let result = async {
            let call = self.call(request, "TaskPushNotificationConfig")?;
            push_methods::enabled(&self.state)?;
            let request = v1_0::decode_push_config_params(Some(&call.value()?), None)?;
            let task_id = request.task_id.clone();
            let config = push_methods::set(&self.state, &call.principal.owner(), request).await?;
            Ok(v1_0::encode_push_config(&task_id, &config))
        };
        let config = result
            .await
            .map_err(|error| status::of(error, "CreateTaskPushNotificationConfig"))?;
        self.reply(&config, "TaskPushNotificationConfig")
    }

    async fn get_task_push_notification_config(
        &self,
        request: Request<proto::GetTaskPushNotificationConfigRequest>,
    ) -> Result<Response<proto::TaskPushNotificationConfig>, Status> {
        let result = async {
            let call = self.call(request, "GetTaskPushNotificationConfigRequest")?;
            push_methods::enabled(&self.state)?;
            let query = v1_0::decode_push_config_query(Some(&call.value()?))?;
            let config = push_methods::get(&self.state, &call.principal.owner(), &query).await?;
            Ok(v1_0::encode_push_config(&query.task_id, &config))
        };
        let config = result
            .await
            .map_err(|error| status::of(error, "GetTaskPushNotificationConfig"))?;
        self.reply(&config, "TaskPushNotificationConfig")
    }

    async fn list_task_push_notification_configs(
        &self,
        request: Request<proto::ListTaskPushNotificationConfigsRequest>,
    ) -> Result<Response<proto::ListTaskPushNotificationConfigsResponse>, Status> {
        let result = async {
            let call = self.call(request, "ListTaskPushNotificationConfigsRequest")?;
            push_methods::enabled(&self.state)?;
            let query = v1_0::decode_push_list_params(Some(&call.value()?), None)?;
            let owner = call.principal.owner();
            let (configs, next) = push_methods::page(&self.state, &owner, &query).await?;
            Ok(v1_0::encode_push_list(&query.task_id, &configs, &next))
        };
        let list = result
            .await
            .map_err(|error| status::of(error, "ListTaskPushNotificationConfigs"))?;
        self.reply(&list, "ListTaskPushNotificationConfigsResponse")
    }

    async fn get_extended_agent_card(
        &self,
        request: Request<proto::GetExtendedAgentCardRequest>,
    ) -> Result<Response<proto::AgentCard>, Status> {
        let result = self
            .call(request, "GetExtendedAgentCardRequest")
            .and_then(|call| ops::extended_card(&self.state, &call.headers, Version::V1_0));
        let card = result.map_err(|error| status::of(error, "GetExtendedAgentCard"))?;
        self.reply(&card, "AgentCard")
    }

    async fn delete_task_push_notification_config(
        &self,
        request: Request<proto::DeleteTaskPushNotificationConfigRequest>,
    ) -> Result<Response<()>, Status> {
        let result = async {
            let call = self.call(request, "DeleteTaskPushNotificationConfigRequest")?;
            push_methods::enabled(&self.state)?;
            let query = v1_0::decode_push_config_query(Some(&call.value()?))?;
            push_methods::delete(&self.state, &call.principal.owner(), &query).await
        };
        result
            .await
            .map_err(|error| status::of(error, "DeleteTaskPushNotificationConfig"))?;
        Ok(Response::new(()))
    }
}

/// The send request of a `SendMessageRequest` call, decoded as the JSON bindings decode it.
fn send_request(call: &Call) -> Result<crate::a2a::SendRequest, ApiError> {
    match v1_0::decode_send_json(&call.json) {
        Some(decoded) => Ok(decoded?),
        None => Ok(v1_0::decode_send_params(Some(&call.value()?))?),
    }
}
