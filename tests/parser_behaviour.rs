//! What a user of `a2ui_agent::parser` sees: the tolerances of WIRE.md §6, streaming rules,
//! errors with positions, limits, and delta emission. Every fixture also runs at every split
//! point and byte by byte, where the final state must not depend on chunking.

use a2ui_agent::parser::{
    EmitMode, Limits, ParseErrorKind, ParsedPart, ParserConfig, StreamParser, parse, parse_with,
};
use serde_json::{Value, json};

fn text(t: &str) -> ParsedPart {
    ParsedPart::Text(t.into())
}

fn a2ui(messages: Value) -> ParsedPart {
    ParsedPart::A2ui(messages.as_array().unwrap().clone())
}

/// Feeds `chunks` and returns every part, including `finish`'s.
fn feed_all(config: ParserConfig, chunks: &[&str]) -> Vec<ParsedPart> {
    let mut parser = StreamParser::new(config);
    let mut parts = Vec::new();
    for chunk in chunks {
        parts.extend(parser.feed(chunk));
    }
    parts.extend(parser.finish().unwrap());
    parts
}

/// Splits `s` at every char boundary into two chunks, and into single chars.
fn splits(s: &str) -> Vec<Vec<&str>> {
    let mut all: Vec<Vec<&str>> = (1..s.len())
        .filter(|&i| s.is_char_boundary(i))
        .map(|i| vec![&s[..i], &s[i..]])
        .collect();
    let mut chars = Vec::new();
    let mut start = 0;
    for (i, _) in s.char_indices().skip(1) {
        chars.push(&s[start..i]);
        start = i;
    }
    chars.push(&s[start..]);
    all.push(chars);
    all
}

/// All text joined, and the messages in order (cumulative mode re-sends; the last of each
/// message id wins, so we compare with delta applied as upserts elsewhere).
fn joined_text(parts: &[ParsedPart]) -> String {
    parts
        .iter()
        .filter_map(|p| match p {
            ParsedPart::Text(t) => Some(t.as_str()),
            ParsedPart::A2ui(_) => None,
        })
        .collect()
}

