//! The parts of a reply sent so far, kept as JSON until the reply ends.
//!
//! A run keeps every part it sends: the task's final status message holds the whole reply,
//! and a repair turn replays the A2UI messages the client was sent to learn what it holds.
//! As `serde_json` values an A2UI message costs several times its JSON: every component is
//! a `Map` with a heap `String` per key and value, and allocator overhead on each. Held
//! that way for as long as a reply streams, a 300-component page cost each stream about
//! 55 KB (heaptrack, 800 demo streams at once), most of what a stream costs. The parts go
//! out as values (each event shares them with every subscriber, and drops them once
//! framed), and are kept here as one compact JSON string each, decoded once when the reply
//! ends or a repair turn needs them.

use std::sync::Arc;

use serde_json::{Map, Value};

use crate::a2a::{Metadata, Part};

/// The parts of a reply, in the order they were sent; data parts as JSON.
#[derive(Debug, Default)]
pub(crate) struct SentParts {
    parts: Vec<Kept>,
}

/// Some of the parts a [`SentParts`] keeps, shared with it (see [`SentParts::last`]).
#[derive(Debug, Clone, Default)]
pub(crate) struct KeptParts(Vec<Kept>);

/// One part as kept: a data part's object as its JSON (shared by every copy), any other
/// part as it is (its text is already as compact as JSON).
#[derive(Debug, Clone)]
enum Kept {
    Data {
        json: Arc<str>,
        metadata: Option<Arc<Metadata>>,
    },
    Other(Part),
}

impl Kept {
    fn to_part(&self) -> Part {
        match self {
            Kept::Data { json, metadata } => Part::Data {
                data: Arc::new(decode(json)),
                metadata: metadata.clone(),
            },
            Kept::Other(part) => part.clone(),
        }
    }
}

impl KeptParts {
    /// The parts, decoded.
    pub(crate) fn to_parts(&self) -> Vec<Part> {
        self.0.iter().map(Kept::to_part).collect()
    }
}

impl SentParts {
    /// Keeps `parts`, sent just now.
    pub(crate) fn extend(&mut self, parts: &[Part]) {
        self.parts.reserve(parts.len());
        for part in parts {
            // An object with string keys always serializes; were it not to, the part is
            // kept as it is.
            self.parts.push(match part {
                Part::Data { data, metadata } => match serde_json::to_string(&**data) {
                    Ok(json) => Kept::Data {
                        json: json.into(),
                        metadata: metadata.clone(),
                    },
                    Err(_) => Kept::Other(part.clone()),
                },
                other => Kept::Other(other.clone()),
            });
        }
    }

    /// The last `n` parts kept (all of them when fewer), sharing their JSON with this.
    pub(crate) fn last(&self, n: usize) -> KeptParts {
        let from = self.parts.len().saturating_sub(n);
        KeptParts(self.parts[from..].to_vec())
    }

    /// The objects of the data parts whose metadata says `mime_type` (A2UI messages), in
    /// the order they were sent.
    pub(crate) fn data_of<'a>(&'a self, mime_type: &'a str) -> impl Iterator<Item = Value> + 'a {
        self.parts.iter().filter_map(move |kept| match kept {
            Kept::Data { json, metadata } if says(metadata.as_deref(), mime_type) => {
                Some(Value::Object(decode(json)))
            }
            _ => None,
        })
    }

    /// The text of the text parts, joined, in the order they were sent.
    pub(crate) fn text(&self) -> String {
        self.parts
            .iter()
            .filter_map(|kept| match kept {
                Kept::Other(part) => part.as_text(),
                Kept::Data { .. } => None,
            })
            .collect()
    }

    /// The parts, as they were sent.
    pub(crate) fn into_parts(self) -> Vec<Part> {
        self.parts
            .into_iter()
            .map(|kept| match kept {
                Kept::Other(part) => part,
                data => data.to_part(),
            })
            .collect()
    }
}

fn says(metadata: Option<&Metadata>, mime_type: &str) -> bool {
    metadata
        .and_then(|metadata| metadata.get("mimeType"))
        .and_then(Value::as_str)
        == Some(mime_type)
}

/// The object this module wrote as JSON, which always reads back.
fn decode(json: &str) -> Map<String, Value> {
    serde_json::from_str(json).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::pipeline::sink::mime;

    fn data(value: Value, metadata: Option<Arc<Metadata>>) -> Part {
        match value {
            Value::Object(data) => Part::Data {
                data: Arc::new(data),
                metadata,
            },
            _ => unreachable!("the tests pass objects"),
        }
    }

    #[test]
    fn parts_come_back_as_they_were_sent_and_in_order() {
        let a2ui = mime(crate::a2ui::ProtocolVersion::V0_9);
        let sent = vec![
            Part::text("Here are three:"),
            data(
                json!({"version": "v0.9", "updateComponents": {"surfaceId": "s",
                    "components": [{"id": "root", "component": "Text", "text": "é \"q\" \u{1F600}",
                    "weight": 0.1, "n": -12345678901234_i64, "big": 18446744073709551615_u64}]}}),
                Some(a2ui.clone()),
            ),
            data(json!({"other": [null, true, {}]}), None),
            Part::text("Done."),
        ];
        let mut kept = SentParts::default();
        kept.extend(&sent[..2]);
        assert_eq!(kept.last(2).to_parts(), sent[..2]);
        kept.extend(&sent[2..]);
        assert_eq!(kept.last(1).to_parts(), sent[3..]);
        assert_eq!(
            kept.last(9).to_parts(),
            sent,
            "more than were kept: all of them"
        );
        assert_eq!(kept.into_parts(), sent);
    }

    #[test]
    fn the_data_of_a_mime_type_is_its_messages_alone() {
        let a2ui = mime(crate::a2ui::ProtocolVersion::V0_9);
        let other = Arc::new(
            json!({"mimeType": "application/json"})
                .as_object()
                .cloned()
                .unwrap_or_default(),
        );
        let mut kept = SentParts::default();
        kept.extend(&[
            data(json!({"n": 1}), Some(a2ui.clone())),
            Part::text("between"),
            data(json!({"n": 2}), Some(other)),
            data(json!({"n": 3}), None),
            data(json!({"n": 4}), Some(a2ui)),
        ]);
        let found: Vec<Value> = kept.data_of("application/json+a2ui").collect();
        assert_eq!(found, [json!({"n": 1}), json!({"n": 4})]);
        assert_eq!(kept.data_of("application/a2ui+json").count(), 0);
    }
}
