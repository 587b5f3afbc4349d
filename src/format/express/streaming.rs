//! Reading an Express response as it streams.
//!
//! Text before a block goes out when the block opens. Inside a block, each statement that
//! completes (read whole and followed by a separator) is compiled with the statements before
//! it, and [`ClientView`] sends what of that compile is ready; when the block closes, its
//! whole compile is what counts, and only what the client lacks of it goes out. A block
//! compiled at its close is therefore sent as the one-shot compile would leave the renderer,
//! however the stream was cut.
//!
//! Reading again from the last closed block at each chunk would cost time quadratic in a
//! long block, so the reader reads on only at a chunk that can end something (a newline, a
//! `;`, a tag's `>`, a fence's backquote) and within a budget of work per response; past
//! it, the rest is read once at the end, as before streaming.

use serde_json::Value;

use super::error::Failure;
use super::response::{RawPart, unwrap_with_ends};
use super::syntax::complete_statements;
use super::tree::Statement;
use super::view::ClientView;
use crate::a2ui::Validator;
use crate::parser::{Locator, ParseError, ParseErrorKind, ParsedPart};

/// Bytes read and compiled again per response before the reader stops streaming.
const WORK_BUDGET: usize = 32 << 20;

/// Compiles statements and blocks for the reader.
pub(super) trait Compiler: Send {
    /// The messages of `statements` (best effort: `None` when they do not compile).
    fn statements(&self, statements: &[Statement]) -> Option<Vec<Value>>;
    /// The block `source` at byte `offset` of `whole`.
    fn block(&self, whole: &str, source: &str, offset: usize) -> Result<Vec<Value>, Failure>;
    /// The validator of the bound catalogs (`None` before binding).
    fn validator(&self) -> Option<Validator>;
}

/// Reads a response as it streams (see the module docs).
pub(super) struct StreamReader<C> {
    compiler: C,
    text: String,
    max_bytes: usize,
    wrapped: bool,
    error: Option<ParseError>,
    /// Where the text not yet settled starts: after the last block that closed.
    settled: usize,
    /// Whether the text before the open block went out.
    text_out: bool,
    open: Option<OpenBlock>,
    block_ends: Vec<usize>,
    work: usize,
}

/// The block being streamed.
struct OpenBlock {
    /// Where in the response the statements read so far end.
    read_to: usize,
    statements: Vec<Statement>,
    view: ClientView,
}

impl<C: Compiler> StreamReader<C> {
    pub(super) fn new(compiler: C, max_bytes: usize, wrapped: bool) -> Self {
        Self {
            compiler,
            text: String::new(),
            max_bytes,
            wrapped,
            error: None,
            settled: 0,
            text_out: false,
            open: None,
            block_ends: Vec::new(),
            work: 0,
        }
    }

    pub(super) fn feed(&mut self, chunk: &str) -> Vec<ParsedPart> {
        self.block_ends.clear();
        if self.error.is_some() {
            return Vec::new();
        }
        if self.text.len() + chunk.len() > self.max_bytes {
            self.error = Some(Locator::default().error(
                ParseErrorKind::Limit,
                format!(
                    "an Express response may hold at most {} bytes",
                    self.max_bytes
                ),
                &self.text,
                self.text.len(),
            ));
            return Vec::new();
        }
        self.text.push_str(chunk);
        if self.work > WORK_BUDGET || !chunk.contains(['\n', ';', '>', '`']) {
            return Vec::new();
        }
        let mut out = Vec::new();
        if let Err(failure) = self.advance(false, &mut out) {
            self.error = Some(failure.into_parse_error());
        }
        out
    }

    pub(super) fn error(&self) -> Option<&ParseError> {
        self.error.as_ref()
    }

    pub(super) fn block_ends(&self) -> &[usize] {
        &self.block_ends
    }

    pub(super) fn finish(mut self) -> Result<Vec<ParsedPart>, ParseError> {
        if let Some(error) = self.error.take() {
            return Err(error);
        }
        let mut out = Vec::new();
        self.advance(true, &mut out)
            .map_err(Failure::into_parse_error)?;
        Ok(out)
    }

