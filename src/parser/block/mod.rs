//! The JSON inside one `<a2ui-json>` block, read in a single pass.
//!
//! Why a hand-written scanner and not a JSON parser per chunk: the block arrives a few bytes at
//! a time, and re-reading its prefix on every chunk is quadratic. [`Block`] keeps a scanner
//! state (phase, a frame per open object or array, string and escape state) and looks at each
//! byte once. As it goes it copies the open message into a normalized buffer: trailing commas
//! dropped, Markdown fences and whitespace left out, smart quotes made straight, raw control
//! characters in strings escaped. The buffer is then valid JSON wherever a value closes, so
//! each closed component and message is deserialized once, by `serde_json`, from its slice.
//!
//! A closed component is cut out of the buffer as soon as it is deserialized, so the buffer
//! holds only the open message's envelope and its open component. Tags and fences are
//! recognized by the nom parsers of [`super::tags`].
//!
//! `Block` is one type in one folder: this file holds its state and the bytes around the
//! messages (phases, fences, the close tag), `message` the bytes inside a message, `healing`
//! the snapshot of a message still arriving, `emit` what to send and when, `data` the
//! streaming of a data model update member by member (its state in `data_stream`), and
//! `context` the [`Cx`] each call is lent. Only this folder
//! sees the scanner state; the driver ([`super::stream`]) sees `new`, `reset`, `advance`,
//! `snapshot` and `finish`, and lends each call a [`Cx`].

use super::error::{Locator, ParseError, ParseErrorKind};
use super::tags::{self, Match};

mod context;
mod data;
mod data_stream;
mod emit;
mod healing;
mod message;

pub(super) use context::Cx;
use data_stream::DataStream;
use emit::{ActionKind, Tracker};

/// Object or array.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Obj,
    Arr,
}

/// What an open object or array accepts next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Expect {
    /// A key or `}` (after `{` or `,`; `}` after `,` is a tolerated trailing comma).
    KeyOrEnd,
    /// `:` after a key.
    Colon,
    /// A value after `:`.
    Value,
    /// A value or `]` (after `[` or `,`).
    ValueOrEnd,
    /// `,` or the closing bracket, after a value.
    CommaOrEnd,
}

/// What an open object or array is in the A2UI message structure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    /// A top-level message object.
    Message,
    /// The message's action object, e.g. the value of `updateComponents`.
    Action,
    /// The `components` array of an action.
    Components,
    /// One component object.
    Component,
    /// The `value` object of a data model update, streamed member by member.
    Data,
    /// Anything else.
    Other,
}

/// One open object or array.
#[derive(Debug, Clone, Copy)]
struct Frame {
    kind: Kind,
    expect: Expect,
    /// Whether the buffer holds an entry of this frame (so the next needs a `,`).
    nonempty: bool,
    /// Buffer range of the current key (objects only).
    key: (usize, usize),
    role: Role,
}

/// A string or bare literal being read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Lit {
    None,
    /// A string; `key` says whether it is an object key.
    Str {
        key: bool,
    },
    /// `true`, `false`, `null` or a number, starting at this buffer index.
    Token {
        start: usize,
    },
}

/// The component object being read.
#[derive(Debug, Clone, Copy)]
struct OpenComponent {
    /// Buffer length before the component (and its separating comma).
    trunc: usize,
    /// Buffer index of its `{`.
    start: usize,
    /// The `components` frame's `nonempty` before it.
    prev_nonempty: bool,
}

/// Where in the block the scanner is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Before the JSON (whitespace, a fence).
    Pre,
    /// In the top-level message list, between messages.
    Between,
    /// Inside a message.
    Message,
    /// After the JSON (whitespace, a fence) until the close tag.
    Post,
    /// The JSON is unreadable; waiting for the close tag to report it.
    Bad,
}

/// What [`Block::advance`] stopped on.
#[derive(Debug)]
pub(super) enum Advance {
    /// The close tag ended the block; text resumes at this input index.
    Closed(usize),
    /// The input from this index may be a tag or fence still arriving: keep it for next time.
    Hold(usize),
    /// All input was read.
    NeedMore,
    /// A failure known now (an unreadable block at its close tag, or a limit).
    Failed(ParseError),
}

/// One step of the scanner.
enum Step {
    Next(usize),
    Done(Advance),
}

