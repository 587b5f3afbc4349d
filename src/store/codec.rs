//! How the stores write the crate's model: JSON of the store's own, not a protocol's.
//!
//! The stores used to keep messages and artifacts as A2A 0.3 wire JSON, so a fix to the 0.3
//! encoder silently changed what is on disk, and rows written before it could stop reading
//! back. The structs here belong to the store and change only with a new format number.
//!
//! # Format 1 (this one)
//!
//! A message is `{"id", "role": "user"|"agent", "parts", "contextId"?, "taskId"?,
//! "referenceTaskIds"?, "extensions"?, "metadata"?}`; a part is one of `{"text": "..."}`,
//! `{"data": {...}}` or `{"file": {"bytes"|"uri": "...", "mediaType"?, "name"?}}`, each with an
//! optional `"metadata"`; an artifact is `{"id", "name"?, "description"?, "parts",
//! "extensions"?, "metadata"?}`. Empty lists and absent options are left out. A task's
//! state is its protocol name (`input-required`), spelled by [`state_name`] here.
//!
//! # Format 0 (a2ui-agent up to a35bb6e): read as it is
//!
//! Format 0 is A2A 0.3 JSON: the same members but for `kind` tags on messages and parts,
//! `messageId`, `artifactId` and `mimeType`. The decoder accepts those names as aliases and
//! ignores `kind`, so a row written in format 0 reads back as it did; it is rewritten in
//! format 1 the next time its task is written (and expires like any other meanwhile). No
//! migration step rewrites rows: the stores' schema step 2 only records the format, so an
//! older binary refuses the database instead of failing on every row it cannot read.
//! `tests/store_migration.rs` reads a SQLite file and a PostgreSQL dump that format-0 code
//! wrote.
//!
//! Writing is one serde pass over the borrowed views the 0.3 encoder also uses, with the
//! names of [`Format1`] (no `Value` tree); reading decodes
//! straight into owned values, and the history messages and artifacts a read does not want
//! are skipped as text ([`Kept`]).

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::StoreError;
use super::projection::Projection;
#[cfg(any(feature = "sqlite", feature = "postgres"))]
use crate::a2a::TaskState;
use crate::a2a::borrowed::{ArtifactView, Dialect, Each, MessageView};
use crate::a2a::{Artifact, FileBody, FileContent, Message, Metadata, Part, Role, Task};

/// The name a store keeps `state` under (the protocol name, `input-required`).
#[cfg(any(feature = "sqlite", feature = "postgres"))]
pub(crate) fn state_name(state: TaskState) -> &'static str {
    state.as_str()
}

/// The state kept under `name`, if it is one.
#[cfg(any(feature = "sqlite", feature = "postgres"))]
pub(crate) fn state_from_name(name: &str) -> Option<TaskState> {
    TaskState::ALL
        .into_iter()
        .find(|state| state_name(*state) == name)
}

// ---- Writing: borrowed structs, one serde pass ----

/// The store's names, format 1: no `kind` tags, `id` for messages and artifacts, `mediaType`
/// for files. Its own, not a protocol's: they change only with a new format number.
pub(crate) struct Format1;

impl Dialect for Format1 {
    const KINDS: bool = false;
    const MESSAGE_ID: &'static str = "id";
    const ARTIFACT_ID: &'static str = "id";
    const MEDIA_TYPE: &'static str = "mediaType";

    fn role(role: Role) -> &'static str {
        match role {
            Role::User => "user",
            Role::Agent => "agent",
        }
    }
}

/// A message as the store writes it.
pub(crate) type MessageOut<'a> = MessageView<'a, Format1>;

/// `message` to write.
pub(crate) fn message(message: &Message) -> MessageOut<'_> {
    MessageView::of(message)
}

/// An artifact as the store writes it.
pub(crate) type ArtifactOut<'a> = ArtifactView<'a, Format1>;

/// `artifact` to write.
pub(crate) fn artifact(artifact: &Artifact) -> ArtifactOut<'_> {
    ArtifactView::of(artifact)
}

/// Messages written one by one as they are borrowed.
pub(crate) struct Messages<'a>(pub(crate) &'a [Message]);

impl Serialize for Messages<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        Each(self.0, message).serialize(serializer)
    }
}

/// Artifacts written one by one as they are borrowed.
pub(crate) struct Artifacts<'a>(pub(crate) &'a [Artifact]);

impl Serialize for Artifacts<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        Each(self.0, artifact).serialize(serializer)
    }
}

