//! The JSON-RPC 2.0 envelope and the A2A error codes.
//!
//! Every failure that reaches a client becomes an `RpcError`; each layer's error type (wire
//! decoding, task lifecycle, ...) converts into it with `From`, so the code a client sees is
//! chosen next to the failure, and the HTTP layer only frames it.

#[cfg(feature = "server")]
use std::borrow::Cow;

#[cfg(feature = "server")]
use serde::Deserialize;
use serde::{Serialize, Serializer};
#[cfg(feature = "server")]
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};

#[cfg(any(feature = "client", feature = "unstable-internals"))]
mod response;

#[cfg(feature = "unstable-internals")]
pub use response::BadResponse;
#[cfg(any(feature = "client", feature = "unstable-internals"))]
pub use response::{ErrorObject, decode_response, encode_request, error_reason};

/// The JSON-RPC request id, echoed unchanged (same JSON type) in the response.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Id {
    /// `null`: the request could not be read far enough to find its id, or had none.
    Null,
    /// A number, kept as written.
    Number(serde_json::Number),
    /// A string.
    String(String),
}

impl From<&Id> for Value {
    fn from(id: &Id) -> Value {
        match id {
            Id::Null => Value::Null,
            Id::Number(number) => Value::Number(number.clone()),
            Id::String(text) => Value::String(text.clone()),
        }
    }
}

impl Serialize for Id {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Id::Null => serializer.serialize_unit(),
            Id::Number(number) => number.serialize(serializer),
            Id::String(text) => serializer.serialize_str(text),
        }
    }
}

/// The error codes of JSON-RPC and A2A (0.3 and 1.0 share them; 1.0 adds -32008 and -32009).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorCode {
    /// -32700: the body is not JSON.
    ParseError,
    /// -32600: the body is not a JSON-RPC 2.0 request.
    InvalidRequest,
    /// -32601: no such method.
    MethodNotFound,
    /// -32602: `params` missing or ill-typed.
    InvalidParams,
    /// -32603: the server failed.
    InternalError,
    /// -32001: no task with that id.
    TaskNotFound,
    /// -32002: the task cannot be canceled (it is terminal).
    TaskNotCancelable,
    /// -32003: push notifications are not supported.
    PushNotificationNotSupported,
    /// -32004: the operation is not supported (e.g. a message to a terminal task).
    UnsupportedOperation,
    /// -32005: none of the accepted output modes is one the agent produces.
    ContentTypeNotSupported,
    /// -32006: the agent answered something the protocol cannot carry.
    InvalidAgentResponse,
    /// -32007: no authenticated extended card is configured.
    AuthenticatedExtendedCardNotConfigured,
    /// -32000 (implementation-defined server error): the server runs as many tasks as it
    /// may; retry later.
    ServerBusy,
    /// -32008: the agent requires an extension the client did not activate (1.0). The
    /// server requires no extension, so it never sends this one; the code is here so that
    /// every A2A code has its name.
    #[cfg_attr(not(test), allow(dead_code))]
    ExtensionSupportRequired,
    /// -32009: the `A2A-Version` the client asked for is not served (1.0).
    VersionNotSupported,
}

impl ErrorCode {
    /// Every code.
    #[cfg(any(test, feature = "client", feature = "unstable-internals"))]
    pub const ALL: [ErrorCode; 15] = [
        ErrorCode::ParseError,
        ErrorCode::InvalidRequest,
        ErrorCode::MethodNotFound,
        ErrorCode::InvalidParams,
        ErrorCode::InternalError,
        ErrorCode::TaskNotFound,
        ErrorCode::TaskNotCancelable,
        ErrorCode::PushNotificationNotSupported,
        ErrorCode::UnsupportedOperation,
        ErrorCode::ContentTypeNotSupported,
        ErrorCode::InvalidAgentResponse,
        ErrorCode::AuthenticatedExtendedCardNotConfigured,
        ErrorCode::ServerBusy,
        ErrorCode::ExtensionSupportRequired,
        ErrorCode::VersionNotSupported,
    ];

