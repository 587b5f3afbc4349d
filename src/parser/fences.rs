//! Markdown fences in the text: A2UI JSON a model wrote in ```` ```json ```` instead of an
//! `<a2ui-json>` block, or bare, as its whole answer.
//!
//! Small models often answer with the messages in a fence and no tags. With a
//! [`FencedCheck`](super::FencedCheck) configured, a fence that opens on a line of its own
//! with no language or a JSON one, and whose first character is `[` or `{`, is held back
//! (nothing of it is text yet) until its closing fence; then it is read whole as a block is
//! and becomes one A2UI part if the check accepts its messages, or the text it was. Any
//! other fence (a code sample) is text as it streams, and its closing fence is not taken for
//! an opening one. Fences are only looked at until a tagged block opens.
//!
//! An answer whose first character (after blanks) is `[` or `{` is held whole, to its end:
//! small models' repair turns often write the messages with no tags and no fence. It becomes
//! one A2UI part if the check accepts it; otherwise it is read again from its start as any
//! answer is (a tagged block after bare JSON is still a block, an error in it still at its
//! place in the answer).

use std::ops::Range;

use super::config::ParserConfig;
use super::tags::{MAX_TAG_BYTES, fence_line, json_language};

/// Where the text is, fence-wise.
#[derive(Debug, Default)]
enum State {
    /// Outside any fence.
    #[default]
    Outside,
    /// Inside a fence that is text (a code sample).
    Code,
    /// A whole answer that began with `[` or `{`: held back to its end, where it is read.
    Bare(String),
    /// Inside a fence that may hold A2UI, held back.
    Held {
        /// Everything since the fence's first backtick.
        buf: String,
        /// Where its content starts in `buf` (after the fence line).
        content: usize,
        /// Whether its first character was `[` or `{`.
        json: bool,
    },
}

/// The fence state of a response's text.
#[derive(Debug)]
pub(crate) struct Fences {
    state: State,
    /// Whether the current line holds only blanks so far (a fence must start a line).
    line_blank: bool,
    /// Whether the answer so far is blanks only (a bare answer starts there).
    blank: bool,
}

impl Default for Fences {
    fn default() -> Self {
        Self {
            state: State::Outside,
            line_blank: true,
            blank: true,
        }
    }
}

/// What a backtick in the text starts.
pub(crate) enum Open {
    /// Not a fence: the backtick is text.
    Not,
    /// Cannot tell yet: hold the input from the backtick.
    More,
    /// A fence line that is text, this many bytes long.
    Text(usize),
    /// A fence that may hold A2UI opened, its line this many bytes long: held from now.
    Held(usize),
}

/// What the held fence gave.
pub(crate) enum Held {
    /// Nothing yet: hold the input from here (`input.len()`: none held).
    More(usize),
    /// It is text; read on from the index.
    Text(String, usize),
    /// It closed; read on from the index.
    Closed(ClosedFence, usize),
}

/// A fence that may hold A2UI, closed (or cut off by the end of the answer). Whether it does
/// is for the driver to read ([`super::stream`]), since reading it takes a whole parser.
pub(crate) struct ClosedFence {
    /// The fence as written, its fence lines included: the text it is if it is not A2UI.
    pub(crate) text: String,
    /// Where its content sits in `text`, when that began like JSON (`[` or `{`).
    pub(crate) json: Option<Range<usize>>,
}

impl Fences {
    /// Notes text that went out (or into the held fence), for where lines start.
    pub(crate) fn note(&mut self, text: &str) {
        note(&mut self.line_blank, text);
        self.blank = self.blank && text.bytes().all(|b| b.is_ascii_whitespace());
    }

    /// Whether a fence (or a bare answer) is being held back.
    pub(crate) fn holding(&self) -> bool {
        matches!(self.state, State::Held { .. } | State::Bare(_))
    }

    /// The bare answer held back, if the answer is one (taken: the fences are then done).
    pub(crate) fn take_bare(&mut self) -> Option<String> {
        match std::mem::take(&mut self.state) {
            State::Bare(held) => Some(held),
            other => {
                self.state = other;
                None
            }
        }
    }

    /// Fences that never take an answer for bare JSON (one being read again).
    pub(crate) fn never_bare(&mut self) {
        self.blank = false;
    }

    /// Whether nothing but blanks came yet, so the answer may still turn out bare.
    pub(crate) fn at_start(&self) -> bool {
        self.blank && matches!(self.state, State::Outside)
    }

    /// At the first character of the answer that is not a blank (`rest` starts there):
    /// whether the answer is bare JSON, held from here to its end.
    pub(crate) fn bare(&mut self, rest: &str) -> bool {
        if !self.at_start() {
            return false;
        }
        self.blank = false;
        if rest.starts_with(['[', '{']) {
            self.state = State::Bare(String::new());
            return true;
        }
        false
    }

