//! Why a response could not be read, and where.
//!
//! The parser never fails for want of input: a chunk that ends inside a tag or a message is
//! held until the next one. A [`ParseError`] is for a block whose JSON cannot be read once it
//! closes, for a stream that ends inside a message, and for input past a configured
//! [`Limits`](super::Limits). Like `serde_json::Error` it knows its position: a byte offset
//! into the whole stream, a line and a column (both from 1, the column in bytes).

/// What kind of failure a [`ParseError`] reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ParseErrorKind {
    /// A block's payload is not readable as A2UI JSON messages.
    Syntax,
    /// A block grew past [`Limits::max_block_bytes`](super::Limits::max_block_bytes) or nested
    /// deeper than [`Limits::max_depth`](super::Limits::max_depth).
    Limit,
    /// The stream ended inside a block before its messages were complete.
    Truncated,
}

impl ParseErrorKind {
    /// A short lowercase name: `syntax`, `limit` or `truncated`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Syntax => "syntax",
            Self::Limit => "limit",
            Self::Truncated => "truncated",
        }
    }
}

/// A response the parser could not read, with its position in the stream.
///
/// `Display` reads like `serde_json`'s: a message then `at line L column C`.
///
/// # Example
///
/// ```
/// use a2ui_agent::parser::{parse, ParseErrorKind};
///
/// let err = parse("Hi.\n<a2ui-json>not json</a2ui-json>").unwrap_err();
/// assert_eq!(err.kind(), ParseErrorKind::Syntax);
/// assert_eq!((err.line(), err.column()), (2, 12));
/// assert!(err.to_string().ends_with("at line 2 column 12"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{} at line {} column {}", .inner.message, .inner.line, .inner.column)]
pub struct ParseError {
    inner: Box<ErrorImpl>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct ErrorImpl {
    kind: ParseErrorKind,
    message: String,
    offset: usize,
    line: usize,
    column: usize,
    excerpt: String,
}

impl ParseError {
    /// What kind of failure this is.
    pub fn kind(&self) -> ParseErrorKind {
        self.inner.kind
    }

    /// What went wrong, without the position.
    pub fn message(&self) -> &str {
        &self.inner.message
    }

    /// Byte offset of the failure from the start of the whole stream.
    pub fn offset(&self) -> usize {
        self.inner.offset
    }

    /// Line of the failure, counting from 1.
    pub fn line(&self) -> usize {
        self.inner.line
    }

    /// Column of the failure in bytes, counting from 1.
    pub fn column(&self) -> usize {
        self.inner.column
    }

    /// A few characters of input around the failure (never split inside a character).
    pub fn excerpt(&self) -> &str {
        &self.inner.excerpt
    }
}

/// How many excerpt bytes to show on each side of a failure.
const EXCERPT_SIDE: usize = 24;

/// Where the current input starts in the stream, so a position inside it can be reported.
///
/// Only the newlines of consumed input are counted (once per chunk); the input itself is not
/// kept, which is why an error is built while its input is still at hand.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Locator {
    /// Stream offset of the first byte of the current input.
    base: usize,
    /// Newlines before `base`.
    lines: usize,
    /// Stream offset where the line holding `base` starts.
    line_start: usize,
}

impl Locator {
    /// Moves past `consumed`, the leading part of the current input that will not be seen again.
    #[inline]
    pub(crate) fn advance(&mut self, consumed: &[u8]) {
        if let Some(last) = consumed.iter().rposition(|&b| b == b'\n') {
            self.line_start = self.base + last + 1;
            self.lines += consumed.iter().filter(|&&b| b == b'\n').count();
        }
        self.base += consumed.len();
    }

    /// An error of `kind` at byte `at` of `input` (the current input).
    pub(crate) fn error(
        &self,
        kind: ParseErrorKind,
        message: impl Into<String>,
        input: &str,
        at: usize,
    ) -> ParseError {
        let at = floor_boundary(input, at.min(input.len()));
        let before = input.as_bytes().get(..at).unwrap_or_default();
        let newlines = before.iter().filter(|&&b| b == b'\n').count();
        let line_start = match before.iter().rposition(|&b| b == b'\n') {
            Some(last) => self.base + last + 1,
            None => self.line_start,
        };
        let offset = self.base + at;
        let from = floor_boundary(input, at.saturating_sub(EXCERPT_SIDE));
        let to = floor_boundary(input, (at + EXCERPT_SIDE).min(input.len()));
        ParseError {
            inner: Box::new(ErrorImpl {
                kind,
                message: message.into(),
                offset,
                line: self.lines + newlines + 1,
                column: offset - line_start + 1,
                excerpt: input.get(from..to).unwrap_or_default().to_owned(),
            }),
        }
    }
}

/// The greatest char boundary of `s` at or before `at`.
pub(crate) fn floor_boundary(s: &str, mut at: usize) -> usize {
    at = at.min(s.len());
    while !s.is_char_boundary(at) {
        at -= 1;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_error_counts_lines_and_columns_across_consumed_chunks() {
        let mut loc = Locator::default();
        loc.advance(b"ab\ncd");
        let err = loc.error(ParseErrorKind::Syntax, "boom", "ef\ngh", 4);
        assert_eq!(err.offset(), 9);
        assert_eq!(err.line(), 3);
        assert_eq!(err.column(), 2);
        assert_eq!(err.to_string(), "boom at line 3 column 2");
    }

    #[test]
    fn an_excerpt_never_splits_a_character() {
        let text = "ééééééééééééééééééééééééééééé";
        let err = Locator::default().error(ParseErrorKind::Syntax, "x", text, 27);
        assert!(!err.excerpt().is_empty());
        assert!(text.contains(err.excerpt()));
    }
}