/// The scanner state of one block.
#[derive(Debug)]
pub(super) struct Block {
    phase: Phase,
    /// Whether the messages sit in a top-level list (else the block is one message).
    in_array: bool,
    /// What the top-level list accepts next.
    top: Expect,
    frames: Vec<Frame>,
    /// The open message, normalized, minus its closed components.
    buf: Vec<u8>,
    lit: Lit,
    /// Whether the string being read opened with a curly quote.
    smart: bool,
    /// Whether the last string byte was an unfinished backslash escape.
    esc: bool,
    /// Buffer index of the open string's opening quote.
    str_start: usize,
    comp: Option<OpenComponent>,
    /// The open message's action name (`updateComponents`, `surfaceUpdate`, ...).
    action: Option<String>,
    /// How `action` is streamed, kept so a chunk does not compare the name again.
    kind: Option<ActionKind>,
    tracker: Tracker,
    /// The data model update being streamed per path, if any.
    data: Option<DataStream>,
    /// Bytes of this block read so far.
    bytes: usize,
    /// The first syntax error, reported when the block closes.
    bad: Option<ParseError>,
    unwrapped: bool,
}

impl Block {
    /// A block just after its open tag (or a whole unwrapped response).
    pub(super) fn new(unwrapped: bool) -> Self {
        Self {
            phase: Phase::Pre,
            in_array: false,
            top: Expect::ValueOrEnd,
            frames: Vec::new(),
            buf: Vec::new(),
            lit: Lit::None,
            smart: false,
            esc: false,
            str_start: 0,
            comp: None,
            action: None,
            kind: None,
            tracker: Tracker::default(),
            data: None,
            bytes: 0,
            bad: None,
            unwrapped,
        }
    }

    /// Starts a new block, keeping allocations.
    pub(super) fn reset(&mut self) {
        self.clear_message();
        *self = Self {
            frames: std::mem::take(&mut self.frames),
            buf: std::mem::take(&mut self.buf),
            tracker: std::mem::take(&mut self.tracker),
            ..Self::new(self.unwrapped)
        };
    }

    /// Forgets the open message (its frames, text, component, action and data stream),
    /// keeping allocations.
    fn clear_message(&mut self) {
        self.frames.clear();
        self.buf.clear();
        self.comp = None;
        self.action = None;
        self.kind = None;
        self.tracker.reset();
        self.data = None;
    }

    /// Reads `input` from `start`, each byte once, until the block closes or input runs out.
    ///
    /// # Complexity
    ///
    /// Linear in the bytes read, plus one `serde_json` pass over each closed component and
    /// message envelope.
    pub(super) fn advance(&mut self, input: &str, start: usize, cx: &mut Cx<'_>) -> Advance {
        let max = cx.config.limits.max_block_bytes;
        let stop = input
            .len()
            .min(start.saturating_add(max.saturating_sub(self.bytes)));
        let result = self.scan(input, start, stop, cx);
        let end = match &result {
            Advance::Closed(n) | Advance::Hold(n) => *n,
            Advance::NeedMore => stop,
            Advance::Failed(_) => return result,
        };
        self.bytes += end.saturating_sub(start);
        if matches!(result, Advance::NeedMore) && stop < input.len() {
            let message = format!("an a2ui-json block is longer than the limit of {max} bytes");
            return Advance::Failed(cx.loc.error(ParseErrorKind::Limit, message, input, stop));
        }
        result
    }

    /// The stream ended inside this block; `tail` is input held back for a tag still arriving.
    ///
    /// A block whose messages all closed is accepted without its close tag.
    pub(super) fn finish(&mut self, tail: &str, loc: &Locator) -> Result<(), ParseError> {
        let at = tail.len();
        match self.phase {
            Phase::Between | Phase::Post => Ok(()),
            Phase::Bad => Err(self.bad.take().unwrap_or_else(|| {
                loc.error(
                    ParseErrorKind::Syntax,
                    "unreadable a2ui-json block",
                    tail,
                    at,
                )
            })),
            Phase::Message => Err(loc.error(
                ParseErrorKind::Truncated,
                "the stream ended inside an unfinished A2UI message",
                tail,
                at,
            )),
            Phase::Pre if self.unwrapped => Err(loc.error(
                ParseErrorKind::Syntax,
                "the payload holds no JSON",
                tail,
                at,
            )),
            Phase::Pre => Err(loc.error(
                ParseErrorKind::Truncated,
                "the stream ended inside an a2ui-json block that holds no JSON",
                tail,
                at,
            )),
        }
    }

    fn scan(&mut self, input: &str, mut i: usize, stop: usize, cx: &mut Cx<'_>) -> Advance {
        let all = input.as_bytes();
        let bytes = all.get(..stop).unwrap_or(all);
        loop {
            if matches!(self.lit, Lit::Str { .. }) {
                match self.scan_string(bytes, i) {
                    Some(next) => i = next,
                    None => return Advance::NeedMore,
                }
            }
            let Some(&b) = bytes.get(i) else {
                return Advance::NeedMore;
            };
            let step = match self.phase {
                Phase::Message => self.message_byte(input, i, b, cx),
                Phase::Pre => self.pre_byte(input, i, b, cx),
                Phase::Between => self.between_byte(input, i, b, cx),
                Phase::Post => self.post_byte(input, i, b, cx),
                Phase::Bad => self.bad_byte(input, bytes, i),
            };
            match step {
                Step::Next(next) => i = next,
                Step::Done(advance) => return advance,
            }
        }
    }

