//! What a 0.3 agent answers, read back into the model: tasks, stream events and the result of
//! `message/send`. The server encodes these ([`super::encode`]); the A2A client needs the
//! inverse, read as carefully as a request (every refusal names the member at fault, under
//! `result`).

use super::object_reader::{Obj, Problem};
use super::{WireError, decode_message, decode_part};
use crate::a2a::{
    Artifact, Part, StreamEvent, Task, TaskArtifactUpdateEvent, TaskState, TaskStatus,
    TaskStatusUpdateEvent,
};
use serde_json::Value;

/// Decodes the result of `message/send`: a task or a message.
///
/// # Errors
///
/// A [`WireError`] naming the first missing or ill-typed member, or a `kind` that is neither
/// `task` nor `message`.
///
/// # Example
///
/// ```
/// # #[cfg(feature = "unstable-internals")] {
/// use a2ui_agent::a2a::StreamEvent;
/// use a2ui_agent::a2a::v0_3::decode_send_result;
/// use serde_json::json;
///
/// let task = json!({"kind": "task", "id": "t", "contextId": "c",
///     "status": {"state": "completed"}});
/// let Ok(StreamEvent::Task(task)) = decode_send_result(&task) else { panic!() };
/// assert_eq!(task.id, "t");
/// # }
/// ```
pub fn decode_send_result(value: &Value) -> Result<StreamEvent, WireError> {
    let result = Obj::new(value, "result".to_owned())?;
    match result.req_str("kind")? {
        "task" => Ok(StreamEvent::Task(decode_task(value, "result")?)),
        "message" => Ok(StreamEvent::Message(decode_message(value, "result")?)),
        other => Err(result.error("kind", Problem::UnknownKind(other.to_owned()))),
    }
}

/// Decodes one stream event (the `result` of one SSE frame), told apart by its `kind`.
///
/// # Errors
///
/// A [`WireError`] naming the first missing or ill-typed member, or an unknown `kind`.
pub fn decode_event(value: &Value) -> Result<StreamEvent, WireError> {
    let event = Obj::new(value, "result".to_owned())?;
    match event.req_str("kind")? {
        "task" | "message" => decode_send_result(value),
        "status-update" => Ok(StreamEvent::StatusUpdate(TaskStatusUpdateEvent {
            task_id: event.req_str("taskId")?.to_owned(),
            context_id: event.req_str("contextId")?.to_owned(),
            status: decode_status(event.req("status")?, &event.path_of("status"))?,
            is_final: event.opt_bool("final")?.unwrap_or(false),
            metadata: event.opt_object("metadata")?.cloned(),
        })),
        "artifact-update" => Ok(StreamEvent::ArtifactUpdate(TaskArtifactUpdateEvent {
            task_id: event.req_str("taskId")?.to_owned(),
            context_id: event.req_str("contextId")?.to_owned(),
            artifact: decode_artifact(event.req("artifact")?, &event.path_of("artifact"))?,
            append: event.opt_bool("append")?,
            last_chunk: event.opt_bool("lastChunk")?,
            metadata: event.opt_object("metadata")?.cloned(),
        })),
        other => Err(event.error("kind", Problem::UnknownKind(other.to_owned()))),
    }
}

/// Decodes a `Task` found at `path`.
///
/// # Errors
///
/// A [`WireError`] naming the first missing or ill-typed member.
pub fn decode_task(value: &Value, path: &str) -> Result<Task, WireError> {
    let task = Obj::new(value, path.to_owned())?;
    if let Some(kind) = task.opt_str("kind")?
        && kind != "task"
    {
        return Err(task.error("kind", Problem::Expected("\"task\"")));
    }
    let history = each(&task, "history", decode_message)?;
    Ok(Task {
        id: task.req_str("id")?.to_owned(),
        context_id: task.req_str("contextId")?.to_owned(),
        status: decode_status(task.req("status")?, &task.path_of("status"))?,
        artifacts: each(&task, "artifacts", decode_artifact)?,
        history,
        metadata: task.opt_object("metadata")?.cloned(),
    })
}

