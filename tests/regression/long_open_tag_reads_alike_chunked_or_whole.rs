//! Found by `cargo fuzz run parse_chunked` (crash-77c437cc): an open tag whose attributes ran
//! past the 256-byte hold-back bound was a tag when parsed whole but text when chunked, so
//! the same response parsed differently depending on chunking. The bound is now a rule of the
//! tag itself: a longer tag is text however it arrives.

use a2ui_agent::parser::{ParsedPart, ParserConfig, StreamParser, parse};

#[test]
fn an_open_tag_longer_than_the_bound_is_text_whole_and_chunked() {
    let input = format!(
        "<a2ui-json data=\"{}\">[{{\"deleteSurface\": {{\"surfaceId\": \"s\"}}}}]</a2ui-json>",
        "x".repeat(300)
    );
    let whole = parse(&input).unwrap();
    assert!(
        matches!(whole.as_slice(), [ParsedPart::Text(_)]),
        "{whole:?}"
    );
    for size in [1, 7, 64, 255] {
        let mut parser = StreamParser::new(ParserConfig::default());
        let mut parts = Vec::new();
        for chunk in input.as_bytes().chunks(size) {
            parts.extend(parser.feed(std::str::from_utf8(chunk).unwrap()));
        }
        parts.extend(parser.finish().unwrap());
        let text: String = parts
            .iter()
            .map(|p| match p {
                ParsedPart::Text(t) => t.as_str(),
                ParsedPart::A2ui(_) => panic!("a block was read at chunk size {size}"),
            })
            .collect();
        assert_eq!(ParsedPart::Text(text), whole[0]);
    }
}

#[test]
fn an_open_tag_within_the_bound_opens_a_block_however_it_arrives() {
    let input = format!(
        "<a2ui-json data=\"{}\">[{{\"deleteSurface\": {{\"surfaceId\": \"s\"}}}}]</a2ui-json>",
        "x".repeat(200)
    );
    let whole = parse(&input).unwrap();
    assert!(
        matches!(whole.as_slice(), [ParsedPart::A2ui(_)]),
        "{whole:?}"
    );
    let mut parser = StreamParser::new(ParserConfig::default());
    let mut parts = Vec::new();
    for chunk in input.as_bytes().chunks(3) {
        parts.extend(parser.feed(std::str::from_utf8(chunk).unwrap()));
    }
    assert_eq!(parts, whole);
}
