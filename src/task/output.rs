//! The one step that turns agent output chunks into message parts.
//!
//! Everything the server sends for an agent's text goes through an [`OutputPipeline`]: today
//! each chunk becomes one text part ([`TextOutput`]); the A2UI parser plugs in here as another
//! pipeline, without the task runner or the server changing shape.

use crate::a2a::Part;
use crate::request::Request;

/// Makes one [`OutputSink`] per agent reply.
pub(crate) trait OutputPipeline: Send + Sync + 'static {
    /// A sink for the reply to `request`.
    fn start(&self, request: &Request) -> Box<dyn OutputSink>;
}

/// Turns the chunks of one reply into parts, in order.
pub(crate) trait OutputSink: Send {
    /// The parts completed by `chunk` (possibly none).
    fn push(&mut self, chunk: &str) -> Result<Vec<Part>, OutputError>;
    /// The parts still held back at the end of the reply.
    fn finish(self: Box<Self>) -> Result<Vec<Part>, OutputError>;
}

/// The agent's output cannot be turned into parts; fails the task with this reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct OutputError(pub(crate) String);

/// Each non-empty chunk becomes one text part.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct TextOutput;

impl OutputPipeline for TextOutput {
    fn start(&self, _request: &Request) -> Box<dyn OutputSink> {
        Box::new(TextOutput)
    }
}

impl OutputSink for TextOutput {
    fn push(&mut self, chunk: &str) -> Result<Vec<Part>, OutputError> {
        if chunk.is_empty() {
            Ok(Vec::new())
        } else {
            Ok(vec![Part::text(chunk)])
        }
    }

    fn finish(self: Box<Self>) -> Result<Vec<Part>, OutputError> {
        Ok(Vec::new())
    }
}

/// The parts of a whole reply as the final message carries them: adjacent text parts
/// without metadata joined into one, so a client reading only the final message (or
/// `message/send`'s result) gets the text whole rather than one part per streamed chunk.
pub(crate) fn coalesce_text(parts: Vec<Part>) -> Vec<Part> {
    let mut out: Vec<Part> = Vec::with_capacity(parts.len());
    for part in parts {
        if let (
            Some(Part::Text {
                text: previous,
                metadata: None,
            }),
            Part::Text {
                text,
                metadata: None,
            },
        ) = (out.last_mut(), &part)
        {
            previous.push_str(text);
            continue;
        }
        out.push(part);
    }
    out
}

#[cfg(test)]
mod tests {
    use serde_json::Map;

    use super::*;

    #[test]
    fn adjacent_plain_text_parts_are_joined_and_others_kept_in_order() {
        let mut metadata = Map::new();
        metadata.insert("k".into(), 1.into());
        let tagged = Part::Text {
            text: "c".into(),
            metadata: Some(metadata),
        };
        let data = Part::data(Map::new());
        let parts = vec![
            Part::text("a"),
            Part::text("b"),
            data.clone(),
            Part::text("d"),
            tagged.clone(),
            Part::text("e"),
            Part::text("f"),
        ];
        assert_eq!(
            coalesce_text(parts),
            vec![
                Part::text("ab"),
                data,
                Part::text("d"),
                tagged,
                Part::text("ef")
            ]
        );
    }
}
