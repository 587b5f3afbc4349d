//! The agent: the user's code that answers a [`Request`].
//!
//! An agent is any async function or closure from [`Request`] to a reply, or a named type
//! implementing [`Agent`]. The reply may be a [`Reply`], a `String` or `&'static str`, or a
//! `Result` of one of those with an [`AgentError`] ([`IntoReply`]), so a closure needs no
//! type annotations and `?` works inside it. A [`Reply`] is a whole text or a stream of text
//! chunks (as an LLM produces them), artifacts, a bare message, a question for the user, a
//! rejection; the server turns it into A2A task updates. The agent never sees JSON-RPC, SSE
//! or the task store.

use std::future::Future;

use futures::future::BoxFuture;

mod chunk;
mod error;
mod reply;

pub use chunk::IntoChunk;
pub use error::AgentError;
pub(crate) use reply::status_part;
pub use reply::{ArtifactChunk, Reply, ReplyEvent, ReplyStream, STATUS_METADATA};

use crate::request::Request;

/// Answers requests. Implemented for every `Fn(Request) -> impl Future` closure or function
/// that is `Send + Sync + 'static` and whose future's output is an [`IntoReply`].
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
///
/// Closures, with no annotation but the request's type:
///
/// ```
/// use a2ui_agent::{Agent, AgentError, Reply, Request};
///
/// fn takes(_agent: impl Agent) {}
///
/// takes(|request: Request| async move { format!("You said: {}", request.text()) });
/// takes(|request: Request| async move { Reply::text(request.text()) });
/// takes(|_request: Request| async move {
///     let text = std::fs::read_to_string("/etc/hostname")?; // an io::Error fails the task
///     Ok(Reply::text(text))
/// });
/// async fn named(request: Request) -> Result<Reply, AgentError> {
///     Ok(Reply::text(request.text()))
/// }
/// takes(named);
/// ```
pub trait Agent: Send + Sync + 'static {
    /// Answers one request. Dropping the returned future (or the reply's stream) stops the
    /// work: that is how a task is canceled.
    fn call(&self, request: Request) -> BoxFuture<'static, Result<Reply, AgentError>>;
}

impl<F, Fut> Agent for F
where
    F: Fn(Request) -> Fut + Send + Sync + 'static,
    Fut: Future + Send + 'static,
    Fut::Output: IntoReply,
{
    fn call(&self, request: Request) -> BoxFuture<'static, Result<Reply, AgentError>> {
        let answer = self(request);
        Box::pin(async move { answer.await.into_reply() })
    }
}

/// What an agent's future may end with: a [`Reply`], a text (`String`, `&'static str`), or
/// a `Result` of one of those with an [`AgentError`] (the error type is fixed so that a
/// closure's `Ok(..)` needs no annotation; `?` converts any `std::error::Error` into it).
pub trait IntoReply {
    /// The reply, or why the agent failed.
    ///
    /// # Errors
    ///
    /// The agent's own error.
    fn into_reply(self) -> Result<Reply, AgentError>;
}

impl IntoReply for Reply {
    fn into_reply(self) -> Result<Reply, AgentError> {
        Ok(self)
    }
}

impl IntoReply for String {
    fn into_reply(self) -> Result<Reply, AgentError> {
        Ok(Reply::text(self))
    }
}

impl IntoReply for &'static str {
    fn into_reply(self) -> Result<Reply, AgentError> {
        Ok(Reply::text(self))
    }
}

impl<R: Into<Reply>> IntoReply for Result<R, AgentError> {
    fn into_reply(self) -> Result<Reply, AgentError> {
        self.map(Into::into)
    }
}

impl From<String> for Reply {
    fn from(text: String) -> Self {
        Reply::text(text)
    }
}

impl From<&str> for Reply {
    fn from(text: &str) -> Self {
        Reply::text(text)
    }
}
