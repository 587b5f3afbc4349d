//! Model → A2A 0.3 JSON: `kind` tags, camelCase names, optional members left out when empty.

use serde::{Serialize, Serializer};
use serde_json::{Map, Value};

use crate::a2a::{
    Artifact, FileBody, Message, Metadata, Part, Role, StreamEvent, Task, TaskArtifactUpdateEvent,
    TaskState, TaskStatus, TaskStatusUpdateEvent,
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
            metadata: metadata.as_ref(),
        },
        Part::Data { data, metadata } => WirePart::Data {
            data,
            metadata: metadata.as_ref(),
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
                metadata: metadata.as_ref(),
            }
        }
    }
}

fn to_value(wire: impl Serialize) -> Value {
    // Serializing borrowed strings and JSON values into a `Value` cannot fail.
    serde_json::to_value(wire).unwrap_or(Value::Null)
}

/// Encodes a message.
pub fn encode_message(message: &Message) -> Value {
    to_value(wire_message(message))
}

/// Encodes a part.
pub fn encode_part(part: &Part) -> Value {
    to_value(wire_part(part))
}

fn encode_parts(parts: &[Part]) -> Value {
    to_value(WireParts(parts))
}

/// Encodes a task status.
pub fn encode_status(status: &TaskStatus) -> Value {
    let mut object = Map::new();
    object.insert("state".into(), encode_state(status.state));
    if let Some(message) = &status.message {
        object.insert("message".into(), encode_message(message));
    }
    insert_opt(&mut object, "timestamp", status.timestamp.as_deref());
    Value::Object(object)
}

/// Encodes a task state: `"input-required"`, ...
pub fn encode_state(state: TaskState) -> Value {
    state.as_str().into()
}

/// Encodes a task; `history` is always present, `artifacts` only when there are some.
pub fn encode_task(task: &Task) -> Value {
    let mut object = Map::new();
    object.insert("kind".into(), "task".into());
    object.insert("id".into(), task.id.clone().into());
    object.insert("contextId".into(), task.context_id.clone().into());
    object.insert("status".into(), encode_status(&task.status));
    object.insert(
        "history".into(),
        Value::Array(task.history.iter().map(encode_message).collect()),
    );
    if !task.artifacts.is_empty() {
        object.insert(
            "artifacts".into(),
            Value::Array(task.artifacts.iter().map(encode_artifact).collect()),
        );
    }
    insert_metadata(&mut object, task.metadata.as_ref());
    Value::Object(object)
}

/// Encodes an artifact.
pub fn encode_artifact(artifact: &Artifact) -> Value {
    let mut object = Map::new();
    object.insert("artifactId".into(), artifact.artifact_id.clone().into());
    insert_opt(&mut object, "name", artifact.name.as_deref());
    insert_opt(&mut object, "description", artifact.description.as_deref());
    object.insert("parts".into(), encode_parts(&artifact.parts));
    insert_strings(&mut object, "extensions", &artifact.extensions);
    insert_metadata(&mut object, artifact.metadata.as_ref());
    Value::Object(object)
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
    match event {
        StreamEvent::Task(task) => encode_task(task),
        StreamEvent::Message(message) => encode_message(message),
        StreamEvent::StatusUpdate(update) => encode_status_update(update),
        StreamEvent::ArtifactUpdate(update) => encode_artifact_update(update),
    }
}

fn encode_status_update(update: &TaskStatusUpdateEvent) -> Value {
    let mut object = Map::new();
    object.insert("kind".into(), "status-update".into());
    object.insert("taskId".into(), update.task_id.clone().into());
    object.insert("contextId".into(), update.context_id.clone().into());
    object.insert("status".into(), encode_status(&update.status));
    object.insert("final".into(), update.is_final.into());
    insert_metadata(&mut object, update.metadata.as_ref());
    Value::Object(object)
}

fn encode_artifact_update(update: &TaskArtifactUpdateEvent) -> Value {
    let mut object = Map::new();
    object.insert("kind".into(), "artifact-update".into());
    object.insert("taskId".into(), update.task_id.clone().into());
    object.insert("contextId".into(), update.context_id.clone().into());
    object.insert("artifact".into(), encode_artifact(&update.artifact));
    if let Some(append) = update.append {
        object.insert("append".into(), append.into());
    }
    if let Some(last_chunk) = update.last_chunk {
        object.insert("lastChunk".into(), last_chunk.into());
    }
    insert_metadata(&mut object, update.metadata.as_ref());
    Value::Object(object)
}

fn insert_opt(object: &mut Map<String, Value>, key: &str, value: Option<&str>) {
    if let Some(value) = value {
        object.insert(key.into(), value.into());
    }
}

fn insert_strings(object: &mut Map<String, Value>, key: &str, values: &[String]) {
    if !values.is_empty() {
        object.insert(
            key.into(),
            values.iter().cloned().map(Value::from).collect(),
        );
    }
}

fn insert_metadata(object: &mut Map<String, Value>, metadata: Option<&Metadata>) {
    if let Some(metadata) = metadata {
        object.insert("metadata".into(), Value::Object(metadata.clone()));
    }
}
