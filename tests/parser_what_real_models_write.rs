//! What real small models write, read well (`tests/real_model/written/`, answers of
//! Qwen2.5-Coder-0.5B behind llama.cpp to our prompts, and the mistakes they make most): each
//! file read whole and in chunks of every size from 1 to 24 bytes gives the same parts, and
//! what is not A2UI is never accepted as UI. A brace short or a brace too many around a
//! message or a component of a list is read as the model meant it; what the reader so
//! reads is then validated like any message.

use std::path::Path;

use a2ui_agent::generator::Generator;
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

/// The parts of `name` read whole, after checking that every chunk size reads the same
/// components (a data model update streams member by member in chunks, so it is left out
/// of the comparison).
fn read_components(name: &str) -> Vec<ParsedPart> {
    let text = written(name);
    let whole = parse(&text).map(join).unwrap();
    let components = |parts: &[ParsedPart]| -> Vec<serde_json::Value> {
        messages(parts)
            .into_iter()
            .filter(|m| m.get("updateDataModel").is_none())
            .collect()
    };
    for size in 1..=24 {
        let parts = chunked(&text, size).unwrap();
        let (mine, theirs) = (components(&parts), components(&whole));
        let ids = |ms: &[serde_json::Value]| -> Vec<String> {
            ms.iter()
                .filter_map(|m| m["updateComponents"]["components"].as_array())
                .flatten()
                .map(|c| c["id"].to_string())
                .collect()
        };
        assert_eq!(ids(&mine), ids(&theirs), "{name} in chunks of {size}");
    }
    whole
}

/// The A2UI messages of `parts`, in order.
fn messages(parts: &[ParsedPart]) -> Vec<serde_json::Value> {
    parts
        .iter()
        .filter_map(|part| match part {
            ParsedPart::A2ui(messages) => Some(messages.clone()),
            ParsedPart::Text(_) => None,
        })
        .flatten()
        .collect()
}

#[test]
fn a_message_one_brace_short_ends_where_the_next_message_begins() {
    // The 0.5B model's profile card in Direct JSON: its updateComponents line ends `]},`, one
    // `}` short, and the next message starts on the next line.
    let parts = read_components("json_message_one_brace_short.txt");
    let messages = messages(&parts);
    assert_eq!(messages.len(), 3, "{messages:?}");
    let update = &messages[1]["updateComponents"];
    assert_eq!(update["components"].as_array().map(Vec::len), Some(6));
    // What the model left out stays out: the validator says so, the reader does not guess.
    assert!(update.get("surfaceId").is_none(), "{update}");
    assert_eq!(messages[2]["updateDataModel"]["path"], "/profile");
}

#[test]
fn a_brace_too_many_after_a_component_is_dropped() {
    // The 0.5B model's to-do list: `{"id":"details",..,"text":{"path":".."}}}`, one `}` too
    // many, and the components list goes on after it.
    let parts = read_components("json_component_one_brace_too_many.txt");
    let messages = messages(&parts);
    assert_eq!(messages.len(), 3, "{messages:?}");
    let ids: Vec<&str> = messages
        .iter()
        .filter_map(|m| m["updateComponents"]["components"].as_array())
        .flatten()
        .filter_map(|c| c["id"].as_str())
        .collect();
    assert_eq!(
        ids,
        [
            "root",
            "content",
            "title",
            "details",
            "actions",
            "buy_milk_label"
        ]
    );
}

#[test]
fn a_brace_short_anywhere_else_is_still_an_error() {
    // A key where a value belongs is not a brace short: still unreadable.
    for text in [
        r#"<a2ui-json>[{"version":"v0.9","deleteSurface":{"surfaceId":"s",{"x":1}}}]</a2ui-json>"#,
        r#"<a2ui-json>{"version":"v0.9","deleteSurface":{"surfaceId":"s"},{"version":"v0.9"}</a2ui-json>"#,
        r#"<a2ui-json>[{"version":"v0.9","updateComponents":{"surfaceId":"s","components":[{"id":"a"}]}}}]</a2ui-json>"#,
    ] {
        assert_eq!(
            parse(text).map_err(|e| e.kind()),
            Err(ParseErrorKind::Syntax),
            "{text}"
        );
    }
}

