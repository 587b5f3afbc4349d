//! [`StreamParser`]: the driver that alternates between text and blocks as chunks arrive.

use serde_json::Value;

use super::block::{Advance, Block, Cx};
use super::config::ParserConfig;
use super::error::{Locator, ParseError};
use super::fences::{ClosedFence, Fences, Held, Open};
use super::part::ParsedPart;
use super::tags::{self, Match};
use super::text::TextRun;

/// Splits a model's streamed output into text parts and A2UI message parts, as early as each
/// is complete.
///
/// Feed chunks in order with [`feed`](Self::feed), then call [`finish`](Self::finish). Each
/// byte is scanned once; only a short tail (a tag still arriving) is kept between chunks,
/// plus the message still arriving. See the [module docs](super) for what is emitted when.
///
/// # Example
///
/// ```
/// use a2ui_agent::parser::{ParsedPart, ParserConfig, StreamParser};
/// use serde_json::json;
///
/// let mut parser = StreamParser::new(ParserConfig::default());
/// let mut parts = parser.feed("Here you go.\n<a2ui-js");
/// assert_eq!(parts, vec![ParsedPart::Text("Here you go.".into())]);
/// parts = parser.feed(r#"on>[{"version": "v0.9", "deleteSurface": {"surfaceId": "s1"}}]</a2ui-json>"#);
/// assert_eq!(
///     parts,
///     vec![ParsedPart::A2ui(vec![json!({"version": "v0.9", "deleteSurface": {"surfaceId": "s1"}})])]
/// );
/// assert!(parser.finish().unwrap().is_empty());
/// ```
#[derive(Debug)]
pub struct StreamParser {
    config: ParserConfig,
    in_block: bool,
    block: Block,
    text: TextRun,
    /// Input held back because a tag or fence may be arriving.
    tail: String,
    loc: Locator,
    error: Option<ParseError>,
    /// For the parts the last `feed` returned, how many came before each block that closed.
    block_ends: Vec<usize>,
    /// Markdown fences in the text, when fenced JSON may be A2UI.
    fences: Fences,
    /// Whether a tagged block opened (fences are then text).
    tagged: bool,
    /// Where a bare answer (JSON with no tags, held to its end) starts.
    bare_at: Option<Locator>,
}

/// The parts one feed produced, with adjacent messages of one block merged into one part.
struct Out {
    parts: Vec<ParsedPart>,
    /// Whether the last part is messages of the open block (more may join it).
    joinable: bool,
}

impl Out {
    fn text(&mut self, text: Option<String>) {
        if let Some(text) = text {
            self.parts.push(ParsedPart::Text(text));
            self.joinable = false;
        }
    }

    #[inline]
    fn messages(&mut self, messages: &mut Vec<Value>) {
        if messages.is_empty() {
            return;
        }
        match self.parts.last_mut() {
            Some(ParsedPart::A2ui(list)) if self.joinable => list.append(messages),
            _ => self.parts.push(ParsedPart::A2ui(std::mem::take(messages))),
        }
        self.joinable = true;
    }
}

impl StreamParser {
    /// A parser at the start of a response.
    pub fn new(config: ParserConfig) -> Self {
        let unwrapped = config.unwrapped;
        Self {
            config,
            in_block: unwrapped,
            block: Block::new(unwrapped),
            text: TextRun::default(),
            tail: String::new(),
            loc: Locator::default(),
            error: None,
            block_ends: Vec::new(),
            fences: Fences::default(),
            tagged: false,
            bare_at: None,
        }
    }

    /// Reads the next chunk and returns the parts it completes, in order.
    ///
    /// Text is emitted as it arrives (minus trailing whitespace and anything that may be the
    /// start of a tag, held for the next chunk). Messages are emitted as they become ready; see
    /// the [module docs](super). Never fails: an unreadable block is reported by
    /// [`error`](Self::error) once its close tag arrives (a limit at once), and by
    /// [`finish`](Self::finish); after that `feed` returns nothing.
    ///
    /// # Complexity
    ///
    /// Linear in the chunk's length plus a held tail of at most a few hundred bytes, plus one
    /// `serde_json` pass over each component and message that closes in it, and over each
    /// data model member finished in it. A data model update sent whole while it arrives
    /// (its `path` after its `value`, or [`EmitMode::Cumulative`](super::EmitMode)) is healed
    /// once per chunk, at a cost linear in its size.
    pub fn feed(&mut self, chunk: &str) -> Vec<ParsedPart> {
        self.read(chunk).0
    }

