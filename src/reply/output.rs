//! The one step that turns agent output chunks into message parts.
//!
//! Everything the server sends for an agent's text goes through an [`OutputPipeline`]. A
//! request without A2UI gets [`TextOutput`] (each chunk one text part); a request with a
//! negotiated [`RequestProcessor`](crate::processor::RequestProcessor) gets an [`A2uiStream`]
//! (its format's reader, parts as soon as they complete, a known-bad block fails the task) or,
//! for `message/send`, an [`A2uiWhole`] (the reply parsed once at the end, answered as text if
//! it does not parse).

use std::sync::Arc;

use serde_json::Value;

use crate::a2a::Part;
use crate::a2ui::{ProtocolVersion, TreeWatch, ValidationError};
use crate::format::FormatReader;
use crate::parser::{EmitMode, ParseError, ParsedPart};
use crate::processor::RequestProcessor;
use crate::request::Request;
use crate::request::adapter::mime_metadata;

/// Makes one [`OutputSink`] per agent reply.
pub(crate) trait OutputPipeline: Send + Sync + 'static {
    /// A sink for the reply to `request`; `streaming` when the client reads the reply as it
    /// comes (`message/stream`), not only the finished task (`message/send`).
    fn start(&self, request: &Request, streaming: bool) -> Box<dyn OutputSink>;
}

/// Turns the chunks of one reply into parts, in order.
pub(crate) trait OutputSink: Send {
    /// The parts completed by `chunk` (possibly none).
    fn push(&mut self, chunk: &str) -> Result<Vec<Part>, OutputError>;
    /// [`push`](Self::push), also saying how many A2UI parts at the end of the result already
    /// passed the negotiated processor's
    /// [`check_message`](crate::processor::RequestProcessor::check_message) (the parser's
    /// readiness check while they were still arriving), so the repair guard need not check
    /// them again. The default: none.
    fn push_checked(&mut self, chunk: &str) -> Result<(Vec<Part>, usize), OutputError> {
        Ok((self.push(chunk)?, 0))
    }
    /// The parts still held back at the end of the reply.
    fn finish(self: Box<Self>) -> Result<Vec<Part>, OutputError>;
}

/// The agent's output cannot be turned into parts; fails the task with this reason.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct OutputError {
    /// Why the task fails.
    pub(crate) reason: String,
    /// The parts the same read completed before the failure (text before a broken block,
    /// say): they go out before the task fails, as they would have had they come alone.
    pub(crate) before: Vec<Part>,
}

impl OutputError {
    fn new(reason: String) -> Self {
        OutputError {
            reason,
            before: Vec::new(),
        }
    }

    fn after(mut self, before: Vec<Part>) -> Self {
        self.before = before;
        self
    }
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
                version: processor.version(),
                watch: TreeWatch::new(processor.validator().clone()),
            }),
            Some(processor) => Box::new(A2uiWhole {
                processor: processor.clone(),
                text: String::new(),
            }),
        }
    }
}

/// A streamed reply read by the negotiated format as it arrives, its component trees
/// watched as they are sent: a cycle fails the task as soon as it closes, a component the
/// root can never reach when the block that created its surface closes (or, for one a
/// later block added, when the reply ends); see [`TreeWatch`].
pub(crate) struct A2uiStream {
    reader: Box<dyn FormatReader>,
    version: ProtocolVersion,
    watch: TreeWatch,
}

impl OutputSink for A2uiStream {
    fn push(&mut self, chunk: &str) -> Result<Vec<Part>, OutputError> {
        Ok(self.push_checked(chunk)?.0)
    }

    fn push_checked(&mut self, chunk: &str) -> Result<(Vec<Part>, usize), OutputError> {
        // The reader's readiness check is the processor's `check_message` (see
        // `RequestProcessor::parser_config`): what it passed is reported as checked.
        let (parsed, checked) = self.reader.feed_checked(chunk);
        if let Some(error) = self.reader.error() {
            let error = unreadable(error);
            // What the read completed before the broken block is sound; trees are still
            // watched so a cycle among those parts is not sent either.
            return Err(match watched(&mut self.watch, parsed, &[], self.version) {
                Ok(before) => error.after(before),
                Err(earlier) => earlier,
            });
        }
        let checked = match parsed.last() {
            Some(ParsedPart::A2ui(messages)) => messages
                .iter()
                .rev()
                .take(checked)
                .filter(|m| m.is_object())
                .count(),
            _ => 0,
        };
        let parts = watched(
            &mut self.watch,
            parsed,
            self.reader.block_ends(),
            self.version,
        )?;
        Ok((parts, checked))
    }

