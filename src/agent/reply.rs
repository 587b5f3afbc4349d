//! What an agent answers: one [`Reply`] per call, naming how the request ends.
//!
//! A2A lets an agent do more than send text: complete a task with artifacts, answer with a
//! bare message and no task, ask for input or for authentication, reject the request, or
//! stream text, progress and artifact chunks as it works. Each of those is one variant of
//! [`Reply`], so an agent says what happens in one value instead of a set of flags that could
//! contradict each other. Text (whole or streamed) is read for A2UI as a model's output is;
//! the parts of the other kinds are sent as given.

use std::fmt;

use futures::Stream;
use futures::stream::{BoxStream, StreamExt};

use super::chunk::IntoChunk;
use super::error::AgentError;
use crate::a2a::{Artifact, Part, TaskState};

/// The events of a streamed reply.
pub type ReplyStream = BoxStream<'static, Result<ReplyEvent, AgentError>>;

/// What an agent answers, and so how the request ends.
///
/// | Variant | The task ends | The client sees |
/// |---|---|---|
/// | [`Text`](Reply::Text) | in `state` (default: the server's `final_state`) | the text, read for A2UI |
/// | [`Stream`](Reply::Stream) | in `state` (same default) | text, status and artifact events as they come |
/// | [`Completed`](Reply::Completed) | `completed` | the artifacts, then `parts` as the status message |
/// | [`Message`](Reply::Message) | no task is created | one agent message |
/// | [`InputRequired`](Reply::InputRequired) | `input-required` | `parts` as the status message |
/// | [`AuthRequired`](Reply::AuthRequired) | `auth-required` | `message` as the status message |
/// | [`Reject`](Reply::Reject) | `rejected` | `message` as the status message |
/// | [`Error`](Reply::Error) | `failed` | `reason` as the status message |
///
/// A [`Message`](Reply::Message) answers a request that starts no task; answering a message
/// that continues a task (or a non-blocking send, whose task the client already holds) with
/// one fails that task as an invalid agent response (`InvalidAgentResponseError`, -32006).
///
/// # Example
///
/// ```
/// use a2ui_agent::a2a::{Part, TaskState};
/// use a2ui_agent::agent::{AgentError, Reply};
/// use a2ui_agent::request::Request;
///
/// async fn agent(request: Request) -> Result<Reply, AgentError> {
///     Ok(match request.text().as_str() {
///         "ping" => Reply::message(vec![Part::text("pong")]),
///         "report" => Reply::artifact(vec![Part::text("All green.")]),
///         "delete everything" => Reply::reject("I will not do that."),
///         "" => Reply::input_required(vec![Part::text("What should I do?")]),
///         other => Reply::text(format!("You said {other}.")).with_final_state(TaskState::Completed),
///     })
/// }
/// ```
#[non_exhaustive]
pub enum Reply {
    /// A whole text, read for A2UI like a model's output; the task ends in `state`, or the
    /// server's `final_state` when `None`.
    Text {
        /// The text.
        text: String,
        /// The state the task ends in.
        state: Option<TaskState>,
    },
    /// Text chunks (read for A2UI as they come), status text and artifact chunks, in the
    /// order the stream gives them; an `Err` item fails the task with its message. The task
    /// ends in `state`, or the server's `final_state` when `None`.
    Stream {
        /// The events.
        events: ReplyStream,
        /// The state the task ends in.
        state: Option<TaskState>,
    },
    /// The task is done: `artifacts` are added to it (an empty `artifact_id` is given a
    /// fresh one), and `parts`, if any, are its status message.
    Completed {
        /// The task's outputs.
        artifacts: Vec<Artifact>,
        /// The status message (none when empty).
        parts: Vec<Part>,
    },
    /// A bare message: the request is answered without a task, nothing is stored.
    Message {
        /// The message's content.
        parts: Vec<Part>,
    },
    /// The agent needs the user to answer: the task waits in `input-required` with `parts`
    /// as its status message.
    InputRequired {
        /// The status message (none when empty).
        parts: Vec<Part>,
    },
    /// The agent needs the user to authenticate: the task waits in `auth-required`.
    AuthRequired {
        /// What to tell the user.
        message: String,
    },
    /// The agent refuses the request: the task ends `rejected`.
    Reject {
        /// Why, for the user.
        message: String,
    },
    /// The agent failed: the task ends `failed`, as when it returns an [`AgentError`].
    Error {
        /// Why, for the user.
        reason: String,
    },
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
        Reply::Text {
            text: text.into(),
            state: None,
        }
    }

    /// A reply streamed in text chunks: texts, or `Result`s of texts whose `Err` fails the
    /// task with its message ([`IntoChunk`]).
    ///
    /// # Example
    ///
    /// ```
    /// use a2ui_agent::{AgentError, Reply};
    ///
    /// let reply = Reply::stream(futures::stream::iter(["Hello", " world"]));
    /// // A model's stream, say, whose items may fail:
    /// let chunks = vec![Ok("Hello"), Err(AgentError::new("the model went away"))];
    /// let reply = Reply::stream(futures::stream::iter(chunks));
    /// ```
    pub fn stream<C: IntoChunk + 'static>(chunks: impl Stream<Item = C> + Send + 'static) -> Self {
        Self::events(chunks.map(|chunk| chunk.into_chunk().map(ReplyEvent::Text)))
    }

    /// A reply streamed as events: text chunks, status text and artifact chunks, in order.
    ///
    /// # Example
    ///
    /// ```
    /// use a2ui_agent::a2a::{Part, TaskState};
    /// use a2ui_agent::agent::{AgentError, Reply, ReplyEvent};
    ///
    /// let events = [
    ///     ReplyEvent::status("Writing the report..."),
    ///     ReplyEvent::chunk(vec![Part::text("chunk-1 ")], false),
    ///     ReplyEvent::chunk(vec![Part::text("chunk-2")], true),
    ///     ReplyEvent::text("The report is ready."),
    /// ];
    /// let reply = Reply::events(futures::stream::iter(events.map(Ok::<_, AgentError>)))
    ///     .with_final_state(TaskState::Completed);
    /// assert_eq!(reply.final_state(), Some(TaskState::Completed));
    /// ```
    pub fn events(
        events: impl Stream<Item = Result<ReplyEvent, AgentError>> + Send + 'static,
    ) -> Self {
        Reply::Stream {
            events: Box::pin(events),
            state: None,
        }
    }

    /// Completes the task with one artifact holding `parts` (its id given by the server).
    ///
    /// # Example
    ///
    /// ```
    /// use a2ui_agent::a2a::{Part, TaskState};
    /// use a2ui_agent::agent::Reply;
    ///
    /// let reply = Reply::artifact(vec![Part::file_url("https://example.com/r.pdf",
    ///     Some("r.pdf"), Some("application/pdf"))]);
    /// assert_eq!(reply.final_state(), Some(TaskState::Completed));
    /// ```
    pub fn artifact(parts: Vec<Part>) -> Self {
        Reply::Completed {
            artifacts: vec![Artifact::new("", parts)],
            parts: Vec::new(),
        }
    }

    /// Answers with a bare message holding `parts`, without a task.
    pub fn message(parts: Vec<Part>) -> Self {
        Reply::Message { parts }
    }

    /// Asks the user for input, `parts` the question.
    pub fn input_required(parts: Vec<Part>) -> Self {
        Reply::InputRequired { parts }
    }

    /// Asks the user to authenticate, saying `message`.
    pub fn auth_required(message: impl Into<String>) -> Self {
        Reply::AuthRequired {
            message: message.into(),
        }
    }

    /// Rejects the request, saying why.
    pub fn reject(message: impl Into<String>) -> Self {
        Reply::Reject {
            message: message.into(),
        }
    }

    /// Fails the task, saying why.
    pub fn error(reason: impl Into<String>) -> Self {
        Reply::Error {
            reason: reason.into(),
        }
    }

    /// The state a [`Text`](Reply::Text) or [`Stream`](Reply::Stream) reply ends the task
    /// in, e.g. [`TaskState::Completed`]. It must be a state a task can stop in (terminal,
    /// `input-required` or `auth-required`); anything else fails the task as an invalid
    /// agent response. The other kinds name their state themselves and are returned as
    /// they are.
    #[must_use]
    pub fn with_final_state(mut self, final_state: TaskState) -> Self {
        if let Reply::Text { state, .. } | Reply::Stream { state, .. } = &mut self {
            *state = Some(final_state);
        }
        self
    }

    /// The state the task ends in, when the reply names one (`None` for a text or stream
    /// that leaves it to the server, and for a bare message, which has no task).
    pub fn final_state(&self) -> Option<TaskState> {
        match self {
            Reply::Text { state, .. } | Reply::Stream { state, .. } => *state,
            Reply::Completed { .. } => Some(TaskState::Completed),
            Reply::Message { .. } => None,
            Reply::InputRequired { .. } => Some(TaskState::InputRequired),
            Reply::AuthRequired { .. } => Some(TaskState::AuthRequired),
            Reply::Reject { .. } => Some(TaskState::Rejected),
            Reply::Error { .. } => Some(TaskState::Failed),
        }
    }
}

