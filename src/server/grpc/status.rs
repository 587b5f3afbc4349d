//! A2A errors as gRPC statuses (spec §10.6): the code of the spec's §5.4 table as A2A
//! v1.0.0 has it (the A2A TCK checks it: `UNIMPLEMENTED` for an unsupported operation,
//! push or version, where earlier drafts said `FAILED_PRECONDITION`), the message, and one
//! `google.rpc.ErrorInfo` in the details (reason `TASK_NOT_FOUND` and the like, domain
//! `a2a-protocol.org`, the error's data as string metadata), in `grpc-status-details-bin`.

use std::collections::HashMap;

use serde_json::Value;
use tonic::{Code, Status};
use tonic_types::{ErrorDetails, StatusExt};

use crate::a2a::jsonrpc::{ErrorCode, RpcError};
use crate::server::error::ApiError;

const DOMAIN: &str = "a2a-protocol.org";

/// The status a failed `operation` answers; logged as the other bindings log theirs.
pub(super) fn of(error: ApiError, operation: &str) -> Status {
    from_rpc(&error.into_rpc(operation))
}

/// The status of `error`.
pub(super) fn from_rpc(error: &RpcError) -> Status {
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
    Status::with_error_details(code(error.code), error.message.clone(), details)
}

/// The `outcome` label of a call answered with `status`: the label
/// [`outcome_label`](crate::server::error::outcome_label) gives the A2A error the status
/// came from (`ok` for a status that is no error).
pub(super) fn outcome(status: &Status) -> &'static str {
    match status.code() {
        Code::Ok => "ok",
        Code::NotFound => "not_found",
        Code::Unavailable | Code::ResourceExhausted => "busy",
        Code::Internal | Code::Unknown | Code::DataLoss => "server_error",
        _ => "client_error",
    }
}

/// The gRPC code of an A2A (or JSON-RPC) error.
fn code(code: ErrorCode) -> Code {
    match code {
        ErrorCode::TaskNotFound => Code::NotFound,
        ErrorCode::MethodNotFound
        | ErrorCode::PushNotificationNotSupported
        | ErrorCode::UnsupportedOperation
        | ErrorCode::VersionNotSupported => Code::Unimplemented,
        ErrorCode::ParseError
        | ErrorCode::InvalidRequest
        | ErrorCode::InvalidParams
        | ErrorCode::ContentTypeNotSupported => Code::InvalidArgument,
        ErrorCode::TaskNotCancelable
        | ErrorCode::AuthenticatedExtendedCardNotConfigured
        | ErrorCode::ExtensionSupportRequired => Code::FailedPrecondition,
        ErrorCode::InternalError | ErrorCode::InvalidAgentResponse => Code::Internal,
        ErrorCode::ServerBusy => Code::Unavailable,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
            (ErrorCode::PushNotificationNotSupported, Code::Unimplemented),
            (ErrorCode::UnsupportedOperation, Code::Unimplemented),
            (ErrorCode::ContentTypeNotSupported, Code::InvalidArgument),
            (ErrorCode::InvalidAgentResponse, Code::Internal),
            (ErrorCode::VersionNotSupported, Code::Unimplemented),
            (
                ErrorCode::AuthenticatedExtendedCardNotConfigured,
                Code::FailedPrecondition,
            ),
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

    #[test]
    fn a_status_is_counted_with_the_outcome_its_a2a_error_has_on_the_other_bindings() {
        let codes = [
            ErrorCode::TaskNotFound,
            ErrorCode::TaskNotCancelable,
            ErrorCode::MethodNotFound,
            ErrorCode::PushNotificationNotSupported,
            ErrorCode::UnsupportedOperation,
            ErrorCode::ContentTypeNotSupported,
            ErrorCode::InvalidAgentResponse,
            ErrorCode::VersionNotSupported,
            ErrorCode::AuthenticatedExtendedCardNotConfigured,
            ErrorCode::ExtensionSupportRequired,
            ErrorCode::ParseError,
            ErrorCode::InvalidRequest,
            ErrorCode::InvalidParams,
            ErrorCode::InternalError,
            ErrorCode::ServerBusy,
        ];
        for code in codes {
            let status = from_rpc(&RpcError::new(code, "x"));
            assert_eq!(
                outcome(&status),
                crate::server::error::outcome_label(code),
                "{code:?}"
            );
        }
        assert_eq!(outcome(&Status::ok("")), "ok");
    }
}
