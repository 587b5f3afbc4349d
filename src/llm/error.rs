//! Why a model call failed, in words a person understands.

use std::time::Duration;

/// A failed model call. Its `Display` says what happened and what to check, for the log (the
/// endpoint, the server's words, the cause); it never contains the API key. A client of a
/// failed task sees only [`LlmError::public_reason`] and an error id.
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

impl LlmError {
    /// What a client may be told: the kind of failure, without the endpoint, the server's
    /// words or the cause chain (they may name internal hosts).
    pub fn public_reason(&self) -> String {
        match self {
            LlmError::Config(_) => "The model connector is misconfigured".to_owned(),
            LlmError::Connect { .. } => "Could not reach the model server".to_owned(),
            LlmError::Status { status, .. } => format!("The model server answered HTTP {status}"),
            LlmError::FirstToken(duration) => format!(
                "The model wrote nothing within {} s of the request",
                duration.as_secs()
            ),
            LlmError::ToolRounds(rounds) => {
                format!("The model was still calling tools after {rounds} rounds")
            }
            LlmError::Idle(_) => "The model server stopped answering".to_owned(),
            LlmError::Stream(_) => "The model failed while answering".to_owned(),
            LlmError::Protocol(_) => "The model server's answer could not be read".to_owned(),
            LlmError::Interrupted(_) => "The model's answer was cut off".to_owned(),
        }
    }

    /// The agent error for this failure: the public reason for the client, the whole text
    /// for the log.
    pub(crate) fn into_agent_error(self) -> crate::agent::AgentError {
        crate::agent::AgentError::with_detail(format!("{}.", self.public_reason()), &self)
    }
}

/// " (after N attempts)" when there was more than one.
fn after(attempts: u32) -> String {
    if attempts > 1 {
        format!(" (after {attempts} attempts)")
    } else {
        String::new()
    }
}
