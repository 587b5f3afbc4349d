//! The 1.0 error shape: every error carries a `google.rpc.ErrorInfo` naming it.
//!
//! JSON-RPC puts the details array in `error.data`; HTTP+JSON answers a `google.rpc.Status`
//! body (`{"error": {code, status, message, details}}`) with the status code of A2A 1.0
//! §5.4. The reason is the A2A error name (`TASK_NOT_FOUND`), the domain
//! `a2a-protocol.org`, and the metadata the 0.3 error's `data` object held, as strings.

use serde_json::{Map, Value, json};

use crate::a2a::jsonrpc::RpcError;

const ERROR_INFO: &str = "type.googleapis.com/google.rpc.ErrorInfo";
const DOMAIN: &str = "a2a-protocol.org";

/// The `details` of `error`: one `google.rpc.ErrorInfo`.
///
/// # Example
///
/// ```
/// # #[cfg(feature = "unstable-internals")] {
/// use a2ui_agent::a2a::jsonrpc::{ErrorCode, RpcError};
/// use a2ui_agent::a2a::v1_0::error_details;
/// use serde_json::json;
///
/// let error = RpcError::new(ErrorCode::TaskNotFound, "Task not found: t")
///     .with_data(json!({"taskId": "t"}));
/// let details = error_details(&error);
/// assert_eq!(details[0]["reason"], "TASK_NOT_FOUND");
/// assert_eq!(details[0]["metadata"]["taskId"], "t");
/// # }
/// ```
pub fn error_details(error: &RpcError) -> Value {
    let mut info = Map::new();
    info.insert("@type".into(), ERROR_INFO.into());
    info.insert("reason".into(), error.code.reason().into());
    info.insert("domain".into(), DOMAIN.into());
    if let Some(Value::Object(data)) = &error.data {
        let metadata: Map<String, Value> = data
            .iter()
            .map(|(key, value)| {
                let text = match value {
                    Value::String(text) => text.clone(),
                    other => other.to_string(),
                };
                (key.clone(), Value::String(text))
            })
            .collect();
        info.insert("metadata".into(), Value::Object(metadata));
    }
    Value::Array(vec![Value::Object(info)])
}

/// `error` as a JSON-RPC 1.0 error object: code, message and the details in `data`.
///
/// # Example
///
/// ```
/// # #[cfg(feature = "unstable-internals")] {
/// use a2ui_agent::a2a::jsonrpc::{ErrorCode, RpcError};
/// use a2ui_agent::a2a::v1_0::rpc_error;
///
/// let error = rpc_error(&RpcError::new(ErrorCode::VersionNotSupported, "no"));
/// assert_eq!(error["code"], -32009);
/// assert_eq!(error["data"][0]["reason"], "VERSION_NOT_SUPPORTED");
/// # }
/// ```
pub fn rpc_error(error: &RpcError) -> Value {
    json!({
        "code": error.code.code(),
        "message": error.message,
        "data": error_details(error),
    })
}

/// The HTTP status code and `google.rpc.Status` body of `error` in the HTTP+JSON binding.
///
/// # Example
///
/// ```
/// # #[cfg(feature = "unstable-internals")] {
/// use a2ui_agent::a2a::jsonrpc::{ErrorCode, RpcError};
/// use a2ui_agent::a2a::v1_0::rest_error_body;
///
/// let (status, body) = rest_error_body(&RpcError::new(ErrorCode::TaskNotFound, "no such task"));
/// assert_eq!(status, 404);
/// assert_eq!(body["error"]["status"], "NOT_FOUND");
/// assert_eq!(body["error"]["details"][0]["reason"], "TASK_NOT_FOUND");
/// # }
/// ```
pub fn rest_error_body(error: &RpcError) -> (u16, Value) {
    let (status, name) = error.code.http_status();
    let body = json!({
        "error": {
            "code": status,
            "status": name,
            "message": error.message,
            "details": error_details(error),
        }
    });
    (status, body)
}