impl fmt::Debug for Reply {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reply::Text { text, state } => f
                .debug_struct("Text")
                .field("bytes", &text.len())
                .field("state", state)
                .finish(),
            Reply::Stream { state, .. } => f.debug_struct("Stream").field("state", state).finish(),
            Reply::Completed { artifacts, parts } => f
                .debug_struct("Completed")
                .field("artifacts", &artifacts.len())
                .field("parts", &parts.len())
                .finish(),
            Reply::Message { parts } => f
                .debug_struct("Message")
                .field("parts", &parts.len())
                .finish(),
            Reply::InputRequired { parts } => f
                .debug_struct("InputRequired")
                .field("parts", &parts.len())
                .finish(),
            Reply::AuthRequired { message } => f
                .debug_struct("AuthRequired")
                .field("message", message)
                .finish(),
            Reply::Reject { message } => {
                f.debug_struct("Reject").field("message", message).finish()
            }
            Reply::Error { reason } => f.debug_struct("Error").field("reason", reason).finish(),
        }
    }
}

/// One event of a streamed reply ([`Reply::events`]).
///
/// Nearly every event is a text chunk, one per token the model writes, and each is moved
/// several times on its way to the parser: the rarer, larger kinds are boxed so an event is
/// the size of a `String` (32 bytes), not of an artifact (160).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ReplyEvent {
    /// A chunk of the reply's text, read for A2UI as it comes; what it completes is sent in
    /// a `working` update and kept as the task's status message.
    Text(String),
    /// Progress for the user: a `working` update holding this text, not part of the reply:
    /// the next update replaces it and the final message leaves it out. Its text part is
    /// marked with [`STATUS_METADATA`], so a client can show it apart, as a status line.
    /// E.g. "The model is reading the prompt…".
    Status(String),
    /// A part added to the agent's message as it is, after the parts the text so far
    /// completed, without being parsed: e.g. the record of a tool call (see `llm::Tool`).
    /// It is kept in the task's history. See [`ReplyEvent::part`].
    Part(Box<Part>),
    /// An artifact, whole or one chunk of it: a `TaskArtifactUpdateEvent`, and the task's
    /// artifact created, replaced or grown. See [`ReplyEvent::artifact`] and
    /// [`ReplyEvent::chunk`].
    Artifact(Box<ArtifactChunk>),
    /// The state the task ends in, as [`Reply::with_final_state`] names it, told while the
    /// reply streams: for a reply that learns how it ends only at its end, such as a relay
    /// of another agent's task (see `orchestrator`). The last one told wins over the state
    /// the reply named; it must be a state a task can stop in, or the task fails as an
    /// invalid agent response.
    FinalState(TaskState),
}