    /// At a backtick in the text: what it starts. `candidate` runs from it to the input's end.
    pub(crate) fn open(&mut self, candidate: &str) -> Open {
        if !self.line_blank {
            return Open::Not;
        }
        let language = match fence_line(candidate) {
            Ok((rest, language)) if candidate.len() - rest.len() <= MAX_TAG_BYTES => language,
            Err(nom::Err::Incomplete(_)) if candidate.len() < MAX_TAG_BYTES => return Open::More,
            _ => return Open::Not,
        };
        let len = line_len(candidate);
        match self.state {
            State::Code => {
                self.state = State::Outside;
                Open::Text(len)
            }
            _ if json_language(language) => {
                self.state = State::Held {
                    buf: candidate.get(..len).unwrap_or_default().to_owned(),
                    content: len,
                    json: false,
                };
                self.line_blank = true;
                Open::Held(len)
            }
            _ => {
                self.state = State::Code;
                Open::Text(len)
            }
        }
    }

    /// Reads `input` from `i` into the held fence.
    pub(crate) fn held(&mut self, input: &str, mut i: usize, config: &ParserConfig) -> Held {
        if let State::Bare(buf) = &mut self.state {
            buf.push_str(input.get(i..).unwrap_or_default());
            return self.bounded(input.len(), config);
        }
        let State::Held { buf, content, json } = &mut self.state else {
            return Held::More(i);
        };
        let line_blank = &mut self.line_blank;
        if !*json {
            let rest = input.get(i..).unwrap_or_default();
            let body = rest.trim_start_matches([' ', '\t', '\r', '\n']);
            let blanks = rest.get(..rest.len() - body.len()).unwrap_or_default();
            buf.push_str(blanks);
            note(line_blank, blanks);
            i += blanks.len();
            if body.is_empty() {
                return Held::More(input.len());
            }
            if !body.starts_with(['[', '{']) {
                let text = std::mem::take(buf);
                self.state = State::Code;
                return Held::Text(text, i);
            }
            *json = true;
        }
        loop {
            let rest = input.get(i..).unwrap_or_default();
            let Some(tick) = rest.find('`') else {
                buf.push_str(rest);
                note(line_blank, rest);
                return self.bounded(input.len(), config);
            };
            let before = rest.get(..tick).unwrap_or_default();
            buf.push_str(before);
            note(line_blank, before);
            let at = i + tick;
            let candidate = input.get(at..).unwrap_or_default();
            let closing = *line_blank
                && match fence_line(candidate) {
                    Ok((_, "")) => true,
                    Err(nom::Err::Incomplete(_)) if candidate.len() < MAX_TAG_BYTES => {
                        return Held::More(at);
                    }
                    _ => false,
                };
            if !closing {
                buf.push('`');
                *line_blank = false;
                i = at + 1;
                if buf.len() > config.limits.max_block_bytes {
                    return self.bounded(i, config);
                }
                continue;
            }
            let len = line_len(candidate);
            let next = at + len;
            let mut text = std::mem::take(buf);
            let json = Some(*content..text.len());
            text.push_str(candidate.get(..len).unwrap_or_default());
            self.state = State::Outside;
            self.line_blank = true;
            return Held::Closed(ClosedFence { text, json }, next);
        }
    }

    /// The end of the response: a fence still held, as if it closed here (after `tail`, the
    /// input held back).
    pub(crate) fn finish(&mut self, tail: &str) -> Option<ClosedFence> {
        let (mut text, content, json) = match std::mem::take(&mut self.state) {
            State::Held { buf, content, json } => (buf, content, json),
            // A bare answer is taken (`take_bare`) before the fences finish.
            _ => return None,
        };
        text.push_str(tail);
        let json = json.then_some(content..text.len());
        Some(ClosedFence { text, json })
    }

    /// A held fence past the block limit is text (and the rest of it too).
    fn bounded(&mut self, next: usize, config: &ParserConfig) -> Held {
        match &mut self.state {
            State::Held { buf, .. } if buf.len() > config.limits.max_block_bytes => {
                let text = std::mem::take(buf);
                self.state = State::Code;
                Held::Text(text, next)
            }
            State::Bare(buf) if buf.len() > config.limits.max_block_bytes => {
                let text = std::mem::take(buf);
                self.state = State::Outside;
                Held::Text(text, next)
            }
            _ => Held::More(next),
        }
    }
}

/// Updates `line_blank` (whether the current line holds only blanks) past `text`.
fn note(line_blank: &mut bool, text: &str) {
    let blank = |s: &str| s.bytes().all(|b| b == b' ' || b == b'\t');
    match text.rfind('\n') {
        Some(at) => *line_blank = blank(text.get(at + 1..).unwrap_or_default()),
        None => *line_blank = *line_blank && blank(text),
    }
}

/// The length of the fence line at the start of `text` (it parsed, so it ends in `\n`).
fn line_len(text: &str) -> usize {
    text.find('\n').map_or(text.len(), |at| at + 1)
}
