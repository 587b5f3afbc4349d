//! Model → A2A 0.3 JSON: `kind` tags, camelCase names, optional members left out when empty.

use crate::a2a::wire_value as to_value;
use serde::{Serialize, Serializer};
use serde_json::{Map, Value};

use crate::a2a::{
    Artifact, FileBody, Message, Metadata, Part, Role, StreamEvent, Task, TaskState, TaskStatus,
};

/// A message as 0.3 JSON, borrowed from the model: serialized straight to text (or counted)
/// without a `Value` tree.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct WireMessage<'a> {
    kind: &'static str,
    message_id: &'a str,
    role: &'static str,
    parts: WireParts<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    context_id: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    task_id: Option<&'a str>,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    reference_task_ids: &'a [String],
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    extensions: &'a [String],
    #[serde(skip_serializing_if = "Option::is_none")]
    metadata: Option<&'a Metadata>,
}

/// Parts, serialized one by one as they are read.
struct WireParts<'a>(&'a [Part]);

impl Serialize for WireParts<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.iter().map(wire_part))
    }
}

#[derive(Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
enum WirePart<'a> {
    Text {
        text: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        metadata: Option<&'a Metadata>,
    },
    Data {
        data: &'a Map<String, Value>,
        #[serde(skip_serializing_if = "Option::is_none")]
        metadata: Option<&'a Metadata>,
    },
    File {
        file: WireFile<'a>,
        #[serde(skip_serializing_if = "Option::is_none")]
        metadata: Option<&'a Metadata>,
    },
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct WireFile<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    bytes: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    uri: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    mime_type: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    name: Option<&'a str>,
}

/// `message` as 0.3 JSON, to serialize (what [`encode_message`] gives, without the `Value`).
pub(crate) fn wire_message(message: &Message) -> WireMessage<'_> {
    WireMessage {
        kind: "message",
        message_id: &message.message_id,
        role: match message.role {
            Role::User => "user",
            Role::Agent => "agent",
        },
        parts: WireParts(&message.parts),
        context_id: message.context_id.as_deref(),
        task_id: message.task_id.as_deref(),
        reference_task_ids: &message.reference_task_ids,
        extensions: &message.extensions,
        metadata: message.metadata.as_ref(),
    }
}

fn wire_part(part: &Part) -> WirePart<'_> {
    match part {
        Part::Text { text, metadata } => WirePart::Text {
            text,
            metadata: metadata.as_deref(),
        },
        Part::Data { data, metadata } => WirePart::Data {
            data,
            metadata: metadata.as_deref(),
        },
        Part::File { file, metadata } => {
            let (bytes, uri) = match &file.body {
                FileBody::Bytes(bytes) => (Some(bytes.as_str()), None),
                FileBody::Uri(uri) => (None, Some(uri.as_str())),
            };
            WirePart::File {
                file: WireFile {
                    bytes,
                    uri,
                    mime_type: file.mime_type.as_deref(),
                    name: file.name.as_deref(),
                },
                metadata: metadata.as_deref(),
            }
        }
    }
}

/// Encodes a message.
pub fn encode_message(message: &Message) -> Value {
    to_value(wire_message(message))
}

/// Encodes a part.
pub fn encode_part(part: &Part) -> Value {
    to_value(wire_part(part))
}

/// Encodes a task status.
pub fn encode_status(status: &TaskStatus) -> Value {
    to_value(wire_status(status))
}

/// Encodes a task state: `"input-required"`, ...
pub fn encode_state(state: TaskState) -> Value {
    state.as_str().into()
}

/// Encodes a task; `history` is always present, `artifacts` only when there are some.
pub fn encode_task(task: &Task) -> Value {
    to_value(wire_task(task))
}

/// Encodes an artifact.
pub fn encode_artifact(artifact: &Artifact) -> Value {
    to_value(wire_artifact(artifact))
}

