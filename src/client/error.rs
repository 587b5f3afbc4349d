//! [`ClientError`]: why a call to another agent failed, told apart so a caller can act on it
//! (retry a timeout, show the agent's own error, give up on a bad card).

use std::time::Duration;

use serde_json::Value;

/// What a stream that ends before its last event fails with (a [`ClientError::BadAnswer`]).
pub(super) const STREAM_CUT: &str = "the stream ended before its last event";

/// Why a call to an agent failed.
///
/// Nothing an agent sends makes the client panic: every answer it cannot use is one of these.
///
/// # Example
///
/// ```
/// use a2ui_agent::client::ClientError;
///
/// let error = ClientError::Agent { code: -32001, message: "Task not found".into(), data: None };
/// assert_eq!(error.agent_code(), Some(-32001));
/// assert_eq!(error.to_string(), "the agent answered error -32001: Task not found");
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ClientError {
    /// The agent answered with an A2A (or JSON-RPC) error: its code and message as sent. Over
    /// HTTP+JSON the code is the A2A code named by the error's `ErrorInfo` reason (or, when it
    /// names none, the HTTP status).
    #[error("the agent answered error {code}: {message}")]
    Agent {
        /// The error code.
        code: i64,
        /// The agent's message.
        message: String,
        /// The agent's detail, if any (`data`, or the 1.0 `details`).
        data: Option<Value>,
    },
    /// The agent answered an HTTP status other than success, with no A2A error in the body.
    #[error("the agent answered HTTP {status}: {body}")]
    Http {
        /// The status code.
        status: u16,
        /// The start of the body (at most 200 characters), for a person to read.
        body: String,
    },
    /// The agent could not be reached, or the connection broke.
    #[error("could not talk to the agent: {0}")]
    Transport(String),
    /// The agent did not answer in time: `what` names the wait (connect, answer, stream).
    #[error("the agent did not answer in time ({what} timeout, {after:?})")]
    Timeout {
        /// Which timeout fired.
        what: &'static str,
        /// Its duration.
        after: Duration,
    },
    /// The agent card could not be fetched as a card, or offers no interface the client
    /// speaks.
    #[error("the agent card is unusable: {0}")]
    BadCard(String),
    /// An answer (a body, a card or one stream event) is larger or deeper than the client
    /// accepts.
    #[error("the agent's answer is too large: {0}")]
    TooLarge(String),
    /// The answer is not what A2A allows here: not JSON, a JSON-RPC response to another
    /// request, a task other than the one asked for, a stream that ends before its last
    /// event, ...
    #[error("the agent's answer is not valid A2A: {0}")]
    BadAnswer(String),
    /// The chosen interface has no such operation (listing tasks over A2A 0.3).
    #[error("{0}")]
    Unsupported(String),
    /// The client was configured with something it cannot use (a URL, a header).
    #[error("invalid client configuration: {0}")]
    Config(String),
}

impl ClientError {
    /// The agent's error code, for [`ClientError::Agent`].
    pub fn agent_code(&self) -> Option<i64> {
        match self {
            ClientError::Agent { code, .. } => Some(*code),
            _ => None,
        }
    }

    /// Whether an idempotent call may be tried again: the agent could not be reached, did
    /// not answer in time, or answered 429 or a 5xx status of a busy or restarting server.
    pub(super) fn is_retryable(&self) -> bool {
        match self {
            ClientError::Transport(_) | ClientError::Timeout { .. } => true,
            ClientError::Http { status, .. } => matches!(status, 429 | 502 | 503 | 504),
            _ => false,
        }
    }

    /// Whether a stream that failed this way may be picked up again by re-subscribing: the
    /// connection broke, went silent, or closed before the stream's last event.
    pub(super) fn is_resumable(&self) -> bool {
        match self {
            ClientError::Transport(_) => true,
            ClientError::Timeout { what, .. } => *what == "stream idle",
            ClientError::BadAnswer(message) => message == STREAM_CUT,
            _ => false,
        }
    }

    /// The error of a failed reqwest call: a timeout or a transport failure.
    pub(super) fn from_reqwest(error: &reqwest::Error, timeout: Duration) -> Self {
        if error.is_timeout() {
            ClientError::Timeout {
                what: "answer",
                after: timeout,
            }
        } else {
            // The chain names the cause (refused, reset, DNS) after reqwest's own summary.
            ClientError::Transport(crate::error_chain::chain(error))
        }
    }
}
