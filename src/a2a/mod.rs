//! The A2A protocol model.
//!
//! One set of plain data types that the rest of the crate speaks: messages, parts, tasks and
//! stream events. They carry no wire details (no `kind` tags, no camelCase); the wire
//! representation of each protocol version lives in its own module (`v0_3`, `v1_0`) with
//! its conversions, so a protocol version adds a module instead of reshaping the model.
//! Nothing here knows about A2UI or HTTP.
//!
//! The wire codecs (`jsonrpc`, `budget`, `v0_3`, `v1_0`) are the crate's own: the server
//! decodes and encodes with them, and they are public only under the `unstable-internals`
//! feature, hidden from the docs, for the crate's fuzz targets.

mod base64;
#[cfg(any(feature = "server", feature = "unstable-internals"))]
pub(crate) mod borrowed;
pub mod card;
#[cfg(feature = "card-signing")]
pub mod card_signing;
mod params;
mod push_config;
mod task_state;

/// Declares the wire codec modules: crate-private, or public and hidden under the
/// `unstable-internals` feature. Their items are `pub` for that case, so `unreachable_pub`
/// is allowed inside them when the feature is off. Only the server uses them: without it
/// (and without the feature) they are not compiled. What only the fuzz checks and the
/// modules' own tests use (the `Value`-tree encoders, the code table) is compiled only for
/// those.
macro_rules! wire_modules {
    ($($(#[$attr:meta])* $name:ident;)*) => {$(
        $(#[$attr])*
        #[cfg(feature = "unstable-internals")]
        #[doc(hidden)]
        pub mod $name;
        $(#[$attr])*
        #[cfg(all(feature = "server", not(feature = "unstable-internals")))]
        #[allow(unreachable_pub)]
        pub(crate) mod $name;
    )*};
}

wire_modules! {
    /// The decoding budget: sizes and depths a request may have.
    budget;
    /// JSON-RPC 2.0 envelopes and the A2A error codes.
    jsonrpc;
    /// The A2A 0.3 wire format.
    v0_3;
    /// The A2A 1.0 wire format.
    v1_0;
}

pub use params::{SendConfiguration, SendRequest, TaskListQuery, TaskPage, TaskQuery};
pub use push_config::{
    PushAuthentication, PushConfig, PushConfigQuery, PushConfigRequest, PushProtocol,
};
pub use task_state::{TaskState, UnknownTaskState};

use std::sync::Arc;

use serde_json::{Map, Value};

/// Free-form metadata attached to messages, parts, tasks and events.
pub type Metadata = Map<String, Value>;

/// A wire struct as JSON: the last step of each version's encoder.
#[cfg(any(feature = "server", feature = "unstable-internals"))]
pub(crate) fn wire_value(wire: impl serde::Serialize) -> Value {
    // Serializing borrowed strings and JSON values into a `Value` cannot fail.
    serde_json::to_value(wire).unwrap_or(Value::Null)
}

/// Who sent a [`Message`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Role {
    /// The client, on behalf of a person or another agent.
    User,
    /// The agent.
    Agent,
}

/// One message of a conversation.
#[derive(Debug, Clone, PartialEq)]
pub struct Message {
    /// Unique id chosen by the sender.
    pub message_id: String,
    /// Who sent it.
    pub role: Role,
    /// The content.
    pub parts: Vec<Part>,
    /// The conversation this message belongs to.
    pub context_id: Option<String>,
    /// The task this message belongs to or continues.
    pub task_id: Option<String>,
    /// Other tasks the message refers to.
    pub reference_task_ids: Vec<String>,
    /// Extension URIs that contributed to the message.
    pub extensions: Vec<String>,
    /// Free-form metadata (a user's message carries the renderer's capabilities here, inline
    /// catalogs included). Not shared behind an `Arc` as a part's is: a message's metadata
    /// is copied when the message enters the task's history or a task snapshot (once per
    /// request), never per streamed update, which carries the agent's reply message alone.
    pub metadata: Option<Metadata>,
}

impl Message {
    /// A message from the agent holding `parts`, with the given id.
    ///
    /// # Example
    ///
    /// ```
    /// use a2ui_agent::a2a::{Message, Part, Role};
    ///
    /// let message = Message::agent("m-1", vec![Part::text("hello")]);
    /// assert_eq!(message.role, Role::Agent);
    /// assert_eq!(message.text(), "hello");
    /// ```
    pub fn agent(message_id: impl Into<String>, parts: Vec<Part>) -> Self {
        Self::new(message_id, Role::Agent, parts)
    }

    /// A message from the user holding `parts`, with the given id.
    pub fn user(message_id: impl Into<String>, parts: Vec<Part>) -> Self {
        Self::new(message_id, Role::User, parts)
    }

    fn new(message_id: impl Into<String>, role: Role, parts: Vec<Part>) -> Self {
        Self {
            message_id: message_id.into(),
            role,
            parts,
            context_id: None,
            task_id: None,
            reference_task_ids: Vec::new(),
            extensions: Vec::new(),
            metadata: None,
        }
    }

    /// The text of every text part, joined without separator.
    pub fn text(&self) -> String {
        self.parts.iter().filter_map(Part::as_text).collect()
    }
}

/// One piece of a message or artifact.
#[derive(Debug, Clone, PartialEq)]
pub enum Part {
    /// Plain text.
    Text {
        /// The text.
        text: String,
        /// Free-form metadata, shared like `data`.
        metadata: Option<Arc<Metadata>>,
    },
    /// A file, inline or by reference.
    File {
        /// The file's content or location.
        file: FileContent,
        /// Free-form metadata, shared like `data`.
        metadata: Option<Arc<Metadata>>,
    },
    /// Structured data: always a JSON object.
    Data {
        /// The data, shared: a part is cloned into the task's history, each stream event and
        /// the store, and none of those clones copies the object.
        data: Arc<Map<String, Value>>,
        /// Free-form metadata, shared like `data` (every A2UI part of a reply carries the
        /// same `mimeType`).
        metadata: Option<Arc<Metadata>>,
    },
}

impl Part {
    /// A text part without metadata.
    pub fn text(text: impl Into<String>) -> Self {
        Part::Text {
            text: text.into(),
            metadata: None,
        }
    }

    /// A data part without metadata.
    pub fn data(data: Map<String, Value>) -> Self {
        Part::Data {
            data: Arc::new(data),
            metadata: None,
        }
    }

    /// A file part holding `bytes` (sent as base64), with its name and media type.
    ///
    /// # Example
    ///
    /// ```
    /// use a2ui_agent::a2a::{FileBody, Part};
    ///
    /// let part = Part::file_bytes(b"tck", Some("output.txt"), Some("text/plain"));
    /// let Part::File { file, .. } = &part else { unreachable!() };
    /// assert_eq!(file.body, FileBody::Bytes("dGNr".into()));
    /// assert_eq!(file.bytes().as_deref(), Some(&b"tck"[..]));
    /// ```
    pub fn file_bytes(bytes: &[u8], name: Option<&str>, mime_type: Option<&str>) -> Self {
        Self::file(FileBody::Bytes(base64::encode(bytes)), name, mime_type)
    }

    /// A file part pointing at `uri`, with its name and media type.
    pub fn file_url(uri: impl Into<String>, name: Option<&str>, mime_type: Option<&str>) -> Self {
        Self::file(FileBody::Uri(uri.into()), name, mime_type)
    }

    fn file(body: FileBody, name: Option<&str>, mime_type: Option<&str>) -> Self {
        Part::File {
            file: FileContent {
                body,
                mime_type: mime_type.map(str::to_owned),
                name: name.map(str::to_owned),
            },
            metadata: None,
        }
    }

    /// The file of a file part.
    pub fn as_file(&self) -> Option<&FileContent> {
        match self {
            Part::File { file, .. } => Some(file),
            _ => None,
        }
    }

    /// The object of a data part.
    pub fn as_data(&self) -> Option<&Map<String, Value>> {
        match self {
            Part::Data { data, .. } => Some(data),
            _ => None,
        }
    }

    /// The text of a text part.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            Part::Text { text, .. } => Some(text),
            _ => None,
        }
    }

    /// The part's metadata.
    pub fn metadata(&self) -> Option<&Metadata> {
        match self {
            Part::Text { metadata, .. }
            | Part::File { metadata, .. }
            | Part::Data { metadata, .. } => metadata.as_deref(),
        }
    }
}

