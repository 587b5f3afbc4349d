//! The model → ProtoJSON: borrowed wire structs, serialized once, nothing cloned twice.
//!
//! A status, a task and the update events are the shared borrowed views
//! ([`crate::a2a::borrowed`]) that 0.3 writes too; messages, parts and artifacts are 1.0's
//! own (ProtoJSON orders their members otherwise and writes a part flat).

use crate::a2a::borrowed::{ArtifactUpdateView, Each, StatusUpdateView, StatusView, TaskView};
use crate::a2a::wire_value as to_value;
use serde::Serialize;
use serde_json::{Map, Value};

use crate::a2a::{
    Artifact, FileBody, Message, Metadata, Part, Role, StreamEvent, Task, TaskPage, TaskState,
    TaskStatus,
};

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct WireMessage<'a> {
    message_id: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    context_id: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    task_id: Option<&'a str>,
    role: &'static str,
    parts: Each<'a, Part, WirePart<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    metadata: Option<&'a Metadata>,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    extensions: &'a [String],
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    reference_task_ids: &'a [String],
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct WirePart<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    text: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    raw: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    url: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    data: Option<&'a Map<String, Value>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    metadata: Option<&'a Metadata>,
    #[serde(skip_serializing_if = "Option::is_none")]
    filename: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    media_type: Option<&'a str>,
}

type WireStatus<'a> = StatusView<'a, WireMessage<'a>>;

type WireTask<'a> = TaskView<'a, WireStatus<'a>, TaskLists<'a>>;

/// A task's lists in 1.0: `artifacts` when wanted and there are some, `history` when not
/// empty, as the proto JSON mapping leaves out every empty repeated field (and the spec asks
/// for `historyLength: 0`).
#[derive(Serialize)]
struct TaskLists<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    artifacts: Option<Each<'a, Artifact, WireArtifact<'a>>>,
    #[serde(skip_serializing_if = "Each::is_empty")]
    history: Each<'a, Message, WireMessage<'a>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct WireArtifact<'a> {
    artifact_id: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    name: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<&'a str>,
    parts: Each<'a, Part, WirePart<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    metadata: Option<&'a Metadata>,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    extensions: &'a [String],
}

/// `StreamResponse` and `SendMessageResponse`: exactly one member.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
enum WireResponse<'a> {
    Task(WireTask<'a>),
    Message(WireMessage<'a>),
    StatusUpdate(StatusUpdateView<'a, WireStatus<'a>>),
    ArtifactUpdate(ArtifactUpdateView<'a, WireArtifact<'a>>),
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct WirePage<'a> {
    tasks: Vec<WireTask<'a>>,
    next_page_token: &'a str,
    page_size: usize,
    total_size: usize,
}

fn message(message: &Message) -> WireMessage<'_> {
    WireMessage {
        message_id: &message.message_id,
        context_id: message.context_id.as_deref(),
        task_id: message.task_id.as_deref(),
        role: match message.role {
            Role::User => "ROLE_USER",
            Role::Agent => "ROLE_AGENT",
        },
        parts: Each(&message.parts, part),
        metadata: message.metadata.as_ref(),
        extensions: &message.extensions,
        reference_task_ids: &message.reference_task_ids,
    }
}

fn part(part: &Part) -> WirePart<'_> {
    let mut wire = WirePart {
        text: None,
        raw: None,
        url: None,
        data: None,
        metadata: part.metadata(),
        filename: None,
        media_type: None,
    };
    match part {
        Part::Text { text, .. } => wire.text = Some(text),
        Part::Data { data, metadata } => {
            wire.data = Some(data);
            wire.media_type = metadata
                .as_ref()
                .and_then(|m| m.get("mimeType"))
                .and_then(Value::as_str);
        }
        Part::File { file, .. } => {
            match &file.body {
                FileBody::Bytes(bytes) => wire.raw = Some(bytes),
                FileBody::Uri(uri) => wire.url = Some(uri),
            }
            wire.media_type = file.mime_type.as_deref();
            wire.filename = file.name.as_deref();
        }
    }
    wire
}

fn status(status: &TaskStatus) -> WireStatus<'_> {
    StatusView::of(status, state_name(status.state), message)
}

fn task(task: &Task, include_artifacts: bool) -> WireTask<'_> {
    let lists = TaskLists {
        artifacts: (include_artifacts && !task.artifacts.is_empty())
            .then(|| Each(&task.artifacts, artifact)),
        history: Each(&task.history, message),
    };
    TaskView::of(task, None, status(&task.status), lists)
}

fn artifact(artifact: &Artifact) -> WireArtifact<'_> {
    WireArtifact {
        artifact_id: &artifact.artifact_id,
        name: artifact.name.as_deref(),
        description: artifact.description.as_deref(),
        parts: Each(&artifact.parts, part),
        metadata: artifact.metadata.as_ref(),
        extensions: &artifact.extensions,
    }
}

