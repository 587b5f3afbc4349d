//! Model → A2A 0.3 JSON: `kind` tags, camelCase names, optional members left out when empty.

use serde_json::{Map, Value};

use crate::a2a::{
    Artifact, FileBody, Message, Metadata, Part, Role, StreamEvent, Task, TaskArtifactUpdateEvent,
    TaskState, TaskStatus, TaskStatusUpdateEvent,
};

/// Encodes a message.
pub fn encode_message(message: &Message) -> Value {
    let mut object = Map::new();
    object.insert("kind".into(), "message".into());
    object.insert("messageId".into(), message.message_id.clone().into());
    let role = match message.role {
        Role::User => "user",
        Role::Agent => "agent",
    };
    object.insert("role".into(), role.into());
    object.insert("parts".into(), encode_parts(&message.parts));
    insert_opt(&mut object, "contextId", message.context_id.as_deref());
    insert_opt(&mut object, "taskId", message.task_id.as_deref());
    insert_strings(&mut object, "referenceTaskIds", &message.reference_task_ids);
    insert_strings(&mut object, "extensions", &message.extensions);
    insert_metadata(&mut object, message.metadata.as_ref());
    Value::Object(object)
}

/// Encodes a part.
pub fn encode_part(part: &Part) -> Value {
    let mut object = Map::new();
    match part {
        Part::Text { text, .. } => {
            object.insert("kind".into(), "text".into());
            object.insert("text".into(), text.clone().into());
        }
        Part::Data { data, .. } => {
            object.insert("kind".into(), "data".into());
            object.insert("data".into(), Value::Object(data.clone()));
        }
        Part::File { file, .. } => {
            let mut inner = Map::new();
            match &file.body {
                FileBody::Bytes(bytes) => inner.insert("bytes".into(), bytes.clone().into()),
                FileBody::Uri(uri) => inner.insert("uri".into(), uri.clone().into()),
            };
            insert_opt(&mut inner, "mimeType", file.mime_type.as_deref());
            insert_opt(&mut inner, "name", file.name.as_deref());
            object.insert("kind".into(), "file".into());
            object.insert("file".into(), Value::Object(inner));
        }
    }
    insert_metadata(&mut object, part.metadata());
    Value::Object(object)
}

fn encode_parts(parts: &[Part]) -> Value {
    Value::Array(parts.iter().map(encode_part).collect())
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
