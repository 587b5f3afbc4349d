//! Our client asking the demo restaurant agent for A2UI, over each interface: the streamed
//! reply decodes into data parts that carry A2UI messages of the version asked for, and
//! those messages validate against the basic catalog.
#![cfg(feature = "client")]

#[path = "../src/bin/a2ui-agent/demo.rs"]
mod demo;

use a2ui_agent::a2a::card::AgentCard;
use a2ui_agent::a2a::{Part, StreamEvent, TaskState};
use a2ui_agent::a2ui::{ProtocolVersion, Validator};
use a2ui_agent::client::{Client, Transport, text_request};
use a2ui_agent::generator::Generator;
use a2ui_agent::server::A2uiServer;
use demo::{DemoConfig, RestaurantFinder};
use futures::StreamExt;
use serde_json::{Map, Value, json};

/// Serves the demo agent with the v0.9 and v0.8 generators; returns the base URL.
async fn start_demo() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/", listener.local_addr().unwrap());
    let card = AgentCard::builder("demo").url(&url).build();
    let agent = RestaurantFinder::new(DemoConfig::default().without_delays());
    let server = A2uiServer::builder(card, agent)
        .generator(Generator::v0_9())
        .generator(Generator::v0_8())
        .build()
        .unwrap();
    tokio::spawn(async move { axum::serve(listener, server.router()).await });
    url
}

/// The A2UI messages of `parts`: data parts labelled with `version`'s MIME type.
fn a2ui_messages(parts: &[Part], version: ProtocolVersion) -> Vec<Value> {
    parts
        .iter()
        .filter(|part| {
            part.metadata()
                .and_then(|metadata| metadata.get("mimeType"))
                .and_then(Value::as_str)
                == Some(version.mime_type())
        })
        .filter_map(Part::as_data)
        .map(|data| Value::Object(data.clone()))
        .collect()
}

#[tokio::test]
async fn a_streamed_a2ui_reply_decodes_into_data_parts_that_validate_on_every_interface() {
    let version = ProtocolVersion::V0_9;
    for transport in Transport::ALL {
        let client = Client::builder(start_demo().await)
            .prefer([transport])
            .extension(version.extension_uri())
            .connect()
            .await
            .unwrap();
        let mut request = text_request("Dinner for two?");
        let capabilities = json!({version.as_str(): {
            "supportedCatalogIds": [version.basic_catalog_id()]}});
        let mut metadata = Map::new();
        metadata.insert("a2uiClientCapabilities".into(), capabilities);
        request.message.metadata = Some(metadata);
        let mut events = client.send_streaming(request).await.unwrap();
        let mut messages = Vec::new();
        let mut text = String::new();
        let mut updates = 0;
        while let Some(event) = events.next().await {
            // Working updates carry each new piece once; the last repeats the whole reply.
            if let StreamEvent::StatusUpdate(update) = event.unwrap()
                && update.status.state == TaskState::Working
            {
                updates += 1;
                if let Some(message) = &update.status.message {
                    messages.extend(a2ui_messages(&message.parts, version));
                    text.push_str(&message.text());
                }
            }
        }
        assert!(updates > 3, "{transport}: {updates} updates");
        assert!(
            messages.iter().any(|m| m.get("createSurface").is_some()),
            "{transport}: {messages:?}"
        );
        Validator::basic(version)
            .check_response(&messages)
            .unwrap_or_else(|errors| panic!("{transport}: {errors:?}"));
        assert!(
            text.starts_with("Here are three restaurants"),
            "{transport}: {text}"
        );
    }
}
