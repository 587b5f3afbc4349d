//! Generated model values for the stores' property tests: tasks, messages, artifacts and
//! parts of every kind, with every optional member set or not, and text that JSON must
//! escape.

use std::sync::Arc;

use proptest::prelude::*;
use serde_json::{Map, Value};

use crate::a2a::{
    Artifact, FileBody, FileContent, Message, Metadata, Part, Role, Task, TaskState, TaskStatus,
};

/// JSON values that survive a trip through text exactly (floats are binary fractions).
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        (-1_000_000i32..1_000_000).prop_map(|n| Value::from(f64::from(n) / 8.0)),
        ".{0,8}".prop_map(Value::from),
    ];
    leaf.prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
            proptest::collection::btree_map(".{0,4}", inner, 0..4)
                .prop_map(|map| Value::Object(map.into_iter().collect())),
        ]
    })
}

fn object() -> impl Strategy<Value = Map<String, Value>> {
    proptest::collection::btree_map(".{0,6}", json_value(), 0..3)
        .prop_map(|map| map.into_iter().collect())
}

fn text() -> impl Strategy<Value = String> {
    // Quotes, escapes, non-ASCII and control characters among the rest.
    "(.|\"|\\\\|\u{0}|\u{1F600}){0,12}"
}

fn metadata() -> impl Strategy<Value = Option<Arc<Metadata>>> {
    proptest::option::of(object().prop_map(Arc::new))
}

/// Parts of every kind.
pub(crate) fn part() -> impl Strategy<Value = Part> {
    prop_oneof![
        (text(), metadata()).prop_map(|(text, metadata)| Part::Text { text, metadata }),
        (object(), metadata()).prop_map(|(data, metadata)| Part::Data {
            data: Arc::new(data),
            metadata
        }),
        (
            any::<bool>(),
            text(),
            proptest::option::of(text()),
            proptest::option::of(text()),
            metadata()
        )
            .prop_map(|(inline, body, mime_type, name, metadata)| Part::File {
                file: FileContent {
                    body: if inline {
                        FileBody::Bytes(body)
                    } else {
                        FileBody::Uri(body)
                    },
                    mime_type,
                    name,
                },
                metadata,
            }),
    ]
}

fn strings() -> impl Strategy<Value = Vec<String>> {
    proptest::collection::vec(text(), 0..3)
}

/// Messages with every member set or not.
pub(crate) fn message() -> impl Strategy<Value = Message> {
    (
        text(),
        any::<bool>(),
        proptest::collection::vec(part(), 0..4),
        proptest::option::of(text()),
        proptest::option::of(text()),
        strings(),
        strings(),
        proptest::option::of(object()),
    )
        .prop_map(
            |(id, user, parts, context_id, task_id, refs, extensions, metadata)| Message {
                message_id: id,
                role: if user { Role::User } else { Role::Agent },
                parts,
                context_id,
                task_id,
                reference_task_ids: refs,
                extensions,
                metadata,
            },
        )
}

/// Artifacts with every member set or not.
pub(crate) fn artifact() -> impl Strategy<Value = Artifact> {
    (
        text(),
        proptest::option::of(text()),
        proptest::option::of(text()),
        proptest::collection::vec(part(), 0..4),
        strings(),
        proptest::option::of(object()),
    )
        .prop_map(
            |(id, name, description, parts, extensions, metadata)| Artifact {
                artifact_id: id,
                name,
                description,
                parts,
                extensions,
                metadata,
            },
        )
}

/// Tasks in every state, with every member set or not.
pub(crate) fn task() -> impl Strategy<Value = Task> {
    (
        text(),
        text(),
        proptest::sample::select(TaskState::ALL.to_vec()),
        proptest::option::of(message()),
        // A status timestamp is RFC 3339 (the SQL rows keep an unset one as "").
        proptest::option::of(
            "20[0-9]{2}-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9]\\.[0-9]{3}Z",
        ),
        proptest::collection::vec(artifact(), 0..3),
        proptest::collection::vec(message(), 0..3),
        proptest::option::of(object()),
    )
        .prop_map(
            |(id, context_id, state, message, timestamp, artifacts, history, metadata)| Task {
                id,
                context_id,
                status: TaskStatus {
                    state,
                    message,
                    timestamp,
                },
                artifacts,
                history,
                metadata,
            },
        )
}
