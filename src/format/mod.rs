//! How a model writes A2UI in its text: the output format.
//!
//! A model answers with prose and A2UI messages mixed. How the messages are marked in the text
//! is a choice: this crate's built-in is Direct JSON ([`DirectJson`]: JSON arrays of messages
//! inside `<a2ui-json>` tags, read as they stream). Other formats (a compact notation compiled
//! to messages, or JSON the model can only produce whole) plug in through [`OutputFormat`]:
//! the format says what to tell the model ([`OutputFormat::instructions`]) and reads its
//! answer back ([`OutputFormat::reader`]). A format that cannot read a response until it is
//! finished says so with [`OutputFormat::streams`] returning `false`; its reader returns
//! nothing from [`FormatReader::feed`] and everything from [`FormatReader::finish`], and the
//! server then sends all parts at the end.
//!
//! A format that needs the negotiated catalogs (a notation whose arguments follow a
//! catalog's property order, like [`express::Express`]) receives them through
//! [`OutputFormat::bind`] once per catalog set; Direct JSON needs none, and which components
//! exist is then the prompt's business ([`crate::generator::processor::RequestProcessor::prompt`]).

pub mod express;
mod tool_call;

pub use tool_call::{A2UI_TOOL, ToolCallFormat};

use std::sync::Arc;

use serde_json::Value;

use crate::a2ui::{Catalog, ProtocolVersion};
use crate::parser::{ParseError, ParsedPart, ParserConfig, StreamParser};

/// What a negotiation settled, handed to [`OutputFormat::bind`].
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct Binding<'a> {
    /// The protocol version the model writes.
    pub version: ProtocolVersion,
    /// The active catalogs, the renderer's preferred one first.
    pub catalogs: &'a [Catalog],
    /// The message kinds the agent allows (`None`: all of its version's).
    pub allowed: Option<&'a [String]>,
}

impl<'a> Binding<'a> {
    /// A binding of `catalogs` under `version`, allowing every message kind.
    pub fn new(version: ProtocolVersion, catalogs: &'a [Catalog]) -> Self {
        Self {
            version,
            catalogs,
            allowed: None,
        }
    }

    /// The same binding allowing only `allowed` message kinds.
    pub fn allowed(mut self, allowed: Option<&'a [String]>) -> Self {
        self.allowed = allowed;
        self
    }
}

/// A way for a model to write A2UI messages in its text.
///
/// Implementations are shared by every request of a generator, so they are `Send + Sync`
/// and hold no per-response state: [`reader`](Self::reader) hands out a fresh reader per
/// response.
///
/// # Example
///
/// A format that reads only a finished response: the whole answer is one JSON array of
/// messages.
///
/// ```
/// use a2ui_agent::format::{FormatReader, OutputFormat};
/// use a2ui_agent::parser::{parse_with, ParseError, ParsedPart, ParserConfig};
///
/// struct WholeJson;
///
/// struct Reader { text: String, config: ParserConfig }
///
/// impl FormatReader for Reader {
///     fn feed(&mut self, chunk: &str) -> Vec<ParsedPart> {
///         self.text.push_str(chunk);
///         Vec::new()
///     }
///     fn error(&self) -> Option<&ParseError> { None }
///     fn finish(self: Box<Self>) -> Result<Vec<ParsedPart>, ParseError> {
///         parse_with(&self.text, self.config.wrapped(false))
///     }
/// }
///
/// impl OutputFormat for WholeJson {
///     fn name(&self) -> &str { "whole-json" }
///     fn instructions(&self) -> String { "Answer with one JSON array of messages.".into() }
///     fn streams(&self) -> bool { false }
///     fn reader(&self, config: ParserConfig) -> Box<dyn FormatReader> {
///         Box::new(Reader { text: String::new(), config })
///     }
/// }
///
/// let mut reader = WholeJson.reader(ParserConfig::default());
/// assert!(reader.feed(r#"[{"version": "v0.9", "deleteSurface": {"surfaceId": "s"}}]"#).is_empty());
/// assert_eq!(reader.finish()?.len(), 1);
/// # Ok::<(), ParseError>(())
/// ```
pub trait OutputFormat: Send + Sync + 'static {
    /// A short name for logs and the CLI, e.g. `"direct-json"`.
    fn name(&self) -> &str;

    /// The section of the system prompt that tells the model how to write its output: where
    /// the messages go and how they are delimited. Catalog and schema sections are added by
    /// the prompt builder; this text should not describe components.
    fn instructions(&self) -> String;

    /// Whether the reader emits parts while the response streams. `false`: a format that
    /// only reads a finished response.
    fn streams(&self) -> bool;

    /// A fresh reader for one response. `config` carries the progressive keys, emission mode
    /// and readiness check (the catalog validator) the request processor chose.
    fn reader(&self, config: ParserConfig) -> Box<dyn FormatReader>;

    /// How an example turn (its messages) is written in this format, for the prompt's
    /// examples section. The default writes a Direct JSON block, one message per line.
    fn example(&self, messages: &[Value]) -> String {
        direct_json_block(messages)
    }

    /// The format for one negotiated catalog set, for a format whose notation or prompt
    /// depends on the catalogs; `None` (the default): this format as it is.
    fn bind(&self, binding: &Binding<'_>) -> Option<Arc<dyn OutputFormat>> {
        let _ = binding;
        None
    }

    /// Whether the format can be written under `version` (a generator for another version
    /// does not build). `true` by default.
    fn supports(&self, version: ProtocolVersion) -> bool {
        let _ = version;
        true
    }

    /// How a block is written, in a few words, for the repair turn that asks the model to
    /// write a rejected or unreadable block again (see
    /// [`Repair::in_notation`](crate::request::Repair::in_notation)). The default describes
    /// Direct JSON.
    fn notation(&self) -> String {
        "as a JSON array of messages (valid JSON: double quotes, no comments, backslashes in \
         strings doubled)"
            .into()
    }

    /// Whether [`instructions`](Self::instructions) already describe the messages and the
    /// catalogs in the format's own terms, so the prompt leaves out the JSON workflow, the
    /// message schema and the catalog schemas. `false` by default.
    fn describes_catalogs(&self) -> bool {
        false
    }

    /// A grammar of the whole answer in GBNF (llama.cpp's notation, which xgrammar-based
    /// servers also read), for a model server that restricts sampling to it: an answer
    /// sampled under it can always be read, and names only what the catalogs declare.
    /// `None` (the default): the format offers none. [`express::Express`] offers one once
    /// bound; see [`RequestProcessor::grammar`](crate::generator::processor::RequestProcessor::grammar).
    fn grammar(&self) -> Option<String> {
        None
    }
}

