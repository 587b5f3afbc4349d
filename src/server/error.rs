//! Server errors: building the server, and the failures a JSON-RPC call can end in.

use crate::a2a::TaskState;
use crate::a2a::jsonrpc::RpcError;
use crate::a2a::v0_3::WireError;
use crate::task::TaskError;

/// Why [`ServerBuilder::build`](super::ServerBuilder::build) failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum BuildError {
    /// The default final state is not one a task can stop in.
    #[error(
        "final state {0} is not a state a task can stop in \
         (use input-required, auth-required or a terminal state)"
    )]
    InvalidFinalState(TaskState),
    /// The `default_capabilities` are not an A2UI capabilities object; the reason.
    #[error("the default A2UI capabilities are malformed: {0}")]
    InvalidDefaultCapabilities(String),
    /// An extended card was given, but no auth token: every caller could read it.
    #[error("an extended card is for authenticated callers: also call .auth_token()")]
    ExtendedCardWithoutAuth,
    /// The cards cannot be signed: the reason (no fixed card URL, a key that fails).
    #[error("the agent card cannot be signed: {0}")]
    CardSigning(String),
    /// The push notification client could not be built; the reason.
    #[error("push notifications cannot start: {0}")]
    Push(String),
    /// The AG-UI path is not a plain absolute path apart from the A2A routes; the reason.
    #[error("the AG-UI path {0}")]
    InvalidAgUiPath(String),
    /// The MCP path is not a plain absolute path apart from the A2A routes and the AG-UI
    /// path; the reason.
    #[cfg(feature = "mcp")]
    #[error("the MCP path {0}")]
    InvalidMcpPath(String),
}

/// Anything a JSON-RPC method can fail with; becomes an [`RpcError`] (and a log line) in
/// exactly one place, [`ApiError::into_rpc`].
#[derive(Debug)]
pub(crate) enum ApiError {
    WireV0(WireError),
    WireV1(crate::a2a::v1_0::WireError),
    Task(TaskError),
    Rpc(RpcError),
}

impl From<WireError> for ApiError {
    fn from(error: WireError) -> Self {
        ApiError::WireV0(error)
    }
}

impl From<crate::a2a::v1_0::WireError> for ApiError {
    fn from(error: crate::a2a::v1_0::WireError) -> Self {
        ApiError::WireV1(error)
    }
}

impl From<TaskError> for ApiError {
    fn from(error: TaskError) -> Self {
        ApiError::Task(error)
    }
}

impl From<RpcError> for ApiError {
    fn from(error: RpcError) -> Self {
        ApiError::Rpc(error)
    }
}

impl ApiError {
    /// The error the client sees. Server faults are logged at `error` with their detail
    /// (the client gets a generic message); client faults at `debug`.
    pub(crate) fn into_rpc(self, method: &str) -> RpcError {
        let detail = match &self {
            ApiError::WireV0(error) => error.to_string(),
            ApiError::WireV1(error) => error.to_string(),
            ApiError::Task(error) => error.to_string(),
            ApiError::Rpc(error) => error.to_string(),
        };
        let error = match self {
            ApiError::WireV0(error) => RpcError::from(error),
            ApiError::WireV1(error) => RpcError::from(error),
            ApiError::Task(error) => RpcError::from(error),
            ApiError::Rpc(error) => error,
        };
        if error.code.is_client_fault() {
            tracing::debug!(method, code = error.code.code(), %detail, "request refused");
        } else {
            tracing::error!(method, code = error.code.code(), %detail, "request failed");
        }
        error
    }
}

/// The `outcome` label of a request that failed with `code`: what an operator tells apart
/// (the client's fault, the server's, the server too busy), never the client's words.
pub(crate) fn outcome_label(code: crate::a2a::jsonrpc::ErrorCode) -> &'static str {
    use crate::a2a::jsonrpc::ErrorCode;
    match code {
        ErrorCode::ServerBusy => "busy",
        ErrorCode::InternalError | ErrorCode::InvalidAgentResponse => "server_error",
        ErrorCode::TaskNotFound => "not_found",
        _ => "client_error",
    }
}

/// The `outcome` label of an HTTP answer with `status` (see [`outcome_label`]).
pub(crate) fn status_outcome(status: axum::http::StatusCode) -> &'static str {
    use axum::http::StatusCode;
    if status.is_success() {
        "ok"
    } else if status == StatusCode::SERVICE_UNAVAILABLE || status == StatusCode::TOO_MANY_REQUESTS {
        "busy"
    } else if status == StatusCode::NOT_FOUND {
        "not_found"
    } else if status.is_server_error() {
        "server_error"
    } else {
        "client_error"
    }
}