    /// The integer sent on the wire.
    ///
    /// # Example
    ///
    /// ```
    /// # #[cfg(feature = "unstable-internals")] {
    /// use a2ui_agent::a2a::jsonrpc::ErrorCode;
    ///
    /// assert_eq!(ErrorCode::InvalidParams.code(), -32602);
    /// # }
    /// ```
    pub fn code(self) -> i64 {
        match self {
            ErrorCode::ParseError => -32700,
            ErrorCode::InvalidRequest => -32600,
            ErrorCode::MethodNotFound => -32601,
            ErrorCode::InvalidParams => -32602,
            ErrorCode::InternalError => -32603,
            ErrorCode::TaskNotFound => -32001,
            ErrorCode::TaskNotCancelable => -32002,
            ErrorCode::PushNotificationNotSupported => -32003,
            ErrorCode::UnsupportedOperation => -32004,
            ErrorCode::ContentTypeNotSupported => -32005,
            ErrorCode::InvalidAgentResponse => -32006,
            ErrorCode::AuthenticatedExtendedCardNotConfigured => -32007,
            ErrorCode::ServerBusy => -32000,
            ErrorCode::ExtensionSupportRequired => -32008,
            ErrorCode::VersionNotSupported => -32009,
        }
    }

    /// The A2A 1.0 name of the error for `google.rpc.ErrorInfo.reason`: the error type in
    /// UPPER_SNAKE_CASE without its `Error` suffix.
    ///
    /// # Example
    ///
    /// ```
    /// # #[cfg(feature = "unstable-internals")] {
    /// use a2ui_agent::a2a::jsonrpc::ErrorCode;
    ///
    /// assert_eq!(ErrorCode::TaskNotFound.reason(), "TASK_NOT_FOUND");
    /// # }
    /// ```
    pub fn reason(self) -> &'static str {
        match self {
            ErrorCode::ParseError => "JSON_PARSE",
            ErrorCode::InvalidRequest => "INVALID_REQUEST",
            ErrorCode::MethodNotFound => "METHOD_NOT_FOUND",
            ErrorCode::InvalidParams => "INVALID_PARAMS",
            ErrorCode::InternalError => "INTERNAL_ERROR",
            ErrorCode::TaskNotFound => "TASK_NOT_FOUND",
            ErrorCode::TaskNotCancelable => "TASK_NOT_CANCELABLE",
            ErrorCode::PushNotificationNotSupported => "PUSH_NOTIFICATION_NOT_SUPPORTED",
            ErrorCode::UnsupportedOperation => "UNSUPPORTED_OPERATION",
            ErrorCode::ContentTypeNotSupported => "CONTENT_TYPE_NOT_SUPPORTED",
            ErrorCode::InvalidAgentResponse => "INVALID_AGENT_RESPONSE",
            ErrorCode::AuthenticatedExtendedCardNotConfigured => {
                "EXTENDED_AGENT_CARD_NOT_CONFIGURED"
            }
            ErrorCode::ExtensionSupportRequired => "EXTENSION_SUPPORT_REQUIRED",
            ErrorCode::VersionNotSupported => "VERSION_NOT_SUPPORTED",
            ErrorCode::ServerBusy => "SERVER_BUSY",
        }
    }

    /// The HTTP status and `google.rpc.Code` name of the error in the HTTP+JSON binding
    /// (A2A 1.0 §5.4).
    pub fn http_status(self) -> (u16, &'static str) {
        match self {
            ErrorCode::TaskNotFound | ErrorCode::MethodNotFound => (404, "NOT_FOUND"),
            ErrorCode::ParseError
            | ErrorCode::InvalidRequest
            | ErrorCode::InvalidParams
            | ErrorCode::ContentTypeNotSupported => (400, "INVALID_ARGUMENT"),
            ErrorCode::TaskNotCancelable
            | ErrorCode::PushNotificationNotSupported
            | ErrorCode::UnsupportedOperation
            | ErrorCode::AuthenticatedExtendedCardNotConfigured
            | ErrorCode::ExtensionSupportRequired
            | ErrorCode::VersionNotSupported => (400, "FAILED_PRECONDITION"),
            ErrorCode::InternalError | ErrorCode::InvalidAgentResponse => (500, "INTERNAL"),
            ErrorCode::ServerBusy => (503, "UNAVAILABLE"),
        }
    }

    /// The code whose [`reason`](Self::reason) is `reason` (an A2A 1.0 `ErrorInfo`'s).
    #[cfg(any(feature = "client", feature = "unstable-internals"))]
    pub fn from_reason(reason: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|c| c.reason() == reason)
    }

    /// The code for `code`, if it is one of ours.
    #[cfg(any(test, feature = "unstable-internals"))]
    pub fn from_code(code: i64) -> Option<Self> {
        Self::ALL.into_iter().find(|c| c.code() == code)
    }

    /// Whether the client caused the error (logged at debug) rather than the server (error).
    pub fn is_client_fault(self) -> bool {
        !matches!(
            self,
            ErrorCode::InternalError | ErrorCode::InvalidAgentResponse
        )
    }
}