/// Decodes a `TaskStatus` found at `path`.
fn decode_status(value: &Value, path: &str) -> Result<TaskStatus, WireError> {
    let status = Obj::new(value, path.to_owned())?;
    let state = status.req_str("state")?;
    let state = TaskState::from_name(state)
        .ok_or_else(|| status.error("state", Problem::UnknownKind(state.to_owned())))?;
    Ok(TaskStatus {
        state,
        message: status
            .opt("message")
            .map(|message| decode_message(message, &status.path_of("message")))
            .transpose()?,
        timestamp: status.opt_str("timestamp")?.map(str::to_owned),
    })
}

/// Decodes an `Artifact` found at `path`.
fn decode_artifact(value: &Value, path: &str) -> Result<Artifact, WireError> {
    let artifact = Obj::new(value, path.to_owned())?;
    let parts: Vec<Part> = each(&artifact, "parts", decode_part)?;
    Ok(Artifact {
        artifact_id: artifact.req_str("artifactId")?.to_owned(),
        name: artifact.opt_str("name")?.map(str::to_owned),
        description: artifact.opt_str("description")?.map(str::to_owned),
        parts,
        extensions: artifact.opt_strings("extensions")?.unwrap_or_default(),
        metadata: artifact.opt_object("metadata")?.cloned(),
    })
}

/// Decodes each element of the array `key` of `object` (absent: none) with `decode`.
fn each<T>(
    object: &Obj<'_>,
    key: &str,
    decode: fn(&Value, &str) -> Result<T, WireError>,
) -> Result<Vec<T>, WireError> {
    let path = object.path_of(key);
    match object.opt(key) {
        None => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(index, item)| decode(item, &format!("{path}[{index}]")))
            .collect(),
        Some(_) => Err(object.error(key, Problem::Expected("an array"))),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::a2a::v0_3::encode::{encode_task, event_result};
    use crate::a2a::{Message, TaskStatusUpdateEvent};

    #[test]
    fn an_encoded_task_and_its_events_decode_to_what_was_encoded() {
        let mut task = Task::new("t", "c", TaskState::InputRequired);
        task.history
            .push(Message::user("m1", vec![Part::text("hello")]));
        task.status.message = Some(Message::agent("m2", vec![Part::text("hi")]));
        task.artifacts
            .push(Artifact::new("a", vec![Part::data(serde_json::Map::new())]));
        let decoded = decode_task(&encode_task(&task), "result").unwrap();
        assert_eq!(decoded, task);
        let events = [
            StreamEvent::Task(task.clone()),
            StreamEvent::StatusUpdate(TaskStatusUpdateEvent::of(&task, true)),
            StreamEvent::Message(Message::agent("m3", vec![Part::text("x")])),
        ];
        for event in events {
            let json = serde_json::to_value(event_result(&event)).unwrap();
            assert_eq!(decode_event(&json).unwrap(), event);
        }
    }

    #[test]
    fn a_bad_answer_is_named_by_its_path() {
        let error = decode_event(&json!({"kind": "status-update", "taskId": "t",
            "contextId": "c", "status": {"state": "sleeping"}}))
        .unwrap_err();
        assert_eq!(
            error.to_string(),
            "result.status.state: unknown kind \"sleeping\""
        );
        let error = decode_send_result(&json!({"kind": "status-update"})).unwrap_err();
        assert_eq!(
            error.to_string(),
            "result.kind: unknown kind \"status-update\""
        );
    }

    proptest::proptest! {
        /// Whatever an agent answers, decoding gives a model or an error, never a panic.
        #[test]
        fn any_answer_is_decoded_or_refused(value in crate::a2a::any_json(
            "(task|message|status-update|artifact-update|completed|user|agent|t|[a-z]{0,4})",
            "(kind|id|contextId|taskId|status|state|message|messageId|role|parts|text|final|artifact|artifactId|history|artifacts)",
        )) {
            let _ = decode_event(&value);
            let _ = decode_send_result(&value);
            let _ = decode_task(&value, "result");
        }
    }
}