/// The content of a file part.
#[derive(Debug, Clone, PartialEq)]
pub struct FileContent {
    /// Inline bytes (base64) or a URI.
    pub body: FileBody,
    /// The file's MIME type.
    pub mime_type: Option<String>,
    /// The file's name.
    pub name: Option<String>,
}

impl FileContent {
    /// The file's bytes, decoded from base64; `None` for a file by URI or bytes that are
    /// not base64.
    pub fn bytes(&self) -> Option<Vec<u8>> {
        match &self.body {
            FileBody::Bytes(text) => base64::decode(text),
            FileBody::Uri(_) => None,
        }
    }

    /// The file's URI, for a file by reference.
    pub fn uri(&self) -> Option<&str> {
        match &self.body {
            FileBody::Uri(uri) => Some(uri),
            FileBody::Bytes(_) => None,
        }
    }
}

/// Where a file's bytes are.
#[derive(Debug, Clone, PartialEq)]
pub enum FileBody {
    /// Base64-encoded bytes, as sent.
    Bytes(String),
    /// A URI to fetch the bytes from.
    Uri(String),
}

/// A task's state, with the message that explains it.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskStatus {
    /// The state.
    pub state: TaskState,
    /// The agent's message for this state.
    pub message: Option<Message>,
    /// When the state was entered: RFC 3339, UTC, milliseconds, `Z`.
    pub timestamp: Option<String>,
}

