//! The incremental parser of a model's output: text with A2UI JSON in `<a2ui-json>` blocks.
//!
//! A model answers with conversational text and one or more blocks
//! `<a2ui-json>[ ...A2UI messages... ]</a2ui-json>`, streamed a few bytes at a time. This
//! module turns that stream into [`ParsedPart`]s, text or a list of A2UI messages, as early as
//! each is complete, so a renderer can draw while the model is still writing. It knows nothing
//! of A2A, HTTP or any A2UI catalog; a catalog check plugs in through [`ReadinessCheck`].
//!
//! The behaviour follows the A2UI conformance suites `response_streaming.yaml` and
//! `response_parser.yaml`:
//!
//! - Text is emitted per chunk, trimmed as a whole run would be; a tag cut by a chunk boundary
//!   never leaks into text; whitespace-only runs are dropped.
//! - Tags may carry attributes and any letter case; a Markdown fence inside them, trailing
//!   commas, curly quotes and a single message instead of a list are tolerated; a close tag
//!   inside a JSON string does not close the block.
//! - With [`ParserConfig::fenced_json`], a Markdown fence of JSON written in the text instead
//!   of a block is read as A2UI when the configured check accepts its messages (held back
//!   until it closes; any other fence is text as it streams).
//! - Each message is emitted as it closes, even while later messages of its block arrive. A
//!   message still arriving is emitted early only if it carries components that closed (they
//!   are sent, the open one is left out) or is a data model update that reads once healed
//!   (brackets closed, a trailing comma dropped, an open string closed if its key is one of the
//!   configured progressive keys). `createSurface`/`beginRendering` wait for their object to
//!   close, and ids, paths, component names, child references and URLs are never healed.
//! - A block that cannot be read is a [`ParseError`] at its close tag (with byte offset, line,
//!   column and excerpt); a block larger or deeper than the [`Limits`] is an error at once.
//!
//! It reads in a single pass: a scanner state advances over each byte once, only a short tail
//! is held between chunks, each component and message is deserialized once from its slice, and
//! only the message still arriving is retained. In [`EmitMode::Delta`] (the default) nothing
//! unchanged is sent twice: the components of a message still arriving are sent as they close
//! (or in batches that outweigh their envelope, [`ParserConfig::delta_batch`]), and a data
//! model update still arriving is sent per key path, each member of its v0.9 `value` (entry
//! of its v0.8 `contents`) once as it finishes (the first replacing the value at `path`, the
//! later ones at `path/key`). A
//! message that closes within one `feed` is sent as written.
//!
//! # Example
//!
//! ```
//! use a2ui_agent::parser::{parse, ParsedPart};
//! use serde_json::json;
//!
//! let parts = parse(
//!     "Here it is.\n<a2ui-json>\n```json\n\
//!      {\"version\": \"v0.9\", \"deleteSurface\": {\"surfaceId\": \"s1\",},}\n```\n</a2ui-json>",
//! )?;
//! assert_eq!(
//!     parts,
//!     vec![
//!         ParsedPart::Text("Here it is.".into()),
//!         ParsedPart::A2ui(vec![json!({"version": "v0.9", "deleteSurface": {"surfaceId": "s1"}})]),
//!     ]
//! );
//! # Ok::<(), a2ui_agent::parser::ParseError>(())
//! ```

mod block;
mod config;
mod error;
mod fences;
mod part;
mod stream;
mod tags;
mod text;

pub use config::{EmitMode, FencedCheck, Limits, ParserConfig, ReadinessCheck};
pub(crate) use error::Locator;
pub use error::{ParseError, ParseErrorKind};
pub use part::ParsedPart;
pub use stream::StreamParser;

/// Parses a whole response with the default configuration.
///
/// # Errors
///
/// A [`ParseError`] if a block cannot be read or the response ends inside a message.
///
/// # Example
///
/// ```
/// let parts = a2ui_agent::parser::parse("No interface this turn.")?;
/// assert_eq!(parts, vec![a2ui_agent::parser::ParsedPart::Text("No interface this turn.".into())]);
/// # Ok::<(), a2ui_agent::parser::ParseError>(())
/// ```
pub fn parse(text: &str) -> Result<Vec<ParsedPart>, ParseError> {
    parse_with(text, ParserConfig::default())
}

/// Parses a whole response with `config`.
///
/// # Errors
///
/// A [`ParseError`] if a block cannot be read, a limit is exceeded, or the response ends
/// inside a message.
pub fn parse_with(text: &str, config: ParserConfig) -> Result<Vec<ParsedPart>, ParseError> {
    stream::parse_whole(text, config)
}