#[test]
fn a_block_cut_off_at_max_tokens_is_a_truncation_error() {
    assert_eq!(
        read("cut_at_max_tokens.txt"),
        Err(ParseErrorKind::Truncated)
    );
}

/// The reader a server uses for a v0.9 request: fenced JSON is A2UI when it holds v0.9
/// messages.
fn v0_9() -> ParserConfig {
    match Generator::v0_9().negotiate(None) {
        Ok(processor) => processor.parser_config(),
        Err(error) => panic!("{error}"),
    }
}

/// The parts of `text` fed at the byte offsets `cuts` (moved to character boundaries).
fn split(text: &str, cuts: &[usize], config: ParserConfig) -> Vec<ParsedPart> {
    let mut parser = StreamParser::new(config);
    let mut parts = Vec::new();
    let mut start = 0;
    let mut cuts: Vec<usize> = cuts.iter().map(|cut| cut % (text.len() + 1)).collect();
    cuts.sort_unstable();
    for mut cut in cuts.into_iter().chain([text.len()]) {
        while !text.is_char_boundary(cut) {
            cut += 1;
        }
        if cut <= start {
            continue;
        }
        parts.extend(parser.feed(&text[start..cut]));
        start = cut;
    }
    parts.extend(parser.finish().unwrap_or_else(|error| panic!("{error}")));
    join(parts)
}

#[test]
fn a2ui_in_a_json_fence_instead_of_the_tags_is_read_as_a2ui() {
    let text = written("fenced_a2ui_instead_of_tags.txt");
    let parts = split(&text, &[], v0_9());
    let [
        ParsedPart::Text(before),
        ParsedPart::A2ui(messages),
        ParsedPart::Text(after),
    ] = &parts[..]
    else {
        panic!("{parts:?}")
    };
    assert_eq!(before, "Sure! Here is the contact form:");
    assert_eq!(after, "Fill it in and press Send.");
    assert_eq!(messages.len(), 2);
    // The trailing comma a small model left is tolerated, as inside the tags.
    assert_eq!(
        messages[1]["updateComponents"]["components"][3]["id"],
        "send"
    );
    // Without the processor's check a fence is text, as it always was.
    assert!(
        split(&text, &[], ParserConfig::default())
            .iter()
            .all(|part| matches!(part, ParsedPart::Text(_)))
    );
}

#[test]
fn fenced_json_that_is_not_a2ui_of_the_version_stays_text() {
    // Invented members (`beginRendering.components`, a `catalogId` beside the message).
    let invented = written("fenced_instead_of_tags.txt");
    // Real A2UI, of another version than the one negotiated.
    let v0_8 =
        "Here:\n```json\n[{\"beginRendering\": {\"surfaceId\": \"s\", \"root\": \"r\"}}]\n```\n";
    // A code sample, and JSON that is data, not messages.
    let samples = written("fenced_code_sample.txt");
    for text in [invented.as_str(), v0_8, samples.as_str()] {
        let parts = split(text, &[], v0_9());
        assert_eq!(parts, vec![ParsedPart::Text(text.trim().to_owned())]);
    }
}

#[test]
fn a_code_sample_streams_as_it_comes_and_a_json_fence_waits_for_its_close() {
    let mut parser = StreamParser::new(v0_9());
    let parts = parser.feed("Code:\n```python\nprint(1)\n");
    assert_eq!(spelled(&join(parts)), ["text: Code: ```python print(1)"]);
    let parts = parser.feed("```\nData:\n```json\n[{\"version\": \"v0.9\", ");
    assert_eq!(spelled(&join(parts)), ["text: ``` Data:"]);
    let parts = parser.feed("\"deleteSurface\": {\"surfaceId\": \"s\"}}]\n```\nBye.");
    assert_eq!(
        join(parts),
        [
            ParsedPart::A2ui(vec![
                json!({"version": "v0.9", "deleteSurface": {"surfaceId": "s"}})
            ]),
            ParsedPart::Text("Bye.".into()),
        ]
    );
}

