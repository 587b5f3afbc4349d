//! How a [`StreamParser`](super::StreamParser) behaves: which values it may close early, what
//! it re-sends, how much it accepts, and when a message is ready to show.

use std::fmt;
use std::sync::Arc;

use serde_json::Value;

/// Whether a message that parses is ready to emit.
///
/// The parser asks this of every snapshot of a message that is still arriving (a message whose
/// closed components, or healed data model, it could send early). A message that reads as JSON
/// but would not satisfy the catalog yet is not ready: the catalog validator plugs in here.
/// Messages whose JSON has closed are always emitted; validating them is the validator's job.
///
/// Any `Fn(&Value) -> bool + Send + Sync + 'static` is a check.
///
/// # Example
///
/// ```
/// use a2ui_agent::parser::{ParserConfig, StreamParser};
///
/// // Never emit a message before it closes.
/// let config = ParserConfig::default().readiness(|_: &serde_json::Value| false);
/// let mut parser = StreamParser::new(config);
/// assert!(parser.feed(r#"<a2ui-json>[{"version":"v0.9","updateComponents":{"surfaceId":"s","components":[{"id":"a","component":"Text","text":"x"},"#).is_empty());
/// ```
pub trait ReadinessCheck: Send + Sync + 'static {
    /// Whether `message`, as it would be emitted now, may be emitted.
    fn is_ready(&self, message: &Value) -> bool;
}

impl<F> ReadinessCheck for F
where
    F: Fn(&Value) -> bool + Send + Sync + 'static,
{
    fn is_ready(&self, message: &Value) -> bool {
        self(message)
    }
}

/// Whether the JSON of a Markdown fence written in the text, instead of an `<a2ui-json>`
/// block, is A2UI messages the reader should take as such (see
/// [`ParserConfig::fenced_json`]).
///
/// Any `Fn(&[Value]) -> bool + Send + Sync + 'static` is a check.
pub trait FencedCheck: Send + Sync + 'static {
    /// Whether `messages`, the fence's JSON (a list, or one object as a list of one), are
    /// A2UI messages.
    fn is_a2ui(&self, messages: &[Value]) -> bool;
}

impl<F> FencedCheck for F
where
    F: Fn(&[Value]) -> bool + Send + Sync + 'static,
{
    fn is_a2ui(&self, messages: &[Value]) -> bool {
        self(messages)
    }
}

/// What the parser sends again when a message it already emitted grows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum EmitMode {
    /// Send only what changed: an `updateComponents` (or v0.8 `surfaceUpdate`) carries only the
    /// components that closed since its last emission (renderers upsert by id), and a message
    /// that did not change is not sent again. The default.
    #[default]
    Delta,
    /// Send each changed message whole, as it now stands, as the conformance suite expects.
    Cumulative,
}

/// Bounds that turn hostile input into a [`ParseErrorKind::Limit`](super::ParseErrorKind::Limit)
/// error instead of unbounded memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Most bytes one `<a2ui-json>` block may hold (default 16 MiB).
    pub max_block_bytes: usize,
    /// Deepest JSON nesting inside a block, counting the message list (default 128). Values
    /// above about 126 have no effect: `serde_json`, which reads each closed message, stops at
    /// 128 levels and its failure is reported as a syntax error.
    pub max_depth: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_block_bytes: 16 * 1024 * 1024,
            max_depth: 128,
        }
    }
}

/// Configuration of a [`StreamParser`](super::StreamParser); the default suits a server.
///
/// # Example
///
/// ```
/// use a2ui_agent::parser::{EmitMode, Limits, ParserConfig};
///
/// let config = ParserConfig::default()
///     .progressive_keys(["text", "value"])
///     .mode(EmitMode::Cumulative)
///     .limits(Limits { max_block_bytes: 1 << 20, max_depth: 64 });
/// # let _ = config;
/// ```
#[derive(Clone, Default)]
pub struct ParserConfig {
    pub(crate) progressive_keys: Vec<String>,
    pub(crate) mode: EmitMode,
    pub(crate) limits: Limits,
    pub(crate) readiness: Option<Arc<dyn ReadinessCheck>>,
    pub(crate) unwrapped: bool,
    pub(crate) delta_batch: Option<usize>,
    pub(crate) fenced: Option<Arc<dyn FencedCheck>>,
}

/// The default of [`ParserConfig::delta_batch`]: each component as soon as it closes, since
/// a renderer drawing early is what streaming is for.
const DEFAULT_DELTA_BATCH: usize = 0;