/// A unit of work the agent does for the client.
#[derive(Debug, Clone, PartialEq)]
pub struct Task {
    /// The task's id.
    pub id: String,
    /// The conversation the task belongs to.
    pub context_id: String,
    /// The current status.
    pub status: TaskStatus,
    /// Outputs the agent produced.
    pub artifacts: Vec<Artifact>,
    /// The messages exchanged, oldest first (the current status message is not in it).
    pub history: Vec<Message>,
    /// Free-form metadata.
    pub metadata: Option<Metadata>,
}

impl Task {
    /// Task `id` of conversation `context_id` in `state`, with nothing else yet: no status
    /// message or timestamp, artifacts, history or metadata.
    ///
    /// # Example
    ///
    /// ```
    /// use a2ui_agent::a2a::{Task, TaskState};
    ///
    /// let task = Task::new("t1", "c1", TaskState::Submitted);
    /// assert_eq!((task.id.as_str(), task.status.state), ("t1", TaskState::Submitted));
    /// assert!(task.history.is_empty() && task.status.message.is_none());
    /// ```
    pub fn new(id: impl Into<String>, context_id: impl Into<String>, state: TaskState) -> Self {
        Task {
            id: id.into(),
            context_id: context_id.into(),
            status: TaskStatus {
                state,
                message: None,
                timestamp: None,
            },
            artifacts: Vec::new(),
            history: Vec::new(),
            metadata: None,
        }
    }

    /// The task with only the last `length` messages of its history (`None`: all of them).
    pub fn with_history_length(mut self, length: Option<usize>) -> Self {
        if let Some(length) = length {
            let skip = self.history.len().saturating_sub(length);
            self.history.drain(..skip);
        }
        self
    }
}

/// An output of a task.
#[derive(Debug, Clone, PartialEq)]
pub struct Artifact {
    /// The artifact's id.
    pub artifact_id: String,
    /// A human-readable name.
    pub name: Option<String>,
    /// A human-readable description.
    pub description: Option<String>,
    /// The content.
    pub parts: Vec<Part>,
    /// Extension URIs that contributed to the artifact.
    pub extensions: Vec<String>,
    /// Free-form metadata.
    pub metadata: Option<Metadata>,
}