fn components_by_id(parts: &[ParsedPart]) -> Vec<(String, Value)> {
    let mut out: Vec<(String, Value)> = Vec::new();
    for part in parts {
        if let ParsedPart::A2ui(messages) = part {
            for m in messages {
                for c in m["updateComponents"]["components"]
                    .as_array()
                    .into_iter()
                    .flatten()
                {
                    let id = c["id"].as_str().unwrap().to_owned();
                    out.retain(|(k, _)| *k != id);
                    out.push((id, c.clone()));
                }
            }
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

const UI: &str = "Here is your card. 🎴\n<a2ui-json>[{\"version\": \"v0.9\", \"createSurface\": \
    {\"surfaceId\": \"s1\", \"catalogId\": \"basic\"}}, {\"version\": \"v0.9\", \
    \"updateComponents\": {\"surfaceId\": \"s1\", \"components\": [{\"id\": \"root\", \
    \"component\": \"Column\", \"children\": [\"a\", \"b\"]}, {\"id\": \"a\", \"component\": \
    \"Text\", \"text\": \"héllo </a2ui-json> \\\"x\\\"\"}, {\"id\": \"b\", \"component\": \
    \"Text\", \"text\": \"wörld\"}]}}]</a2ui-json>\nAnything else? ✨";

#[test]
fn a_response_reads_the_same_at_every_chunk_boundary() {
    let whole = parse(UI).unwrap();
    assert_eq!(whole.len(), 3);
    for chunks in splits(UI) {
        let parts = feed_all(ParserConfig::default(), &chunks);
        assert_eq!(joined_text(&parts), joined_text(&whole), "{chunks:?}");
        assert_eq!(
            components_by_id(&parts),
            components_by_id(&whole),
            "{chunks:?}"
        );
    }
}

#[test]
fn byte_by_byte_delta_mode_sends_each_component_once() {
    let chunks: Vec<&str> = splits(UI).pop().unwrap();
    let parts = feed_all(ParserConfig::default().delta_batch(0), &chunks);
    let sent: Vec<&Value> = parts
        .iter()
        .filter_map(|p| match p {
            ParsedPart::A2ui(m) => Some(m),
            ParsedPart::Text(_) => None,
        })
        .flatten()
        .flat_map(|m| {
            m["updateComponents"]["components"]
                .as_array()
                .into_iter()
                .flatten()
        })
        .collect();
    let ids: Vec<&str> = sent.iter().map(|c| c["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["root", "a", "b"]);
}

#[test]
fn tags_match_in_any_case_and_with_attributes() {
    let parts = parse(
        r#"<A2UI-Json version="v0.9" data-x='1'>[{"version": "v0.9", "deleteSurface": {"surfaceId": "s"}}]</A2ui-JSON >"#,
    )
    .unwrap();
    assert_eq!(
        parts,
        [a2ui(
            json!([{"version": "v0.9", "deleteSurface": {"surfaceId": "s"}}])
        )]
    );
}

#[test]
fn a_markdown_fence_trailing_commas_and_a_single_object_are_tolerated() {
    let parts = parse(
        "<a2ui-json>\n```json\n{\"version\": \"v0.9\", \"updateDataModel\": {\"surfaceId\": \"s\", \
         \"value\": {\"tags\": [\"a\", \"b\",],},},}\n```\n</a2ui-json>",
    )
    .unwrap();
    assert_eq!(
        parts,
        [a2ui(
            json!([{"version": "v0.9", "updateDataModel": {"surfaceId": "s", "value": {"tags": ["a", "b"]}}}])
        )]
    );
}

#[test]
fn several_blocks_keep_the_text_between_them_in_place() {
    let parts = parse(
        "One\n<a2ui-json>{\"deleteSurface\": {\"surfaceId\": \"a\"}}</a2ui-json> two <a2ui-json>[{\"deleteSurface\": {\"surfaceId\": \"b\"}}]</a2ui-json>three",
    )
    .unwrap();
    assert_eq!(
        parts,
        [
            text("One"),
            a2ui(json!([{"deleteSurface": {"surfaceId": "a"}}])),
            text("two"),
            a2ui(json!([{"deleteSurface": {"surfaceId": "b"}}])),
            text("three"),
        ]
    );
}

#[test]
fn a_close_tag_inside_a_string_does_not_close_the_block() {
    let input = r#"<a2ui-json>[{"deleteSurface": {"surfaceId": "</a2ui-json>"}}]</a2ui-json>after"#;
    for chunks in splits(input) {
        let parts = feed_all(ParserConfig::default(), &chunks);
        assert_eq!(
            parts[0],
            a2ui(json!([{"deleteSurface": {"surfaceId": "</a2ui-json>"}}])),
            "{chunks:?}"
        );
        assert_eq!(joined_text(&parts), "after", "{chunks:?}");
    }
}

#[test]
fn a_block_left_open_with_its_messages_closed_is_accepted() {
    let parts = parse(r#"Look: <a2ui-json>[{"deleteSurface": {"surfaceId": "s"}}"#).unwrap();
    assert_eq!(
        parts,
        [
            text("Look:"),
            a2ui(json!([{"deleteSurface": {"surfaceId": "s"}}]))
        ]
    );
}

#[test]
fn a_stream_that_ends_inside_a_message_is_a_truncated_error() {
    let err = parse("<a2ui-json>[{\"deleteSurface\": {\"surfaceId\": \"s").unwrap_err();
    assert_eq!(err.kind(), ParseErrorKind::Truncated);
}

#[test]
fn text_is_never_split_inside_a_character_and_a_lone_angle_bracket_is_text() {
    let input = "a < b, c <a2 d \u{00e9}\u{4e16} <";
    for chunks in splits(input) {
        let parts = feed_all(ParserConfig::default(), &chunks);
        assert_eq!(joined_text(&parts), input, "{chunks:?}");
    }
}

#[test]
fn a_surface_is_not_created_before_its_object_closes() {
    let mut parser = StreamParser::new(ParserConfig::default().progressive_keys(["catalogId"]));
    let parts = parser.feed(
        r#"<a2ui-json>[{"version": "v0.9", "createSurface": {"surfaceId": "s", "catalogId": "ba"#,
    );
    assert!(parts.is_empty());
    let parts = parser.feed(r#"sic"}}"#);
    assert_eq!(
        parts,
        [a2ui(
            json!([{"version": "v0.9", "createSurface": {"surfaceId": "s", "catalogId": "basic"}}])
        )]
    );
}

#[test]
fn a_half_written_data_model_string_heals_only_under_a_progressive_key() {
    let start = r#"<a2ui-json>[{"version": "v0.9", "updateDataModel": {"surfaceId": "s", "path": "/p", "value": {"title": "Hel"#;
    let mut healing = StreamParser::new(ParserConfig::default().progressive_keys(["title"]));
    assert_eq!(
        healing.feed(start),
        [a2ui(
            json!([{"version": "v0.9", "updateDataModel": {"surfaceId": "s", "path": "/p", "value": {"title": "Hel"}}}])
        )]
    );
    let mut waiting = StreamParser::new(ParserConfig::default());
    assert!(waiting.feed(start).is_empty());
}

#[test]
fn a_data_model_still_arriving_is_sent_once_per_finished_key_path() {
    let chunks = [
        r#"<a2ui-json>[{"version": "v0.9", "updateDataModel": {"surfaceId": "s", "path": "/contact/", "value": {"name": "Ada", "#,
        r#""a/b~c": 1, "tags": ["x"#,
        r#""], "email": "ada@exa"#,
        r#"mple.com"}}}]</a2ui-json>"#,
    ];
    let update = |path: &str, value: Value| json!({"version": "v0.9", "updateDataModel": {"surfaceId": "s", "path": path, "value": value}});
    let mut parser = StreamParser::new(ParserConfig::default());
    let sent: Vec<Vec<ParsedPart>> = chunks.iter().map(|c| parser.feed(c)).collect();
    assert_eq!(
        sent,
        [
            vec![a2ui(json!([update("/contact/", json!({"name": "Ada"}))]))],
            vec![a2ui(json!([update("/contact/a~1b~0c", json!(1))]))],
            vec![a2ui(json!([update("/contact/tags", json!(["x"]))]))],
            vec![a2ui(json!([update(
                "/contact/email",
                json!("ada@example.com")
            )]))],
        ],
        "the first finished member replaces the value at the path, each later one is its own path"
    );
    assert!(parser.finish().unwrap().is_empty());
}

#[test]
fn a_data_model_read_in_one_piece_is_one_message_as_written() {
    let block = r#"<a2ui-json>[{"version": "v0.9", "updateDataModel": {"surfaceId": "s", "path": "/p", "value": {"a": 1, "b": 2}}}]</a2ui-json>"#;
    assert_eq!(
        parse(block).unwrap(),
        [a2ui(
            json!([{"version": "v0.9", "updateDataModel": {"surfaceId": "s", "path": "/p", "value": {"a": 1, "b": 2}}}])
        )]
    );
}

#[test]
fn a_data_model_whose_path_comes_after_its_value_waits_for_its_close() {
    let mut parser = StreamParser::new(ParserConfig::default());
    let start = r#"<a2ui-json>[{"version": "v0.9", "updateDataModel": {"surfaceId": "s", "value": {"a": 1, "b": 2"#;
    assert!(
        parser.feed(start).is_empty(),
        "without a path yet, a member cannot be placed"
    );
    assert_eq!(
        parser.feed(r#"}, "path": "/p"}}]</a2ui-json>"#),
        [a2ui(
            json!([{"version": "v0.9", "updateDataModel": {"surfaceId": "s", "path": "/p", "value": {"a": 1, "b": 2}}}])
        )]
    );
}

#[test]
fn an_unreadable_block_reports_where_it_went_wrong() {
    let input =
        "Line one\n<a2ui-json>[{\"deleteSurface\": {\"surfaceId\": \"s\"}} oops]</a2ui-json>";
    let err = parse(input).unwrap_err();
    assert_eq!(err.kind(), ParseErrorKind::Syntax);
    assert_eq!(err.line(), 2);
    assert_eq!(&input[err.offset()..err.offset() + 4], "oops");
    assert_eq!(err.column(), err.offset() - input.find('\n').unwrap());
    assert!(err.excerpt().contains("oops"));
    assert!(
        err.to_string()
            .ends_with(&format!("at line 2 column {}", err.column()))
    );
}

#[test]
fn the_error_is_known_at_the_close_tag_and_the_stream_stops_there() {
    let mut parser = StreamParser::new(ParserConfig::default());
    assert!(parser.feed("<a2ui-json>nope").is_empty());
    assert!(parser.error().is_none());
    assert!(parser.feed("</a2ui-json> more text").is_empty());
    assert_eq!(parser.error().unwrap().kind(), ParseErrorKind::Syntax);
    assert!(parser.feed("even more").is_empty());
    assert!(parser.finish().is_err());
}

#[test]
fn nesting_past_the_depth_limit_is_a_limit_error() {
    let nested = |depth: usize| {
        format!(
            "<a2ui-json>[{{\"updateDataModel\": {{\"surfaceId\": \"s\", \"value\": {}1{}}}}}]</a2ui-json>",
            "[".repeat(depth),
            "]".repeat(depth)
        )
    };
    assert_eq!(
        parse(&nested(200)).unwrap_err().kind(),
        ParseErrorKind::Limit
    );
    assert!(parse(&nested(100)).is_ok());
    let strict = ParserConfig::default().limits(Limits {
        max_depth: 10,
        ..Limits::default()
    });
    assert_eq!(
        parse_with(&nested(20), strict).unwrap_err().kind(),
        ParseErrorKind::Limit
    );
}

#[test]
fn a_block_past_the_size_limit_fails_at_once() {
    let config = ParserConfig::default().limits(Limits {
        max_block_bytes: 64,
        ..Limits::default()
    });
    let mut parser = StreamParser::new(config);
    parser.feed("<a2ui-json>[");
    parser.feed(&format!("{{\"a\": \"{}", "x".repeat(100)));
    assert_eq!(parser.error().unwrap().kind(), ParseErrorKind::Limit);
}

#[test]
fn cumulative_mode_resends_the_whole_message_as_components_close() {
    let chunks = [
        r#"<a2ui-json>[{"version": "v0.9", "updateComponents": {"surfaceId": "s", "components": [{"id": "a", "component": "Text", "text": "1"},"#,
        r#"{"id": "b", "component": "Text", "text": "2"}"#,
        "]}}]</a2ui-json>",
    ];
    let message = |ids: &[&str]| {
        let components: Vec<Value> = ids
            .iter()
            .map(
                |id| json!({"id": id, "component": "Text", "text": if *id == "a" {"1"} else {"2"}}),
            )
            .collect();
        json!([{"version": "v0.9", "updateComponents": {"surfaceId": "s", "components": components}}])
    };
    let cumulative = feed_all(ParserConfig::default().mode(EmitMode::Cumulative), &chunks);
    assert_eq!(
        cumulative,
        [a2ui(message(&["a"])), a2ui(message(&["a", "b"]))]
    );
    let delta = feed_all(ParserConfig::default().delta_batch(0), &chunks);
    assert_eq!(delta, [a2ui(message(&["a"])), a2ui(message(&["b"]))]);
    let batched = feed_all(ParserConfig::default().delta_batch(10), &chunks);
    assert_eq!(batched, [a2ui(message(&["a", "b"]))]);
}

#[test]
fn a_readiness_check_can_hold_back_a_message_still_arriving() {
    let config = ParserConfig::default()
        .delta_batch(0)
        .readiness(|m: &Value| {
            m["updateComponents"]["components"]
                .as_array()
                .is_some_and(|c| c.len() >= 2)
        });
    let mut parser = StreamParser::new(config);
    assert!(
        parser
            .feed(r#"<a2ui-json>[{"version": "v0.9", "updateComponents": {"surfaceId": "s", "components": [{"id": "a", "component": "Text", "text": "1"},"#)
            .is_empty()
    );
    let parts = parser.feed(r#"{"id": "b", "component": "Text", "text": "2"},"#);
    let ParsedPart::A2ui(messages) = &parts[0] else {
        panic!("{parts:?}")
    };
    assert_eq!(
        messages[0]["updateComponents"]["components"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
}

#[test]
fn raw_newlines_inside_strings_are_read_as_escapes() {
    let parts =
        parse("<a2ui-json>[{\"deleteSurface\": {\"surfaceId\": \"a\nb\"}}]</a2ui-json>").unwrap();
    assert_eq!(
        parts,
        [a2ui(json!([{"deleteSurface": {"surfaceId": "a\nb"}}]))]
    );
}