impl ReplyEvent {
    /// A chunk of the reply's text.
    pub fn text(text: impl Into<String>) -> Self {
        ReplyEvent::Text(text.into())
    }

    /// A progress update saying `text`.
    pub fn status(text: impl Into<String>) -> Self {
        ReplyEvent::Status(text.into())
    }

    /// A part added to the agent's message as it is.
    pub fn part(part: Part) -> Self {
        ReplyEvent::Part(Box::new(part))
    }

    /// A whole artifact holding `parts` (its id given by the server).
    pub fn artifact(parts: Vec<Part>) -> Self {
        ReplyEvent::Artifact(Box::new(ArtifactChunk {
            artifact: Artifact::new("", parts),
            append: false,
            last_chunk: true,
        }))
    }

    /// A chunk of an artifact: appended to the reply's latest artifact (a new one for the
    /// first chunk); `last` marks the artifact's final chunk.
    pub fn chunk(parts: Vec<Part>, last: bool) -> Self {
        ReplyEvent::Artifact(Box::new(ArtifactChunk {
            artifact: Artifact::new("", parts),
            append: true,
            last_chunk: last,
        }))
    }
}

/// The metadata member (`true`) of the text part of a passing status ([`ReplyEvent::Status`]),
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

/// An artifact, or a chunk of one, sent while the reply streams.
///
/// The artifact's `artifact_id` says which artifact it is; an empty id means the server's
/// choice: a fresh id, or with `append` the id of the reply's latest artifact. With
/// `append`, its parts are added to the artifact with that id (created when there is none);
/// without, it replaces that artifact or is a new one.
#[derive(Debug, Clone, PartialEq)]
pub struct ArtifactChunk {
    /// The artifact, or the piece to append.
    pub artifact: Artifact,
    /// Whether the parts append to an artifact already sent.
    pub append: bool,
    /// Whether this is the artifact's last chunk.
    pub last_chunk: bool,
}