/// The 1.0 name of a state: `TASK_STATE_INPUT_REQUIRED`, ...; `unknown` is
/// `TASK_STATE_UNSPECIFIED`.
pub(super) fn state_name(state: TaskState) -> &'static str {
    match state {
        TaskState::Submitted => "TASK_STATE_SUBMITTED",
        TaskState::Working => "TASK_STATE_WORKING",
        TaskState::InputRequired => "TASK_STATE_INPUT_REQUIRED",
        TaskState::AuthRequired => "TASK_STATE_AUTH_REQUIRED",
        TaskState::Completed => "TASK_STATE_COMPLETED",
        TaskState::Canceled => "TASK_STATE_CANCELED",
        TaskState::Failed => "TASK_STATE_FAILED",
        TaskState::Rejected => "TASK_STATE_REJECTED",
        TaskState::Unknown => "TASK_STATE_UNSPECIFIED",
    }
}

/// Encodes a task state: `"TASK_STATE_INPUT_REQUIRED"`, ...
#[cfg(feature = "unstable-internals")]
pub fn encode_state(state: TaskState) -> Value {
    state_name(state).into()
}

/// Encodes a message.
#[cfg(any(test, feature = "client", feature = "unstable-internals"))]
pub fn encode_message(value: &Message) -> Value {
    to_value(message(value))
}

/// Encodes `SendMessage` / `SendStreamingMessage` params (a `SendMessageRequest`): the
/// message and the configuration (a push config given with the send is not sent).
///
/// # Example
///
/// ```
/// # #[cfg(feature = "unstable-internals")] {
/// use a2ui_agent::a2a::v1_0::encode_send_params;
/// use a2ui_agent::a2a::{Message, Part, SendConfiguration, SendRequest};
///
/// let request = SendRequest {
///     message: Message::user("m", vec![Part::text("hi")]),
///     configuration: SendConfiguration { blocking: false, ..SendConfiguration::default() },
///     metadata: None,
/// };
/// let params = encode_send_params(&request);
/// assert_eq!(params["message"]["role"], "ROLE_USER");
/// assert_eq!(params["configuration"]["returnImmediately"], true);
/// # }
/// ```
#[cfg(any(feature = "client", feature = "unstable-internals"))]
pub fn encode_send_params(request: &crate::a2a::SendRequest) -> Value {
    let config = &request.configuration;
    let mut configuration = Map::new();
    configuration.insert("returnImmediately".into(), (!config.blocking).into());
    if let Some(length) = config.history_length {
        configuration.insert("historyLength".into(), length.into());
    }
    if let Some(modes) = &config.accepted_output_modes {
        configuration.insert("acceptedOutputModes".into(), modes.clone().into());
    }
    let mut params = Map::new();
    params.insert("message".into(), encode_message(&request.message));
    params.insert("configuration".into(), Value::Object(configuration));
    if let Some(metadata) = &request.metadata {
        params.insert("metadata".into(), Value::Object(metadata.clone()));
    }
    Value::Object(params)
}

/// Encodes `GetTask` params (`{id, historyLength?}`).
#[cfg(any(feature = "client", feature = "unstable-internals"))]
pub fn encode_query_params(query: &crate::a2a::TaskQuery) -> Value {
    let mut params = Map::new();
    params.insert("id".into(), query.id.clone().into());
    if let Some(length) = query.history_length {
        params.insert("historyLength".into(), length.into());
    }
    Value::Object(params)
}

/// Encodes `ListTasks` params: only the filters that are set, so the object doubles as the
/// query string of `GET /tasks`.
#[cfg(any(feature = "client", feature = "unstable-internals"))]
pub fn encode_list_params(query: &crate::a2a::TaskListQuery) -> Value {
    let mut params = Map::new();
    if let Some(context) = &query.context_id {
        params.insert("contextId".into(), context.clone().into());
    }
    if let Some(state) = query.state {
        params.insert("status".into(), state_name(state).into());
    }
    if let Some(after) = &query.status_timestamp_after {
        params.insert("statusTimestampAfter".into(), after.clone().into());
    }
    params.insert("pageSize".into(), query.page_size.into());
    if let Some(token) = &query.page_token {
        params.insert("pageToken".into(), token.clone().into());
    }
    if let Some(length) = query.history_length {
        params.insert("historyLength".into(), length.into());
    }
    params.insert("includeArtifacts".into(), query.include_artifacts.into());
    Value::Object(params)
}

/// Encodes a part: exactly one of `text`, `raw`, `url`, `data`, with `mediaType` when known.
///
/// # Example
///
/// ```
/// # #[cfg(feature = "unstable-internals")] {
/// use a2ui_agent::a2a::Part;
/// use a2ui_agent::a2a::v1_0::encode_part;
/// use serde_json::json;
///
/// let mut metadata = serde_json::Map::new();
/// metadata.insert("mimeType".into(), json!("application/a2ui+json"));
/// let part = Part::Data { data: Default::default(), metadata: Some(metadata.into()) };
/// assert_eq!(encode_part(&part)["mediaType"], "application/a2ui+json");
/// # }
/// ```
#[cfg(feature = "unstable-internals")]
pub fn encode_part(value: &Part) -> Value {
    to_value(part(value))
}