    /// [`feed`](Self::feed), also saying how many messages at the end of the last part
    /// already passed the configured [`ReadinessCheck`](super::ReadinessCheck) (0 without
    /// one).
    ///
    /// Those are the messages sent before they closed; a caller that validates every message
    /// with the same check the readiness hook runs can skip them instead of checking them
    /// twice. Messages that closed are never checked by the parser.
    ///
    /// # Example
    ///
    /// ```
    /// use a2ui_agent::parser::{ParsedPart, ParserConfig, StreamParser};
    ///
    /// let config = ParserConfig::default().readiness(|_: &serde_json::Value| true);
    /// let mut parser = StreamParser::new(config);
    /// let (parts, checked) = parser.feed_checked(r#"<a2ui-json>[{"version":"v0.9","updateComponents":{"surfaceId":"s","components":[{"id":"a","component":"Text","text":"x"},"#);
    /// assert!(matches!(&parts[..], [ParsedPart::A2ui(messages)] if messages.len() == 1));
    /// assert_eq!(checked, 1);
    /// let (parts, checked) = parser.feed_checked(r#"{"id":"b","component":"Text","text":"y"}]}}]</a2ui-json>"#);
    /// assert_eq!(parts.len(), 1);
    /// assert_eq!(checked, 0);
    /// ```
    pub fn feed_checked(&mut self, chunk: &str) -> (Vec<ParsedPart>, usize) {
        self.read(chunk)
    }

    /// [`feed_checked`](Self::feed_checked), inlined into both entry points: at chunks of a
    /// few bytes a call more per chunk is a measurable share of the work.
    #[inline(always)]
    fn read(&mut self, chunk: &str) -> (Vec<ParsedPart>, usize) {
        if self.error.is_some() {
            return (Vec::new(), 0);
        }
        self.block_ends.clear();
        let mut out = Out {
            parts: Vec::new(),
            joinable: false,
        };
        // Most small chunks of a block continue a string, many up to their end: those read
        // nothing that could close, and only a snapshot may have something to send.
        let mut start = 0;
        if self.in_block && self.tail.is_empty() {
            let max = self.config.limits.max_block_bytes;
            if let Some(n) = self.block.continue_string(chunk.as_bytes(), max) {
                start = n;
            }
        }
        if start == chunk.len() && start > 0 {
            self.loc.advance(chunk.as_bytes());
        } else {
            let joined;
            let input: &str = if self.tail.is_empty() {
                chunk
            } else {
                let mut held = std::mem::take(&mut self.tail);
                held.push_str(chunk);
                joined = held;
                &joined
            };
            let held = self.run(input, start, &mut out).min(input.len());
            // `self.tail` is empty here (it was, or it was taken into `joined`): it keeps its
            // buffer, so holding nothing allocates nothing.
            self.tail.push_str(input.get(held..).unwrap_or_default());
            self.loc
                .advance(input.as_bytes().get(..held).unwrap_or_default());
            if self.error.is_some() {
                return (out.parts, 0);
            }
            if !self.in_block {
                out.text(self.text.flush());
                return (out.parts, 0);
            }
        }
        let mut checked = 0;
        if self.block.may_snapshot(self.config.mode) {
            let mut messages = Vec::new();
            self.block.snapshot(&mut Cx {
                config: &self.config,
                loc: &self.loc,
                out: &mut messages,
            });
            // What a snapshot sends passed the readiness check; what closed did not.
            if self.config.readiness.is_some() {
                checked = messages.len();
            }
            out.messages(&mut messages);
        }
        (out.parts, checked)
    }

    /// Where blocks closed in the parts the last [`feed`](Self::feed) returned: for each
    /// block whose close tag it read, how many of those parts came before the close. A
    /// consumer that checks each block as a whole (a surface's tree complete at its block's
    /// close) checks there, before reading on.
    ///
    /// # Example
    ///
    /// ```
    /// use a2ui_agent::parser::{ParserConfig, StreamParser};
    ///
    /// let mut parser = StreamParser::new(ParserConfig::default());
    /// let parts = parser.feed(
    ///     "A<a2ui-json>[{\"version\": \"v0.9\", \"deleteSurface\": {\"surfaceId\": \"s\"}}]</a2ui-json>B<a2ui-json>",
    /// );
    /// assert_eq!(parts.len(), 3); // "A", the message, "B"
    /// assert_eq!(parser.block_ends(), &[2]);
    /// ```
    pub fn block_ends(&self) -> &[usize] {
        &self.block_ends
    }

    /// The error that ended the stream early, if any: a block that closed unreadable, or a
    /// limit exceeded. A server can fail the stream at once instead of waiting for the end.
    pub fn error(&self) -> Option<&ParseError> {
        self.error.as_ref()
    }

