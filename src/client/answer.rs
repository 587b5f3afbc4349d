//! An answer's envelope: the JSON-RPC response to the request's id, or an HTTP+JSON body
//! (a `google.rpc.Status` error, or the result itself), read into a result or a
//! [`ClientError`].

use serde_json::Value;

use super::error::ClientError;
use super::http::{answer_budget, excerpt, json};
use crate::a2a::jsonrpc::{ErrorCode, ErrorObject, Id, decode_response, error_reason};

/// How the answer to one request is wrapped.
#[derive(Debug, Clone)]
pub(super) enum Expect {
    /// A JSON-RPC response to the request with this id.
    Rpc(Id),
    /// The HTTP+JSON binding: the result as the body, or a `google.rpc.Status`.
    Rest,
}

/// The result an answer carries.
///
/// # Errors
///
/// [`ClientError::Agent`] for the agent's error, [`ClientError::BadAnswer`] for a response
/// that is not one to this request.
pub(super) fn read_result(value: Value, expect: &Expect) -> Result<Value, ClientError> {
    match expect {
        Expect::Rpc(id) => match decode_response(value, id) {
            Err(bad) => Err(ClientError::BadAnswer(bad.0)),
            Ok(Ok(result)) => Ok(result),
            Ok(Err(error)) => Err(agent_error(error)),
        },
        Expect::Rest => match rest_error(&value, None) {
            Some(error) => Err(error),
            None => Ok(value),
        },
    }
}

/// The result of a successful answer to an operation whose result carries nothing (deleting
/// a push config: `null` in 0.3, `google.protobuf.Empty` in 1.0), read more leniently than
/// [`read_result`] because nothing in it is used: an empty body is the HTTP+JSON `204 No
/// Content` that `@a2a-js/sdk` 1.3.0 answers, and a JSON-RPC response to the request's id
/// with neither `result` nor `error` is what the Python `a2a-sdk` 1.3.0 answers over 0.3
/// (dropping the `"result": null` JSON-RPC 2.0 requires). An error is still the agent's.
///
/// # Errors
///
/// As [`read_result`].
pub(super) fn read_nothing(body: &[u8], limit: usize, expect: &Expect) -> Result<(), ClientError> {
    if body.is_empty() {
        return Ok(());
    }
    let mut value = json(body, &answer_budget(limit))?;
    if let (Expect::Rpc(_), Some(object)) = (expect, value.as_object_mut())
        && !object.contains_key("error")
    {
        object.entry("result").or_insert(Value::Null);
    }
    read_result(value, expect).map(drop)
}

/// The error of an answer with the non-success `status`: the agent's A2A error when the
/// body holds one, else the status with the start of the body.
pub(super) fn status_error(status: u16, body: &[u8], expect: &Expect) -> ClientError {
    let from_body = json(body, &answer_budget(body.len()))
        .ok()
        .and_then(|value| match expect {
            Expect::Rpc(id) => match decode_response(value, id) {
                Ok(Err(error)) => Some(agent_error(error)),
                _ => None,
            },
            Expect::Rest => rest_error(&value, Some(status)),
        });
    from_body.unwrap_or_else(|| ClientError::Http {
        status,
        body: excerpt(body),
    })
}

fn agent_error(error: ErrorObject) -> ClientError {
    ClientError::Agent {
        code: error.code,
        message: error.message,
        data: error.data,
    }
}

/// The A2A error of a `google.rpc.Status` body (`{"error": {code, status, message,
/// details}}`), its code taken from the `ErrorInfo` reason, else the HTTP status.
fn rest_error(value: &Value, status: Option<u16>) -> Option<ClientError> {
    let object = value.as_object()?;
    if object.len() != 1 {
        return None;
    }
    let error = object.get("error")?.as_object()?;
    let message = error.get("message")?.as_str()?.to_owned();
    let details = error.get("details").cloned();
    let code = details
        .as_ref()
        .and_then(error_reason)
        .and_then(ErrorCode::from_reason)
        .map(ErrorCode::code)
        .or_else(|| error.get("code").and_then(Value::as_i64))
        .or(status.map(i64::from))?;
    Some(ClientError::Agent {
        code,
        message,
        data: details,
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_rest_error_carries_the_a2a_code_of_its_reason() {
        let body = json!({"error": {"code": 404, "status": "NOT_FOUND", "message": "no task",
            "details": [{"@type": "type.googleapis.com/google.rpc.ErrorInfo",
                "reason": "TASK_NOT_FOUND", "domain": "a2a-protocol.org"}]}});
        let error = read_result(body, &Expect::Rest).unwrap_err();
        assert_eq!(error.agent_code(), Some(-32001));
        let plain = status_error(502, b"<html>bad gateway</html>", &Expect::Rest);
        assert!(
            matches!(&plain, ClientError::Http { status: 502, body } if body.contains("bad gateway")),
            "{plain:?}"
        );
    }

    #[test]
    fn an_answer_to_a_delete_may_be_empty_or_lack_its_null_result_but_not_hide_an_error() {
        let rpc = Expect::Rpc(Id::Number(7.into()));
        assert!(read_nothing(b"", 1000, &Expect::Rest).is_ok());
        assert!(read_nothing(b"{}", 1000, &Expect::Rest).is_ok());
        assert!(read_nothing(br#"{"jsonrpc":"2.0","id":7}"#, 1000, &rpc).is_ok());
        assert!(read_nothing(br#"{"jsonrpc":"2.0","id":7,"result":null}"#, 1000, &rpc).is_ok());
        let other = read_nothing(br#"{"jsonrpc":"2.0","id":8}"#, 1000, &rpc).unwrap_err();
        assert!(matches!(other, ClientError::BadAnswer(_)), "{other:?}");
        let error = br#"{"jsonrpc":"2.0","id":7,"error":{"code":-32001,"message":"no task"}}"#;
        let error = read_nothing(error, 1000, &rpc).unwrap_err();
        assert_eq!(error.agent_code(), Some(-32001));
        let not_json = read_nothing(b"<html>", 1000, &rpc).unwrap_err();
        assert!(
            matches!(not_json, ClientError::BadAnswer(_)),
            "{not_json:?}"
        );
    }
}
