//! What real small models write, read well (`tests/real_model/written/`, answers of
//! Qwen2.5-Coder-0.5B behind llama.cpp to our prompts, and the mistakes issue 20 lists): each
//! file read whole and in chunks of every size from 1 to 24 bytes gives the same parts, and
//! what is not A2UI is never accepted as UI.

use std::path::Path;

use a2ui_agent::parser::{ParseErrorKind, ParsedPart, ParserConfig, StreamParser, parse};
use serde_json::json;

fn written(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/real_model/written")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The parts of `text` fed in chunks of `size` bytes (never splitting a character), with
/// adjacent text joined as a whole read gives it.
fn chunked(text: &str, size: usize) -> Result<Vec<ParsedPart>, ParseErrorKind> {
    let mut parser = StreamParser::new(ParserConfig::default());
    let mut parts = Vec::new();
    let mut start = 0;
    while start < text.len() {
        let mut end = (start + size).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        parts.extend(parser.feed(&text[start..end]));
        start = end;
    }
    parts.extend(parser.finish().map_err(|error| error.kind())?);
    Ok(join(parts))
}

fn join(parts: Vec<ParsedPart>) -> Vec<ParsedPart> {
    let mut out: Vec<ParsedPart> = Vec::new();
    for part in parts {
        match (out.last_mut(), part) {
            (Some(ParsedPart::Text(previous)), ParsedPart::Text(text)) => previous.push_str(&text),
            (Some(ParsedPart::A2ui(previous)), ParsedPart::A2ui(messages)) => {
                previous.extend(messages)
            }
            (_, part) => out.push(part),
        }
    }
    out
}

/// The parts of `name`, the same however it is chunked.
fn read(name: &str) -> Result<Vec<ParsedPart>, ParseErrorKind> {
    let text = written(name);
    let whole = parse(&text).map(join).map_err(|error| error.kind());
    for size in 1..=24 {
        let parts = chunked(&text, size);
        if let (Ok(whole), Ok(parts)) = (&whole, &parts) {
            // Chunked text arrives in more pieces; compare what they spell.
            assert_eq!(spelled(whole), spelled(parts), "{name} in chunks of {size}");
        } else {
            assert_eq!(whole.is_ok(), parts.is_ok(), "{name} in chunks of {size}");
        }
    }
    whole
}

fn spelled(parts: &[ParsedPart]) -> Vec<String> {
    parts
        .iter()
        .map(|part| match part {
            ParsedPart::Text(text) => format!(
                "text: {}",
                text.split_whitespace().collect::<Vec<_>>().join(" ")
            ),
            ParsedPart::A2ui(messages) => format!("a2ui: {}", json!(messages)),
        })
        .collect()
}

#[test]
fn a_block_closed_with_a_second_open_tag_is_closed() {
    let parts = read("second_open_tag_closes.txt").unwrap();
    assert_eq!(
        parts,
        [
            ParsedPart::Text("Here is your order.".into()),
            ParsedPart::A2ui(vec![
                json!({"version": "v0.9", "deleteSurface": {"surfaceId": "order"}})
            ]),
            ParsedPart::Text("Anything else?".into()),
        ]
    );
}

#[test]
fn a_fence_a_single_object_smart_quotes_and_trailing_commas_inside_the_tags_are_read() {
    let parts = read("fenced_single_object_smart_quotes_trailing_commas.txt").unwrap();
    assert_eq!(
        parts,
        [
            ParsedPart::Text("Done.".into()),
            ParsedPart::A2ui(vec![
                json!({"version": "v0.9", "deleteSurface": {"surfaceId": "order"}})
            ]),
        ]
    );
}

#[test]
fn fenced_json_without_the_tags_stays_text() {
    // The 0.5B model's answer to "Show my order" with our pruned v0.8 prompt: a Markdown fence,
    // no tags, one object with invented members. It is not taken for UI.
    let parts = read("fenced_instead_of_tags.txt").unwrap();
    assert!(
        parts.iter().all(|part| matches!(part, ParsedPart::Text(_))),
        "{parts:?}"
    );
}

#[test]
fn a_block_cut_off_at_max_tokens_is_a_truncation_error() {
    assert_eq!(
        read("cut_at_max_tokens.txt"),
        Err(ParseErrorKind::Truncated)
    );
}
