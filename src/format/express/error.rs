//! Why a block did not give messages: [`ExpressError`] for callers, and the failure the
//! compiler reports with its place in the response, which the stream reader and the
//! one-shot calls each turn into their own error.

use crate::a2ui::ValidationError;
use crate::parser::ParseError;

/// Why an Express block did not give messages.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ExpressError {
    /// The text cannot be read, or the response ended inside a block.
    #[error("{0}")]
    Parse(ParseError),
    /// The block reads, but names what the active catalogs do not declare, or its messages
    /// fail the schemas.
    #[error("{}", summary(.0))]
    Invalid(Vec<ValidationError>),
}

/// The first of `errors`, and how many more there are.
fn summary(errors: &[ValidationError]) -> String {
    let first = errors.first().map(ToString::to_string).unwrap_or_default();
    match errors.len() {
        0 | 1 => first,
        more => format!("{first} (and {} more)", more - 1),
    }
}

impl From<ParseError> for ExpressError {
    fn from(e: ParseError) -> Self {
        ExpressError::Parse(e)
    }
}

/// A block that did not compile, with its position in the response either way.
pub(super) enum Failure {
    /// The text cannot be read.
    Unreadable(ParseError),
    /// It reads, but names what the catalogs do not declare.
    Undeclared(ParseError),
}

impl From<Failure> for ExpressError {
    fn from(failure: Failure) -> Self {
        match failure {
            Failure::Unreadable(e) => ExpressError::Parse(e),
            Failure::Undeclared(e) => ExpressError::Invalid(vec![ValidationError::new(
                "",
                format!("{} at line {} column {}", e.message(), e.line(), e.column()),
                None,
                None,
            )]),
        }
    }
}

impl Failure {
    /// The error a [`FormatReader`] reports, which has one type for both.
    pub(super) fn into_parse_error(self) -> ParseError {
        match self {
            Failure::Unreadable(e) | Failure::Undeclared(e) => e,
        }
    }
}
