//! The agent: the user's code that answers a [`Request`].
//!
//! An agent is any async function or closure from [`Request`] to a reply, or a named type
//! implementing [`Agent`]. The reply may be a [`Reply`], a `String` or `&'static str`, or a
//! `Result` of one of those with an [`AgentError`] ([`IntoReply`]), so a closure needs no
//! type annotations and `?` works inside it. A [`Reply`] is a whole text or a stream of text
//! chunks (as an LLM produces them), artifacts, a bare message, a question for the user, a
//! rejection; the server turns it into A2A task updates. The agent never sees JSON-RPC, SSE
//! or the task store.

use std::fmt;
use std::future::Future;

use futures::future::BoxFuture;

mod reply;

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

/// What a streamed reply's items may be: a chunk of text (`String`, `&'static str`), or a
/// `Result` of one with an [`AgentError`], whose error fails the task with its message. The
/// error type is fixed so that an item written `Ok(text)` needs no annotation; a stream with
/// another error type converts it on the way: `.map(|item| item.map_err(AgentError::new))`.
pub trait IntoChunk {
    /// The chunk, or why the stream failed.
    ///
    /// # Errors
    ///
    /// The stream's own error.
    fn into_chunk(self) -> Result<String, AgentError>;
}

impl IntoChunk for String {
    fn into_chunk(self) -> Result<String, AgentError> {
        Ok(self)
    }
}

impl IntoChunk for &'static str {
    fn into_chunk(self) -> Result<String, AgentError> {
        Ok(self.to_owned())
    }
}

impl<T: Into<String>> IntoChunk for Result<T, AgentError> {
    fn into_chunk(self) -> Result<String, AgentError> {
        self.map(Into::into)
    }
}

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
        let mut detail = error.to_string();
        let mut source = error.source();
        while let Some(cause) = source {
            detail.push_str(": ");
            detail.push_str(&cause.to_string());
            source = cause.source();
        }
        Self::with_detail("The agent failed.", detail)
    }
}
