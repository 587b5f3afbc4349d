//! The client's half of the envelope: a request to send, and the response read back.
//!
//! An agent may answer anything, so the response is checked as carefully as the server
//! checks a request: a JSON-RPC 2.0 object, the id the request carried (same JSON type),
//! exactly one of `result` and `error`, an error object with an integer code and a string
//! message. The agent's error keeps its code as sent: agents use codes beyond A2A's own.

use serde_json::{Map, Value, json};

use super::Id;

/// A JSON-RPC request object for `method` with `params`.
///
/// # Example
///
/// ```
/// # #[cfg(feature = "unstable-internals")] {
/// use a2ui_agent::a2a::jsonrpc::{Id, encode_request};
/// use serde_json::json;
///
/// let request = encode_request(&Id::Number(7.into()), "GetTask", json!({"id": "t"}));
/// assert_eq!(request, json!({"jsonrpc": "2.0", "id": 7, "method": "GetTask",
///     "params": {"id": "t"}}));
/// # }
/// ```
pub fn encode_request(id: &Id, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": Value::from(id), "method": method, "params": params})
}

/// The error object of a JSON-RPC response, as the agent sent it.
#[derive(Debug, Clone, PartialEq)]
pub struct ErrorObject {
    /// The code (A2A's, JSON-RPC's or the agent's own).
    pub code: i64,
    /// The agent's message.
    pub message: String,
    /// The agent's detail, if any.
    pub data: Option<Value>,
}

/// A response that is not a JSON-RPC 2.0 response to the request: what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct BadResponse(pub String);

/// Reads a JSON-RPC response to the request whose id was `id`: its result, or the agent's
/// error object.
///
/// # Errors
///
/// A [`BadResponse`] when `response` is not a JSON-RPC 2.0 response object, answers another
/// id, holds both or neither of `result` and `error`, or has a malformed error object.
///
/// # Example
///
/// ```
/// # #[cfg(feature = "unstable-internals")] {
/// use a2ui_agent::a2a::jsonrpc::{Id, decode_response};
/// use serde_json::json;
///
/// let id = Id::String("1".into());
/// let answer = json!({"jsonrpc": "2.0", "id": "1", "error": {"code": -32001, "message": "no"}});
/// assert_eq!(decode_response(answer, &id).unwrap().unwrap_err().code, -32001);
/// let wrong = json!({"jsonrpc": "2.0", "id": 1, "result": {}});
/// assert!(decode_response(wrong, &id).is_err(), "the number 1 is not the string \"1\"");
/// # }
/// ```
pub fn decode_response(
    response: Value,
    id: &Id,
) -> Result<Result<Value, ErrorObject>, BadResponse> {
    let bad = |what: &str| Err(BadResponse(format!("not a JSON-RPC response: {what}")));
    let Value::Object(mut object) = response else {
        return bad("expected a JSON object");
    };
    if object.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return bad("jsonrpc: expected \"2.0\"");
    }
    let answered = object.remove("id").unwrap_or(Value::Null);
    let expected = Value::from(id);
    match (object.remove("result"), object.remove("error")) {
        (Some(_), Some(_)) => bad("both result and error"),
        (None, None) => bad("neither result nor error"),
        // An error about a request the agent could not read may carry a null id.
        (None, Some(error)) if answered == expected || answered.is_null() => {
            error_object(error).map(Err)
        }
        (Some(result), None) if answered == expected => Ok(Ok(result)),
        _ => Err(BadResponse(format!(
            "the response answers id {answered}, not the request's {expected}"
        ))),
    }
}

fn error_object(error: Value) -> Result<ErrorObject, BadResponse> {
    let bad = |what: &str| BadResponse(format!("not a JSON-RPC error object: {what}"));
    let Value::Object(mut error) = error else {
        return Err(bad("expected a JSON object"));
    };
    let code = error
        .get("code")
        .and_then(Value::as_i64)
        .ok_or_else(|| bad("code: expected an integer"))?;
    let message = match error.remove("message") {
        Some(Value::String(message)) => message,
        _ => return Err(bad("message: expected a string")),
    };
    Ok(ErrorObject {
        code,
        message,
        data: error.remove("data").filter(|data| !data.is_null()),
    })
}

/// The `@type`-less reading of a 1.0 error's `details` (or JSON-RPC `data`): the
/// `reason` of its first `google.rpc.ErrorInfo`, if any.
pub fn error_reason(details: &Value) -> Option<&str> {
    let first: &Map<String, Value> = details.as_array()?.iter().find_map(Value::as_object)?;
    first.get("reason")?.as_str()
}
