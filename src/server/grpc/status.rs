//! A2A errors as gRPC statuses (spec §10.6): the code of spec §5.4 (the same name the
//! HTTP+JSON binding's `google.rpc.Status` carries), the message, and one
//! `google.rpc.ErrorInfo` in the details (reason `TASK_NOT_FOUND` and the like, domain
//! `a2a-protocol.org`, the error's data as string metadata), in `grpc-status-details-bin`.

use std::collections::HashMap;

use serde_json::Value;
use tonic::{Code, Status};
use tonic_types::{ErrorDetails, StatusExt};

use crate::a2a::jsonrpc::RpcError;
use crate::server::error::ApiError;

const DOMAIN: &str = "a2a-protocol.org";

/// The status a failed `operation` answers; logged as the other bindings log theirs.
pub(super) fn of(error: ApiError, operation: &str) -> Status {
    from_rpc(&error.into_rpc(operation))
}

/// The status of `error`.
pub(super) fn from_rpc(error: &RpcError) -> Status {
    let (_, name) = error.code.http_status();
    let metadata: HashMap<String, String> = match &error.data {
        Some(Value::Object(data)) => data
            .iter()
            .map(|(key, value)| {
                let text = match value {
                    Value::String(text) => text.clone(),
                    other => other.to_string(),
                };
                (key.clone(), text)
            })
            .collect(),
        _ => HashMap::new(),
    };
    let details = ErrorDetails::with_error_info(error.code.reason(), DOMAIN, metadata);
    Status::with_error_details(code_named(name), error.message.clone(), details)
}

/// The gRPC code of a `google.rpc.Code` name.
fn code_named(name: &str) -> Code {
    match name {
        "NOT_FOUND" => Code::NotFound,
        "INVALID_ARGUMENT" => Code::InvalidArgument,
        "FAILED_PRECONDITION" => Code::FailedPrecondition,
        "UNAVAILABLE" => Code::Unavailable,
        "UNAUTHENTICATED" => Code::Unauthenticated,
        "PERMISSION_DENIED" => Code::PermissionDenied,
        "RESOURCE_EXHAUSTED" => Code::ResourceExhausted,
        "UNIMPLEMENTED" => Code::Unimplemented,
        _ => Code::Internal,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::a2a::jsonrpc::ErrorCode;

    #[test]
    fn a2a_errors_carry_the_spec_code_and_an_error_info() {
        let error = RpcError::new(ErrorCode::TaskNotFound, "Task not found: t1")
            .with_data(serde_json::json!({"taskId": "t1"}));
        let status = from_rpc(&error);
        assert_eq!(status.code(), Code::NotFound);
        assert_eq!(status.message(), "Task not found: t1");
        let info = status.get_details_error_info().expect("an ErrorInfo");
        assert_eq!(info.reason, "TASK_NOT_FOUND");
        assert_eq!(info.domain, DOMAIN);
        assert_eq!(info.metadata.get("taskId").map(String::as_str), Some("t1"));
        let cases = [
            (ErrorCode::TaskNotCancelable, Code::FailedPrecondition),
            (
                ErrorCode::PushNotificationNotSupported,
                Code::FailedPrecondition,
            ),
            (ErrorCode::UnsupportedOperation, Code::FailedPrecondition),
            (ErrorCode::ContentTypeNotSupported, Code::InvalidArgument),
            (ErrorCode::InvalidAgentResponse, Code::Internal),
            (ErrorCode::VersionNotSupported, Code::FailedPrecondition),
            (ErrorCode::InvalidParams, Code::InvalidArgument),
            (ErrorCode::ServerBusy, Code::Unavailable),
        ];
        for (code, expected) in cases {
            assert_eq!(
                from_rpc(&RpcError::new(code, "x")).code(),
                expected,
                "{code:?}"
            );
        }
    }
}
