//! Reading a 0.3 request by hand: a JSON object with its path, and the [`WireError`] that
//! names the member at fault (`params.message.parts[1].kind: unknown kind "image"`).
//!
//! Every 0.3 decoder reads through [`Obj`], so each error carries the path of the member it
//! is about, which serde's derived errors do not.

use serde_json::{Map, Value};

use crate::a2a::jsonrpc::{ErrorCode, RpcError};

/// A request member that is missing or has the wrong type, with its path.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{path}: {}", .problem.describe())]
pub struct WireError {
    path: String,
    problem: Problem,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Problem {
    Missing,
    Expected(&'static str),
    UnknownKind(String),
}

impl Problem {
    /// What is wrong, after the member's path.
    fn describe(&self) -> String {
        match self {
            Problem::Missing => "missing".to_owned(),
            Problem::Expected(what) => format!("expected {what}"),
            Problem::UnknownKind(kind) => format!("unknown kind {kind:?}"),
        }
    }
}

impl WireError {
    #[cfg(any(test, feature = "unstable-internals"))]
    /// The path of the offending member, e.g. `params.message.messageId`.
    pub fn path(&self) -> &str {
        &self.path
    }
}

impl From<WireError> for RpcError {
    fn from(error: WireError) -> Self {
        RpcError::new(ErrorCode::InvalidParams, error.to_string())
    }
}

/// A JSON object being decoded, with its path for error messages.
pub(super) struct Obj<'a> {
    map: &'a Map<String, Value>,
    path: String,
}

impl<'a> Obj<'a> {
    pub(super) fn root(value: Option<&'a Value>, path: &str) -> Result<Self, WireError> {
        match value {
            None | Some(Value::Null) => Err(WireError {
                path: path.to_owned(),
                problem: Problem::Missing,
            }),
            Some(value) => Self::new(value, path.to_owned()),
        }
    }

    pub(super) fn new(value: &'a Value, path: String) -> Result<Self, WireError> {
        match value {
            Value::Object(map) => Ok(Self { map, path }),
            _ => Err(WireError {
                path,
                problem: Problem::Expected("an object"),
            }),
        }
    }

    pub(super) fn path_of(&self, key: &str) -> String {
        format!("{}.{key}", self.path)
    }

    pub(super) fn error(&self, key: &str, problem: Problem) -> WireError {
        WireError {
            path: self.path_of(key),
            problem,
        }
    }

    pub(super) fn opt(&self, key: &str) -> Option<&'a Value> {
        self.map.get(key).filter(|value| !value.is_null())
    }

    pub(super) fn req(&self, key: &str) -> Result<&'a Value, WireError> {
        self.opt(key)
            .ok_or_else(|| self.error(key, Problem::Missing))
    }

    pub(super) fn req_str(&self, key: &str) -> Result<&'a str, WireError> {
        self.opt_str(key)?
            .ok_or_else(|| self.error(key, Problem::Missing))
    }

    pub(super) fn opt_str(&self, key: &str) -> Result<Option<&'a str>, WireError> {
        match self.opt(key) {
            None => Ok(None),
            Some(Value::String(text)) => Ok(Some(text)),
            Some(_) => Err(self.error(key, Problem::Expected("a string"))),
        }
    }

    pub(super) fn opt_bool(&self, key: &str) -> Result<Option<bool>, WireError> {
        match self.opt(key) {
            None => Ok(None),
            Some(Value::Bool(flag)) => Ok(Some(*flag)),
            Some(_) => Err(self.error(key, Problem::Expected("a boolean"))),
        }
    }

    pub(super) fn opt_count(&self, key: &str) -> Result<Option<usize>, WireError> {
        match self.opt(key) {
            None => Ok(None),
            Some(Value::Number(number)) => number
                .as_u64()
                .map(|count| Some(usize::try_from(count).unwrap_or(usize::MAX)))
                .ok_or_else(|| self.error(key, Problem::Expected("a non-negative integer"))),
            Some(_) => Err(self.error(key, Problem::Expected("a non-negative integer"))),
        }
    }

    pub(super) fn opt_object(
        &self,
        key: &str,
    ) -> Result<Option<&'a Map<String, Value>>, WireError> {
        match self.opt(key) {
            None => Ok(None),
            Some(Value::Object(map)) => Ok(Some(map)),
            Some(_) => Err(self.error(key, Problem::Expected("an object"))),
        }
    }

    pub(super) fn opt_strings(&self, key: &str) -> Result<Option<Vec<String>>, WireError> {
        match self.opt(key) {
            None => Ok(None),
            Some(Value::Array(items)) => items
                .iter()
                .map(|item| item.as_str().map(str::to_owned))
                .collect::<Option<Vec<_>>>()
                .map(Some)
                .ok_or_else(|| self.error(key, Problem::Expected("an array of strings"))),
            Some(_) => Err(self.error(key, Problem::Expected("an array of strings"))),
        }
    }
}
