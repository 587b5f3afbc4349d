//! The agent: the user's code that answers a [`Request`].
//!
//! An agent is any async function `Fn(Request) -> Future<Output = Result<Reply, AgentError>>`,
//! or a named type implementing [`Agent`]. It answers with a [`Reply`]: a whole text or a
//! stream of text chunks (as an LLM produces them), artifacts, a bare message, a question
//! for the user, a rejection; the server turns it into A2A task updates. The agent never
//! sees JSON-RPC, SSE or the task store.

use std::fmt;
use std::future::Future;

use futures::future::BoxFuture;

mod reply;

pub use reply::{ArtifactChunk, Reply, ReplyEvent, ReplyStream};

use crate::request::Request;

/// Answers requests. Implemented for every `Fn(Request) -> impl Future<Output =
/// Result<Reply, AgentError>>` closure or function that is `Send + Sync + 'static`.
///
/// # Example
///
/// ```
/// use a2ui_agent::agent::{Agent, AgentError, Reply};
/// use a2ui_agent::request::Request;
/// use futures::future::BoxFuture;
///
/// struct Echo;
///
/// impl Agent for Echo {
///     fn call(&self, request: Request) -> BoxFuture<'static, Result<Reply, AgentError>> {
///         let text = request.text();
///         Box::pin(async move { Ok(Reply::text(text)) })
///     }
/// }
/// ```
pub trait Agent: Send + Sync + 'static {
    /// Answers one request. Dropping the returned future (or the reply's stream) stops the
    /// work: that is how a task is canceled.
    fn call(&self, request: Request) -> BoxFuture<'static, Result<Reply, AgentError>>;
}

impl<F, Fut> Agent for F
where
    F: Fn(Request) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Reply, AgentError>> + Send + 'static,
{
    fn call(&self, request: Request) -> BoxFuture<'static, Result<Reply, AgentError>> {
        Box::pin(self(request))
    }
}

/// Why an agent failed. Its message becomes the failed task's status message, so write it
/// for the user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentError {
    message: String,
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
        }
    }

    /// The message.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for AgentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl<E: std::error::Error> From<E> for AgentError {
    fn from(error: E) -> Self {
        Self::new(error)
    }
}
