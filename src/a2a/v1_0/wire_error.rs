//! The refusal of a ProtoJSON request, [`WireError`], and [`parse`], which derives a wire
//! struct from the params and names the member at fault (`params.message.role: unknown
//! variant ...`, by `serde_path_to_error`).
//!
//! Every 1.0 decoder, of messages and tasks as of push configs, reads through these.

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::a2a::jsonrpc::{ErrorCode, RpcError};

/// A request member that is missing, ill-typed or out of range, with its path.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{path}: {problem}")]
pub struct WireError {
    path: String,
    problem: String,
}

impl WireError {
    pub(super) fn new(path: impl Into<String>, problem: impl Into<String>) -> Self {
        Self {
            path: path.into(),
            problem: problem.into(),
        }
    }

    #[cfg(any(test, feature = "unstable-internals"))]
    /// The path of the offending member, e.g. `params.message.parts[0]`.
    pub fn path(&self) -> &str {
        &self.path
    }
}

impl From<WireError> for RpcError {
    fn from(error: WireError) -> Self {
        RpcError::new(ErrorCode::InvalidParams, error.to_string())
    }
}

/// Deserializes `params` (under the name `root`) into `T`, naming the member at fault.
pub(super) fn parse<T: DeserializeOwned>(
    params: Option<&Value>,
    root: &str,
) -> Result<T, WireError> {
    let value = match params {
        None | Some(Value::Null) => return Err(WireError::new(root, "missing")),
        Some(value) => value,
    };
    serde_path_to_error::deserialize(value).map_err(|error| {
        let path = error.path().to_string();
        let path = if path == "." {
            root.to_owned()
        } else {
            format!("{root}.{path}")
        };
        WireError::new(path, error.into_inner().to_string())
    })
}