    fn finish(self: Box<Self>) -> Result<Vec<Part>, OutputError> {
        let A2uiStream {
            reader,
            version,
            mut watch,
        } = *self;
        let parsed = reader.finish().map_err(|error| unreadable(&error))?;
        let parts = watched(&mut watch, parsed, &[], version)?;
        match watch.finish().into_iter().next() {
            Some(error) => Err(undrawable(&error)),
            None => Ok(parts),
        }
    }
}

/// The parts of `parsed`, once `watch` has seen their messages and, where a block closed
/// (after `block_ends[i]` parts), checked the trees that block completed.
fn watched(
    watch: &mut TreeWatch,
    parsed: Vec<ParsedPart>,
    block_ends: &[usize],
    version: ProtocolVersion,
) -> Result<Vec<Part>, OutputError> {
    let mut ends = block_ends.iter().peekable();
    let mut failure = None;
    'parts: for (index, part) in parsed.iter().enumerate() {
        while ends.next_if(|&&end| end <= index).is_some() {
            if let Err(error) = block_closed(watch) {
                failure = Some((index, error));
                break 'parts;
            }
        }
        if let ParsedPart::A2ui(messages) = part {
            for message in messages {
                if let Err(error) = watch.observe(message) {
                    failure = Some((index, undrawable(&error)));
                    break 'parts;
                }
            }
        }
    }
    if failure.is_none()
        && let Some(error) = ends.find_map(|_| block_closed(watch).err())
    {
        failure = Some((parsed.len(), error));
    }
    match failure {
        None => Ok(to_parts(parsed, version)),
        // The parts before the one at fault go out; it and what follows do not.
        Some((index, error)) => {
            let mut parsed = parsed;
            parsed.truncate(index);
            Err(error.after(to_parts(parsed, version)))
        }
    }
}

fn block_closed(watch: &mut TreeWatch) -> Result<(), OutputError> {
    match watch.block_closed().into_iter().next() {
        Some(error) => Err(undrawable(&error)),
        None => Ok(()),
    }
}

fn undrawable(error: &ValidationError) -> OutputError {
    OutputError::new(format!(
        "The agent wrote an A2UI component tree that cannot be drawn: {error}"
    ))
}

/// A reply read whole at the end (`message/send`); unreadable output is answered as text.
pub(crate) struct A2uiWhole {
    processor: RequestProcessor,
    text: String,
}

impl OutputSink for A2uiWhole {
    fn push(&mut self, chunk: &str) -> Result<Vec<Part>, OutputError> {
        self.text.push_str(chunk);
        Ok(Vec::new())
    }

    fn finish(self: Box<Self>) -> Result<Vec<Part>, OutputError> {
        match self.processor.parse(&self.text) {
            Ok(parsed) => Ok(to_parts(parsed, self.processor.version())),
            Err(error) => {
                tracing::debug!(%error, "the agent's reply does not parse: answered as text");
                let text = self.text.trim();
                Ok(if text.is_empty() {
                    Vec::new()
                } else {
                    vec![Part::text(text)]
                })
            }
        }
    }
}

fn unreadable(error: &ParseError) -> OutputError {
    OutputError::new(format!("The agent wrote A2UI that cannot be read: {error}"))
}

