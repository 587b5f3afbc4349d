//! The model connector records what its tools returned as given to the agent, so a URL a
//! tool returned may be shown in the reply's UI while one the model made up is stopped by
//! the URL policy: against a scripted model server, over a real socket.
#![cfg(feature = "llm")]

mod llm_support;
mod support;

use std::time::Duration;

use a2ui_agent::a2ui::ProtocolVersion;
use a2ui_agent::llm::{OpenAiChat, Tool};
use a2ui_agent::pipeline::{HostResolver, OnInvalid};
use llm_support::{Answer, MockModel, call, sse, text};
use serde_json::{Value, json};

const V: ProtocolVersion = ProtocolVersion::V0_9;

fn answer(deltas: &[Value], finish: &str) -> Answer {
    Answer::Sse {
        body: sse(deltas, finish),
        pause: Duration::ZERO,
    }
}

/// The test's DNS: every name is one public address.
struct Public;

impl HostResolver for Public {
    fn resolve(
        &self,
        _host: &str,
    ) -> futures::future::BoxFuture<'static, std::io::Result<Vec<std::net::IpAddr>>> {
        Box::pin(async { Ok(vec!["93.184.215.14".parse().unwrap()]) })
    }
}

/// The model's answer after the tool ran: an Image of `url`.
fn draws(url: &str) -> Answer {
    let create = json!({"version": "v0.9", "createSurface": {"surfaceId": "s",
        "catalogId": V.basic_catalog_id()}});
    let update = json!({"version": "v0.9", "updateComponents": {"surfaceId": "s",
        "components": [{"id": "root", "component": "Image", "url": url}]}});
    let block = format!("Here.<a2ui-json>[{create}, {update}]</a2ui-json>");
    let (head, tail) = block.split_at(block.len() / 2);
    answer(&[text(head), text(tail)], "stop")
}

/// Asks a model that calls the `photos` tool, then draws `url`; the final task.
async fn turn(url: &str) -> Value {
    let calls = answer(&[call(0, Some("c1"), Some("photos"), "{}")], "tool_calls");
    let mock = MockModel::start(vec![calls, draws(url)]).await;
    let photos = Tool::new(
        "photos",
        "Photos of a place.",
        json!({"type": "object"}),
        |_| async { Ok(json!({"photo": "https://images.example.com/sushi.png"})) },
    );
    let chat = OpenAiChat::builder(&mock.base_url, "mock-model")
        .idle_timeout(Duration::from_secs(5))
        .retries(0, Duration::ZERO, Duration::ZERO)
        .tool(photos)
        .build()
        .unwrap();
    let server = support::spawn(
        support::a2ui_builder(chat)
            .on_invalid(OnInvalid::Fail)
            .ui_host_resolver(Public)
            .build()
            .unwrap(),
    )
    .await;
    server
        .ask("message/stream", V, "Sushi?")
        .await
        .last()
        .clone()
}

#[tokio::test]
async fn a_url_a_tool_returned_is_shown_and_one_the_model_made_up_is_not() {
    let honest = turn("https://images.example.com/sushi.png").await;
    assert_eq!(honest["status"]["state"], "input-required", "{honest}");

    let made_up = turn("https://images.example.com/sushi.png?u=ada").await;
    assert_eq!(made_up["status"]["state"], "failed", "{made_up}");
    let why = support::text_of(&made_up["status"]["message"]["parts"]);
    assert!(why.contains("did not appear in the conversation"), "{why}");
}
