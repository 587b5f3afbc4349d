//! The agent: the user's code that answers a [`Request`].
//!
//! An agent is any async function `Fn(Request) -> Future<Output = Result<Reply, AgentError>>`,
//! or a named type implementing [`Agent`]. It answers with a whole text or a stream of text
//! chunks (as an LLM produces them); the server turns them into A2A task updates. The agent
//! never sees JSON-RPC, SSE or the task store.

use std::fmt;
use std::future::Future;

use futures::Stream;
use futures::future::BoxFuture;
use futures::stream::BoxStream;

use crate::a2a::{Part, TaskState};
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

/// What an agent answers: a whole text or a stream of text chunks, and optionally the state
/// the task ends in (default: the server's `final_state`, `input-required` unless set).
pub struct Reply {
    pub(crate) body: ReplyBody,
    pub(crate) final_state: Option<TaskState>,
}

pub(crate) enum ReplyBody {
    Text(String),
    Stream(BoxStream<'static, Result<String, AgentError>>),
    Chunks(BoxStream<'static, Result<ReplyChunk, AgentError>>),
}

/// One item of a reply streamed with [`Reply::chunks`].
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ReplyChunk {
    /// Output text, read like the chunks of [`Reply::stream`]: plain text, or text and A2UI
    /// blocks when the request negotiated A2UI.
    Text(String),
    /// A part added to the agent's message as it is, after the parts the text so far
    /// completed, without being parsed: e.g. the record of a tool call (see `llm::Tool`).
    /// It is kept in the task's history.
    Part(Part),
    /// A passing status: a `working` update whose message (id: the reply's, then
    /// `-status`) is this one text, marked with [`STATUS_METADATA`]. It is not part of the
    /// reply: the next update replaces it and the final message leaves it out. E.g. "The
    /// model is reading the prompt…".
    Status(String),
}

/// The metadata member (`true`) of the text part of a passing status ([`ReplyChunk::Status`]),
/// so a client can show it apart from the reply, as a status line.
pub const STATUS_METADATA: &str = "a2uiAgentStatus";

/// The text part of a passing status.
pub(crate) fn status_part(text: String) -> Part {
    let mut metadata = serde_json::Map::new();
    metadata.insert(STATUS_METADATA.to_owned(), serde_json::Value::Bool(true));
    Part::Text {
        text,
        metadata: Some(std::sync::Arc::new(metadata)),
    }
}

impl Reply {
    /// A reply made of one text.
    ///
    /// # Example
    ///
    /// ```
    /// use a2ui_agent::a2a::TaskState;
    /// use a2ui_agent::agent::Reply;
    ///
    /// let reply = Reply::text("Done.").with_final_state(TaskState::Completed);
    /// assert_eq!(reply.final_state(), Some(TaskState::Completed));
    /// ```
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            body: ReplyBody::Text(text.into()),
            final_state: None,
        }
    }

    /// A reply streamed in chunks; an `Err` item fails the task with its message.
    ///
    /// # Example
    ///
    /// ```
    /// use a2ui_agent::agent::{AgentError, Reply};
    ///
    /// let words = ["Hello", " world"].map(|word| Ok::<_, AgentError>(word.to_string()));
    /// let reply = Reply::stream(futures::stream::iter(words));
    /// ```
    pub fn stream(chunks: impl Stream<Item = Result<String, AgentError>> + Send + 'static) -> Self {
        Self {
            body: ReplyBody::Stream(Box::pin(chunks)),
            final_state: None,
        }
    }

    /// A reply streamed as [`ReplyChunk`]s: text as [`Reply::stream`] reads it, and parts
    /// or passing statuses beside it; an `Err` item fails the task with its message.
    ///
    /// # Example
    ///
    /// ```
    /// use a2ui_agent::agent::{AgentError, Reply, ReplyChunk};
    ///
    /// let chunks = [
    ///     ReplyChunk::Status("Looking it up…".into()),
    ///     ReplyChunk::Text("Found it.".into()),
    /// ];
    /// let reply = Reply::chunks(futures::stream::iter(chunks.map(Ok::<_, AgentError>)));
    /// ```
    pub fn chunks(
        chunks: impl Stream<Item = Result<ReplyChunk, AgentError>> + Send + 'static,
    ) -> Self {
        Self {
            body: ReplyBody::Chunks(Box::pin(chunks)),
            final_state: None,
        }
    }

    /// The state the task ends in after this reply, e.g. [`TaskState::Completed`]. It must
    /// be a state a task can stop in (terminal, `input-required` or `auth-required`);
    /// anything else fails the task as an invalid agent response.
    #[must_use]
    pub fn with_final_state(mut self, state: TaskState) -> Self {
        self.final_state = Some(state);
        self
    }

    /// The final state asked for, if any.
    pub fn final_state(&self) -> Option<TaskState> {
        self.final_state
    }
}

impl fmt::Debug for Reply {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let body = match &self.body {
            ReplyBody::Text(text) => format!("Text({} bytes)", text.len()),
            ReplyBody::Stream(_) | ReplyBody::Chunks(_) => "Stream".to_owned(),
        };
        f.debug_struct("Reply")
            .field("body", &body)
            .field("final_state", &self.final_state)
            .finish()
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