/// Encodes a stream event (the `result` of one SSE frame).
///
/// # Example
///
/// ```
/// use a2ui_agent::a2a::{StreamEvent, TaskState, TaskStatus, TaskStatusUpdateEvent};
/// use a2ui_agent::a2a::v0_3::encode_event;
///
/// let event = StreamEvent::StatusUpdate(TaskStatusUpdateEvent {
///     task_id: "t".into(),
///     context_id: "c".into(),
///     status: TaskStatus { state: TaskState::Working, message: None, timestamp: None },
///     is_final: false,
///     metadata: None,
/// });
/// let json = encode_event(&event);
/// assert_eq!(json["kind"], "status-update");
/// assert_eq!(json["final"], false);
/// ```
pub fn encode_event(event: &StreamEvent) -> Value {
    to_value(event_result(event))
}

/// A stream event as 0.3 JSON, to serialize straight into an SSE frame (what
/// [`encode_event`] gives, without the `Value` tree: a `working` update holding a hundred
/// A2UI messages would otherwise be copied into a tree before it is written).
pub(crate) fn event_result(event: &StreamEvent) -> impl Serialize + '_ {
    match event {
        StreamEvent::Task(task) => WireEvent::Task(wire_task(task)),
        StreamEvent::Message(message) => WireEvent::Message(wire_message(message)),
        StreamEvent::StatusUpdate(update) => WireEvent::StatusUpdate(WireStatusUpdate {
            kind: "status-update",
            task_id: &update.task_id,
            context_id: &update.context_id,
            status: wire_status(&update.status),
            is_final: update.is_final,
            metadata: update.metadata.as_ref(),
        }),
        StreamEvent::ArtifactUpdate(update) => WireEvent::ArtifactUpdate(WireArtifactUpdate {
            kind: "artifact-update",
            task_id: &update.task_id,
            context_id: &update.context_id,
            artifact: wire_artifact(&update.artifact),
            append: update.append,
            last_chunk: update.last_chunk,
            metadata: update.metadata.as_ref(),
        }),
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct WireStatus<'a> {
    state: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<WireMessage<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    timestamp: Option<&'a str>,
}

fn wire_status(status: &TaskStatus) -> WireStatus<'_> {
    WireStatus {
        state: status.state.as_str(),
        message: status.message.as_ref().map(wire_message),
        timestamp: status.timestamp.as_deref(),
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct WireTask<'a> {
    kind: &'static str,
    id: &'a str,
    context_id: &'a str,
    status: WireStatus<'a>,
    history: Vec<WireMessage<'a>>,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    artifacts: Vec<WireArtifact<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    metadata: Option<&'a Metadata>,
}

fn wire_task(task: &Task) -> WireTask<'_> {
    WireTask {
        kind: "task",
        id: &task.id,
        context_id: &task.context_id,
        status: wire_status(&task.status),
        history: task.history.iter().map(wire_message).collect(),
        artifacts: task.artifacts.iter().map(wire_artifact).collect(),
        metadata: task.metadata.as_ref(),
    }
}

/// An artifact as 0.3 JSON, borrowed from the model (what [`encode_artifact`] gives, without
/// the `Value`).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct WireArtifact<'a> {
    artifact_id: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    name: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<&'a str>,
    parts: WireParts<'a>,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    extensions: &'a [String],
    #[serde(skip_serializing_if = "Option::is_none")]
    metadata: Option<&'a Metadata>,
}

pub(crate) fn wire_artifact(artifact: &Artifact) -> WireArtifact<'_> {
    WireArtifact {
        artifact_id: &artifact.artifact_id,
        name: artifact.name.as_deref(),
        description: artifact.description.as_deref(),
        parts: WireParts(&artifact.parts),
        extensions: &artifact.extensions,
        metadata: artifact.metadata.as_ref(),
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct WireStatusUpdate<'a> {
    kind: &'static str,
    task_id: &'a str,
    context_id: &'a str,
    status: WireStatus<'a>,
    #[serde(rename = "final")]
    is_final: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    metadata: Option<&'a Metadata>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct WireArtifactUpdate<'a> {
    kind: &'static str,
    task_id: &'a str,
    context_id: &'a str,
    artifact: WireArtifact<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    append: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    last_chunk: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    metadata: Option<&'a Metadata>,
}

/// One stream event; each variant carries its own `kind`.
#[derive(Serialize)]
#[serde(untagged)]
enum WireEvent<'a> {
    Task(WireTask<'a>),
    Message(WireMessage<'a>),
    StatusUpdate(WireStatusUpdate<'a>),
    ArtifactUpdate(WireArtifactUpdate<'a>),
}