    /// Ends the stream and returns the parts it completes: the rest of the text, or nothing.
    ///
    /// A block left open is accepted if its messages all closed.
    ///
    /// # Errors
    ///
    /// The error [`error`](Self::error) holds; or, for a block left open, a
    /// [`Truncated`](super::ParseErrorKind::Truncated) error if a message was still arriving,
    /// or the [`Syntax`](super::ParseErrorKind::Syntax) error that made the block unreadable.
    pub fn finish(mut self) -> Result<Vec<ParsedPart>, ParseError> {
        if let Some(err) = self.error.take() {
            return Err(err);
        }
        let tail = std::mem::take(&mut self.tail);
        let mut out = Out {
            parts: Vec::new(),
            joinable: false,
        };
        if self.in_block {
            self.block.finish(&tail, &self.loc)?;
        } else if let Some(mut held) = self.fences.take_bare() {
            held.push_str(&tail);
            out.text(self.text.end());
            match read_fenced(&held, &self.config) {
                Some(mut messages) => out.messages(&mut messages),
                // Not A2UI: read again as any answer is, from where it started.
                None => {
                    let mut again = StreamParser::new(self.config.clone());
                    again.fences.never_bare();
                    again.loc = self.bare_at.unwrap_or(self.loc);
                    out.parts.extend(again.feed(&held));
                    out.parts.extend(again.finish()?);
                }
            }
        } else {
            match self
                .fences
                .finish(&tail)
                .map(|fence| fence_part(fence, &self.config))
            {
                Some(ParsedPart::A2ui(mut messages)) => {
                    out.text(self.text.end());
                    out.messages(&mut messages);
                }
                Some(ParsedPart::Text(text)) => self.text.push(&text),
                None => self.text.push(&tail),
            }
            out.text(self.text.end());
        }
        Ok(out.parts)
    }

    /// Adds text of the current run; with `fenced`, noting where lines start.
    #[inline]
    fn push_text(&mut self, text: &str, fenced: bool) {
        if fenced {
            self.fences.note(text);
        }
        self.text.push(text);
    }

    /// Reads `input` from `start`; returns where the held tail starts (`input.len()` when none).
    fn run(&mut self, input: &str, start: usize, out: &mut Out) -> usize {
        let mut i = start;
        loop {
            let flow = if self.in_block {
                self.run_block(input, i, out)
            } else if self.fences.holding() {
                self.run_held(input, i, out)
            } else {
                self.run_text(input, i, out)
            };
            match flow {
                Flow::Next(next) => i = next,
                Flow::Hold(at) => return at,
            }
        }
    }

    /// Inside a block: reads it on from `i` until it closes, holds, or fails.
    #[inline]
    fn run_block(&mut self, input: &str, i: usize, out: &mut Out) -> Flow {
        let mut messages = Vec::new();
        let step = self.block.advance(
            input,
            i,
            &mut Cx {
                config: &self.config,
                loc: &self.loc,
                out: &mut messages,
            },
        );
        out.messages(&mut messages);
        match step {
            Advance::Closed(next) => {
                self.in_block = false;
                out.joinable = false;
                self.block_ends.push(out.parts.len());
                Flow::Next(next)
            }
            Advance::Hold(at) => Flow::Hold(at),
            Advance::NeedMore => Flow::Hold(input.len()),
            Advance::Failed(err) => {
                self.error = Some(err);
                Flow::Hold(input.len())
            }
        }
    }

    /// Inside a fence (or bare answer) held back: reads it on from `i` until it closes.
    #[inline]
    fn run_held(&mut self, input: &str, i: usize, out: &mut Out) -> Flow {
        let (part, next) = match self.fences.held(input, i, &self.config) {
            Held::More(at) => return Flow::Hold(at),
            Held::Text(text, next) => (ParsedPart::Text(text), next),
            Held::Closed(fence, next) => (fence_part(fence, &self.config), next),
        };
        match part {
            ParsedPart::Text(text) => self.text.push(&text),
            ParsedPart::A2ui(mut messages) => {
                out.text(self.text.end());
                out.messages(&mut messages);
                out.joinable = false;
                self.block_ends.push(out.parts.len());
            }
        }
        Flow::Next(next)
    }

