//! Reading a model's answer through a request processor: the catalog decides when a message
//! still arriving may be sent, the finished messages are checked against what negotiation
//! left active, and an output format may read only finished responses.

use a2ui_agent::a2ui::ProtocolVersion;
use a2ui_agent::format::{FormatReader, OutputFormat};
use a2ui_agent::generator::Generator;
use a2ui_agent::parser::{EmitMode, ParseError, ParsedPart, ParserConfig, parse_with};
use serde_json::{Value, json};

const V0_9_BASIC: &str = "https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json";

fn messages(parts: &[ParsedPart]) -> Vec<Value> {
    parts
        .iter()
        .flat_map(|p| match p {
            ParsedPart::A2ui(m) => m.clone(),
            ParsedPart::Text(_) => Vec::new(),
        })
        .collect()
}

/// A format whose whole answer is one JSON array of messages, readable only once finished.
struct WholeJson;

struct WholeReader {
    text: String,
    config: ParserConfig,
}

impl FormatReader for WholeReader {
    fn feed(&mut self, chunk: &str) -> Vec<ParsedPart> {
        self.text.push_str(chunk);
        Vec::new()
    }

    fn error(&self) -> Option<&ParseError> {
        None
    }

    fn finish(self: Box<Self>) -> Result<Vec<ParsedPart>, ParseError> {
        parse_with(&self.text, self.config.wrapped(false))
    }
}

impl OutputFormat for WholeJson {
    fn name(&self) -> &str {
        "whole-json"
    }

    fn instructions(&self) -> String {
        "Answer with a single JSON array of A2UI messages and nothing else.".into()
    }

    fn streams(&self) -> bool {
        false
    }

    fn reader(&self, config: ParserConfig) -> Box<dyn FormatReader> {
        Box::new(WholeReader {
            text: String::new(),
            config,
        })
    }
}

