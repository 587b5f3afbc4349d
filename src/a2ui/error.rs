//! The errors of the `a2ui` module: a message that breaks the schema or the tree, and a
//! catalog that cannot be used.

use std::path::PathBuf;

use serde_json::{Value, json};

use super::ProtocolVersion;

/// One problem with an A2UI message: where it is, and what is wrong.
///
/// `pointer` is a JSON pointer into the message (`/updateComponents/components/2/child`);
/// `message_index` says which message of a response it is in. [`ValidationError::to_feedback`]
/// turns it into the protocol's `VALIDATION_FAILED` error message, the form a renderer would
/// report it in, so a model can be asked to repair its output.
///
/// # Example
///
/// ```
/// use a2ui_agent::a2ui::{ProtocolVersion, ValidationError};
///
/// let error = ValidationError::new("/updateComponents/components/0/text", "is required", Some("main"), Some(1));
/// let feedback = error.to_feedback(ProtocolVersion::V0_9);
/// assert_eq!(feedback["error"]["code"], "VALIDATION_FAILED");
/// assert_eq!(feedback["error"]["surfaceId"], "main");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}at {}: {message}", in_message(*.message_index), location(.pointer))]
pub struct ValidationError {
    /// JSON pointer to the offending value, relative to the message.
    pub pointer: String,
    /// What is wrong, in one sentence.
    pub message: String,
    /// The surface the message is about, when known.
    pub surface_id: Option<String>,
    /// Position of the message in the response, when checking a whole response.
    pub message_index: Option<usize>,
}

impl ValidationError {
    /// A new error at `pointer`.
    pub fn new(
        pointer: impl Into<String>,
        message: impl Into<String>,
        surface_id: Option<&str>,
        message_index: Option<usize>,
    ) -> Self {
        Self {
            pointer: pointer.into(),
            message: message.into(),
            surface_id: surface_id.map(str::to_owned),
            message_index,
        }
    }

    /// The same error, placed at message `index` of a response.
    pub(crate) fn at_message(self, index: usize) -> Self {
        Self {
            message_index: Some(index),
            ..self
        }
    }

    /// The renderer-to-agent error message for this problem under `version`:
    /// `{"version": "v0.9", "error": {"code": "VALIDATION_FAILED", "surfaceId", "path",
    /// "message"}}` (v0.8 messages carry no `version`). An unknown surface is reported as `""`
    /// because the schemas require the field.
    pub fn to_feedback(&self, version: ProtocolVersion) -> Value {
        let message = match self.message_index {
            Some(index) => format!("message {index}: {}", self.message),
            None => self.message.clone(),
        };
        let error = json!({
            "code": "VALIDATION_FAILED",
            "surfaceId": self.surface_id.as_deref().unwrap_or(""),
            "path": self.pointer,
            "message": message,
        });
        match version.message_version() {
            Some(v) => json!({"version": v, "error": error}),
            None => json!({"error": error}),
        }
    }
}

/// Why a catalog (or a set of catalogs) cannot be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CatalogError {
    /// The catalog file could not be read.
    #[error("cannot read catalog {}: {source}", .path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The catalog file is not JSON.
    #[error("catalog {}is not JSON: {source}", file_name(.path.as_deref()))]
    Json {
        /// The file, if read from one.
        path: Option<PathBuf>,
        /// The cause, with line and column.
        source: serde_json::Error,
    },
    /// The catalog document has the wrong shape.
    #[error("malformed catalog at {}: {message}", location(.pointer))]
    Malformed {
        /// JSON pointer into the catalog document.
        pointer: String,
        /// What is wrong.
        message: String,
    },
    /// A component or function name that the catalog does not define.
    #[error("catalog '{catalog_id}' has no {kind} '{name}'")]
    Unknown {
        /// `"component"` or `"function"`.
        kind: &'static str,
        /// The name asked for.
        name: String,
        /// The catalog.
        catalog_id: String,
    },
    /// The catalog's schemas do not compile (a bad keyword, a `$ref` that does not resolve).
    #[error("catalog '{catalog_id}' does not compile: {message}")]
    Schema {
        /// The catalog.
        catalog_id: String,
        /// The compiler's message.
        message: String,
    },
    /// A catalog of another protocol version.
    #[error("catalog '{catalog_id}' is a {catalog} catalog, not {expected}")]
    VersionMismatch {
        /// The catalog.
        catalog_id: String,
        /// Its version.
        catalog: ProtocolVersion,
        /// The version asked for.
        expected: ProtocolVersion,
    },
    /// Two catalogs with one id in a set.
    #[error("two catalogs have the id '{0}'")]
    DuplicateId(String),
    /// An inline catalog over the size or count limit.
    #[error("{what} exceeds the limit of {limit}")]
    TooLarge {
        /// What went over.
        what: String,
        /// The limit.
        limit: usize,
    },
    /// Nothing left to render with: no catalog the agent holds matches the renderer's.
    #[error(
        "no catalog in common: the renderer supports [{}], the agent has [{}]",
        .requested.join(", "),
        .available.join(", ")
    )]
    NoCatalogInCommon {
        /// What the renderer named.
        requested: Vec<String>,
        /// What the agent holds.
        available: Vec<String>,
    },
}

/// Where a JSON pointer points, for messages: `/` for the whole document.
fn location(pointer: &str) -> &str {
    if pointer.is_empty() { "/" } else { pointer }
}

/// `message N: ` when the error names its message in a response.
fn in_message(index: Option<usize>) -> String {
    index
        .map(|index| format!("message {index}: "))
        .unwrap_or_default()
}

/// `path ` when a catalog was read from a file.
fn file_name(path: Option<&std::path::Path>) -> String {
    path.map(|path| format!("{} ", path.display()))
        .unwrap_or_default()
}
