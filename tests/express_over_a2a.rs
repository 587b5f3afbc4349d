//! The seed's Express behaviour on a real socket: an agent whose model writes Express is
//! asked for it in its prompt, and is answered with one `working` update at the end of the
//! stream holding every part (text and the compiled messages), and the same parts on
//! `message/send`. A block that does not compile fails a streamed task and is answered as
//! text on `message/send`, as for Direct JSON.

mod support;

use a2ui_agent::a2a::card::AgentCard;
use a2ui_agent::a2ui::{ProtocolVersion, Validator};
use a2ui_agent::agent::{AgentError, Reply};
use a2ui_agent::format::express::Express;
use a2ui_agent::generator::Generator;
use a2ui_agent::request::Request;
use a2ui_agent::server::A2uiServer;
use serde_json::{Value, json};
use support::*;

/// What the model writes: text, a block creating a form with data, more text.
const ANSWER: &str = "Here is the booking form.\n<a2ui>\nsurface(\"booking\")\n\
    root = Column([title, name, Button(Text(\"Book\"), \"primary\", Event(\"book\", {who: $/guest/name}))])\n\
    title = Text(\"Book a table\")\n\
    name = TextField(\"Your name\", $/guest/name)\n\
    $/guest/name = \"Ada\"\n</a2ui>\nFill it in when you are ready.";

/// An agent that checks it was asked for Express, then streams `ANSWER` (or, for the text
/// `break`, a block that does not compile) in 7-byte chunks.
async fn express_agent(request: Request) -> Result<Reply, AgentError> {
    let asked = request
        .a2ui()
        .map(|p| p.prompt().to_owned())
        .unwrap_or_default();
    let text = if !asked.contains("<a2ui>") || asked.contains("<a2ui-json>") {
        "The prompt did not ask for Express.".to_owned()
    } else if request.text() == "break" {
        "Here:\n<a2ui>\nroot = Text(\"never closed\n</a2ui>\nmore".to_owned()
    } else {
        ANSWER.to_owned()
    };
    let chunks: Vec<Result<String, AgentError>> = text
        .as_bytes()
        .chunks(7)
        .map(|c| Ok(String::from_utf8_lossy(c).into_owned()))
        .collect();
    Ok(Reply::stream(futures::stream::iter(chunks)))
}

async fn server(version: ProtocolVersion) -> TestServer {
    let generator = Generator::builder(version)
        .format(Express::new())
        .build()
        .unwrap();
    spawn(
        A2uiServer::builder(AgentCard::builder("express").build(), express_agent)
            .generator(generator)
            .build()
            .unwrap(),
    )
    .await
}

/// Checks the parts of an answer: the text runs, then the compiled messages, which
/// validate and carry the form.
fn check_parts(parts: &Value, version: ProtocolVersion) {
    let kinds: Vec<&str> = parts
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds.first(), Some(&"text"), "{parts}");
    assert_eq!(kinds.last(), Some(&"text"), "{parts}");
    let text = text_of(parts);
    assert!(text.contains("Here is the booking form."), "{text}");
    assert!(text.contains("Fill it in when you are ready."), "{text}");
    assert!(
        !text.contains("<a2ui>") && !text.contains("root ="),
        "{text}"
    );
    let messages = a2ui_messages(parts, version);
    Validator::basic(version)
        .check_response(&messages)
        .unwrap_or_else(|e| panic!("{version}: {e:?}"));
    let components: Vec<&Value> = messages
        .iter()
        .flat_map(|m| {
            m.pointer("/createSurface/components")
                .or_else(|| m.pointer("/updateComponents/components"))
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
        })
        .collect();
    let ids: Vec<&str> = components
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    // Named components in the order written, each inline one right after its parent.
    assert_eq!(
        ids,
        [
            "root",
            "root_children_2",
            "root_children_2_child",
            "title",
            "name"
        ]
    );
    assert!(messages.iter().all(|m| {
        m.as_object()
            .unwrap()
            .values()
            .filter_map(|body| body.get("surfaceId"))
            .all(|id| id == "booking")
    }));
}

#[tokio::test]
async fn a_stream_gets_one_working_update_at_the_end_with_every_part() {
    for version in [ProtocolVersion::V0_9, ProtocolVersion::V1_0] {
        let server = server(version).await;
        let answer = server.ask("message/stream", version, "a table").await;
        assert_eq!(
            answer.extensions_header.as_deref(),
            Some(version.extension_uri())
        );
        let working = answer.working_messages();
        assert_eq!(
            working.len(),
            1,
            "{version}: {} working updates",
            working.len()
        );
        check_parts(&working[0]["parts"], version);
        let last = answer.last();
        assert_eq!(last["final"], true);
        assert_eq!(last["status"]["state"], "input-required");
    }
}

#[tokio::test]
async fn message_send_answers_with_the_same_parts() {
    for version in [ProtocolVersion::V0_9, ProtocolVersion::V1_0] {
        let server = server(version).await;
        let answer = server.ask("message/send", version, "a table").await;
        let task = answer.last();
        assert_eq!(task["status"]["state"], "input-required", "{task}");
        check_parts(&task["status"]["message"]["parts"], version);
    }
}

#[tokio::test]
async fn a_block_that_does_not_compile_fails_a_stream_and_is_text_on_send() {
    let version = ProtocolVersion::V0_9;
    let server = server(version).await;
    let caps = capabilities(version, &[version.basic_catalog_id()]);
    let streamed = server
        .exchange(
            "message/stream",
            params(
                json!([{"kind": "text", "text": "break"}]),
                Some(caps.clone()),
                None,
            ),
            &[version.extension_uri()],
        )
        .await;
    assert!(streamed.working_messages().is_empty());
    let last = streamed.last();
    assert_eq!(last["status"]["state"], "failed");
    let reason = text_of(&last["status"]["message"]["parts"]);
    assert!(
        reason.contains("cannot be read") && reason.contains("line 3"),
        "{reason}"
    );
    let sent = server
        .exchange(
            "message/send",
            params(json!([{"kind": "text", "text": "break"}]), Some(caps), None),
            &[version.extension_uri()],
        )
        .await;
    let task = sent.last();
    assert_eq!(task["status"]["state"], "input-required");
    let parts = &task["status"]["message"]["parts"];
    assert!(a2ui_messages(parts, version).is_empty());
    assert!(text_of(parts).contains("never closed"), "{parts}");
}
