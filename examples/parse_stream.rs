//! The parser alone: split a model's streamed output into text and A2UI messages as the
//! chunks arrive, without any server. Each part is printed as one JSON line the moment the
//! parser completes it.
//!
//! ```text
//! cargo run --example parse_stream
//! ```

use a2ui_agent::a2ui::{ProtocolVersion, Validator};
use a2ui_agent::parser::{ParsedPart, ParserConfig, StreamParser};
use serde_json::json;

/// What a model might stream, cut at arbitrary places (as tokens are).
const CHUNKS: &[&str] = &[
    "Here are tonight's",
    " options:\n<a2ui-js",
    "on>[{\"version\": \"v0.9\", \"createSurface\": {\"surfaceId\": \"list\", \"catalogId\": ",
    "\"https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json\"}},\n",
    "{\"version\": \"v0.9\", \"updateComponents\": {\"surfaceId\": \"list\", \"components\": [",
    "{\"id\": \"root\", \"component\": \"Column\", \"children\": [\"a\", \"b\"]},",
    "{\"id\": \"a\", \"component\": \"Text\", \"text\": \"Sakura House\"},",
    "{\"id\": \"b\", \"component\": \"Text\", \"text\": \"Trattoria Alba\"}]}}]</a2ui-",
    "json>\nWhich one?",
];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let validator = Validator::basic(ProtocolVersion::V0_9);
    // The catalog decides when a message still arriving is complete enough to send.
    let config = ParserConfig::default()
        .readiness(move |message: &serde_json::Value| validator.check_message(message).is_ok());
    let mut parser = StreamParser::new(config);
    let print = |parts: Vec<ParsedPart>| {
        for part in parts {
            let line = match part {
                ParsedPart::Text(text) => json!({"text": text}),
                ParsedPart::A2ui(messages) => json!({"a2ui": messages}),
            };
            println!("{line}");
        }
    };
    for chunk in CHUNKS {
        print(parser.feed(chunk));
    }
    print(parser.finish()?);
    Ok(())
}
