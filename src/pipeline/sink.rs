//! The one step that turns agent output chunks into message parts.
//!
//! Everything the server sends for an agent's text goes through an [`OutputPipeline`]. A
//! request without A2UI gets [`TextOutput`] (each chunk one text part); a request with a
//! negotiated [`RequestProcessor`](crate::processor::RequestProcessor) gets an [`A2uiStream`]
//! (its format's reader, parts as soon as they complete, an unreadable block fails the task)
//! or, for `message/send`, an [`A2uiWhole`] (the reply parsed once at the end, answered as
//! text if it does not parse). A sink only reads: whether what it read may be sent is the
//! repair [`Guard`](super::Guard)'s to say, under the server's
//! [`OnInvalid`](super::OnInvalid) policy.

use std::sync::Arc;

use serde_json::{Map, Value};

use crate::a2a::Part;
use crate::a2ui::ProtocolVersion;
use crate::format::FormatReader;
use crate::parser::{EmitMode, ParseError, ParseErrorKind, ParsedPart};
use crate::processor::RequestProcessor;
use crate::request::Request;
use crate::request::adapter::mime_metadata;

/// Makes one [`OutputSink`] per agent reply.
pub(crate) trait OutputPipeline: Send + Sync + 'static {
    /// A sink for the reply to `request`; `streaming` when the client reads the reply as it
    /// comes (`message/stream`), not only the finished task (`message/send`).
    fn start(&self, request: &Request, streaming: bool) -> Box<dyn OutputSink>;
}

/// Reads the chunks of one reply into parts, in order.
pub(crate) trait OutputSink: Send {
    /// The parts completed by `chunk` (possibly none).
    fn push(&mut self, chunk: &str) -> Result<Batch, OutputError>;
    /// The parts still held back at the end of the reply.
    fn finish(self: Box<Self>) -> Result<Batch, OutputError>;
}

/// What one read of a reply completed, before the [`Guard`](super::Guard) screens it.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Batch {
    /// The parts, in order.
    pub(crate) parsed: Vec<ParsedPart>,
    /// How many A2UI messages at the end of `parsed` already passed the processor's
    /// [`check_message`](crate::processor::RequestProcessor::check_message) (the parser's
    /// readiness check while they were still arriving), so they need not be checked again.
    pub(crate) checked: usize,
    /// Where blocks closed: for each, how many of `parsed` came before it.
    pub(crate) block_ends: Vec<usize>,
}

impl Batch {
    /// `parsed`, none of it checked, no block closing in it.
    pub(crate) fn new(parsed: Vec<ParsedPart>) -> Self {
        Batch {
            parsed,
            ..Batch::default()
        }
    }

    /// Whether the feed completed nothing: no part, and no block closed.
    pub(crate) fn is_empty(&self) -> bool {
        self.parsed.is_empty() && self.block_ends.is_empty()
    }

    /// This batch followed by `next`.
    pub(crate) fn then(mut self, next: Batch) -> Batch {
        let before = self.parsed.len();
        self.block_ends
            .extend(next.block_ends.iter().map(|end| end + before));
        if !next.parsed.is_empty() {
            self.checked = next.checked;
        }
        self.parsed.extend(next.parsed);
        self
    }
}

/// The agent's output cannot be read; fails the task with this reason.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct OutputError {
    /// Why the task fails.
    pub(crate) reason: String,
    /// What the same read completed before the failure (text before a broken block, say):
    /// it goes out before the task fails, as it would have had it come alone.
    pub(crate) before: Batch,
    /// What kind of read failed, when a block could not be read: a reply cut off inside a
    /// message (as by a model's token limit) or a block that is not readable can be
    /// repaired, where the policy repairs; a limit exceeded cannot.
    pub(crate) kind: Option<ParseErrorKind>,
}

/// Each non-empty chunk becomes one text part.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct TextOutput;

impl OutputPipeline for TextOutput {
    fn start(&self, _request: &Request, _streaming: bool) -> Box<dyn OutputSink> {
        Box::new(TextOutput)
    }
}

/// The server's pipeline: A2UI when the request negotiated it, text otherwise.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct ReplyOutput {
    /// Overrides the generators' emission mode for streamed replies.
    pub(crate) emission_mode: Option<EmitMode>,
}

impl OutputPipeline for ReplyOutput {
    fn start(&self, request: &Request, streaming: bool) -> Box<dyn OutputSink> {
        match request.a2ui() {
            None => Box::new(TextOutput),
            Some(processor) if streaming => Box::new(A2uiStream {
                reader: match self.emission_mode {
                    Some(mode) => processor
                        .format()
                        .reader(processor.parser_config().mode(mode)),
                    None => processor.parser(),
                },
            }),
            Some(processor) => Box::new(A2uiWhole {
                processor: processor.clone(),
                text: String::new(),
            }),
        }
    }
}

/// A streamed reply read by the negotiated format as it arrives, with where its blocks
/// close (the [`Guard`](super::Guard) checks a surface's tree there).
pub(crate) struct A2uiStream {
    reader: Box<dyn FormatReader>,
}

