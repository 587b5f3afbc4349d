//! [`AgentError`]: how an agent fails a task, with a message for the user and a detail for
//! the log, made from any error by `?`.

use std::fmt;

/// Why an agent failed; the failed task's status message says so to the client.
///
/// What the client sees depends on how the error was made:
///
/// - [`AgentError::new`]: a message written for the user, shown as it is.
/// - [`From`] any other error (`?` on an `io::Error`, a `reqwest::Error`, ...): such text
///   may hold internal detail (URLs, host names, paths, a cause chain), so the client sees
///   only "The agent failed." with an error id; the detail, with its whole cause chain, is
///   logged (`tracing`, the same `error_id` field), never sent.
/// - [`AgentError::with_detail`]: both, a message for the user and a detail for the log
///   (the model connector's failures are made so: "Could not reach the model server" for
///   the client, the endpoint and the cause in the log).
///
/// # Example
///
/// ```
/// use a2ui_agent::agent::AgentError;
///
/// let error = AgentError::from(std::io::Error::other("db.internal:5432 refused"));
/// assert_eq!(error.message(), "The agent failed.");
/// assert_eq!(error.detail(), Some("db.internal:5432 refused"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentError {
    /// What the client is told.
    message: String,
    /// What only the log gets.
    detail: Option<String>,
}

impl AgentError {
    /// An error with `message`.
    ///
    /// # Example
    ///
    /// ```
    /// use a2ui_agent::agent::AgentError;
    ///
    /// let error = AgentError::new("the model is unavailable");
    /// assert_eq!(error.to_string(), "the model is unavailable");
    /// ```
    pub fn new(message: impl fmt::Display) -> Self {
        Self {
            message: message.to_string(),
            detail: None,
        }
    }

    /// An error whose client sees `message` (with an error id) while `detail` goes only to
    /// the log, under the same id.
    pub fn with_detail(message: impl fmt::Display, detail: impl fmt::Display) -> Self {
        Self {
            message: message.to_string(),
            detail: Some(detail.to_string()),
        }
    }

    /// What the client is told.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// What is logged and never sent, if anything.
    pub fn detail(&self) -> Option<&str> {
        self.detail.as_deref()
    }
}

// Written by hand, not with thiserror: `AgentError` is deliberately not an `Error` itself,
// so that the blanket `From` below lets `?` turn any error into one.
impl fmt::Display for AgentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl<E: std::error::Error> From<E> for AgentError {
    /// A foreign error: the client sees a generic reason, the log gets `error` and its
    /// sources.
    fn from(error: E) -> Self {
        Self::with_detail("The agent failed.", crate::error_chain::chain(&error))
    }
}
