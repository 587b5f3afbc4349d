//! A task kept as compact JSON, decoded when read.
//!
//! As Rust values, an A2UI task is several times its JSON size: every A2UI component is a
//! serde_json `Map` with one heap `String` per key and value, and allocator overhead on each.
//! [`Packed`] keeps a task's bulky members (status message, history, artifacts, metadata) as
//! one JSON string, and as values only the few fields a listing sorts and filters by (the
//! *header*: id, context, state, status timestamp). The in-memory store holds its tasks this
//! way, so its memory follows the JSON size of what it keeps: `benches/task_memory.rs`
//! measured about 4.3 KB of RSS per settled demo task of 3.3 KB of JSON, against 59 KB for
//! the same task as Rust values.

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::StoreError;
use super::wanted::Wanted;
use crate::a2a::v0_3::{WireMessage, decode_message, decode_part, wire_artifact, wire_message};
use crate::a2a::{Artifact, Message, Task, TaskStatus};

/// A task: its header as values, the rest as JSON.
#[derive(Debug, Clone)]
pub(crate) struct Packed {
    header: Task,
    body: Box<str>,
}

impl Packed {
    /// Packs `task`.
    pub(crate) fn pack(task: Task) -> Self {
        let Task {
            id,
            context_id,
            status,
            artifacts,
            history,
            metadata,
        } = task;
        let body = PackedBody {
            message: status.message.as_ref().map(wire_message),
            history: Messages(&history),
            artifacts: Artifacts(&artifacts),
            metadata: metadata.as_ref(),
        };
        // Borrowed strings and JSON values into a `String` cannot fail to serialize.
        let body = serde_json::to_string(&body).unwrap_or_default();
        Self {
            header: Task {
                id,
                context_id,
                status: TaskStatus {
                    message: None,
                    ..status
                },
                artifacts: Vec::new(),
                history: Vec::new(),
                metadata: None,
            },
            body: body.into_boxed_str(),
        }
    }

    /// The task without status message, history, artifacts or metadata: what a listing sorts
    /// and filters by.
    pub(crate) fn header(&self) -> &Task {
        &self.header
    }

    /// About the size of the task as JSON: the body and the header's strings.
    pub(crate) fn bytes(&self) -> usize {
        self.body.len()
            + self.header.id.len()
            + self.header.context_id.len()
            + self.header.status.timestamp.as_ref().map_or(0, String::len)
    }

    /// The whole task back.
    ///
    /// # Errors
    ///
    /// [`StoreError::Corrupt`] if the body does not decode (a bug: the store wrote it).
    pub(crate) fn unpack(&self) -> Result<Task, StoreError> {
        self.unpack_wanted(Wanted::ALL)
    }

    /// The task back with only the `wanted` parts decoded: the history messages and
    /// artifacts left out are skipped as text, never built as values.
    ///
    /// # Errors
    ///
    /// [`StoreError::Corrupt`] if the body does not decode (a bug: the store wrote it).
    pub(crate) fn unpack_wanted(&self, wanted: Wanted) -> Result<Task, StoreError> {
        let corrupt =
            |what: &dyn std::fmt::Display| StoreError::corrupt("memory", &self.header.id, what);
        let body: Body<'_> = serde_json::from_str(&self.body).map_err(|e| corrupt(&e))?;
        let kept = KeptJson {
            message: body.message.map(RawValue::get),
            history: body.history.map_or("[]", RawValue::get),
            artifacts: body.artifacts.map_or("[]", RawValue::get),
        };
        let mut task = self.header.clone();
        kept.decode_into(&mut task, wanted, &corrupt)?;
        task.metadata = body.metadata;
        Ok(task)
    }
}

/// A task's status message, history and artifacts as 0.3 JSON text: how the packed form
/// and the SQL rows keep them, written in one serde pass over borrowed structs (no `Value`
/// tree) and read back with only the wanted parts decoded.
pub(crate) struct KeptJson<'a> {
    /// The status message, if any.
    pub(crate) message: Option<&'a str>,
    /// The history, a JSON array.
    pub(crate) history: &'a str,
    /// The artifacts, a JSON array.
    pub(crate) artifacts: &'a str,
}

/// One message as JSON text.
pub(crate) fn message_json(message: &Message) -> String {
    // Borrowed strings and JSON values into a `String` cannot fail to serialize.
    serde_json::to_string(&wire_message(message)).unwrap_or_default()
}

/// Messages as a JSON array.
pub(crate) fn messages_json(messages: &[Message]) -> String {
    serde_json::to_string(&Messages(messages)).unwrap_or_default()
}

/// Artifacts as a JSON array.
pub(crate) fn artifacts_json(artifacts: &[Artifact]) -> String {
    serde_json::to_string(&Artifacts(artifacts)).unwrap_or_default()
}

