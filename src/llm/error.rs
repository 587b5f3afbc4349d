//! Why a model call failed, in words a person understands.

use std::time::Duration;

/// A failed model call. Its `Display` becomes the failed task's status message, so it says
/// what happened and what to check; it never contains the API key.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LlmError {
    /// The connector's options are unusable (a bad base URL, header or key).
    #[error("The model connector is misconfigured: {0}")]
    Config(String),
    /// The model server could not be reached (refused, DNS, TLS, connect timeout).
    #[error("Could not reach the model server at {url}: {reason}")]
    Connect {
        /// The endpoint.
        url: String,
        /// What went wrong.
        reason: String,
    },
    /// The model server answered with an error status (after the retries, for 429 and 5xx).
    #[error("The model server answered HTTP {status}{}: {message}", after(*attempts))]
    Status {
        /// The HTTP status code.
        status: u16,
        /// The server's error message, or the start of its body.
        message: String,
        /// How many attempts were made.
        attempts: u32,
    },
    /// The model wrote nothing for longer than the first-token timeout after the request.
    #[error(
        "The model wrote nothing within {} s of the request (it may still be reading a long prompt; a longer first-token timeout gives it time)",
        .0.as_secs_f32()
    )]
    FirstToken(Duration),
    /// The model still called tools after the most rounds allowed.
    #[error("The model was still calling tools after {0} rounds; the answer was abandoned")]
    ToolRounds(u32),
    /// The server sent nothing for longer than the idle timeout.
    #[error("The model server sent nothing for {} s; the answer was abandoned", .0.as_secs_f32())]
    Idle(Duration),
    /// The server reported an error in the middle of the stream.
    #[error("The model failed while answering: {0}")]
    Stream(String),
    /// The answer is not the streaming chat-completions format.
    #[error("The model server's answer is not a streamed chat completion: {0}")]
    Protocol(String),
    /// The connection broke or the stream ended before the answer was complete.
    #[error("The model's answer was cut off: {0}")]
    Interrupted(String),
}

/// " (after N attempts)" when there was more than one.
fn after(attempts: u32) -> String {
    if attempts > 1 {
        format!(" (after {attempts} attempts)")
    } else {
        String::new()
    }
}