    /// Reads the start of `chunk` that continues the open string up to the first byte the
    /// string must look at (see [`is_special`]): the common case at chunks of a few bytes,
    /// done without the general loop and its bookkeeping. Returns how many bytes it read (the
    /// general loop, [`advance`](Self::advance), goes on from there), or `None` if no string
    /// is open (or the chunk may cross the size limit), having read nothing.
    #[inline]
    pub(super) fn continue_string(
        &mut self,
        chunk: &[u8],
        max_block_bytes: usize,
    ) -> Option<usize> {
        if !matches!(self.lit, Lit::Str { .. })
            || self.esc
            || self.bytes.saturating_add(chunk.len()) > max_block_bytes
        {
            return None;
        }
        let smart = self.smart;
        let n = chunk
            .iter()
            .position(|&c| is_special(c, smart))
            .unwrap_or(chunk.len());
        self.buf
            .extend_from_slice(chunk.get(..n).unwrap_or_default());
        self.bytes += n;
        Some(n)
    }

    /// Copies string bytes up to the closing quote; `None` when input ran out first.
    fn scan_string(&mut self, bytes: &[u8], mut i: usize) -> Option<usize> {
        loop {
            let rest = bytes.get(i..)?;
            if self.esc {
                let &c = rest.first()?;
                self.buf.push(c);
                self.esc = false;
                i += 1;
                continue;
            }
            let smart = self.smart;
            let Some(n) = rest.iter().position(|&c| is_special(c, smart)) else {
                self.buf.extend_from_slice(rest);
                return None;
            };
            self.buf.extend_from_slice(rest.get(..n)?);
            i += n;
            match rest.get(n..)? {
                [b'"', ..] if !smart => return Some(self.end_string(i + 1)),
                [b'"', ..] => {
                    self.buf.extend_from_slice(b"\\\"");
                    i += 1;
                }
                [b'\\', ..] => {
                    self.buf.push(b'\\');
                    self.esc = true;
                    i += 1;
                }
                [0xE2, 0x80, 0x9D, ..] => return Some(self.end_string(i + 3)),
                [0xE2, ..] => {
                    self.buf.push(0xE2);
                    i += 1;
                }
                [c, ..] => {
                    let escaped = match c {
                        b'\n' => "\\n".to_owned(),
                        b'\r' => "\\r".to_owned(),
                        b'\t' => "\\t".to_owned(),
                        c => format!("\\u{c:04x}"),
                    };
                    self.buf.extend_from_slice(escaped.as_bytes());
                    i += 1;
                }
                [] => return None,
            }
        }
    }

    fn end_string(&mut self, next: usize) -> usize {
        self.buf.push(b'"');
        if let Lit::Str { key: true } = self.lit {
            let range = (self.str_start + 1, self.buf.len() - 1);
            if let Some(frame) = self.frames.last_mut() {
                frame.key = range;
                frame.expect = Expect::Colon;
            }
        }
        self.lit = Lit::None;
        next
    }

    fn pre_byte(&mut self, input: &str, i: usize, b: u8, cx: &mut Cx<'_>) -> Step {
        match b {
            b' ' | b'\t' | b'\n' | b'\r' => Step::Next(i + 1),
            b'`' => self.fence(input, i, cx),
            b'[' => {
                self.phase = Phase::Between;
                self.in_array = true;
                self.top = Expect::ValueOrEnd;
                Step::Next(i + 1)
            }
            b'{' => {
                self.in_array = false;
                self.start_message(input, i, cx)
            }
            b'<' => self.close_tag(input, i, cx, Some("the a2ui-json block holds no JSON")),
            _ => self.fail(
                input,
                i,
                cx,
                "expected `[` or `{` to begin the A2UI messages",
            ),
        }
    }

    fn between_byte(&mut self, input: &str, i: usize, b: u8, cx: &mut Cx<'_>) -> Step {
        match b {
            b' ' | b'\t' | b'\n' | b'\r' => Step::Next(i + 1),
            b',' if self.top == Expect::CommaOrEnd => {
                self.top = Expect::ValueOrEnd;
                Step::Next(i + 1)
            }
            b']' => {
                self.phase = Phase::Post;
                Step::Next(i + 1)
            }
            b'{' if self.top == Expect::ValueOrEnd => {
                self.top = Expect::CommaOrEnd;
                self.start_message(input, i, cx)
            }
            b'<' => self.close_tag(input, i, cx, None),
            _ => self.fail(input, i, cx, "expected a message object, `,` or `]`"),
        }
    }

