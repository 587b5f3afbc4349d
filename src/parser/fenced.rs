//! Markdown fences in the text: A2UI JSON a model wrote in ```` ```json ```` instead of an
//! `<a2ui-json>` block.
//!
//! Small models often answer with the messages in a fence and no tags. With a
//! [`FencedCheck`](super::FencedCheck) configured, a fence that opens on a line of its own
//! with no language or a JSON one, and whose first character is `[` or `{`, is held back
//! (nothing of it is text yet) until its closing fence; then it is read whole as a block is
//! and becomes one A2UI part if the check accepts its messages, or the text it was. Any
//! other fence (a code sample) is text as it streams, and its closing fence is not taken for
//! an opening one. Fences are only looked at until a tagged block opens.

use serde_json::Value;

use super::config::ParserConfig;
use super::tags::{MAX_TAG_BYTES, fence_line, json_language};
use super::{ParsedPart, parse_with};

/// Where the text is, fence-wise.
#[derive(Debug, Default)]
enum State {
    /// Outside any fence.
    #[default]
    Outside,
    /// Inside a fence that is text (a code sample).
    Code,
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
}

impl Default for Fences {
    fn default() -> Self {
        Self {
            state: State::Outside,
            line_blank: true,
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
    /// It is A2UI; read on from the index.
    A2ui(Vec<Value>, usize),
}

impl Fences {
    /// Notes text that went out (or into the held fence), for where lines start.
    pub(crate) fn note(&mut self, text: &str) {
        note(&mut self.line_blank, text);
    }

    /// Whether a fence is being held back.
    pub(crate) fn holding(&self) -> bool {
        matches!(self.state, State::Held { .. })
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
            let held = std::mem::take(buf);
            let start = *content;
            self.state = State::Outside;
            self.line_blank = true;
            return match read(held.get(start..).unwrap_or_default(), config) {
                Some(messages) => Held::A2ui(messages, next),
                None => Held::Text(held + candidate.get(..len).unwrap_or_default(), next),
            };
        }
    }

    /// The end of the response: a fence still held is read as if it closed here (after
    /// `tail`, the input held back), A2UI if its check accepts it, text otherwise.
    pub(crate) fn finish(&mut self, tail: &str, config: &ParserConfig) -> Option<ParsedPart> {
        let State::Held { buf, content, json } = std::mem::take(&mut self.state) else {
            return None;
        };
        let mut held = buf;
        held.push_str(tail);
        if json {
            if let Some(messages) = read(held.get(content..).unwrap_or_default(), config) {
                return Some(ParsedPart::A2ui(messages));
            }
        }
        Some(ParsedPart::Text(held))
    }

    /// A held fence past the block limit is text (and the rest of it too).
    fn bounded(&mut self, next: usize, config: &ParserConfig) -> Held {
        match &mut self.state {
            State::Held { buf, .. } if buf.len() > config.limits.max_block_bytes => {
                let text = std::mem::take(buf);
                self.state = State::Code;
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

/// The A2UI messages a fence's content holds, if it reads as a block's would and the
/// configured check accepts them.
fn read(content: &str, config: &ParserConfig) -> Option<Vec<Value>> {
    let check = config.fenced.as_ref()?;
    let inner = ParserConfig::default().wrapped(false).limits(config.limits);
    let mut messages = Vec::new();
    for part in parse_with(content, inner).ok()? {
        match part {
            ParsedPart::A2ui(more) => messages.extend(more),
            ParsedPart::Text(text) if text.trim().is_empty() => {}
            ParsedPart::Text(_) => return None,
        }
    }
    (!messages.is_empty() && messages.iter().all(Value::is_object) && check.is_a2ui(&messages))
        .then_some(messages)
}
