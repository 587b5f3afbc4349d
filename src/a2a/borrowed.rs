//! Borrowed views of the model that more than one JSON form writes alike, each serialized
//! straight from the model: no `Value` tree, no copied string (they run for every SSE frame
//! and every store write).
//!
//! - The A2A 0.3 wire form and the stores' own form give messages, parts, files and
//!   artifacts the same shape; they differ only in a few names and in 0.3's `kind` tags,
//!   which a [`Dialect`] names: [`MessageView`], [`PartView`], [`ArtifactView`].
//! - The A2A 0.3 and 1.0 wire forms give a status, a task and the two update events the same
//!   skeleton around their own messages, artifacts and state names: [`StatusView`],
//!   [`TaskView`], [`StatusUpdateView`], [`ArtifactUpdateView`].
//!
//! The 1.0 message, part and artifact are left to their module: they order their members
//! otherwise and write parts flat, so they share only [`Each`].

use std::marker::PhantomData;

use serde::Serialize;
use serde::ser::{SerializeStruct, Serializer};

use crate::a2a::{
    Artifact, FileBody, FileContent, Message, Metadata, Part, Role, Task, TaskArtifactUpdateEvent,
    TaskStatus, TaskStatusUpdateEvent,
};

/// The items of a slice, each serialized through a view as it is read: a list without a
/// `Vec` of views.
pub(crate) struct Each<'a, T, W>(pub(crate) &'a [T], pub(crate) fn(&'a T) -> W);

impl<T, W> Each<'_, T, W> {
    /// Whether there is no item (for `skip_serializing_if`).
    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl<'a, T, W: Serialize> Serialize for Each<'a, T, W> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.iter().map(self.1))
    }
}

/// The names by which a form of the 0.3 shape tells its messages, parts and artifacts apart.
pub(crate) trait Dialect {
    /// Whether messages and parts carry a `kind` tag (`"message"`, `"text"`, ...).
    const KINDS: bool;
    /// The member holding a message's id.
    const MESSAGE_ID: &'static str;
    /// The member holding an artifact's id.
    const ARTIFACT_ID: &'static str;
    /// The member holding a file's MIME type.
    const MEDIA_TYPE: &'static str;
    /// The name of a role.
    fn role(role: Role) -> &'static str;
}

/// A message in the 0.3 shape: (`kind`), id, `role`, `parts`, then `contextId`, `taskId`,
/// `referenceTaskIds`, `extensions` and `metadata` when present or not empty.
pub(crate) struct MessageView<'a, D>(&'a Message, PhantomData<D>);

impl<'a, D> MessageView<'a, D> {
    /// `message` to serialize.
    pub(crate) fn of(message: &'a Message) -> Self {
        MessageView(message, PhantomData)
    }
}

impl<D: Dialect> Serialize for MessageView<'_, D> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let message = self.0;
        let mut out = serializer.serialize_struct("Message", 9)?;
        if D::KINDS {
            out.serialize_field("kind", "message")?;
        }
        out.serialize_field(D::MESSAGE_ID, &message.message_id)?;
        out.serialize_field("role", D::role(message.role))?;
        out.serialize_field("parts", &Each(&message.parts, PartView::<D>::of))?;
        optional(&mut out, "contextId", message.context_id.as_ref())?;
        optional(&mut out, "taskId", message.task_id.as_ref())?;
        list(&mut out, "referenceTaskIds", &message.reference_task_ids)?;
        list(&mut out, "extensions", &message.extensions)?;
        optional(&mut out, "metadata", message.metadata.as_ref())?;
        out.end()
    }
}

/// An artifact in the 0.3 shape: id, `name`, `description`, `parts`, `extensions`,
/// `metadata`, the optional ones when present or not empty.
pub(crate) struct ArtifactView<'a, D>(&'a Artifact, PhantomData<D>);

impl<'a, D> ArtifactView<'a, D> {
    /// `artifact` to serialize.
    pub(crate) fn of(artifact: &'a Artifact) -> Self {
        ArtifactView(artifact, PhantomData)
    }
}

impl<D: Dialect> Serialize for ArtifactView<'_, D> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let artifact = self.0;
        let mut out = serializer.serialize_struct("Artifact", 6)?;
        out.serialize_field(D::ARTIFACT_ID, &artifact.artifact_id)?;
        optional(&mut out, "name", artifact.name.as_ref())?;
        optional(&mut out, "description", artifact.description.as_ref())?;
        out.serialize_field("parts", &Each(&artifact.parts, PartView::<D>::of))?;
        list(&mut out, "extensions", &artifact.extensions)?;
        optional(&mut out, "metadata", artifact.metadata.as_ref())?;
        out.end()
    }
}

/// A part in the 0.3 shape: (`kind`), one of `text`, `data`, `file`, then `metadata`.
pub(crate) struct PartView<'a, D>(&'a Part, PhantomData<D>);

impl<'a, D> PartView<'a, D> {
    /// `part` to serialize.
    pub(crate) fn of(part: &'a Part) -> Self {
        PartView(part, PhantomData)
    }
}

impl<D: Dialect> Serialize for PartView<'_, D> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut out = serializer.serialize_struct("Part", 3)?;
        match self.0 {
            Part::Text { text, .. } => {
                kind::<D, S>(&mut out, "text")?;
                out.serialize_field("text", text)?;
            }
            Part::Data { data, .. } => {
                kind::<D, S>(&mut out, "data")?;
                out.serialize_field("data", &**data)?;
            }
            Part::File { file, .. } => {
                kind::<D, S>(&mut out, "file")?;
                out.serialize_field("file", &FileView::<D>(file, PhantomData))?;
            }
        }
        optional(&mut out, "metadata", self.0.metadata())?;
        out.end()
    }
}