/// Encodes a task (`GetTask`, `CancelTask`), with its artifacts.
pub fn encode_task(value: &Task) -> Value {
    to_value(task(value, true))
}

/// Encodes the result of `SendMessage`: a `SendMessageResponse` holding the task.
#[cfg(feature = "unstable-internals")]
pub fn encode_send_result(value: &Task) -> Value {
    to_value(send_result(value))
}

/// The result of `SendMessage`, to serialize straight into a response body (what
/// [`encode_send_result`] gives, without the `Value` tree).
pub(crate) fn send_result(value: &Task) -> impl Serialize + '_ {
    WireResponse::Task(task(value, true))
}

/// Encodes the result of a `SendMessage` answered without a task: a `SendMessageResponse`
/// holding the agent's message.
#[cfg(feature = "unstable-internals")]
pub fn encode_message_result(value: &Message) -> Value {
    to_value(message_result(value))
}

/// The result of a `SendMessage` answered with a bare message, to serialize straight into a
/// response body.
pub(crate) fn message_result(value: &Message) -> impl Serialize + '_ {
    WireResponse::Message(message(value))
}

/// Encodes one page of `ListTasks`; artifacts only when the query asked for them.
#[cfg(feature = "unstable-internals")]
pub fn encode_page(page: &TaskPage, include_artifacts: bool) -> Value {
    to_value(page_result(page, include_artifacts))
}

/// The result of `ListTasks`, to serialize straight into a response body (what
/// [`encode_page`] gives, without the `Value` tree: a page of 100 tasks as a tree is
/// thousands of small allocations per request).
pub(crate) fn page_result(page: &TaskPage, include_artifacts: bool) -> impl Serialize + '_ {
    WirePage {
        tasks: page
            .tasks
            .iter()
            .map(|t| task(t, include_artifacts))
            .collect(),
        next_page_token: &page.next_page_token,
        page_size: page.page_size,
        total_size: page.total_size,
    }
}

/// Encodes a stream event as a `StreamResponse` (the `result` of one SSE frame).
///
/// # Example
///
/// ```
/// # #[cfg(feature = "unstable-internals")] {
/// use a2ui_agent::a2a::{StreamEvent, TaskState, TaskStatus, TaskStatusUpdateEvent};
/// use a2ui_agent::a2a::v1_0::encode_event;
///
/// let event = StreamEvent::StatusUpdate(TaskStatusUpdateEvent {
///     task_id: "t".into(),
///     context_id: "c".into(),
///     status: TaskStatus { state: TaskState::Working, message: None, timestamp: None },
///     is_final: false,
///     metadata: None,
/// });
/// let json = encode_event(&event);
/// assert_eq!(json["statusUpdate"]["status"]["state"], "TASK_STATE_WORKING");
/// assert!(json["statusUpdate"].get("final").is_none());
/// # }
/// ```
#[cfg(feature = "unstable-internals")]
pub fn encode_event(event: &StreamEvent) -> Value {
    to_value(event_result(event))
}

/// A stream event as a `StreamResponse`, to serialize straight into an SSE frame (what
/// [`encode_event`] gives, without the `Value` tree).
pub(crate) fn event_result(event: &StreamEvent) -> impl Serialize + '_ {
    match event {
        StreamEvent::Task(value) => WireResponse::Task(task(value, true)),
        StreamEvent::Message(value) => WireResponse::Message(message(value)),
        StreamEvent::StatusUpdate(update) => WireResponse::StatusUpdate(StatusUpdateView::of(
            update,
            None,
            status(&update.status),
            None,
        )),
        // `append` and `lastChunk` only when true: false is the proto default, left out.
        StreamEvent::ArtifactUpdate(update) => WireResponse::ArtifactUpdate(
            ArtifactUpdateView::of(update, None, artifact(&update.artifact), |flag| {
                flag.filter(|&flag| flag)
            }),
        ),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::a2a::v1_0::decode_send_params;

    #[test]
    fn a_decoded_message_encodes_back_to_the_same_json() {
        let message = json!({
            "messageId": "m", "role": "ROLE_USER", "contextId": "c", "taskId": "t",
            "extensions": ["urn:x"], "metadata": {"a": 1},
            "parts": [
                {"text": "hi", "metadata": {"b": 2}},
                {"data": {"x": [1, 2]}, "metadata": {"mimeType": "application/a2ui+json"},
                 "mediaType": "application/a2ui+json"},
                {"url": "https://e/x.png", "mediaType": "image/png"},
                {"raw": "aGk=", "filename": "hi.txt"}
            ]
        });
        let decoded = decode_send_params(Some(&json!({"message": message}))).unwrap();
        assert_eq!(encode_message(&decoded.message), message);
    }

    #[test]
    fn every_state_but_unknown_round_trips_through_its_name() {
        for state in TaskState::ALL {
            let name = state_name(state);
            assert!(name.starts_with("TASK_STATE_"), "{name}");
            let back = super::super::decode::state_from_name(name);
            if state == TaskState::Unknown {
                assert_eq!(back, None);
            } else {
                assert_eq!(back, Some(state));
            }
        }
    }
}
