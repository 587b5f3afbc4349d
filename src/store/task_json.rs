//! A task kept as compact JSON, decoded when read.
//!
//! As Rust values, an A2UI task is several times its JSON size: every A2UI component is a
//! serde_json `Map` with one heap `String` per key and value, and allocator overhead on each.
//! [`TaskJson`] keeps a task's bulky members (status message, history, artifacts, metadata) as
//! one JSON string in the store's format (`codec`), and as values only the few fields a listing sorts and filters by (the
//! *header*: id, context, state, status timestamp). The in-memory store holds its tasks this
//! way, so its memory follows the JSON size of what it keeps: `benches/task_memory.rs`
//! measured about 4.3 KB of RSS per settled demo task of 3.3 KB of JSON, against 59 KB for
//! the same task as Rust values.

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::StoreError;
use super::codec::{self, Artifacts, Kept, MessageOut, Messages};
use super::projection::Projection;
use crate::a2a::{Task, TaskStatus};

/// A task: its header as values, the rest as JSON.
#[derive(Debug, Clone)]
pub(crate) struct TaskJson {
    header: Task,
    body: Box<str>,
}

impl TaskJson {
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
        let body = codec::to_json(&TaskJsonBody {
            message: status.message.as_ref().map(codec::message),
            history: Messages(&history),
            artifacts: Artifacts(&artifacts),
            metadata: metadata.as_ref(),
        });
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
        self.unpack_wanted(Projection::ALL)
    }

    /// The task back with only the `wanted` parts decoded: the history messages and
    /// artifacts left out are skipped as text, never built as values.
    ///
    /// # Errors
    ///
    /// [`StoreError::Corrupt`] if the body does not decode (a bug: the store wrote it).
    pub(crate) fn unpack_wanted(&self, wanted: Projection) -> Result<Task, StoreError> {
        let corrupt =
            |what: &dyn std::fmt::Display| StoreError::corrupt("memory", &self.header.id, what);
        let body: Body<'_> = serde_json::from_str(&self.body).map_err(|e| corrupt(&e))?;
        let kept = Kept {
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

/// A packed body as written: messages and artifacts in the store's format, borrowed, no
/// `Value` tree built.
#[derive(Serialize)]
struct TaskJsonBody<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<MessageOut<'a>>,
    history: Messages<'a>,
    artifacts: Artifacts<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    metadata: Option<&'a Map<String, Value>>,
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

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::a2a::{Artifact, Message, Part, TaskState};

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
        let packed = TaskJson::pack(task.clone());
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
        let packed = TaskJson::pack(task.clone());
        let newest = Projection {
            history: Some(2),
            artifacts: false,
        };
        task.history.drain(..2);
        assert_eq!(packed.unpack_wanted(newest).unwrap(), task);
        // What is not wanted is not decoded: an older message and an artifact that would not
        // decode do not fail the read, and do fail a read of the whole task.
        let broken = TaskJson {
            header: packed.header.clone(),
            body: r#"{"history":[{"bad":1},{"id":"m","role":"agent","parts":[{"text":"y"}]}],"artifacts":[{"bad":2}]}"#.into(),
        };
        let read = broken
            .unpack_wanted(Projection {
                history: Some(1),
                artifacts: false,
            })
            .unwrap();
        assert_eq!(read.history.len(), 1);
        assert!(read.artifacts.is_empty());
        assert!(broken.unpack().is_err());
        assert!(
            broken
                .unpack_wanted(Projection {
                    history: Some(1),
                    artifacts: true,
                })
                .is_err()
        );
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn every_task_unpacks_as_it_was_packed(task in crate::store::arbitrary::task()) {
            prop_assert_eq!(TaskJson::pack(task.clone()).unpack().unwrap(), task);
        }
    }
}