impl KeptJson<'_> {
    /// Sets `task`'s status message, its `wanted` newest history messages and (if wanted)
    /// its artifacts; the items left out are skipped as text, never built as values.
    /// `corrupt` names what does not read back.
    pub(crate) fn decode_into(
        &self,
        task: &mut Task,
        wanted: Wanted,
        corrupt: &dyn Fn(&dyn std::fmt::Display) -> StoreError,
    ) -> Result<(), StoreError> {
        let json = |text: &str| serde_json::from_str::<Value>(text).map_err(|e| corrupt(&e));
        let message = |text: &str| decode_message(&json(text)?, "message").map_err(|e| corrupt(&e));
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
                .map(|raw| {
                    decode_artifact(&json(raw.get())?).ok_or_else(|| corrupt(&"bad artifact"))
                })
                .collect::<Result<_, _>>()?
        } else {
            Vec::new()
        };
        Ok(())
    }
}

/// A packed body as written: messages and artifacts as borrowed 0.3 JSON, no `Value` tree
/// built.
#[derive(Serialize)]
struct PackedBody<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<WireMessage<'a>>,
    history: Messages<'a>,
    artifacts: Artifacts<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    metadata: Option<&'a Map<String, Value>>,
}

/// History messages serialized one by one as they are borrowed.
struct Messages<'a>(&'a [Message]);

impl Serialize for Messages<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.iter().map(wire_message))
    }
}

/// Artifacts serialized one by one as they are borrowed.
struct Artifacts<'a>(&'a [Artifact]);

impl Serialize for Artifacts<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.iter().map(wire_artifact))
    }
}

/// A packed body as read back: the status message, history and artifacts still JSON text,
/// borrowed from the body, until they are wanted.
#[derive(Deserialize)]
struct Body<'a> {
    #[serde(borrow, default)]
    message: Option<&'a RawValue>,
    #[serde(borrow, default)]
    history: Option<&'a RawValue>,
    #[serde(borrow, default)]
    artifacts: Option<&'a RawValue>,
    #[serde(default)]
    metadata: Option<Map<String, Value>>,
}

/// Decodes an artifact as [`wire_artifact`] wrote it; `None` when it is not one.
pub(crate) fn decode_artifact(value: &Value) -> Option<Artifact> {
    let object = value.as_object()?;
    let text = |key: &str| object.get(key).and_then(Value::as_str).map(str::to_owned);
    let parts = object
        .get("parts")?
        .as_array()?
        .iter()
        .map(|part| decode_part(part, "part").ok())
        .collect::<Option<Vec<_>>>()?;
    Some(Artifact {
        artifact_id: text("artifactId")?,
        name: text("name"),
        description: text("description"),
        parts,
        extensions: object
            .get("extensions")
            .and_then(Value::as_array)
            .map(|list| {
                list.iter()
                    .filter_map(|v| v.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default(),
        metadata: object.get("metadata").and_then(Value::as_object).cloned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::a2a::{Part, TaskState};

    #[test]
    fn a_task_unpacks_as_it_was_packed() {
        let mut reply = Message::agent("r", vec![Part::text("hi")]);
        reply.metadata = Some(Map::from_iter([("k".into(), Value::from(1))]));
        let task = Task {
            id: "t".into(),
            context_id: "c".into(),
            status: TaskStatus {
                state: TaskState::InputRequired,
                message: Some(reply),
                timestamp: Some("2026-01-01T00:00:00.000Z".into()),
            },
            artifacts: vec![Artifact {
                artifact_id: "a".into(),
                name: Some("n".into()),
                description: None,
                parts: vec![Part::data(Map::from_iter([("x".into(), Value::from(2))]))],
                extensions: vec!["urn:x".into()],
                metadata: None,
            }],
            history: vec![Message::agent("h", vec![Part::text("earlier")])],
            metadata: Some(Map::from_iter([("m".into(), Value::from("v"))])),
        };
        let packed = Packed::pack(task.clone());
        assert_eq!(packed.header().status.state, TaskState::InputRequired);
        assert!(packed.header().history.is_empty());
        assert_eq!(packed.unpack().unwrap(), task);
    }

    #[test]
    fn a_read_decodes_only_the_wanted_parts() {
        let mut task = Task {
            id: "t".into(),
            context_id: "c".into(),
            status: TaskStatus {
                state: TaskState::Completed,
                message: None,
                timestamp: None,
            },
            artifacts: vec![],
            history: (0..4)
                .map(|n| Message::agent(format!("m{n}"), vec![Part::text("x")]))
                .collect(),
            metadata: None,
        };
        let packed = Packed::pack(task.clone());
        let newest = Wanted {
            history: Some(2),
            artifacts: false,
        };
        task.history.drain(..2);
        assert_eq!(packed.unpack_wanted(newest).unwrap(), task);
        // What is not wanted is not decoded: an older message and an artifact that would not
        // decode do not fail the read, and do fail a read of the whole task.
        let broken = Packed {
            header: packed.header.clone(),
            body: r#"{"history":[{"bad":1},{"kind":"message","messageId":"m","role":"agent","parts":[{"kind":"text","text":"y"}]}],"artifacts":[{"bad":2}]}"#.into(),
        };
        let read = broken
            .unpack_wanted(Wanted {
                history: Some(1),
                artifacts: false,
            })
            .unwrap();
        assert_eq!(read.history.len(), 1);
        assert!(read.artifacts.is_empty());
        assert!(broken.unpack().is_err());
        assert!(
            broken
                .unpack_wanted(Wanted {
                    history: Some(1),
                    artifacts: true,
                })
                .is_err()
        );
    }
}