    /// In the text: reads it on from `i` to the next tag, fence or bare answer.
    #[inline]
    fn run_text(&mut self, input: &str, mut i: usize, out: &mut Out) -> Flow {
        let fenced = self.config.fenced.is_some() && !self.tagged;
        // Only the start of the answer is looked at for bare JSON.
        if fenced && self.fences.at_start() {
            // A bare answer is held from here on: the next step reads it as held.
            match self.answer_start(input, i, out) {
                Flow::Next(next) if !self.fences.holding() => i = next,
                flow => return flow,
            }
        }
        let rest = input.get(i..).unwrap_or_default();
        let stop = if fenced {
            rest.find(['<', '`'])
        } else {
            rest.find('<')
        };
        let Some(lt) = stop else {
            self.push_text(rest, fenced);
            return Flow::Hold(input.len());
        };
        self.push_text(rest.get(..lt).unwrap_or_default(), fenced);
        let at = i + lt;
        let candidate = rest.get(lt..).unwrap_or_default();
        if candidate.starts_with('`') {
            return self.fence_open(candidate, at, fenced, out);
        }
        match tags::bounded(tags::open_tag, candidate) {
            Match::Yes(len) => {
                out.text(self.text.end());
                self.in_block = true;
                self.tagged = true;
                self.block.reset();
                Flow::Next(at + len)
            }
            Match::More => Flow::Hold(at),
            Match::No => {
                self.push_text("<", fenced);
                Flow::Next(at + 1)
            }
        }
    }

    /// At the start of the answer, with fences read: passes its blanks, and holds it whole if
    /// its first other character starts bare JSON. `Next` says where the text goes on.
    fn answer_start(&mut self, input: &str, i: usize, out: &mut Out) -> Flow {
        let rest = input.get(i..).unwrap_or_default();
        let body = rest.trim_start();
        let blanks = rest.len() - body.len();
        self.push_text(rest.get(..blanks).unwrap_or_default(), true);
        let i = i + blanks;
        if body.is_empty() {
            return Flow::Hold(input.len());
        }
        if self.fences.bare(body) {
            let mut at = self.loc;
            at.advance(input.as_bytes().get(..i).unwrap_or_default());
            self.bare_at = Some(at);
            out.text(self.text.flush());
        }
        Flow::Next(i)
    }

    /// At a backtick at input index `at` (`candidate` runs from it): text, a fence line that
    /// is text, or a fence held back from here.
    fn fence_open(&mut self, candidate: &str, at: usize, fenced: bool, out: &mut Out) -> Flow {
        match self.fences.open(candidate) {
            Open::More => Flow::Hold(at),
            Open::Not => {
                self.push_text("`", fenced);
                Flow::Next(at + 1)
            }
            Open::Text(len) => {
                self.push_text(candidate.get(..len).unwrap_or_default(), fenced);
                Flow::Next(at + len)
            }
            Open::Held(len) => {
                out.text(self.text.flush());
                Flow::Next(at + len)
            }
        }
    }
}

/// Where [`StreamParser::run`] goes after one step.
enum Flow {
    /// Read on from this input index.
    Next(usize),
    /// Stop: the held tail starts at this index (`input.len()`: none held).
    Hold(usize),
}

/// Parses a whole response with `config` (see [`super::parse_with`]).
pub(super) fn parse_whole(text: &str, config: ParserConfig) -> Result<Vec<ParsedPart>, ParseError> {
    let mut parser = StreamParser::new(config);
    let mut parts = parser.feed(text);
    if let Some(err) = parser.error() {
        return Err(err.clone());
    }
    for part in parser.finish()? {
        match (parts.last_mut(), part) {
            (Some(ParsedPart::Text(before)), ParsedPart::Text(after)) => before.push_str(&after),
            (_, part) => parts.push(part),
        }
    }
    Ok(parts)
}

/// A closed fence as a part: its messages if its content reads as A2UI, else its text.
fn fence_part(fence: ClosedFence, config: &ParserConfig) -> ParsedPart {
    let content = fence.json.and_then(|json| fence.text.get(json));
    match content.and_then(|content| read_fenced(content, config)) {
        Some(messages) => ParsedPart::A2ui(messages),
        None => ParsedPart::Text(fence.text),
    }
}

/// The A2UI messages a fence's content (or a bare answer) holds, if it reads as a block's
/// would and the configured check accepts them.
fn read_fenced(content: &str, config: &ParserConfig) -> Option<Vec<Value>> {
    let check = config.fenced.as_ref()?;
    let inner = ParserConfig::default().wrapped(false).limits(config.limits);
    let mut messages = Vec::new();
    for part in parse_whole(content, inner).ok()? {
        match part {
            ParsedPart::A2ui(more) => messages.extend(more),
            ParsedPart::Text(text) if text.trim().is_empty() => {}
            ParsedPart::Text(_) => return None,
        }
    }
    (!messages.is_empty() && messages.iter().all(Value::is_object) && check.is_a2ui(&messages))
        .then_some(messages)
}