#[test]
fn once_the_tags_are_used_a_fence_is_text() {
    let text = "<a2ui-json>[{\"version\": \"v0.9\", \"deleteSurface\": {\"surfaceId\": \"a\"}}]</a2ui-json>\n```json\n[{\"version\": \"v0.9\", \"deleteSurface\": {\"surfaceId\": \"b\"}}]\n```";
    let parts = split(text, &[], v0_9());
    assert_eq!(parts.len(), 2, "{parts:?}");
    assert!(matches!(&parts[1], ParsedPart::Text(t) if t.starts_with("```json")));
}

#[test]
fn a2ui_written_bare_instead_of_the_tags_is_read_as_a2ui() {
    // Two repair turns of the 0.5B model: the messages with no tags (a `surfaceId` left out,
    // which validation then names), and the VALIDATION_FAILED feedback written back.
    for name in ["bare_json_instead_of_tags.txt", "bare_feedback_echoed.txt"] {
        let parts = split(&written(name), &[], v0_9());
        assert!(
            matches!(&parts[..], [ParsedPart::A2ui(messages)] if !messages.is_empty()),
            "{name}: {parts:?}"
        );
    }
    let parts = split(&written("bare_json_instead_of_tags.txt"), &[], v0_9());
    let ParsedPart::A2ui(messages) = &parts[0] else {
        unreachable!()
    };
    assert_eq!(messages[0]["createSurface"]["surfaceId"], "profile_card");
    // Without the processor's check, bare JSON is text, as it always was.
    assert!(
        split(
            &written("bare_json_instead_of_tags.txt"),
            &[],
            ParserConfig::default()
        )
        .iter()
        .all(|part| matches!(part, ParsedPart::Text(_)))
    );
}

#[test]
fn bare_json_that_is_not_a2ui_is_read_as_any_answer() {
    // Data, not messages: text, whole.
    let data = "{\"name\": \"Baan Thai\", \"rating\": 4.6}";
    assert_eq!(
        split(data, &[], v0_9()),
        [ParsedPart::Text(data.to_owned())]
    );
    // A tagged block after it is still a block.
    let then_block = "[1, 2]\n<a2ui-json>[{\"version\": \"v0.9\", \"deleteSurface\": {\"surfaceId\": \"s\"}}]</a2ui-json>";
    assert_eq!(
        spelled(&split(then_block, &[], v0_9())),
        [
            "text: [1, 2]".to_owned(),
            format!(
                "a2ui: {}",
                json!([{"version": "v0.9", "deleteSurface": {"surfaceId": "s"}}])
            )
        ]
    );
    // And an unreadable one is an error at its place in the whole answer.
    let broken = "  [1]\n<a2ui-json>[{\"version\": \"v0.9\",, }]</a2ui-json>";
    let mut parser = StreamParser::new(v0_9());
    parser.feed(broken);
    let error = parser.finish().unwrap_err();
    assert_eq!(error.kind(), ParseErrorKind::Syntax);
    assert_eq!(&broken[error.offset()..error.offset() + 1], ",", "{error}");
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]

    #[test]
    fn fenced_a2ui_reads_the_same_however_it_is_split(
        cuts in proptest::collection::vec(0usize..2000, 0..12),
    ) {
        for name in [
            "fenced_a2ui_instead_of_tags.txt",
            "fenced_code_sample.txt",
            "fenced_instead_of_tags.txt",
            "bare_json_instead_of_tags.txt",
            "bare_feedback_echoed.txt",
        ] {
            let text = written(name);
            let whole = split(&text, &[], v0_9());
            let parts = split(&text, &cuts, v0_9());
            proptest::prop_assert_eq!(spelled(&whole), spelled(&parts), "{}", name);
        }
    }
}
