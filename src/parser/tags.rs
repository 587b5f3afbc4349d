//! The sentinel tags and Markdown fences around a payload, as nom streaming parsers.
//!
//! Each returns `Err(Incomplete)` when its input ends before it can decide, so the caller keeps
//! that short tail (at most [`MAX_TAG_BYTES`]) for the next chunk instead of re-scanning.

use nom::branch::alt;
use nom::bytes::streaming::{tag, tag_no_case, take_till, take_while};
use nom::character::streaming::{char, multispace0, multispace1};
use nom::combinator::{cut, value};
use nom::sequence::preceded;
use nom::{IResult, Parser};

/// Longest tag (with its attributes and spaces) or fence; a longer candidate is not one, so
/// at most this much input is ever held back between chunks, and whole or chunked input reads
/// the same.
pub(crate) const MAX_TAG_BYTES: usize = 256;

/// The verdict of a tag parser on input that may continue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Match {
    /// The tag, this many bytes long.
    Yes(usize),
    /// Not the tag.
    No,
    /// Cannot tell yet: hold the input for the next chunk.
    More,
}

/// Runs `parser` on `input` and bounds its verdict by [`MAX_TAG_BYTES`].
pub(crate) fn bounded(parser: fn(&str) -> IResult<&str, ()>, input: &str) -> Match {
    match parser(input) {
        Ok((rest, ())) if input.len() - rest.len() <= MAX_TAG_BYTES => {
            Match::Yes(input.len() - rest.len())
        }
        Err(nom::Err::Incomplete(_)) if input.len() < MAX_TAG_BYTES => Match::More,
        _ => Match::No,
    }
}

/// `<a2ui-json>` in any letter case, with optional attributes: `<A2UI-JSON version="v0.9">`.
///
/// `cut` follows the tag name: once `<a2ui-json` matched, anything but `>` or whitespace plus
/// attributes plus `>` is a `Failure` (the caller reads it as text, not as our tag).
///
/// ```text
/// assert!(open_tag("<a2ui-json>[").is_ok());
/// assert!(matches!(open_tag("<a2ui"), Err(nom::Err::Incomplete(_))));
/// ```
pub(crate) fn open_tag(input: &str) -> IResult<&str, ()> {
    preceded(tag_no_case("<a2ui-json"), cut(open_tag_rest)).parse(input)
}

/// `>` or whitespace, attributes and `>`.
fn open_tag_rest(input: &str) -> IResult<&str, ()> {
    alt((
        value((), char('>')),
        value(
            (),
            (multispace1, take_till(|c| c == '>' || c == '<'), char('>')),
        ),
    ))
    .parse(input)
}

/// `</a2ui-json>` in any letter case, with optional whitespace before `>`.
pub(crate) fn close_tag(input: &str) -> IResult<&str, ()> {
    value((), (tag_no_case("</a2ui-json"), multispace0, char('>'))).parse(input)
}

/// A Markdown fence with an optional language: ```` ``` ```` or ```` ```json ````.
pub(crate) fn fence(input: &str) -> IResult<&str, ()> {
    value(
        (),
        (tag("```"), take_while(|c: char| c.is_ascii_alphanumeric())),
    )
    .parse(input)
}

/// A Markdown fence line in text: ```` ``` ````, an optional language (letters, digits, `-`,
/// `+`), optional blanks, then the end of the line. Gives the language.
pub(crate) fn fence_line(input: &str) -> IResult<&str, &str> {
    let (rest, (_, language, _, _)) = (
        tag("```"),
        take_while(|c: char| c.is_ascii_alphanumeric() || c == '-' || c == '+'),
        take_while(|c: char| c == ' ' || c == '\t'),
        alt((tag("\n"), tag("\r\n"))),
    )
        .parse(input)?;
    Ok((rest, language))
}

/// Whether a fence's language may hold A2UI JSON: none, or a JSON dialect.
pub(crate) fn json_language(language: &str) -> bool {
    ["", "json", "jsonc", "json5", "a2ui", "a2ui-json"]
        .iter()
        .any(|name| name.eq_ignore_ascii_case(language))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_open_tag_matches_in_any_case_and_with_attributes() {
        assert_eq!(open_tag("<a2ui-json>x"), Ok(("x", ())));
        assert_eq!(open_tag("<A2UI-Json>x"), Ok(("x", ())));
        assert_eq!(open_tag("<a2ui-json version=\"v1\">x"), Ok(("x", ())));
    }

    #[test]
    fn a_cut_open_tag_asks_for_more_input() {
        for prefix in ["<", "<a2", "<a2ui-json", "<a2ui-json v=\"1"] {
            assert!(
                matches!(open_tag(prefix), Err(nom::Err::Incomplete(_))),
                "{prefix}"
            );
        }
    }

    #[test]
    fn a_longer_tag_name_is_not_our_tag() {
        assert!(matches!(
            open_tag("<a2ui-jsonx>"),
            Err(nom::Err::Failure(_))
        ));
        assert!(matches!(open_tag("<b>"), Err(nom::Err::Error(_))));
    }

    #[test]
    fn a_close_tag_tolerates_case_and_space() {
        assert_eq!(close_tag("</A2UI-JSON >rest"), Ok(("rest", ())));
        assert!(matches!(
            close_tag("</a2ui-js"),
            Err(nom::Err::Incomplete(_))
        ));
    }

    #[test]
    fn a_tag_longer_than_the_bound_is_not_a_tag_however_it_arrives() {
        let long = format!("<a2ui-json {}>", "x".repeat(MAX_TAG_BYTES));
        assert_eq!(bounded(open_tag, &long), Match::No);
        assert_eq!(bounded(open_tag, &long[..MAX_TAG_BYTES]), Match::No);
        assert_eq!(bounded(open_tag, &long[..MAX_TAG_BYTES - 1]), Match::More);
        assert_eq!(bounded(open_tag, "<a2ui-json>"), Match::Yes(11));
    }

    #[test]
    fn a_fence_line_ends_with_its_line() {
        assert_eq!(fence_line("```json\n["), Ok(("[", "json")));
        assert_eq!(fence_line("``` \r\nx"), Ok(("x", "")));
        assert!(matches!(
            fence_line("```json"),
            Err(nom::Err::Incomplete(_))
        ));
        assert!(matches!(fence_line("```json x\n"), Err(nom::Err::Error(_))));
        assert!(json_language("JSON") && !json_language("python"));
    }

    #[test]
    fn a_fence_takes_its_language() {
        assert_eq!(fence("```json\n["), Ok(("\n[", ())));
        assert!(matches!(fence("``"), Err(nom::Err::Incomplete(_))));
    }
}