/// A JSON-RPC error object: `{"code", "message", "data"?}`.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{message} ({})", .code.code())]
pub struct RpcError {
    /// The code.
    pub code: ErrorCode,
    /// A short description for the client.
    pub message: String,
    /// Extra detail for the client.
    pub data: Option<Value>,
}

impl RpcError {
    /// An error with `code` and `message` and no data.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            data: None,
        }
    }

    /// The same error carrying `data`.
    #[must_use]
    pub fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }

    /// -32603 with a generic message: the detail belongs in the server log, not the response.
    pub fn internal() -> Self {
        Self::new(ErrorCode::InternalError, "Internal error")
    }

    /// The error object as JSON.
    pub fn to_value(&self) -> Value {
        let mut object = Map::new();
        object.insert("code".into(), self.code.code().into());
        object.insert("message".into(), self.message.clone().into());
        if let Some(data) = &self.data {
            object.insert("data".into(), data.clone());
        }
        Value::Object(object)
    }
}

/// A decoded JSON-RPC request: the envelope is valid; `params` is not looked at yet.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    /// The id to echo.
    pub id: Id,
    /// The method name.
    pub method: String,
    /// The params, if present (any JSON type; the method checks it).
    pub params: Option<Value>,
}

/// Decodes a request body.
///
/// Unknown members are ignored. A missing `id` is treated as `null`.
///
/// # Errors
///
/// -32700 when the body is not JSON (with id `null`); -32600 when it is not a JSON-RPC 2.0
/// request object: a batch array, another type, `jsonrpc` not `"2.0"`, no string `method`, an
/// id that is not a string, number or null. The returned [`Id`] is the request's when it
/// could be read, else `null`.
///
/// # Example
///
/// ```
/// # #[cfg(feature = "unstable-internals")] {
/// use a2ui_agent::a2a::jsonrpc::{decode_request, ErrorCode, Id};
///
/// let request = decode_request(br#"{"jsonrpc":"2.0","id":7,"method":"tasks/get"}"#).unwrap();
/// assert_eq!(request.method, "tasks/get");
///
/// let (id, error) = decode_request(b"[]").unwrap_err();
/// assert_eq!((id, error.code), (Id::Null, ErrorCode::InvalidRequest));
/// # }
/// ```
pub fn decode_request(body: &[u8]) -> Result<Request, (Id, RpcError)> {
    let value: Value = serde_json::from_slice(body).map_err(|error| {
        (
            Id::Null,
            RpcError::new(ErrorCode::ParseError, format!("Parse error: {error}")),
        )
    })?;
    let invalid = |id: Id, message: &str| {
        (
            id,
            RpcError::new(
                ErrorCode::InvalidRequest,
                format!("Invalid request: {message}"),
            ),
        )
    };
    let mut object = match value {
        Value::Object(object) => object,
        Value::Array(_) => return Err(invalid(Id::Null, "batch requests are not supported")),
        _ => return Err(invalid(Id::Null, "expected a JSON object")),
    };
    let id = match object.remove("id") {
        None | Some(Value::Null) => Id::Null,
        Some(Value::Number(number)) => Id::Number(number),
        Some(Value::String(text)) => Id::String(text),
        Some(_) => return Err(invalid(Id::Null, "id: expected a string, a number or null")),
    };
    match object.get("jsonrpc") {
        Some(Value::String(version)) if version == "2.0" => {}
        Some(_) => return Err(invalid(id, "jsonrpc: expected \"2.0\"")),
        None => return Err(invalid(id, "jsonrpc: missing")),
    }
    let method = match object.remove("method") {
        Some(Value::String(method)) => method,
        Some(_) => return Err(invalid(id, "method: expected a string")),
        None => return Err(invalid(id, "method: missing")),
    };
    Ok(Request {
        id,
        method,
        params: object.remove("params"),
    })
}

/// A decoded request whose `params` are still JSON text, so a method can decode them straight
/// into its own types (no `Value` tree on the way).
#[cfg(feature = "server")]
#[derive(Debug)]
pub(crate) struct RawRequest<'a> {
    /// The id to echo.
    pub(crate) id: Id,
    /// The method name.
    pub(crate) method: Cow<'a, str>,
    /// The params, if present and not `null`.
    pub(crate) params: Option<Cow<'a, RawValue>>,
}

