//! A repair turn's answer repeats the text the client already read: the agent rewrites its
//! whole answer, words before the A2UI included. The client sees those words once: what a
//! repair turn writes goes out from where it stops repeating what was sent, for a stream read
//! in any chunk size and for `message/send` alike.

mod support;

use a2ui_agent::a2ui::ProtocolVersion;
use a2ui_agent::agent::{AgentError, Reply};
use a2ui_agent::request::Request;
use support::*;

const INTRO: &str = "Here is your order, ready to confirm.\n";

/// A component of a type the basic catalog does not have: the first attempt is repaired.
fn invalid() -> String {
    format!(
        r#"{INTRO}<a2ui-json>[{{"version": "v0.9", "createSurface": {{"surfaceId": "order", "catalogId": "{}"}}}}, {{"version": "v0.9", "updateComponents": {{"surfaceId": "order", "components": [{{"id": "root", "component": "Frobnicator", "text": "Order 1234"}}]}}}}]</a2ui-json>"#,
        ProtocolVersion::V0_9.basic_catalog_id()
    )
}

fn repaired() -> String {
    format!(
        r#"{INTRO}<a2ui-json>[{{"version": "v0.9", "createSurface": {{"surfaceId": "order", "catalogId": "{}"}}}}, {{"version": "v0.9", "updateComponents": {{"surfaceId": "order", "components": [{{"id": "root", "component": "Text", "text": "Order 1234"}}]}}}}]</a2ui-json>Enjoy your meal!"#,
        ProtocolVersion::V0_9.basic_catalog_id()
    )
}

fn agent(
    size: usize,
) -> impl Fn(Request) -> futures::future::Ready<Result<Reply, AgentError>> + Send + Sync + 'static {
    move |request: Request| {
        let text = if request.repair().is_some() {
            repaired()
        } else {
            invalid()
        };
        let chunks: Vec<Result<String, AgentError>> = text
            .as_bytes()
            .chunks(size)
            .map(|c| Ok(String::from_utf8_lossy(c).into_owned()))
            .collect();
        futures::future::ready(Ok(Reply::stream(futures::stream::iter(chunks))))
    }
}

#[tokio::test]
async fn a_repair_turn_sends_the_words_the_client_already_read_only_once() {
    for method in ["message/stream", "message/send"] {
        for size in [1, 5, 64, 4096] {
            let server = spawn(a2ui_builder(agent(size)).build().unwrap()).await;
            let answer = server.ask(method, ProtocolVersion::V0_9, "my order").await;
            let last = answer.last();
            assert_eq!(
                last["status"]["state"], "input-required",
                "{method}, chunks of {size}: {last:#}"
            );
            let parts = answer.reply_parts();
            assert_eq!(
                text_of(&parts),
                format!("{}Enjoy your meal!", INTRO.trim_end()),
                "{method}, chunks of {size}: {parts:#}"
            );
            let messages = a2ui_messages(&parts, ProtocolVersion::V0_9);
            assert!(
                messages
                    .iter()
                    .any(|m| m["updateComponents"]["components"][0]["component"] == "Text"),
                "{method}, chunks of {size}: {messages:#?}"
            );
        }
    }
}
