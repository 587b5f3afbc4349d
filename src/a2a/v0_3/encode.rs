//! Model → A2A 0.3 JSON: `kind` tags, camelCase names, optional members left out when empty.
//!
//! The views are the shared borrowed ones ([`crate::a2a::borrowed`]) with the 0.3 names.

use crate::a2a::borrowed::{
    ArtifactUpdateView, ArtifactView, Dialect, Each, MessageView, StatusUpdateView, StatusView,
    TaskView,
};
use crate::a2a::wire_value as to_value;
use serde::Serialize;
use serde_json::Value;

use crate::a2a::{Artifact, Message, Role, StreamEvent, Task, TaskStatus};

/// The 0.3 names: `kind` tags, `messageId`, `artifactId`, `mimeType`.
pub(crate) struct V0_3;

impl Dialect for V0_3 {
    const KINDS: bool = true;
    const MESSAGE_ID: &'static str = "messageId";
    const ARTIFACT_ID: &'static str = "artifactId";
    const MEDIA_TYPE: &'static str = "mimeType";

    fn role(role: Role) -> &'static str {
        match role {
            Role::User => "user",
            Role::Agent => "agent",
        }
    }
}

/// A message as 0.3 JSON, borrowed from the model: serialized straight to text (or counted)
/// without a `Value` tree.
pub(crate) type WireMessage<'a> = MessageView<'a, V0_3>;

/// An artifact as 0.3 JSON, borrowed from the model (what [`encode_artifact`] gives, without
/// the `Value`).
pub(crate) type WireArtifact<'a> = ArtifactView<'a, V0_3>;

type WireStatus<'a> = StatusView<'a, WireMessage<'a>>;

/// `message` as 0.3 JSON, to serialize (what [`encode_message`] gives, without the `Value`).
pub(crate) fn wire_message(message: &Message) -> WireMessage<'_> {
    MessageView::of(message)
}

pub(crate) fn wire_artifact(artifact: &Artifact) -> WireArtifact<'_> {
    ArtifactView::of(artifact)
}

fn wire_status(status: &TaskStatus) -> WireStatus<'_> {
    StatusView::of(status, status.state.as_str(), wire_message)
}

/// A task's lists in 0.3: `history` always, `artifacts` only when there are some.
#[derive(Serialize)]
struct TaskLists<'a> {
    history: Each<'a, Message, WireMessage<'a>>,
    #[serde(skip_serializing_if = "Each::is_empty")]
    artifacts: Each<'a, Artifact, WireArtifact<'a>>,
}

type WireTask<'a> = TaskView<'a, WireStatus<'a>, TaskLists<'a>>;

fn wire_task(task: &Task) -> WireTask<'_> {
    let lists = TaskLists {
        history: Each(&task.history, wire_message),
        artifacts: Each(&task.artifacts, wire_artifact),
    };
    TaskView::of(task, Some("task"), wire_status(&task.status), lists)
}

/// Encodes a message.
pub fn encode_message(message: &Message) -> Value {
    to_value(wire_message(message))
}

/// Encodes a part.
#[cfg(feature = "unstable-internals")]
pub fn encode_part(part: &crate::a2a::Part) -> Value {
    to_value(crate::a2a::borrowed::PartView::<V0_3>::of(part))
}

/// Encodes a task status.
#[cfg(feature = "unstable-internals")]
pub fn encode_status(status: &TaskStatus) -> Value {
    to_value(wire_status(status))
}

/// Encodes a task state: `"input-required"`, ...
#[cfg(feature = "unstable-internals")]
pub fn encode_state(state: crate::a2a::TaskState) -> Value {
    state.as_str().into()
}

/// Encodes a task; `history` is always present, `artifacts` only when there are some.
pub fn encode_task(task: &Task) -> Value {
    to_value(wire_task(task))
}

/// Encodes an artifact.
#[cfg(feature = "unstable-internals")]
pub fn encode_artifact(artifact: &Artifact) -> Value {
    to_value(wire_artifact(artifact))
}

/// Encodes a stream event (the `result` of one SSE frame).
///
/// # Example
///
/// ```
/// # #[cfg(feature = "unstable-internals")] {
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
/// # }
/// ```
#[cfg(feature = "unstable-internals")]
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
        StreamEvent::StatusUpdate(update) => WireEvent::StatusUpdate(StatusUpdateView::of(
            update,
            Some("status-update"),
            wire_status(&update.status),
            Some(update.is_final),
        )),
        StreamEvent::ArtifactUpdate(update) => WireEvent::ArtifactUpdate(ArtifactUpdateView::of(
            update,
            Some("artifact-update"),
            wire_artifact(&update.artifact),
            |flag| flag,
        )),
    }
}

/// Encodes `message/send` / `message/stream` params: the message, and the configuration
/// when it is not the default (a push config given with the send is not sent).
///
/// # Example
///
/// ```
/// # #[cfg(feature = "unstable-internals")] {
/// use a2ui_agent::a2a::v0_3::encode_send_params;
/// use a2ui_agent::a2a::{Message, Part, SendConfiguration, SendRequest};
///
/// let request = SendRequest {
///     message: Message::user("m", vec![Part::text("hi")]),
///     configuration: SendConfiguration::default(),
///     metadata: None,
/// };
/// let params = encode_send_params(&request);
/// assert_eq!(params["message"]["kind"], "message");
/// assert_eq!(params["configuration"]["blocking"], true);
/// # }
/// ```
#[cfg(any(feature = "client", feature = "unstable-internals"))]
pub fn encode_send_params(request: &crate::a2a::SendRequest) -> Value {
    let config = &request.configuration;
    let mut configuration = serde_json::Map::new();
    configuration.insert("blocking".into(), config.blocking.into());
    if let Some(length) = config.history_length {
        configuration.insert("historyLength".into(), length.into());
    }
    if let Some(modes) = &config.accepted_output_modes {
        configuration.insert("acceptedOutputModes".into(), modes.clone().into());
    }
    let mut params = serde_json::Map::new();
    params.insert("message".into(), encode_message(&request.message));
    params.insert("configuration".into(), Value::Object(configuration));
    if let Some(metadata) = &request.metadata {
        params.insert("metadata".into(), Value::Object(metadata.clone()));
    }
    Value::Object(params)
}

/// Encodes `tasks/get` params.
#[cfg(any(feature = "client", feature = "unstable-internals"))]
pub fn encode_query_params(query: &crate::a2a::TaskQuery) -> Value {
    let mut params = serde_json::Map::new();
    params.insert("id".into(), query.id.clone().into());
    if let Some(length) = query.history_length {
        params.insert("historyLength".into(), length.into());
    }
    Value::Object(params)
}

/// One stream event; each variant carries its own `kind`.
#[derive(Serialize)]
#[serde(untagged)]
enum WireEvent<'a> {
    Task(WireTask<'a>),
    Message(WireMessage<'a>),
    StatusUpdate(StatusUpdateView<'a, WireStatus<'a>>),
    ArtifactUpdate(ArtifactUpdateView<'a, WireArtifact<'a>>),
}