/// Reads one response written in an [`OutputFormat`].
pub trait FormatReader: Send {
    /// Reads the next chunk and returns the parts it completes. A format that reads only a
    /// finished response returns nothing here.
    fn feed(&mut self, chunk: &str) -> Vec<ParsedPart>;

    /// [`feed`](Self::feed), also saying how many messages at the end of the last part
    /// already passed the readiness check of the reader's [`ParserConfig`] (as
    /// [`StreamParser::feed_checked`] does), so a caller validating with that same check can
    /// skip them. The default: none.
    fn feed_checked(&mut self, chunk: &str) -> (Vec<ParsedPart>, usize) {
        (self.feed(chunk), 0)
    }

    /// The error that makes the rest of the response unreadable, known before the end (a
    /// block that closed unreadable, a limit exceeded), so a server can stop early.
    fn error(&self) -> Option<&ParseError>;

    /// Where blocks closed in the parts the last [`feed`](Self::feed) returned: for each, how
    /// many of those parts came before it (see [`StreamParser::block_ends`]). A format
    /// without blocks read as they stream returns none.
    fn block_ends(&self) -> &[usize] {
        &[]
    }

    /// Ends the response and returns the parts not yet returned.
    ///
    /// # Errors
    ///
    /// A [`ParseError`] if the response cannot be read or ends inside a message.
    fn finish(self: Box<Self>) -> Result<Vec<ParsedPart>, ParseError>;
}

/// The built-in format: prose with JSON arrays of A2UI messages in `<a2ui-json>` tags, read as
/// it streams by [`StreamParser`].
///
/// # Example
///
/// ```
/// use a2ui_agent::format::{DirectJson, OutputFormat};
/// use a2ui_agent::parser::{ParsedPart, ParserConfig};
///
/// let mut reader = DirectJson.reader(ParserConfig::default());
/// let parts = reader.feed("Done.<a2ui-json>[{\"version\": \"v0.9\", \"deleteSurface\": {\"surfaceId\": \"s\"}}]</a2ui-json>");
/// assert_eq!(parts.len(), 2);
/// assert!(matches!(&parts[0], ParsedPart::Text(t) if t == "Done."));
/// assert!(reader.finish()?.is_empty());
/// # Ok::<(), a2ui_agent::parser::ParseError>(())
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct DirectJson;

/// The tag that opens a Direct JSON block.
pub const OPEN_TAG: &str = "<a2ui-json>";
/// The tag that closes a Direct JSON block.
pub const CLOSE_TAG: &str = "</a2ui-json>";

impl OutputFormat for DirectJson {
    fn name(&self) -> &str {
        "direct-json"
    }