impl ParserConfig {
    /// Properties whose string value is prose the model writes, so a value still arriving
    /// may be closed where it stands and emitted (default: none).
    ///
    /// Only the value of a property of a message that is not a component is healed (a
    /// component is emitted once its object closes). Ids, paths, component names, child
    /// references and URLs should never be listed.
    #[must_use]
    pub fn progressive_keys(mut self, keys: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.progressive_keys = keys.into_iter().map(Into::into).collect();
        self
    }

    /// What to re-send when a message grows (default [`EmitMode::Delta`]).
    #[must_use]
    pub fn mode(mut self, mode: EmitMode) -> Self {
        self.mode = mode;
        self
    }

    /// Bounds on block size and nesting depth.
    #[must_use]
    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// The check a message still arriving must pass before it is emitted.
    #[must_use]
    pub fn readiness(mut self, check: impl ReadinessCheck) -> Self {
        self.readiness = Some(Arc::new(check));
        self
    }

    /// Whether the response wraps its JSON in `<a2ui-json>` tags (default `true`). With
    /// `false` the whole response is one payload, read from its first byte.
    #[must_use]
    pub fn wrapped(mut self, wrapped: bool) -> Self {
        self.unwrapped = !wrapped;
        self
    }

    /// In [`EmitMode::Delta`], how many times its envelope the components of a message still
    /// arriving must weigh before they are sent (default 0: each component is sent as soon as
    /// it closes, with its message's envelope). 10 holds components back until an envelope
    /// adds at most a tenth to the bytes sent, trading how early a renderer draws for
    /// bandwidth. Whatever is left is sent when the message closes. [`EmitMode::Cumulative`] sends at every close.
    #[must_use]
    pub fn delta_batch(mut self, ratio: usize) -> Self {
        self.delta_batch = Some(ratio);
        self
    }

    /// Reads JSON in a Markdown fence of the text (```` ```json ````, ```` ``` ````) as A2UI
    /// when `check` says its messages are, as models often write it instead of an
    /// `<a2ui-json>` block (default: fences are text). Only until the first block opens:
    /// a response that uses the tags keeps its fences as text.
    ///
    /// A fence whose first character after its line is not `[` or `{`, or whose language
    /// is not a JSON one, is text at once. One that opens JSON is held back until it
    /// closes (at most [`Limits::max_block_bytes`], past which it is text), since until
    /// then the reader cannot tell UI from a code sample; it is then read whole, with the
    /// same tolerance as a block (trailing commas, curly quotes, one object for a list),
    /// and sent as one A2UI part if `check` accepts it, as the text it was otherwise. The
    /// same goes for an answer that begins (after blanks) with `[` or `{`, held to its end:
    /// read as A2UI if `check` accepts it, otherwise read again as any answer is.
    ///
    /// # Example
    ///
    /// ```
    /// use a2ui_agent::parser::{parse_with, ParsedPart, ParserConfig};
    ///
    /// let config = ParserConfig::default()
    ///     .fenced_json(|messages: &[serde_json::Value]| messages.iter().all(|m| m["version"] == "v0.9"));
    /// let text = "Here:\n```json\n{\"version\": \"v0.9\", \"deleteSurface\": {\"surfaceId\": \"s\"}}\n```\nDone.";
    /// let parts = parse_with(text, config)?;
    /// assert!(matches!(&parts[..], [ParsedPart::Text(_), ParsedPart::A2ui(m), ParsedPart::Text(_)] if m.len() == 1));
    /// # Ok::<(), a2ui_agent::parser::ParseError>(())
    /// ```
    #[must_use]
    pub fn fenced_json(mut self, check: impl FencedCheck) -> Self {
        self.fenced = Some(Arc::new(check));
        self
    }

    pub(crate) fn batch_ratio(&self) -> usize {
        self.delta_batch.unwrap_or(DEFAULT_DELTA_BATCH)
    }

    pub(crate) fn is_progressive(&self, key: &[u8]) -> bool {
        self.progressive_keys.iter().any(|k| k.as_bytes() == key)
    }
}

impl fmt::Debug for ParserConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ParserConfig")
            .field("progressive_keys", &self.progressive_keys)
            .field("mode", &self.mode)
            .field("limits", &self.limits)
            .field("readiness", &self.readiness.as_ref().map(|_| ".."))
            .field("wrapped", &!self.unwrapped)
            .field("delta_batch", &self.batch_ratio())
            .field("fenced_json", &self.fenced.is_some())
            .finish()
    }
}
