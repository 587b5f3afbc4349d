//! Express on a real socket: an agent whose model writes Express is asked for it in its
//! prompt; a stream gets each component as soon as its statement completes and what it names
//! is there (the first card while the model is still held before the next statement), and
//! `message/send` the same messages' result at the end. A block that does not compile fails
//! a streamed task and is answered as text on `message/send`, as for Direct JSON.

mod support;

use a2ui_agent::a2a::card::AgentCard;
use a2ui_agent::a2ui::{ProtocolVersion, Validator};
use a2ui_agent::agent::{AgentError, Reply};
use a2ui_agent::format::express::Express;
use a2ui_agent::generator::Generator;
use a2ui_agent::request::Request;
use a2ui_agent::server::A2uiServer;
use futures::StreamExt;
use serde_json::{Value, json};
use std::sync::OnceLock;
use support::*;
use tokio::sync::Notify;

/// Lets the held model (`hold`) write the rest of its answer.
fn release() -> &'static Notify {
    static RELEASE: OnceLock<Notify> = OnceLock::new();
    RELEASE.get_or_init(Notify::new)
}

/// Where the held model stops: after the statement that completes the first card.
const HELD_AT: &str = "title = Text(\"Book a table\")\n";

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
    let chunked = |text: &str| -> Vec<Result<String, AgentError>> {
        text.as_bytes()
            .chunks(7)
            .map(|c| Ok(String::from_utf8_lossy(c).into_owned()))
            .collect()
    };
    if request.text() == "hold" {
        let cut = text.find(HELD_AT).map_or(0, |at| at + HELD_AT.len());
        let (first, rest) = text.split_at(cut);
        let rest = rest.to_owned();
        let held = futures::stream::once(async move {
            release().notified().await;
            Ok(rest)
        });
        let first = futures::stream::iter(chunked(first));
        return Ok(Reply::stream(first.chain(held)));
    }
    Ok(Reply::stream(futures::stream::iter(chunked(&text))))
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
    let mut ids: Vec<&str> = components
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    ids.sort_unstable();
    // Each component once, whenever it was ready.
    assert_eq!(
        ids,
        [
            "name",
            "root",
            "root_children_2",
            "root_children_2_child",
            "title",
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
async fn a_stream_sends_components_as_their_statements_complete() {
    for version in [ProtocolVersion::V0_9, ProtocolVersion::V1_0] {
        let server = server(version).await;
        let answer = server.ask("message/stream", version, "a table").await;
        assert_eq!(
            answer.extensions_header.as_deref(),
            Some(version.extension_uri())
        );
        // Chunks already waiting are read as one (see the held test for the stream's pace):
        // every working update together holds each part once.
        let working = answer.working_messages();
        let parts: Vec<Value> = working
            .iter()
            .flat_map(|m| m["parts"].as_array().unwrap().iter().cloned())
            .collect();
        check_parts(&Value::from(parts), version);
        let last = answer.last();
        assert_eq!(last["final"], true);
        assert_eq!(last["status"]["state"], "input-required");
    }
}

#[tokio::test]
async fn the_first_card_arrives_while_the_model_is_held() {
    let version = ProtocolVersion::V0_9;
    let server = server(version).await;
    let caps = capabilities(version, &[version.basic_catalog_id()]);
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "message/stream",
        "params": params(json!([{"kind": "text", "text": "hold"}]), Some(caps), None)});
    let response = reqwest::Client::new()
        .post(&server.url)
        .header("content-type", "application/json")
        .header("X-A2A-Extensions", version.extension_uri())
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    let mut events = SseReader::new(response);
    // The model wrote `surface`, `root` (naming `title` and `name`) and `title`, and waits:
    // the button written inline and the title are drawn before it goes on.
    let mut drawn = Vec::new();
    while !drawn.contains(&"title".to_owned()) {
        let event = events
            .next_event()
            .await
            .expect("the stream ended while held");
        let parts = &event["result"]["status"]["message"]["parts"];
        if parts.is_array() {
            for message in a2ui_messages(parts, version) {
                let list = message.pointer("/updateComponents/components");
                for component in list.and_then(Value::as_array).into_iter().flatten() {
                    drawn.push(component["id"].as_str().unwrap().to_owned());
                }
            }
        }
    }
    assert!(!drawn.contains(&"name".to_owned()), "{drawn:?}");
    assert!(!drawn.contains(&"root".to_owned()), "{drawn:?}");
    release().notify_one();
    let mut last = Value::Null;
    while let Some(event) = events.next_event().await {
        last = event;
    }
    assert_eq!(
        last["result"]["status"]["state"], "input-required",
        "{last}"
    );
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
    // The text before the block went out; no message of the block did.
    let working = streamed.working_messages();
    assert!(
        working
            .iter()
            .all(|m| a2ui_messages(&m["parts"], version).is_empty()),
        "{working:?}"
    );
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
