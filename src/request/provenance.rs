//! What the agent was given this conversation: the place a URL must come from before a UI
//! may show it.
//!
//! A model that read a poisoned tool result can write an image URL with the user's data in
//! its query; the renderer fetches it and the data is gone. The URL policy on replies
//! (`pipeline`) lets a URL out only when it appeared, as written, in something the agent was
//! given: the user's messages, the task's earlier tool results, and what the agent adds here
//! while it answers ([`Provenance::add`]: its tool results, its instructions). A URL the
//! model made up, or assembled with data in it, appeared nowhere and is stopped.
//!
//! What the agent wrote itself (its earlier text, a repair turn's answer) is not given: a
//! URL written in plain text one turn must not pass as given the next.

use std::sync::{Arc, Mutex, OnceLock};

use serde_json::{Map, Value};

use crate::a2a::{Message, Part, Role};

/// The most bytes a reply's [`Provenance`] keeps; text added past it is not recorded (its
/// URLs are then refused, not passed).
const MAX_GIVEN_BYTES: usize = 16 << 20;

/// Text the agent was given while it answers, beyond the request's messages: tool results,
/// its own instructions. Shared by every clone of a [`Request`](super::Request) (a repair
/// turn's included), so what the agent adds is seen by the server's URL policy.
///
/// The crate's model connector adds its instructions and each tool result itself; an agent
/// that calls tools of its own adds their results.
///
/// # Example
///
/// ```
/// use a2ui_agent::a2a::{Message, Part};
/// use a2ui_agent::request::Request;
///
/// let request = Request::new(Message::user("m", vec![Part::text("hi")]), "t", "c");
/// request.provenance().add(r#"{"photo": "https://images.example/cat.png"}"#);
/// assert!(request.provenance().contains("https://images.example/cat.png"));
/// assert!(!request.provenance().contains("https://images.example/cat.png?d=secret"));
/// ```
#[derive(Debug, Clone, Default)]
pub struct Provenance {
    given: Arc<Mutex<Given>>,
}

#[derive(Debug, Default)]
struct Given {
    texts: Vec<String>,
    bytes: usize,
}

impl Provenance {
    /// Records `text` as given to the agent (a tool's result, its instructions): a URL in
    /// it may go out in the reply's UI.
    pub fn add(&self, text: impl Into<String>) {
        let text = text.into();
        if text.is_empty() {
            return;
        }
        let Ok(mut given) = self.given.lock() else {
            return;
        };
        if given.bytes + text.len() > MAX_GIVEN_BYTES {
            tracing::debug!(
                bytes = text.len(),
                "provenance full: text not recorded, its URLs will be refused"
            );
            return;
        }
        given.bytes += text.len();
        given.texts.push(text);
    }

    /// Whether `needle` appears in a text added so far.
    pub fn contains(&self, needle: &str) -> bool {
        self.given
            .lock()
            .is_ok_and(|given| given.texts.iter().any(|text| text.contains(needle)))
    }
}

/// Everything a reply's URLs may come from: the request's messages and what the agent adds
/// to its [`Provenance`]. The messages are read into one text only when a URL is first
/// checked: a reply without URLs pays nothing.
#[derive(Debug)]
pub(crate) struct GivenText {
    message: Arc<Message>,
    history: Arc<[Message]>,
    provenance: Provenance,
    read: OnceLock<String>,
}

impl GivenText {
    pub(crate) fn new(
        message: Arc<Message>,
        history: Arc<[Message]>,
        provenance: Provenance,
    ) -> Self {
        Self {
            message,
            history,
            provenance,
            read: OnceLock::new(),
        }
    }

    /// Whether `url` appears, as written, in what the agent was given.
    pub(crate) fn contains(&self, url: &str) -> bool {
        let read = self.read.get_or_init(|| {
            let mut out = String::new();
            for message in self.history.iter().chain([&*self.message]) {
                read_message(message, &mut out);
            }
            out
        });
        read.contains(url) || self.provenance.contains(url)
    }
}

/// A user's message whole; of the agent's, only the parts' metadata, where the tool calls
/// of earlier turns and their results are kept.
fn read_message(message: &Message, out: &mut String) {
    let user = message.role == Role::User;
    for part in &message.parts {
        let metadata = match part {
            Part::Text { text, metadata } => {
                if user {
                    out.push_str(text);
                }
                metadata
            }
            Part::Data { data, metadata } => {
                if user {
                    push_map(data, out);
                }
                metadata
            }
            Part::File { file, metadata } => {
                if let (true, Some(uri)) = (user, file.uri()) {
                    out.push_str(uri);
                }
                metadata
            }
        };
        if let Some(metadata) = metadata {
            push_map(metadata, out);
        }
        out.push('\n');
    }
    if let (true, Some(metadata)) = (user, &message.metadata) {
        push_map(metadata, out);
    }
}

fn push_map(map: &Map<String, Value>, out: &mut String) {
    map.values().for_each(|item| push_json(item, out));
}

/// The strings of `value`, unescaped, one a line (a URL in a tool's JSON result reads as
/// written, not with JSON's escapes).
fn push_json(value: &Value, out: &mut String) {
    match value {
        Value::String(text) => {
            out.push_str(text);
            out.push('\n');
        }
        Value::Array(items) => items.iter().for_each(|item| push_json(item, out)),
        Value::Object(map) => push_map(map, out),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_what_the_user_and_the_tools_gave_counts() {
        let user = Message::user("u", vec![Part::text("see https://a.example/x.png")]);
        let mut record = serde_json::Map::new();
        record.insert(
            "result".into(),
            r#"{"img": "https://t.example/y.png"}"#.into(),
        );
        let agent = Message::agent(
            "a",
            vec![
                Part::text("I made up https://evil.example/z.png"),
                Part::Text {
                    text: "Called search".into(),
                    metadata: Some(Arc::new(record)),
                },
            ],
        );
        let now = Message::user("n", vec![Part::text("more")]);
        let given = GivenText::new(
            Arc::new(now),
            vec![user, agent].into(),
            Provenance::default(),
        );
        assert!(given.contains("https://a.example/x.png"));
        assert!(
            given.contains("https://t.example/y.png"),
            "a tool result in metadata"
        );
        assert!(
            !given.contains("https://evil.example/z.png"),
            "the agent's own text"
        );
    }
}