    /// The parts of the raw parts after `settled`, each with where it ends.
    fn raw_parts(&self) -> Vec<(RawPart, usize)> {
        let rest = self.text.get(self.settled..).unwrap_or_default();
        if self.wrapped {
            return unwrap_with_ends(rest);
        }
        let source = rest.trim();
        let offset = rest.len() - rest.trim_start().len();
        let part = RawPart::Block {
            source: source.to_owned(),
            offset,
            closed: false,
        };
        vec![(part, rest.len())]
    }

    /// Reads on from `settled` into `out`; `at_end`: the response is finished.
    fn advance(&mut self, at_end: bool, out: &mut Vec<ParsedPart>) -> Result<(), Failure> {
        'again: loop {
            if !self.wrapped && self.settled > 0 {
                return Ok(());
            }
            let rest_len = self.text.len() - self.settled;
            self.work = self.work.saturating_add(rest_len);
            let parts = self.raw_parts();
            let count = parts.len();
            for (index, (part, end)) in parts.into_iter().enumerate() {
                match part {
                    RawPart::Text(text) if index + 1 < count || at_end => {
                        if !self.text_out {
                            out.push(ParsedPart::Text(text));
                        }
                        self.text_out = true;
                        if at_end && index + 1 == count {
                            return Ok(());
                        }
                    }
                    RawPart::Text(_) => return Ok(()),
                    RawPart::Block {
                        source,
                        offset,
                        closed,
                    } if closed || at_end => {
                        let at = self.settled + offset;
                        if !closed && self.wrapped {
                            return Err(truncated(&self.text, at));
                        }
                        let whole = self.compiler.block(&self.text, &source, at)?;
                        let messages = match self.open.take() {
                            Some(open) => open.view.rest(whole),
                            None => whole,
                        };
                        if !messages.is_empty() {
                            out.push(ParsedPart::A2ui(messages));
                        }
                        if closed {
                            self.block_ends.push(out.len());
                        }
                        self.settled += end;
                        self.text_out = false;
                        continue 'again;
                    }
                    RawPart::Block { offset, .. } => {
                        // Untrimmed: the separator after the last statement counts.
                        let at = self.settled + offset;
                        let source = self.text.get(at..).unwrap_or_default().to_owned();
                        self.stream(&source, at, out);
                        return Ok(());
                    }
                }
            }
            return Ok(());
        }
    }

    /// Sends what the statements of the open block `source` (at byte `at`) completed.
    fn stream(&mut self, source: &str, at: usize, out: &mut Vec<ParsedPart>) {
        if self.wrapped && !self.opened_by_tag(at) {
            return;
        }
        let Some(validator) = self.compiler.validator() else {
            return;
        };
        let open = self.open.get_or_insert_with(|| OpenBlock {
            read_to: at,
            statements: Vec::new(),
            view: ClientView::new(validator),
        });
        let from = open.read_to.max(at) - at;
        self.work = self
            .work
            .saturating_add(source.len() - from.min(source.len()));
        let (statements, end) = complete_statements(source, from);
        if statements.is_empty() {
            return;
        }
        open.read_to = at + end;
        open.statements.extend(statements);
        self.work = self.work.saturating_add(source.len());
        let Some(compiled) = self.compiler.statements(&open.statements) else {
            return;
        };
        let messages = open.view.stream(&compiled);
        if !messages.is_empty() {
            out.push(ParsedPart::A2ui(messages));
        }
    }

    /// Whether the block whose source starts at `at` was opened by a tag, not by a fence
    /// (which a tag inside it could still turn into text).
    fn opened_by_tag(&self, at: usize) -> bool {
        let before = self.text.get(self.settled..at).unwrap_or_default();
        before.to_ascii_lowercase().contains("<a2ui")
    }
}

fn truncated(text: &str, at: usize) -> Failure {
    Failure::Unreadable(Locator::default().error(
        ParseErrorKind::Truncated,
        "the response ends inside an <a2ui> block",
        text,
        at,
    ))
}
