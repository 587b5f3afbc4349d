//! What a 1.0 agent answers, read back into the model: tasks, `StreamResponse`s, the
//! `SendMessageResponse` and a `ListTasksResponse`. The server encodes these
//! ([`super::super::encode`]); the A2A client needs the inverse, through the same derived
//! wire structs and `serde_path_to_error` as the requests, so a refusal names the member at
//! fault under `result`. Unknown members are ignored; `null` counts as absent.

use serde::Deserialize;
use serde_json::{Map, Value};

use super::{WireMessage, WirePart, count, decode_message, decode_part, state_from_name};
use crate::a2a::v1_0::wire_error::{WireError, parse};
use crate::a2a::{
    Artifact, StreamEvent, Task, TaskArtifactUpdateEvent, TaskPage, TaskState, TaskStatus,
    TaskStatusUpdateEvent,
};

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct WireTask {
    id: Option<String>,
    context_id: Option<String>,
    status: Option<WireStatus>,
    artifacts: Option<Vec<WireArtifact>>,
    history: Option<Vec<WireMessage>>,
    metadata: Option<Map<String, Value>>,
}

#[derive(Deserialize)]
struct WireStatus {
    state: Option<String>,
    message: Option<WireMessage>,
    timestamp: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct WireArtifact {
    artifact_id: Option<String>,
    name: Option<String>,
    description: Option<String>,
    parts: Option<Vec<WirePart>>,
    metadata: Option<Map<String, Value>>,
    extensions: Option<Vec<String>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct WireStatusUpdate {
    task_id: Option<String>,
    context_id: Option<String>,
    status: Option<WireStatus>,
    /// Not in 1.0 (the end of the stream ends it), but drafts and some agents send it.
    #[serde(rename = "final")]
    is_final: Option<bool>,
    metadata: Option<Map<String, Value>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct WireArtifactUpdate {
    task_id: Option<String>,
    context_id: Option<String>,
    artifact: Option<WireArtifact>,
    append: Option<bool>,
    last_chunk: Option<bool>,
    metadata: Option<Map<String, Value>>,
}

/// `StreamResponse` and `SendMessageResponse`: exactly one member.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct WireResponse {
    task: Option<WireTask>,
    message: Option<WireMessage>,
    status_update: Option<WireStatusUpdate>,
    artifact_update: Option<WireArtifactUpdate>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct WirePage {
    tasks: Option<Vec<WireTask>>,
    next_page_token: Option<String>,
    page_size: Option<i64>,
    total_size: Option<i64>,
}

/// Decodes one stream event (a `StreamResponse`, the `result` of one SSE frame).
///
/// # Errors
///
/// A [`WireError`] naming the first missing or ill-typed member, or a response that does not
/// hold exactly one of `task`, `message`, `statusUpdate`, `artifactUpdate`.
///
/// # Example
///
/// ```
/// # #[cfg(feature = "unstable-internals")] {
/// use a2ui_agent::a2a::{StreamEvent, TaskState};
/// use a2ui_agent::a2a::v1_0::decode_event;
/// use serde_json::json;
///
/// let event = json!({"statusUpdate": {"taskId": "t", "contextId": "c",
///     "status": {"state": "TASK_STATE_COMPLETED"}}});
/// let Ok(StreamEvent::StatusUpdate(update)) = decode_event(&event) else { panic!() };
/// assert_eq!(update.status.state, TaskState::Completed);
/// assert!(update.is_final, "a terminal state ends the stream");
/// # }
/// ```
pub fn decode_event(value: &Value) -> Result<StreamEvent, WireError> {
    let response: WireResponse = parse(Some(value), "result")?;
    match response {
        WireResponse {
            task: Some(task),
            message: None,
            status_update: None,
            artifact_update: None,
        } => Ok(StreamEvent::Task(task_of(task, "result.task")?)),
        WireResponse {
            task: None,
            message: Some(message),
            status_update: None,
            artifact_update: None,
        } => Ok(StreamEvent::Message(decode_message(
            message,
            "result.message",
        )?)),
        WireResponse {
            task: None,
            message: None,
            status_update: Some(update),
            artifact_update: None,
        } => status_update(update, "result.statusUpdate").map(StreamEvent::StatusUpdate),
        WireResponse {
            task: None,
            message: None,
            status_update: None,
            artifact_update: Some(update),
        } => artifact_update(update, "result.artifactUpdate").map(StreamEvent::ArtifactUpdate),
        _ => Err(WireError::new(
            "result",
            "expected exactly one of task, message, statusUpdate, artifactUpdate",
        )),
    }
}

/// Decodes the result of `SendMessage` (a `SendMessageResponse`): a task or a message.
///
/// # Errors
///
/// Those of [`decode_event`], and an update where a task or a message belongs.
pub fn decode_send_result(value: &Value) -> Result<StreamEvent, WireError> {
    match decode_event(value)? {
        event @ (StreamEvent::Task(_) | StreamEvent::Message(_)) => Ok(event),
        _ => Err(WireError::new("result", "expected a task or a message")),
    }
}

/// Decodes a `Task` (the result of `GetTask` and `CancelTask`).
///
/// # Errors
///
/// A [`WireError`] naming the first missing or ill-typed member.
pub fn decode_task(value: &Value) -> Result<Task, WireError> {
    task_of(parse(Some(value), "result")?, "result")
}

/// Decodes a `ListTasksResponse`.
///
/// # Errors
///
/// A [`WireError`] naming the first missing or ill-typed member.
pub fn decode_page(value: &Value) -> Result<TaskPage, WireError> {
    let page: WirePage = parse(Some(value), "result")?;
    let tasks = page
        .tasks
        .unwrap_or_default()
        .into_iter()
        .enumerate()
        .map(|(index, task)| task_of(task, &format!("result.tasks[{index}]")))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(TaskPage {
        next_page_token: page.next_page_token.unwrap_or_default(),
        page_size: count(page.page_size, "result.pageSize")?.unwrap_or(tasks.len()),
        total_size: count(page.total_size, "result.totalSize")?.unwrap_or(tasks.len()),
        tasks,
    })
}

fn required<T>(value: Option<T>, path: &str, member: &str) -> Result<T, WireError> {
    value.ok_or_else(|| WireError::new(format!("{path}.{member}"), "missing"))
}

fn task_of(task: WireTask, path: &str) -> Result<Task, WireError> {
    let history = task
        .history
        .unwrap_or_default()
        .into_iter()
        .enumerate()
        .map(|(index, message)| decode_message(message, &format!("{path}.history[{index}]")))
        .collect::<Result<Vec<_>, _>>()?;
    let artifacts = task
        .artifacts
        .unwrap_or_default()
        .into_iter()
        .enumerate()
        .map(|(index, artifact)| artifact_of(artifact, &format!("{path}.artifacts[{index}]")))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Task {
        id: required(task.id, path, "id")?,
        context_id: required(task.context_id, path, "contextId")?,
        status: status_of(required(task.status, path, "status")?, path)?,
        artifacts,
        history,
        metadata: task.metadata,
    })
}

/// The status of the object at `parent`.
fn status_of(status: WireStatus, parent: &str) -> Result<TaskStatus, WireError> {
    let path = format!("{parent}.status");
    let name = required(status.state, &path, "state")?;
    let state = state_from_name(&name)
        .or_else(|| TaskState::from_name(&name))
        .ok_or_else(|| WireError::new(format!("{path}.state"), format!("unknown state {name:?}")))?;
    Ok(TaskStatus {
        state,
        message: status
            .message
            .map(|message| decode_message(message, &format!("{path}.message")))
            .transpose()?,
        timestamp: status.timestamp,
    })
}

fn artifact_of(artifact: WireArtifact, path: &str) -> Result<Artifact, WireError> {
    let parts = artifact
        .parts
        .unwrap_or_default()
        .into_iter()
        .enumerate()
        .map(|(index, part)| decode_part(part, &format!("{path}.parts[{index}]")))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Artifact {
        artifact_id: required(artifact.artifact_id, path, "artifactId")?,
        name: artifact.name,
        description: artifact.description,
        parts,
        extensions: artifact.extensions.unwrap_or_default(),
        metadata: artifact.metadata,
    })
}

fn status_update(
    update: WireStatusUpdate,
    path: &str,
) -> Result<TaskStatusUpdateEvent, WireError> {
    let status = status_of(required(update.status, path, "status")?, path)?;
    Ok(TaskStatusUpdateEvent {
        task_id: required(update.task_id, path, "taskId")?,
        context_id: required(update.context_id, path, "contextId")?,
        is_final: update.is_final.unwrap_or(false) || status.state.is_settled(),
        status,
        metadata: update.metadata,
    })
}

fn artifact_update(
    update: WireArtifactUpdate,
    path: &str,
) -> Result<TaskArtifactUpdateEvent, WireError> {
    let artifact = required(update.artifact, path, "artifact")?;
    Ok(TaskArtifactUpdateEvent {
        task_id: required(update.task_id, path, "taskId")?,
        context_id: required(update.context_id, path, "contextId")?,
        artifact: artifact_of(artifact, &format!("{path}.artifact"))?,
        append: update.append,
        last_chunk: update.last_chunk,
        metadata: update.metadata,
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::a2a::v1_0::encode::{event_result, page_result};
    use crate::a2a::{Message, Part};

    fn task() -> Task {
        let mut task = Task::new("t", "c", TaskState::InputRequired);
        task.history
            .push(Message::user("m1", vec![Part::text("hello")]));
        task.status.message = Some(Message::agent("m2", vec![Part::text("hi")]));
        task.artifacts
            .push(Artifact::new("a", vec![Part::data(Map::new())]));
        task
    }

    #[test]
    fn encoded_events_and_pages_decode_to_what_was_encoded() {
        let task = task();
        let events = [
            StreamEvent::Task(task.clone()),
            StreamEvent::StatusUpdate(TaskStatusUpdateEvent::of(&task, true)),
            StreamEvent::Message(Message::agent("m3", vec![Part::text("x")])),
        ];
        for event in events {
            let json = serde_json::to_value(event_result(&event)).unwrap();
            assert_eq!(decode_event(&json).unwrap(), event);
        }
        let page = TaskPage {
            tasks: vec![task],
            next_page_token: "next".into(),
            page_size: 1,
            total_size: 3,
        };
        let json = serde_json::to_value(page_result(&page, true)).unwrap();
        assert_eq!(decode_page(&json).unwrap(), page);
    }

    #[test]
    fn a_bad_answer_is_named_by_its_path() {
        let two = json!({"task": {}, "message": {}});
        assert_eq!(
            decode_event(&two).unwrap_err().to_string(),
            "result: expected exactly one of task, message, statusUpdate, artifactUpdate"
        );
        let bad_state = json!({"statusUpdate": {"taskId": "t", "contextId": "c",
            "status": {"state": "TASK_STATE_NAPPING"}}});
        assert_eq!(
            decode_event(&bad_state).unwrap_err().to_string(),
            "result.statusUpdate.status.state: unknown state \"TASK_STATE_NAPPING\""
        );
        let no_id = json!({"contextId": "c", "status": {"state": "TASK_STATE_WORKING"}});
        assert_eq!(
            decode_task(&no_id).unwrap_err().to_string(),
            "result.id: missing"
        );
    }

    proptest::proptest! {
        /// Whatever an agent answers, decoding gives a model or an error, never a panic.
        #[test]
        fn any_answer_is_decoded_or_refused(value in crate::a2a::any_json(
            "(TASK_STATE_WORKING|ROLE_AGENT|t|[a-z]{0,4})",
            "(task|message|statusUpdate|artifactUpdate|id|contextId|taskId|status|state|messageId|role|parts|text|tasks|artifact|artifactId|history)",
        )) {
            let _ = decode_event(&value);
            let _ = decode_task(&value);
            let _ = decode_page(&value);
        }
    }
}