/// `value` as JSON text.
pub(crate) fn to_json(value: &impl Serialize) -> String {
    // Borrowed strings and JSON maps into a `String` cannot fail to serialize.
    serde_json::to_string(value).unwrap_or_default()
}

// ---- Reading: owned structs, format 0 names as aliases ----

/// A message as read back.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct MessageIn {
    #[serde(alias = "messageId")]
    id: String,
    role: RoleIn,
    parts: Vec<PartIn>,
    context_id: Option<String>,
    task_id: Option<String>,
    #[serde(default)]
    reference_task_ids: Vec<String>,
    #[serde(default)]
    extensions: Vec<String>,
    metadata: Option<Metadata>,
}

#[derive(Deserialize)]
#[serde(rename_all = "lowercase")]
enum RoleIn {
    User,
    Agent,
}

/// An artifact as read back.
#[derive(Deserialize)]
struct ArtifactIn {
    #[serde(alias = "artifactId")]
    id: String,
    name: Option<String>,
    description: Option<String>,
    parts: Vec<PartIn>,
    #[serde(default)]
    extensions: Vec<String>,
    metadata: Option<Metadata>,
}

/// A part as read back: checked to hold exactly one kind of content.
#[derive(Deserialize)]
#[serde(try_from = "PartFields")]
struct PartIn(Part);

#[derive(Deserialize)]
struct PartFields {
    text: Option<String>,
    data: Option<Map<String, Value>>,
    file: Option<FileIn>,
    metadata: Option<Metadata>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct FileIn {
    bytes: Option<String>,
    uri: Option<String>,
    #[serde(alias = "mimeType")]
    media_type: Option<String>,
    name: Option<String>,
}

impl TryFrom<PartFields> for PartIn {
    type Error = &'static str;

    fn try_from(fields: PartFields) -> Result<Self, Self::Error> {
        let metadata = fields.metadata.map(Arc::new);
        let part = match (fields.text, fields.data, fields.file) {
            (Some(text), None, None) => Part::Text { text, metadata },
            (None, Some(data), None) => Part::Data {
                data: Arc::new(data),
                metadata,
            },
            (None, None, Some(file)) => Part::File {
                file: FileContent {
                    body: match (file.bytes, file.uri) {
                        (Some(bytes), None) => FileBody::Bytes(bytes),
                        (None, Some(uri)) => FileBody::Uri(uri),
                        _ => return Err("a file holds neither or both of bytes and uri"),
                    },
                    mime_type: file.media_type,
                    name: file.name,
                },
                metadata,
            },
            _ => return Err("a part holds not exactly one of text, data and file"),
        };
        Ok(PartIn(part))
    }
}

fn parts(parts: Vec<PartIn>) -> Vec<Part> {
    parts.into_iter().map(|PartIn(part)| part).collect()
}

impl From<MessageIn> for Message {
    fn from(read: MessageIn) -> Self {
        Message {
            message_id: read.id,
            role: match read.role {
                RoleIn::User => Role::User,
                RoleIn::Agent => Role::Agent,
            },
            parts: parts(read.parts),
            context_id: read.context_id,
            task_id: read.task_id,
            reference_task_ids: read.reference_task_ids,
            extensions: read.extensions,
            metadata: read.metadata,
        }
    }
}

impl From<ArtifactIn> for Artifact {
    fn from(read: ArtifactIn) -> Self {
        Artifact {
            artifact_id: read.id,
            name: read.name,
            description: read.description,
            parts: parts(read.parts),
            extensions: read.extensions,
            metadata: read.metadata,
        }
    }
}

/// A message read back, for the structs of other modules that hold one (PostgreSQL's
/// notifications).
#[cfg(feature = "postgres")]
#[derive(Deserialize)]
#[serde(from = "MessageIn")]
pub(crate) struct MessageBack(pub(crate) Message);

#[cfg(feature = "postgres")]
impl From<MessageIn> for MessageBack {
    fn from(read: MessageIn) -> Self {
        MessageBack(read.into())
    }
}

/// Reads one message (format 1 or 0).
///
/// # Errors
///
/// The JSON error when `json` is not a message.
pub(crate) fn read_message(json: &str) -> Result<Message, serde_json::Error> {
    serde_json::from_str::<MessageIn>(json).map(Message::from)
}

/// Reads one artifact (format 1 or 0).
///
/// # Errors
///
/// The JSON error when `json` is not an artifact.
pub(crate) fn read_artifact(json: &str) -> Result<Artifact, serde_json::Error> {
    serde_json::from_str::<ArtifactIn>(json).map(Artifact::from)
}

/// A task's status message, history and artifacts as JSON text: how the packed form and the
/// SQL rows keep them, read back with only the wanted parts decoded.
pub(crate) struct Kept<'a> {
    /// The status message, if any.
    pub(crate) message: Option<&'a str>,
    /// The history, a JSON array.
    pub(crate) history: &'a str,
    /// The artifacts, a JSON array.
    pub(crate) artifacts: &'a str,
}

