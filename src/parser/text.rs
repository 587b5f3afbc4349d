//! Conversational text between blocks: emitted as it arrives, trimmed as a whole run would be.
//!
//! A run (the text between two blocks, or before the first, or after the last) is trimmed of
//! leading and trailing whitespace and dropped if nothing is left. While it streams, its
//! trailing whitespace is held back: it is emitted with the text that follows, or dropped if
//! the run ends there. Whitespace is cut with `str::trim_*`, so never inside a character.

/// The text run being read.
#[derive(Debug, Default)]
pub(crate) struct TextRun {
    /// Text of this run read during the current feed, not yet emitted.
    pending: String,
    /// Trailing whitespace held from earlier feeds.
    held: String,
    /// Whether the run has emitted anything (its leading whitespace is then part of it).
    started: bool,
}

impl TextRun {
    /// Adds text read in this feed.
    pub(crate) fn push(&mut self, text: &str) {
        self.pending.push_str(text);
    }

    /// The text this feed may emit now, holding back trailing whitespace.
    pub(crate) fn flush(&mut self) -> Option<String> {
        if self.pending.is_empty() {
            return None;
        }
        let mut text = std::mem::take(&mut self.held);
        text.push_str(&self.pending);
        self.pending.clear();
        if !self.started {
            let lead = text.len() - text.trim_start().len();
            text.drain(..lead);
        }
        let body = text.trim_end().len();
        self.held = text.split_off(body);
        if text.is_empty() {
            return None;
        }
        self.started = true;
        Some(text)
    }

    /// Ends the run (a block opens or the stream ends): the text left, trailing space dropped.
    pub(crate) fn end(&mut self) -> Option<String> {
        let text = self.flush();
        self.held.clear();
        self.started = false;
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whitespace_between_chunks_travels_with_the_next_word() {
        let mut run = TextRun::default();
        run.push("  Hello ");
        assert_eq!(run.flush().as_deref(), Some("Hello"));
        run.push("world\n");
        assert_eq!(run.flush().as_deref(), Some(" world"));
        assert_eq!(run.end(), None);
    }

    #[test]
    fn a_run_of_only_whitespace_emits_nothing() {
        let mut run = TextRun::default();
        run.push("\n \t");
        assert_eq!(run.flush(), None);
        assert_eq!(run.end(), None);
    }
}