impl Artifact {
    /// An artifact with id `artifact_id` holding `parts`, without name or metadata.
    pub fn new(artifact_id: impl Into<String>, parts: Vec<Part>) -> Self {
        Self {
            artifact_id: artifact_id.into(),
            name: None,
            description: None,
            parts,
            extensions: Vec::new(),
            metadata: None,
        }
    }
}

/// A task's status changed.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskStatusUpdateEvent {
    /// The task.
    pub task_id: String,
    /// The task's context.
    pub context_id: String,
    /// The new status.
    pub status: TaskStatus,
    /// Whether this is the last event of the stream.
    pub is_final: bool,
    /// Free-form metadata.
    pub metadata: Option<Metadata>,
}

impl TaskStatusUpdateEvent {
    /// `task`'s current status as an update, the last of its stream when `is_final`.
    ///
    /// # Example
    ///
    /// ```
    /// use a2ui_agent::a2a::{Task, TaskState, TaskStatus, TaskStatusUpdateEvent};
    ///
    /// let task = Task {
    ///     id: "t1".into(),
    ///     context_id: "c1".into(),
    ///     status: TaskStatus { state: TaskState::Completed, message: None, timestamp: None },
    ///     artifacts: Vec::new(),
    ///     history: Vec::new(),
    ///     metadata: None,
    /// };
    /// let update = TaskStatusUpdateEvent::of(&task, true);
    /// assert_eq!((update.task_id.as_str(), update.status.state), ("t1", TaskState::Completed));
    /// assert!(update.is_final);
    /// ```
    pub fn of(task: &Task, is_final: bool) -> Self {
        Self {
            task_id: task.id.clone(),
            context_id: task.context_id.clone(),
            status: task.status.clone(),
            is_final,
            metadata: None,
        }
    }
}

/// A task's artifact was created or grew.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskArtifactUpdateEvent {
    /// The task.
    pub task_id: String,
    /// The task's context.
    pub context_id: String,
    /// The artifact, or the piece appended to it.
    pub artifact: Artifact,
    /// Whether the parts append to an artifact already sent.
    pub append: Option<bool>,
    /// Whether this is the artifact's last piece.
    pub last_chunk: Option<bool>,
    /// Free-form metadata.
    pub metadata: Option<Metadata>,
}

/// One event of a `message/stream` or `tasks/resubscribe` response.
#[derive(Debug, Clone, PartialEq)]
pub enum StreamEvent {
    /// The task, as it is when the stream starts.
    Task(Task),
    /// A message answering without a task.
    Message(Message),
    /// A status change.
    StatusUpdate(TaskStatusUpdateEvent),
    /// An artifact change.
    ArtifactUpdate(TaskArtifactUpdateEvent),
}

impl StreamEvent {
    /// Whether the event ends the stream.
    pub fn is_final(&self) -> bool {
        match self {
            StreamEvent::Message(_) => true,
            StreamEvent::StatusUpdate(update) => update.is_final,
            StreamEvent::Task(task) => task.status.state.is_settled(),
            StreamEvent::ArtifactUpdate(_) => false,
        }
    }
}

/// Arbitrary JSON for the wire decoders' property tests: nested arrays and objects whose
/// keys are drawn from `keys` and whose strings from `words` (both regexes), so that the
/// decoders meet near-valid input as well as noise.
#[cfg(test)]
pub(crate) fn any_json(
    words: &'static str,
    keys: &'static str,
) -> impl proptest::strategy::Strategy<Value = Value> {
    use proptest::prelude::*;
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        words.prop_map(Value::from),
    ];
    leaf.prop_recursive(5, 64, 6, move |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
            proptest::collection::btree_map(keys, inner, 0..6)
                .prop_map(|map| Value::Object(map.into_iter().collect())),
        ]
    })
}
