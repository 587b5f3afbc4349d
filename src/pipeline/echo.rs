//! What a repair turn's text repeats of what the client already read.
//!
//! A repair turn asks the agent again, and the agent writes its whole answer again: the
//! words before its A2UI too. The client read those words from the attempt before, so the
//! repair turn's text goes out only from where it stops repeating them: text that repeats,
//! byte for byte, what the attempt before wrote (the words the client read of it, for the
//! first repair turn) is not sent; from the first byte that differs, the rest of the
//! attempt's text goes out as written, across every text part of the attempt. The A2UI
//! messages a repair turn repeats are [`Held`](super::reconcile::Held)'s to rewrite.
//!
//! Before a repair turn nothing is kept: the first attempt pays nothing for a repair that may
//! never come.

/// The text of the attempt before a repair turn, and how far the current attempt repeats it.
#[derive(Debug, Default)]
pub(crate) struct Echo {
    /// The text the client read of the attempt before.
    before: String,
    /// How much of `before` the current attempt's text repeated so far; `None` once it
    /// wrote something else (then all of its text goes out).
    repeated: Option<usize>,
    /// The current attempt's text as written (a repair turn's only): the next repair
    /// turn is measured against it.
    written: String,
    /// Whether a repair turn is under way.
    repairing: bool,
}

impl Echo {
    /// A repair turn starts: its text is measured against `read`, the text the client
    /// read of the attempts so far, on the first repair turn (later ones are measured against
    /// the repair turn before, as it was written).
    pub(crate) fn repair(&mut self, read: impl FnOnce() -> String) {
        self.before = if self.repairing {
            std::mem::take(&mut self.written)
        } else {
            read()
        };
        self.written.clear();
        self.repeated = Some(0);
        self.repairing = true;
    }

    /// What of `text`, the next text the current attempt wrote, goes out (empty: all of it
    /// repeats what the client read). Outside a repair turn, all of it.
    pub(crate) fn text(&mut self, mut text: String) -> String {
        if !self.repairing {
            return text;
        }
        self.written.push_str(&text);
        let Some(at) = self.repeated else {
            return text;
        };
        let rest = self.before.get(at..).unwrap_or_default();
        let same = common_prefix(rest, &text);
        if same == text.len() {
            self.repeated = Some(at + same);
            return String::new();
        }
        self.repeated = None;
        text.drain(..same);
        text
    }
}

/// The length in bytes of the longest prefix `a` and `b` share, at a character boundary.
fn common_prefix(a: &str, b: &str) -> usize {
    a.char_indices()
        .zip(b.chars())
        .find(|((_, x), y)| x != y)
        .map_or_else(|| a.len().min(b.len()), |((at, _), _)| at)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repairing(read: &str) -> Echo {
        let mut echo = Echo::default();
        echo.repair(|| read.to_owned());
        echo
    }

    #[test]
    fn before_a_repair_turn_all_text_goes_out() {
        let mut echo = Echo::default();
        assert_eq!(echo.text("Here".into()), "Here");
        assert!(echo.written.is_empty(), "nothing is kept before a repair");
    }

    #[test]
    fn text_that_repeats_what_the_client_read_is_not_sent_in_any_chunking() {
        let read = "Here is your order.";
        let again = "Here is your order.Enjoy!";
        for size in 1..=again.len() {
            let mut echo = repairing(read);
            let sent: String = again
                .as_bytes()
                .chunks(size)
                .map(|c| echo.text(String::from_utf8_lossy(c).into_owned()))
                .collect();
            assert_eq!(sent, "Enjoy!", "chunks of {size}");
        }
    }

    #[test]
    fn from_the_first_difference_everything_goes_out() {
        let mut echo = repairing("Here is your order.");
        assert_eq!(echo.text("Here is".into()), "");
        assert_eq!(echo.text(" the menu".into()), "the menu");
        assert_eq!(
            echo.text(" is".into()),
            " is",
            "no longer measured once it differed"
        );
    }

    #[test]
    fn a_multibyte_character_that_differs_is_not_cut() {
        let mut echo = repairing("café au lait");
        assert_eq!(echo.text("cafè".into()), "è");
        let mut echo = repairing("日本");
        assert_eq!(echo.text("日曜".into()), "曜");
    }

    #[test]
    fn a_second_repair_turn_is_measured_against_the_first_as_written() {
        let mut echo = repairing("Intro.");
        assert_eq!(echo.text("Intro.".into()), "");
        assert_eq!(echo.text("Second.".into()), "Second.");
        echo.repair(|| unreachable!("only the first repair reads what was sent"));
        assert_eq!(echo.text("Intro.Second.".into()), "");
        assert_eq!(echo.text("Third.".into()), "Third.");
    }
}
