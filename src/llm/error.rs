//! Why a model call failed, in words a person understands.

use std::fmt;
use std::time::Duration;

/// A failed model call. Its `Display` becomes the failed task's status message, so it says
/// what happened and what to check; it never contains the API key.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum LlmError {
    /// The connector's options are unusable (a bad base URL, header or key).
    Config(String),
    /// The model server could not be reached (refused, DNS, TLS, connect timeout).
    Connect {
        /// The endpoint.
        url: String,
        /// What went wrong.
        reason: String,
    },
    /// The model server answered with an error status (after the retries, for 429 and 5xx).
    Status {
        /// The HTTP status code.
        status: u16,
        /// The server's error message, or the start of its body.
        message: String,
        /// How many attempts were made.
        attempts: u32,
    },
    /// The server sent nothing for longer than the idle timeout.
    Idle(Duration),
    /// The server reported an error in the middle of the stream.
    Stream(String),
    /// The answer is not the streaming chat-completions format.
    Protocol(String),
    /// The connection broke or the stream ended before the answer was complete.
    Interrupted(String),
}

impl fmt::Display for LlmError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LlmError::Config(reason) => write!(f, "The model connector is misconfigured: {reason}"),
            LlmError::Connect { url, reason } => {
                write!(f, "Could not reach the model server at {url}: {reason}")
            }
            LlmError::Status {
                status,
                message,
                attempts,
            } => {
                write!(f, "The model server answered HTTP {status}")?;
                if *attempts > 1 {
                    write!(f, " (after {attempts} attempts)")?;
                }
                write!(f, ": {message}")
            }
            LlmError::Idle(after) => write!(
                f,
                "The model server sent nothing for {} s; the answer was abandoned",
                after.as_secs_f32()
            ),
            LlmError::Stream(message) => write!(f, "The model failed while answering: {message}"),
            LlmError::Protocol(reason) => write!(
                f,
                "The model server's answer is not a streamed chat completion: {reason}"
            ),
            LlmError::Interrupted(reason) => {
                write!(f, "The model's answer was cut off: {reason}")
            }
        }
    }
}

impl std::error::Error for LlmError {}
