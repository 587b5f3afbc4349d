//! Feeds arbitrary input to the streaming parser in chunks; the first byte picks the chunk
//! size and the emission mode. Checks that it never panics, that chunking does not change
//! whether the input parses, and that the text it emits matches a single-shot parse.
#![no_main]

use a2ui_agent::parser::{EmitMode, ParsedPart, ParserConfig, StreamParser, parse_with};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&first, rest)) = data.split_first() else {
        return;
    };
    let text = String::from_utf8_lossy(rest);
    let size = usize::from(first % 32) + 1;
    let mode = if first & 0x80 == 0 { EmitMode::Delta } else { EmitMode::Cumulative };
    let config = ParserConfig::default()
        .mode(mode)
        .progressive_keys(["text", "value", "label"]);
    let mut parser = StreamParser::new(config.clone());
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
    let finished = parser.finish();
    let whole = parse_with(&text, config);
    assert_eq!(finished.is_ok(), whole.is_ok(), "{finished:?} vs {whole:?}");
    if let (Ok(rest), Ok(whole)) = (finished, whole) {
        parts.extend(rest);
        let texts = |parts: &[ParsedPart]| -> String {
            parts
                .iter()
                .filter_map(|p| match p {
                    ParsedPart::Text(t) => Some(t.as_str()),
                    ParsedPart::A2ui(_) => None,
                })
                .collect()
        };
        assert_eq!(texts(&parts), texts(&whole));
    }
});