/// Text parts as they are; one DataPart per A2UI message, `data` the message object and
/// `metadata.mimeType` the version's.
pub(crate) fn to_parts(parsed: Vec<ParsedPart>, version: ProtocolVersion) -> Vec<Part> {
    let mut parts = Vec::with_capacity(parsed.len());
    // One metadata object, shared by every A2UI part of this batch.
    let mut mime = None;
    for part in parsed {
        match part {
            ParsedPart::Text(text) if text.is_empty() => {}
            ParsedPart::Text(text) => parts.push(Part::text(text)),
            ParsedPart::A2ui(messages) => {
                for message in messages {
                    match message {
                        Value::Object(data) => parts.push(Part::Data {
                            data: Arc::new(data),
                            metadata: Some(
                                mime.get_or_insert_with(|| {
                                    Arc::new(mime_metadata(version.mime_type()))
                                })
                                .clone(),
                            ),
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
    use crate::a2ui::Validator;
    use crate::format::{DirectJson, OutputFormat};
    use crate::parser::ParserConfig;

    fn stream() -> A2uiStream {
        A2uiStream {
            reader: DirectJson.reader(ParserConfig::default()),
            version: ProtocolVersion::V0_9,
            watch: TreeWatch::new(Validator::basic(ProtocolVersion::V0_9)),
        }
    }

    const CREATE: &str = r#"{"version": "v0.9", "createSurface": {"surfaceId": "s", "catalogId": "https://a2ui.org/specification/v0_9/basic_catalog.json"}}"#;

    fn texts(parts: &[Part]) -> String {
        parts
            .iter()
            .filter_map(|p| match p {
                Part::Text { text, .. } => Some(text.as_str()),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn an_orphan_fails_the_stream_when_its_block_closes_before_the_text_after_it() {
        let mut sink = stream();
        let open = format!(
            r#"Here.<a2ui-json>[{CREATE}, {{"version": "v0.9", "updateComponents": {{"surfaceId": "s", "components": [{{"id": "root", "component": "Text", "text": "hi"}}, {{"id": "stray", "component": "Text", "text": "lost"}}]}}}}]"#
        );
        let parts = sink.push(&open).unwrap();
        assert_eq!(texts(&parts), "Here.");
        let later = r#"</a2ui-json>Later text.<a2ui-json>[{"version": "v0.9", "updateComponents": {"surfaceId": "s", "components": [{"id": "root", "component": "Column", "children": ["stray"]}]}}]</a2ui-json>"#;
        let error = sink.push(later).unwrap_err();
        assert!(
            error.reason.contains("component 'stray' is not reachable"),
            "{}",
            error.reason
        );
        // Nothing that read completed comes after the closing block: "Later text." stays out.
        assert_eq!(texts(&error.before), "");
    }

    #[test]
    fn the_parts_before_a_failure_in_one_read_still_go_out() {
        let mut sink = stream();
        let reply = format!(
            r#"Here.<a2ui-json>[{CREATE}, {{"version": "v0.9", "updateComponents": {{"surfaceId": "s", "components": [{{"id": "root", "component": "Text", "text": "hi"}}, {{"id": "stray", "component": "Text", "text": "lost"}}]}}}}]</a2ui-json>Later text."#
        );
        let error = sink.push(&reply).unwrap_err();
        assert!(error.reason.contains("not reachable"), "{}", error.reason);
        assert_eq!(texts(&error.before), "Here.");
    }

    #[test]
    fn a_child_a_later_block_sends_passes() {
        let mut sink = stream();
        let reply = [
            format!(
                r#"<a2ui-json>[{CREATE}, {{"version": "v0.9", "updateComponents": {{"surfaceId": "s", "components": [{{"id": "root", "component": "Card", "child": "body"}}]}}}}]</a2ui-json>"#
            ),
            "Meanwhile.".to_owned(),
            r#"<a2ui-json>[{"version": "v0.9", "updateComponents": {"surfaceId": "s", "components": [{"id": "body", "component": "Text", "text": "hi"}]}}]</a2ui-json>"#.to_owned(),
        ];
        let mut parts = Vec::new();
        for chunk in &reply {
            parts.extend(sink.push(chunk).unwrap());
        }
        parts.extend(Box::new(sink).finish().unwrap());
        assert_eq!(texts(&parts), "Meanwhile.");
        assert_eq!(parts.len(), 4);
    }

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
        let parts = to_parts(parsed, ProtocolVersion::V1_0);
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
