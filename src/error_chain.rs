//! An error with its causes, as one line: `outer: cause: root cause`.
//!
//! Several layers log or report a foreign error whose own message says little (reqwest's
//! "error sending request"); the causes say what happened. This is the one place that walks
//! them, so every such message reads alike.

use std::error::Error;

/// `error`'s message followed by each of its sources, joined by `": "`.
pub(crate) fn chain(error: &dyn Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use std::fmt;

    use super::*;

    #[derive(Debug)]
    struct Layer(&'static str, Option<Box<Layer>>);

    impl fmt::Display for Layer {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str(self.0)
        }
    }

    impl Error for Layer {
        fn source(&self) -> Option<&(dyn Error + 'static)> {
            self.1
                .as_deref()
                .map(|inner| inner as &(dyn Error + 'static))
        }
    }

    #[test]
    fn each_cause_follows_the_message_it_caused() {
        let error = Layer(
            "send",
            Some(Box::new(Layer(
                "connect",
                Some(Box::new(Layer("refused", None))),
            ))),
        );
        assert_eq!(chain(&error), "send: connect: refused");
        assert_eq!(chain(&Layer("alone", None)), "alone");
    }
}