#[test]
fn a_format_that_reads_only_finished_answers_yields_everything_at_the_end() {
    let generator = Generator::builder(ProtocolVersion::V0_9)
        .format(WholeJson)
        .build()
        .unwrap();
    assert!(!generator.format().streams());
    let processor = generator.negotiate(None).unwrap();
    assert!(processor.prompt().contains("single JSON array"));
    assert!(!processor.prompt().contains("<a2ui-json>"));
    let mut reader = processor.parser();
    assert!(
        reader
            .feed(r#"[{"version": "v0.9", "deleteSurface": "#)
            .is_empty()
    );
    assert!(reader.feed(r#"{"surfaceId": "s"}}]"#).is_empty());
    let parts = reader.finish().unwrap();
    assert_eq!(
        parts,
        vec![ParsedPart::A2ui(vec![
            json!({"version": "v0.9", "deleteSurface": {"surfaceId": "s"}})
        ])]
    );
}

const OPEN: &str = r#"Here.<a2ui-json>[{"version": "v0.9", "updateComponents": {"surfaceId": "s", "components": ["#;

#[test]
fn a_component_the_catalog_accepts_is_sent_before_its_message_closes() {
    let processor = Generator::v0_9().negotiate(None).unwrap();
    let mut reader = processor.parser();
    let parts = reader.feed(&format!(
        r#"{OPEN}{{"id": "root", "component": "Text", "text": "Hi"}}, {{"id": "b""#
    ));
    let sent = messages(&parts);
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0]["updateComponents"]["components"][0]["id"], "root");
}

#[test]
fn a_component_the_catalog_rejects_waits_for_its_message_to_close() {
    let processor = Generator::v0_9().negotiate(None).unwrap();
    let mut reader = processor.parser();
    let early = reader.feed(&format!(
        r#"{OPEN}{{"id": "root", "component": "Marquee", "text": "Hi"}}, {{"id": "b""#
    ));
    assert!(messages(&early).is_empty(), "sent early: {early:?}");
    let rest = reader.feed(r#", "component": "Text", "text": "x"}]}}]</a2ui-json>"#);
    let closed = messages(&rest);
    assert_eq!(closed.len(), 1, "the message is sent once it closes");
    let errors = processor.validate(&closed).unwrap_err();
    assert!(errors[0].message.contains("Marquee"), "{errors:?}");
}

#[test]
fn a_data_model_value_streams_as_it_is_written_by_default() {
    let processor = Generator::v0_9().negotiate(None).unwrap();
    let mut reader = processor.parser();
    let parts = reader.feed(
        r#"<a2ui-json>[{"version": "v0.9", "updateDataModel": {"surfaceId": "s", "path": "/note", "value": "Table for tw"#,
    );
    let sent = messages(&parts);
    assert_eq!(sent.len(), 1, "{parts:?}");
    assert_eq!(sent[0]["updateDataModel"]["value"], "Table for tw");
}

#[test]
fn cumulative_emission_resends_the_whole_message() {
    let processor = Generator::builder(ProtocolVersion::V0_9)
        .emit_mode(EmitMode::Cumulative)
        .build()
        .unwrap()
        .negotiate(None)
        .unwrap();
    let mut reader = processor.parser();
    reader.feed(&format!(
        r#"{OPEN}{{"id": "root", "component": "Column", "children": ["a"]}},"#
    ));
    let parts = reader.feed(r#"{"id": "a", "component": "Text", "text": "x"}, "#);
    let sent = messages(&parts);
    assert_eq!(
        sent[0]["updateComponents"]["components"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
}

#[test]
fn a_whole_answer_parses_into_its_text_and_messages_in_order() {
    let processor = Generator::v0_9().negotiate(None).unwrap();
    let answer = format!(
        "Your booking:<a2ui-json>[{{\"version\": \"v0.9\", \"createSurface\": {{\"surfaceId\": \"b\", \"catalogId\": \"{V0_9_BASIC}\"}}}}, \
         {{\"version\": \"v0.9\", \"updateComponents\": {{\"surfaceId\": \"b\", \"components\": [{{\"id\": \"root\", \"component\": \"Text\", \"text\": \"Booked\"}}]}}}}]</a2ui-json> Enjoy!"
    );
    let parts = processor.parse(&answer).unwrap();
    assert_eq!(parts.len(), 3);
    assert_eq!(parts[0], ParsedPart::Text("Your booking:".into()));
    assert_eq!(parts[2], ParsedPart::Text("Enjoy!".into()));
    assert!(processor.validate(&messages(&parts)).is_ok());
}

#[test]
fn an_unreadable_block_is_a_parse_error_with_its_position() {
    let processor = Generator::v0_9().negotiate(None).unwrap();
    let err = processor
        .parse("Hi\n<a2ui-json>[{\"version\": oops}]</a2ui-json>")
        .unwrap_err();
    assert_eq!(err.line(), 2);
}

#[test]
fn a_message_kind_the_agent_does_not_allow_is_rejected_and_never_prompted() {
    let processor = Generator::builder(ProtocolVersion::V0_9)
        .messages(&["createSurface", "updateComponents"])
        .build()
        .unwrap()
        .negotiate(None)
        .unwrap();
    assert!(!processor.prompt().contains("deleteSurface"));
    assert!(!processor.prompt().contains("updateDataModel"));
    let errors = processor
        .validate(&[json!({"version": "v0.9", "deleteSurface": {"surfaceId": "s"}})])
        .unwrap_err();
    assert_eq!(errors[0].pointer, "/deleteSurface");
    assert!(errors[0].message.contains("not allowed"), "{errors:?}");
}

#[test]
fn a_message_kind_the_version_lacks_cannot_be_allowed() {
    let err = Generator::builder(ProtocolVersion::V0_9)
        .messages(&["beginRendering"])
        .build()
        .unwrap_err();
    assert!(err.to_string().contains("beginRendering"), "{err}");
}