    fn post_byte(&mut self, input: &str, i: usize, b: u8, cx: &mut Cx<'_>) -> Step {
        match b {
            b' ' | b'\t' | b'\n' | b'\r' => Step::Next(i + 1),
            b'`' => self.fence(input, i, cx),
            b'<' => self.close_tag(input, i, cx, None),
            _ => self.fail(input, i, cx, "unexpected text after the A2UI messages"),
        }
    }

    /// Skips a Markdown fence around the JSON.
    fn fence(&mut self, input: &str, i: usize, cx: &mut Cx<'_>) -> Step {
        match tags::bounded(tags::fence, input.get(i..).unwrap_or_default()) {
            Match::Yes(len) => Step::Next(i + len),
            Match::More => Step::Done(Advance::Hold(i)),
            Match::No => self.fail(input, i, cx, "unexpected '`'"),
        }
    }

    /// At a `<` outside any string: the close tag (or an open tag where the block may close),
    /// or not. `early` is the error to raise if the block may not close here.
    fn close_tag(&mut self, input: &str, i: usize, cx: &mut Cx<'_>, early: Option<&str>) -> Step {
        match tags::bounded(tags::close_tag, input.get(i..).unwrap_or_default()) {
            Match::Yes(len) => match early {
                None => Step::Done(Advance::Closed(i + len)),
                Some(message) => Step::Done(Advance::Failed(cx.loc.error(
                    ParseErrorKind::Syntax,
                    message,
                    input,
                    i,
                ))),
            },
            Match::More => Step::Done(Advance::Hold(i)),
            // Small models close a block with a second `<a2ui-json>`: where the block may
            // close, that reads as its close tag.
            Match::No if early.is_none() => {
                match tags::bounded(tags::open_tag, input.get(i..).unwrap_or_default()) {
                    Match::Yes(len) => Step::Done(Advance::Closed(i + len)),
                    Match::More => Step::Done(Advance::Hold(i)),
                    Match::No => self.fail(input, i, cx, "unexpected '<'"),
                }
            }
            Match::No => self.fail(input, i, cx, "unexpected '<'"),
        }
    }

    /// In an unreadable block: look for the close tag, then raise the first error.
    fn bad_byte(&mut self, input: &str, bytes: &[u8], i: usize) -> Step {
        let rest = bytes.get(i..).unwrap_or_default();
        let Some(n) = rest.iter().position(|&c| c == b'<') else {
            return Step::Done(Advance::NeedMore);
        };
        let at = i + n;
        match tags::bounded(tags::close_tag, input.get(at..).unwrap_or_default()) {
            Match::Yes(_) => match self.bad.take() {
                Some(err) => Step::Done(Advance::Failed(err)),
                None => Step::Next(at + 1),
            },
            Match::More => Step::Done(Advance::Hold(at)),
            Match::No => Step::Next(at + 1),
        }
    }

    /// Marks the block unreadable from `i`; the error is raised at its close tag.
    fn fail(&mut self, input: &str, i: usize, cx: &Cx<'_>, message: &str) -> Step {
        if self.bad.is_none() {
            self.bad = Some(cx.loc.error(ParseErrorKind::Syntax, message, input, i));
        }
        self.phase = Phase::Bad;
        self.lit = Lit::None;
        Step::Next(i)
    }

    fn depth_error(&self, input: &str, i: usize, cx: &Cx<'_>) -> Step {
        let max = cx.config.limits.max_depth;
        let message = format!("A2UI JSON nests deeper than the limit of {max}");
        Step::Done(Advance::Failed(cx.loc.error(
            ParseErrorKind::Limit,
            message,
            input,
            i,
        )))
    }

    fn start_message(&mut self, input: &str, i: usize, cx: &mut Cx<'_>) -> Step {
        if 1 + usize::from(self.in_array) > cx.config.limits.max_depth {
            return self.depth_error(input, i, cx);
        }
        self.phase = Phase::Message;
        self.clear_message();
        self.buf.push(b'{');
        self.frames.push(Frame {
            kind: Kind::Obj,
            expect: Expect::KeyOrEnd,
            nonempty: false,
            key: (0, 0),
            role: Role::Message,
        });
        Step::Next(i + 1)
    }
}

/// Whether a byte inside a string needs a look: a quote or backslash ends or escapes, a
/// control character is escaped, and in a string opened by a curly quote `0xE2` may start
/// the closing one.
#[inline]
fn is_special(c: u8, smart: bool) -> bool {
    c == b'"' || c == b'\\' || c < 0x20 || (smart && c == 0xE2)
}