/// A file: `bytes` or `uri`, then the MIME type and `name` when known.
struct FileView<'a, D>(&'a FileContent, PhantomData<D>);

impl<D: Dialect> Serialize for FileView<'_, D> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let file = self.0;
        let mut out = serializer.serialize_struct("File", 3)?;
        match &file.body {
            FileBody::Bytes(bytes) => out.serialize_field("bytes", bytes)?,
            FileBody::Uri(uri) => out.serialize_field("uri", uri)?,
        }
        optional(&mut out, D::MEDIA_TYPE, file.mime_type.as_ref())?;
        optional(&mut out, "name", file.name.as_ref())?;
        out.end()
    }
}

fn kind<D: Dialect, S: Serializer>(
    out: &mut S::SerializeStruct,
    kind: &'static str,
) -> Result<(), S::Error> {
    if D::KINDS {
        out.serialize_field("kind", kind)?;
    }
    Ok(())
}

/// Writes `key` when `value` is present, as `skip_serializing_if = "Option::is_none"` does.
fn optional<O: SerializeStruct, T: Serialize + ?Sized>(
    out: &mut O,
    key: &'static str,
    value: Option<&T>,
) -> Result<(), O::Error> {
    match value {
        Some(value) => out.serialize_field(key, value),
        None => out.skip_field(key),
    }
}

/// Writes `key` when `items` is not empty.
fn list<O: SerializeStruct>(
    out: &mut O,
    key: &'static str,
    items: &[String],
) -> Result<(), O::Error> {
    if items.is_empty() {
        out.skip_field(key)
    } else {
        out.serialize_field(key, items)
    }
}

/// A task status: `state`, then `message` and `timestamp` when present.
#[derive(Serialize)]
pub(crate) struct StatusView<'a, M> {
    state: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<M>,
    #[serde(skip_serializing_if = "Option::is_none")]
    timestamp: Option<&'a str>,
}

impl<'a, M> StatusView<'a, M> {
    /// `status`, its state named `state` and its message seen through `message`.
    pub(crate) fn of(
        status: &'a TaskStatus,
        state: &'static str,
        message: fn(&'a Message) -> M,
    ) -> Self {
        StatusView {
            state,
            message: status.message.as_ref().map(message),
            timestamp: status.timestamp.as_deref(),
        }
    }
}

/// A task: (`kind`), `id`, `contextId`, `status`, its history and artifacts as the form
/// lists them (`L`, flattened), then `metadata` when present.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct TaskView<'a, S, L> {
    #[serde(skip_serializing_if = "Option::is_none")]
    kind: Option<&'static str>,
    id: &'a str,
    context_id: &'a str,
    status: S,
    #[serde(flatten)]
    lists: L,
    #[serde(skip_serializing_if = "Option::is_none")]
    metadata: Option<&'a Metadata>,
}

impl<'a, S, L> TaskView<'a, S, L> {
    /// `task` tagged with `kind`, with its status and lists as the form writes them.
    pub(crate) fn of(task: &'a Task, kind: Option<&'static str>, status: S, lists: L) -> Self {
        TaskView {
            kind,
            id: &task.id,
            context_id: &task.context_id,
            status,
            lists,
            metadata: task.metadata.as_ref(),
        }
    }
}

/// A status update: (`kind`), `taskId`, `contextId`, `status`, (`final`), `metadata`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct StatusUpdateView<'a, S> {
    #[serde(skip_serializing_if = "Option::is_none")]
    kind: Option<&'static str>,
    task_id: &'a str,
    context_id: &'a str,
    status: S,
    #[serde(rename = "final", skip_serializing_if = "Option::is_none")]
    is_final: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    metadata: Option<&'a Metadata>,
}

impl<'a, S> StatusUpdateView<'a, S> {
    /// `update` tagged with `kind`, its status as the form writes it, `final` when given.
    pub(crate) fn of(
        update: &'a TaskStatusUpdateEvent,
        kind: Option<&'static str>,
        status: S,
        is_final: Option<bool>,
    ) -> Self {
        StatusUpdateView {
            kind,
            task_id: &update.task_id,
            context_id: &update.context_id,
            status,
            is_final,
            metadata: update.metadata.as_ref(),
        }
    }
}

/// An artifact update: (`kind`), `taskId`, `contextId`, `artifact`, then `append`,
/// `lastChunk` and `metadata` when present.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ArtifactUpdateView<'a, A> {
    #[serde(skip_serializing_if = "Option::is_none")]
    kind: Option<&'static str>,
    task_id: &'a str,
    context_id: &'a str,
    artifact: A,
    #[serde(skip_serializing_if = "Option::is_none")]
    append: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    last_chunk: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    metadata: Option<&'a Metadata>,
}

impl<'a, A> ArtifactUpdateView<'a, A> {
    /// `update` tagged with `kind`, its artifact as the form writes it; `flags` turns the
    /// model's `append` and `lastChunk` into what the form writes (`None`: left out).
    pub(crate) fn of(
        update: &'a TaskArtifactUpdateEvent,
        kind: Option<&'static str>,
        artifact: A,
        flags: fn(Option<bool>) -> Option<bool>,
    ) -> Self {
        ArtifactUpdateView {
            kind,
            task_id: &update.task_id,
            context_id: &update.context_id,
            artifact,
            append: flags(update.append),
            last_chunk: flags(update.last_chunk),
            metadata: update.metadata.as_ref(),
        }
    }
}