/// [`decode_request`] without building a `Value` of the body: the envelope is read into a
/// borrowed struct and `params` left as text. A body that does not read that way (not an
/// object, escapes in `method`, duplicate members, a bad `jsonrpc` or id, ...) goes through
/// [`decode_request`], so every refusal, and every body accepted, is exactly its.
///
/// # Errors
///
/// Those of [`decode_request`].
#[cfg(feature = "server")]
pub(crate) fn decode_request_raw(body: &[u8]) -> Result<RawRequest<'_>, (Id, RpcError)> {
    #[derive(Deserialize)]
    struct Envelope<'a> {
        jsonrpc: &'a str,
        #[serde(borrow, default)]
        id: Option<&'a RawValue>,
        method: &'a str,
        #[serde(borrow, default)]
        params: Option<&'a RawValue>,
    }
    // A derived struct also reads a JSON array, member by position: `["2.0", 0, "m"]` would
    // pass for a request. Only an object takes the fast path.
    let object = body.iter().find(|byte| !byte.is_ascii_whitespace()) == Some(&b'{');
    if let Some(envelope) = object
        .then(|| serde_json::from_slice::<Envelope<'_>>(body).ok())
        .flatten()
    {
        let id = match envelope
            .id
            .map(|raw| serde_json::from_str::<Value>(raw.get()))
        {
            None => Some(Id::Null),
            Some(Ok(Value::Number(number))) => Some(Id::Number(number)),
            Some(Ok(Value::String(text))) => Some(Id::String(text)),
            Some(_) => None,
        };
        if let (Some(id), "2.0") = (id, envelope.jsonrpc) {
            return Ok(RawRequest {
                id,
                method: Cow::Borrowed(envelope.method),
                params: envelope.params.map(Cow::Borrowed),
            });
        }
    }
    let Request { id, method, params } = decode_request(body)?;
    let params = match params {
        None | Some(Value::Null) => None,
        // Serializing a `Value` cannot fail.
        Some(value) => serde_json::value::to_raw_value(&value).ok().map(Cow::Owned),
    };
    Ok(RawRequest {
        id,
        method: Cow::Owned(method),
        params,
    })
}

/// A success response with a result already encoded, serialized in one pass.
#[cfg(feature = "server")]
#[derive(Serialize)]
pub(crate) struct Success<'a, T> {
    jsonrpc: &'static str,
    id: &'a Id,
    result: T,
}

#[cfg(feature = "server")]
impl<'a, T: Serialize> Success<'a, T> {
    /// `{"jsonrpc":"2.0","id":..,"result":..}`.
    pub(crate) fn new(id: &'a Id, result: T) -> Self {
        Self {
            jsonrpc: "2.0",
            id,
            result,
        }
    }
}

/// The `id` of a request body that could not be decoded, found without building a model of
/// the rest (which is skipped, not kept): `null` when the body is not a JSON object with
/// one string or number `id`.
///
/// # Example
///
/// ```
/// # #[cfg(feature = "unstable-internals")] {
/// use a2ui_agent::a2a::jsonrpc::{Id, peek_id};
///
/// assert_eq!(peek_id(br#"{"id":"7","params":{"x":[1,2,3]}}"#), Id::String("7".into()));
/// assert_eq!(peek_id(br#"{"id":1,"id":2}"#), Id::Null);
/// assert_eq!(peek_id(b"{"), Id::Null);
/// # }
/// ```
pub fn peek_id(body: &[u8]) -> Id {
    #[derive(serde::Deserialize)]
    struct OnlyId {
        id: Option<IdValue>,
    }
    #[derive(serde::Deserialize)]
    #[serde(untagged)]
    enum IdValue {
        Number(serde_json::Number),
        String(String),
    }
    // Unknown members are skipped by serde (IgnoredAny); a repeated `id` is an error.
    match serde_json::from_slice::<OnlyId>(body) {
        Ok(OnlyId {
            id: Some(IdValue::Number(number)),
        }) => Id::Number(number),
        Ok(OnlyId {
            id: Some(IdValue::String(text)),
        }) => Id::String(text),
        _ => Id::Null,
    }
}

/// An error response: `{"jsonrpc":"2.0","id":..,"error":{..}}`.
pub fn failure(id: &Id, error: &RpcError) -> Value {
    json!({"jsonrpc": "2.0", "id": Value::from(id), "error": error.to_value()})
}

#[cfg(test)]
mod tests;