impl Kept<'_> {
    /// Sets `task`'s status message, its `wanted` newest history messages and (if wanted)
    /// its artifacts; the items left out are skipped as text, never built as values.
    /// `corrupt` names what does not read back.
    pub(crate) fn decode_into(
        &self,
        task: &mut Task,
        wanted: Projection,
        corrupt: &dyn Fn(&dyn std::fmt::Display) -> StoreError,
    ) -> Result<(), StoreError> {
        let message = |text: &str| read_message(text).map_err(|e| corrupt(&e));
        let items = |what: &str, text| {
            serde_json::from_str::<Vec<&RawValue>>(text)
                .map_err(|e| corrupt(&format!("{what} is not a JSON array: {e}")))
        };
        task.status.message = self.message.map(message).transpose()?;
        let history = items("history", self.history)?;
        let skip = wanted.history_skip(history.len());
        task.history = history[skip..]
            .iter()
            .map(|raw| message(raw.get()))
            .collect::<Result<_, _>>()?;
        task.artifacts = if wanted.artifacts {
            items("artifacts", self.artifacts)?
                .iter()
                .map(|raw| read_artifact(raw.get()).map_err(|e| corrupt(&e)))
                .collect::<Result<_, _>>()?
        } else {
            Vec::new()
        };
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::store::arbitrary::{artifact, message};

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(128))]

        #[test]
        fn messages_and_artifacts_read_back_as_written(
            message in message(),
            artifact in artifact(),
        ) {
            let json = to_json(&super::message(&message));
            prop_assert_eq!(read_message(&json).unwrap(), message);
            let json = to_json(&super::artifact(&artifact));
            prop_assert_eq!(read_artifact(&json).unwrap(), artifact);
        }
    }

    #[cfg(any(feature = "sqlite", feature = "postgres"))]
    #[test]
    fn every_state_has_a_name_that_reads_back() {
        for state in TaskState::ALL {
            assert_eq!(state_from_name(state_name(state)), Some(state));
        }
        assert_eq!(state_from_name("done"), None);
    }

    #[test]
    fn format_0_reads_as_it_did() {
        let message = r#"{"kind":"message","messageId":"m","role":"user","parts":[
            {"kind":"text","text":"hi","metadata":{"k":1}},
            {"kind":"data","data":{"x":[1]}},
            {"kind":"file","file":{"bytes":"aGk=","mimeType":"text/plain","name":"a.txt"}},
            {"kind":"file","file":{"uri":"https://e/x"}}],
            "contextId":"c","taskId":"t","referenceTaskIds":["r"],"extensions":["urn:x"],
            "metadata":{"n":2}}"#;
        let read = read_message(message).unwrap();
        assert_eq!(read.message_id, "m");
        assert_eq!(read.role, Role::User);
        assert_eq!(read.parts.len(), 4);
        assert_eq!(read.parts[0].as_text(), Some("hi"));
        let Part::File { file, .. } = &read.parts[2] else {
            panic!("{:?}", read.parts[2]);
        };
        assert_eq!(file.mime_type.as_deref(), Some("text/plain"));
        assert_eq!(file.name.as_deref(), Some("a.txt"));
        assert_eq!(read.reference_task_ids, ["r"]);
        // Written back in format 1: no kinds, short names.
        let json = to_json(&super::message(&read));
        assert!(
            !json.contains("kind") && !json.contains("messageId"),
            "{json}"
        );
        assert_eq!(read_message(&json).unwrap(), read);
        let artifact = r#"{"artifactId":"a","name":"n","parts":[{"kind":"text","text":"x"}]}"#;
        assert_eq!(read_artifact(artifact).unwrap().artifact_id, "a");
    }

    #[test]
    fn a_part_that_is_not_exactly_one_thing_is_refused() {
        for part in [
            r#"{}"#,
            r#"{"text":"a","data":{}}"#,
            r#"{"file":{"name":"x"}}"#,
            r#"{"file":{"bytes":"a","uri":"b"}}"#,
        ] {
            let message = format!(r#"{{"id":"m","role":"agent","parts":[{part}]}}"#);
            assert!(read_message(&message).is_err(), "{part}");
        }
    }
}
