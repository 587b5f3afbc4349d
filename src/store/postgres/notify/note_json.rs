//! A notification's JSON on `a2ui_events`: `{"t": task id, "e": event}`, or `{"t": task id,
//! "ref": row id}` for an event too large for a notification. A status update is written
//! without a `kind`, as instances have always written it, so an older instance still reads
//! it; an artifact update is marked `"kind": "artifact"`.

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use super::super::super::codec::{
    self, ArtifactOut, MessageBack, MessageOut, state_from_name, state_name,
};
use crate::a2a::{StreamEvent, TaskArtifactUpdateEvent, TaskStatus, TaskStatusUpdateEvent};

/// A notification as sent: the task's id and its update.
#[derive(Serialize)]
pub(super) struct NoteOut<'a> {
    #[serde(rename = "t")]
    pub(super) task_id: &'a str,
    #[serde(rename = "e")]
    pub(super) event: &'a EventOut<'a>,
}

/// An update as sent: a status update as instances have always sent it (no `kind`, so an
/// older instance still reads it), or an artifact update marked `"kind": "artifact"`.
#[derive(Serialize)]
#[serde(untagged)]
pub(super) enum EventOut<'a> {
    Status(UpdateOut<'a>),
    Artifact(ArtifactUpdateOut<'a>),
}

impl<'a> EventOut<'a> {
    /// The update to send for `event`; `None` for the events instances do not carry.
    pub(super) fn of(event: &'a StreamEvent) -> Option<Self> {
        match event {
            StreamEvent::StatusUpdate(update) => Some(EventOut::Status(UpdateOut::of(update))),
            StreamEvent::ArtifactUpdate(update) => Some(EventOut::Artifact(ArtifactUpdateOut {
                kind: ARTIFACT_KIND,
                task_id: &update.task_id,
                context_id: &update.context_id,
                artifact: codec::artifact(&update.artifact),
                append: update.append,
                last_chunk: update.last_chunk,
            })),
            _ => None,
        }
    }

    pub(super) fn task_id(&self) -> &'a str {
        match self {
            EventOut::Status(update) => update.task_id,
            EventOut::Artifact(update) => update.task_id,
        }
    }
}

/// What marks an artifact update in a notification.
pub(super) const ARTIFACT_KIND: &str = "artifact";

/// An artifact update as sent, its artifact in the store's format.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct ArtifactUpdateOut<'a> {
    pub(super) kind: &'static str,
    pub(super) task_id: &'a str,
    pub(super) context_id: &'a str,
    pub(super) artifact: ArtifactOut<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) append: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) last_chunk: Option<bool>,
}

/// An artifact update as read.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct ArtifactUpdateIn<'a> {
    pub(super) task_id: String,
    pub(super) context_id: String,
    #[serde(borrow)]
    pub(super) artifact: &'a RawValue,
    pub(super) append: Option<bool>,
    pub(super) last_chunk: Option<bool>,
}

/// What kind of update a notification holds (none: a status update).
#[derive(Deserialize)]
pub(super) struct KindIn<'a> {
    #[serde(borrow, default)]
    pub(super) kind: Option<&'a str>,
}

/// A notification as read: the update itself, or the row of `a2ui_events` holding it.
#[derive(Deserialize)]
pub(super) struct NoteIn<'a> {
    #[serde(rename = "t")]
    pub(super) task_id: String,
    #[serde(rename = "e", borrow, default)]
    pub(super) event: Option<&'a RawValue>,
    #[serde(rename = "ref", default)]
    pub(super) reference: Option<i64>,
}

/// A status update as sent, its message in the store's format.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct UpdateOut<'a> {
    pub(super) task_id: &'a str,
    pub(super) context_id: &'a str,
    #[serde(rename = "final")]
    pub(super) is_final: bool,
    pub(super) state: &'static str,
    pub(super) timestamp: Option<&'a str>,
    pub(super) message: Option<MessageOut<'a>>,
}

impl<'a> UpdateOut<'a> {
    pub(super) fn of(update: &'a TaskStatusUpdateEvent) -> Self {
        UpdateOut {
            task_id: &update.task_id,
            context_id: &update.context_id,
            is_final: update.is_final,
            state: state_name(update.status.state),
            timestamp: update.status.timestamp.as_deref(),
            message: update.status.message.as_ref().map(codec::message),
        }
    }
}

/// A status update as read (its message in format 1, or 0 from an older instance).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct UpdateIn {
    pub(super) task_id: String,
    pub(super) context_id: String,
    #[serde(rename = "final")]
    pub(super) is_final: bool,
    pub(super) state: String,
    pub(super) timestamp: Option<String>,
    pub(super) message: Option<MessageBack>,
}

/// The update in `json`; `None` when it is not one.
pub(super) fn decode_event(json: &str) -> Option<StreamEvent> {
    let kind: KindIn<'_> = serde_json::from_str(json).ok()?;
    match kind.kind {
        None => decode_status(json),
        Some(ARTIFACT_KIND) => decode_artifact(json),
        Some(_) => None,
    }
}

/// The artifact update in `json`.
pub(super) fn decode_artifact(json: &str) -> Option<StreamEvent> {
    let update: ArtifactUpdateIn<'_> = serde_json::from_str(json).ok()?;
    Some(StreamEvent::ArtifactUpdate(TaskArtifactUpdateEvent {
        task_id: update.task_id,
        context_id: update.context_id,
        artifact: codec::read_artifact(update.artifact.get()).ok()?,
        append: update.append,
        last_chunk: update.last_chunk,
        metadata: None,
    }))
}

/// The status update in `json`.
pub(super) fn decode_status(json: &str) -> Option<StreamEvent> {
    let update: UpdateIn = serde_json::from_str(json).ok()?;
    Some(StreamEvent::StatusUpdate(TaskStatusUpdateEvent {
        task_id: update.task_id,
        context_id: update.context_id,
        status: TaskStatus {
            state: state_from_name(&update.state)?,
            message: update.message.map(|MessageBack(message)| message),
            timestamp: update.timestamp,
        },
        is_final: update.is_final,
        metadata: None,
    }))
}