impl OutputSink for A2uiStream {
    fn push(&mut self, chunk: &str) -> Result<Batch, OutputError> {
        // The reader's readiness check is the processor's `check_message` (see
        // `RequestProcessor::parser_config`): what it passed is reported as checked.
        let (parsed, checked) = self.reader.feed_checked(chunk);
        if let Some(error) = self.reader.error() {
            // What the read completed before the broken block is sound.
            return Err(unreadable(error, Batch::new(parsed)));
        }
        let checked = match parsed.last() {
            Some(ParsedPart::A2ui(messages)) => checked.min(messages.len()),
            _ => 0,
        };
        Ok(Batch {
            parsed,
            checked,
            block_ends: self.reader.block_ends().to_vec(),
        })
    }

    fn finish(self: Box<Self>) -> Result<Batch, OutputError> {
        match self.reader.finish() {
            Ok(parsed) => Ok(Batch::new(parsed)),
            Err(error) => Err(unreadable(&error, Batch::default())),
        }
    }
}

/// A reply read whole at the end (`message/send`); unreadable output is answered as text.
pub(crate) struct A2uiWhole {
    processor: RequestProcessor,
    text: String,
}

impl OutputSink for A2uiWhole {
    fn push(&mut self, chunk: &str) -> Result<Batch, OutputError> {
        self.text.push_str(chunk);
        Ok(Batch::default())
    }

    fn finish(self: Box<Self>) -> Result<Batch, OutputError> {
        match self.processor.parse(&self.text) {
            Ok(parsed) => Ok(Batch::new(parsed)),
            Err(error) => {
                tracing::debug!(%error, "the agent's reply does not parse: answered as text");
                let text = self.text.trim();
                Ok(Batch::new(if text.is_empty() {
                    Vec::new()
                } else {
                    vec![ParsedPart::Text(text.to_owned())]
                }))
            }
        }
    }
}

fn unreadable(error: &ParseError, before: Batch) -> OutputError {
    OutputError {
        reason: format!("The agent wrote A2UI that cannot be read: {error}"),
        before,
        kind: Some(error.kind()),
    }
}

/// Text parts as they are; one DataPart per A2UI message, `data` the message object and
/// `metadata` the one `{"mimeType": ..}` object a reply shares (see [`mime`]).
pub(crate) fn to_parts(parsed: Vec<ParsedPart>, metadata: &Arc<Map<String, Value>>) -> Vec<Part> {
    let mut parts = Vec::with_capacity(parsed.len());
    for part in parsed {
        match part {
            ParsedPart::Text(text) if text.is_empty() => {}
            ParsedPart::Text(text) => parts.push(Part::text(text)),
            ParsedPart::A2ui(messages) => {
                for message in messages {
                    match message {
                        Value::Object(data) => parts.push(Part::Data {
                            data: Arc::new(data),
                            metadata: Some(metadata.clone()),
                        }),
                        other => {
                            tracing::warn!(kind = %kind(&other), "an A2UI message that is not an object was dropped");
                        }
                    }
                }
            }
        }
    }
    parts
}

/// The metadata every A2UI part of a `version` reply carries: made once per reply and
/// shared by its parts, not once per part (a map costs more than the mime type it holds).
pub(crate) fn mime(version: ProtocolVersion) -> Arc<Map<String, Value>> {
    Arc::new(mime_metadata(version.mime_type()))
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Array(_) => "array",
        Value::String(_) => "string",
        Value::Number(_) => "number",
        Value::Bool(_) => "bool",
        Value::Null => "null",
        Value::Object(_) => "object",
    }
}

impl OutputSink for TextOutput {
    fn push(&mut self, chunk: &str) -> Result<Batch, OutputError> {
        Ok(Batch::new(if chunk.is_empty() {
            Vec::new()
        } else {
            vec![ParsedPart::Text(chunk.to_owned())]
        }))
    }

    fn finish(self: Box<Self>) -> Result<Batch, OutputError> {
        Ok(Batch::default())
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
            metadata: Some(Arc::new(metadata)),
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

    #[test]
    fn each_a2ui_message_becomes_one_data_part_with_the_versions_mime_type() {
        let parsed = vec![
            ParsedPart::Text("Hi".into()),
            ParsedPart::A2ui(vec![
                serde_json::json!({"deleteSurface": {"surfaceId": "a"}}),
                serde_json::json!(["not", "an", "object"]),
                serde_json::json!({"deleteSurface": {"surfaceId": "b"}}),
            ]),
            ParsedPart::Text(String::new()),
        ];
        let parts = to_parts(parsed, &mime(ProtocolVersion::V1_0));
        assert_eq!(parts.len(), 3);
        assert_eq!(parts[0], Part::text("Hi"));
        for (part, surface) in parts[1..].iter().zip(["a", "b"]) {
            let Part::Data { data, metadata } = part else {
                panic!("{part:?}")
            };
            assert_eq!(data["deleteSurface"]["surfaceId"], surface);
            assert_eq!(
                metadata.as_ref().unwrap()["mimeType"],
                ProtocolVersion::V1_0.mime_type()
            );
        }
    }
}