    fn instructions(&self) -> String {
        format!(
            "## How to write your answer\n\
             \n\
             Write conversational text as usual. To show or change a user interface, write a \
             block that starts with {OPEN_TAG} and ends with {CLOSE_TAG}. A block holds one \
             JSON array of A2UI messages and nothing else: no Markdown fence, no comments, no \
             text. Text outside the blocks is shown to the user as it is; keep it short when a \
             surface says the same thing.\n\
             \n\
             - The JSON must be valid: double quotes, no trailing commas.\n\
             - You may write several blocks in one answer; each is applied as soon as it is \
             complete, in order.\n\
             - Never put {OPEN_TAG} or {CLOSE_TAG} inside your text except to open or close \
             a block.\n"
        )
    }

    fn streams(&self) -> bool {
        true
    }

    fn reader(&self, config: ParserConfig) -> Box<dyn FormatReader> {
        Box::new(StreamReader(StreamParser::new(config)))
    }
}

/// A [`StreamParser`] as a [`FormatReader`].
pub(crate) struct StreamReader(pub(crate) StreamParser);

impl FormatReader for StreamReader {
    fn feed(&mut self, chunk: &str) -> Vec<ParsedPart> {
        self.0.feed(chunk)
    }

    fn feed_checked(&mut self, chunk: &str) -> (Vec<ParsedPart>, usize) {
        self.0.feed_checked(chunk)
    }

    fn error(&self) -> Option<&ParseError> {
        self.0.error()
    }

    fn block_ends(&self) -> &[usize] {
        self.0.block_ends()
    }

    fn finish(self: Box<Self>) -> Result<Vec<ParsedPart>, ParseError> {
        self.0.finish()
    }
}

/// `messages` as a Direct JSON block, one compact message per line.
pub(crate) fn direct_json_block(messages: &[Value]) -> String {
    let mut out = String::from(OPEN_TAG);
    out.push('\n');
    out.push_str(&message_lines(messages));
    out.push('\n');
    out.push_str(CLOSE_TAG);
    out
}

/// `messages` as a JSON array, one compact message per line.
pub(crate) fn message_lines(messages: &[Value]) -> String {
    let mut out = String::from("[\n");
    for (i, message) in messages.iter().enumerate() {
        write_json(&mut out, message, 0);
        if i + 1 < messages.len() {
            out.push(',');
        }
        out.push('\n');
    }
    out.push(']');
    out
}

/// Keys written first, in this order, so an example reads the way a model should write:
/// the version before the message, a component's id and type before its properties.
const LEADING_KEYS: [&str; 3] = ["version", "id", "component"];

/// Compact JSON with [`LEADING_KEYS`] first and the other keys sorted (deterministic).
fn write_json(out: &mut String, value: &Value, depth: usize) {
    match value {
        Value::Object(map) if depth < 128 => {
            out.push('{');
            let leading = LEADING_KEYS.iter().filter_map(|k| map.get_key_value(*k));
            let rest = map
                .iter()
                .filter(|(k, _)| !LEADING_KEYS.contains(&k.as_str()));
            for (i, (key, item)) in leading.chain(rest).enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(key.clone()).to_string());
                out.push(':');
                write_json(out, item, depth + 1);
            }
            out.push('}');
        }
        Value::Array(items) if depth < 128 => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_json(out, item, depth + 1);
            }
            out.push(']');
        }
        other => out.push_str(&other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parser::parse;
    use serde_json::json;

    #[test]
    fn an_example_block_reads_back_as_its_messages() {
        let messages = vec![
            json!({"version": "v0.9", "createSurface": {"surfaceId": "s", "catalogId": "c"}}),
            json!({"version": "v0.9", "deleteSurface": {"surfaceId": "s"}}),
        ];
        let parts = parse(&DirectJson.example(&messages)).unwrap();
        assert_eq!(parts, vec![ParsedPart::A2ui(messages)]);
    }

    #[test]
    fn an_example_puts_the_version_and_a_components_id_and_type_first() {
        let message = json!({"version": "v0.9", "updateComponents": {"surfaceId": "s",
            "components": [{"text": "Hi", "component": "Text", "id": "root"}]}});
        let block = DirectJson.example(std::slice::from_ref(&message));
        assert!(
            block.contains(r#"{"version":"v0.9","updateComponents":"#),
            "{block}"
        );
        assert!(
            block.contains(r#"{"id":"root","component":"Text","text":"Hi"}"#),
            "{block}"
        );
    }

    #[test]
    fn direct_json_instructions_name_both_tags() {
        let text = DirectJson.instructions();
        assert!(text.contains(OPEN_TAG) && text.contains(CLOSE_TAG));
    }
}
