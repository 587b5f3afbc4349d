//! A2UI v0.9 end to end with the real JavaScript A2A client, `@a2a-js/sdk` 1.3.0, on its A2A
//! 1.0 transports (JSON-RPC, HTTP+JSON and gRPC, no `legacyCompat`): the client activates the
//! extension, declares its capabilities, reads the demo's streamed surfaces and sends a
//! booking action back (`tests/interop/js/a2ui.mjs`). The messages it received are validated
//! here against the catalog. Skipped (with a message) when `tests/interop/js/node_modules` is
//! absent, unless `A2UI_REQUIRE_INTEROP=1`.
#![cfg(feature = "server")]

#[allow(dead_code)] // the echo agent and its helpers serve the other interop tests
#[path = "interop/support.rs"]
mod support;

#[path = "../src/bin/a2ui-agent/demo.rs"]
mod demo;

use a2ui_agent::a2a::card::AgentCard;
use a2ui_agent::a2ui::{ProtocolVersion, Validator};
use a2ui_agent::generator::Generator;
use a2ui_agent::server::A2uiServer;
use demo::{DemoConfig, RestaurantFinder};
use serde_json::Value;
use support::{crate_root, installed, node_on_path, run_script};
use tokio::net::TcpListener;

async fn start_server() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/", listener.local_addr().unwrap());
    let server = A2uiServer::builder(
        AgentCard::builder("a2ui interop").url(&url).build(),
        RestaurantFinder::new(DemoConfig::default().without_delays()),
    )
    .generator(Generator::v0_9())
    .generator(Generator::v0_8())
    .build()
    .unwrap();
    tokio::spawn(async move { axum::serve(listener, server.router()).await });
    url
}

/// Checks one streamed turn: every A2UI part carries the v0.9 MIME type in both
/// `metadata.mimeType` and the 1.0 `mediaType`, and the messages validate against the basic
/// catalog; returns the messages.
fn checked_messages(turn: &Value) -> Vec<Value> {
    let version = ProtocolVersion::V0_9;
    assert_eq!(turn["state"], "TASK_STATE_INPUT_REQUIRED", "{turn}");
    let updates = turn["updates"].as_array().unwrap();
    assert!(updates.len() >= 2, "one working update per part: {turn}");
    let mut messages = Vec::new();
    for part in updates.iter().flat_map(|u| u.as_array().unwrap()) {
        assert_eq!(part["mimeType"], version.mime_type(), "{part}");
        assert_eq!(part["mediaType"], version.mime_type(), "{part}");
        messages.push(part["data"].clone());
    }
    Validator::basic(version)
        .check_response(&messages)
        .unwrap_or_else(|errors| panic!("{errors:?}"));
    messages
}

async fn the_flow(transport: &str, expected: &str) {
    let dir = crate_root().join("tests/interop/js");
    if installed(
        dir.join("node_modules/@a2a-js/sdk"),
        "the @a2a-js/sdk client",
    )
    .is_none()
    {
        return;
    }
    let Some(node) = installed(node_on_path(), "node") else {
        return;
    };
    let url = start_server().await;
    let seen = run_script(&node, &["a2ui.mjs", &url, transport], &dir)
        .await
        .passed("the A2UI flow");
    assert_eq!(seen["transport"], expected, "{seen}");
    let results = checked_messages(&seen["first"]);
    assert!(
        results
            .iter()
            .any(|m| m.to_string().contains("Trattoria Alba")),
        "{results:?}"
    );
    let shown: String = checked_messages(&seen["second"])
        .iter()
        .map(Value::to_string)
        .collect();
    assert!(
        shown.contains("Ada at Sakura House, 2 people, 20:00"),
        "the action did not reach the agent: {shown}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_json_rpc_1_0_the_js_client_gets_valid_v0_9_surfaces_and_its_action_reaches_the_agent()
{
    the_flow("jsonrpc", "JSONRPC 1.0").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_http_json_the_js_client_gets_valid_v0_9_surfaces_and_its_action_reaches_the_agent() {
    the_flow("rest", "HTTP+JSON 1.0").await;
}

/// Over gRPC the A2UI messages travel as the proto's data parts (`google.protobuf.Value`),
/// the MIME type in the part's metadata and `media_type`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_grpc_the_js_client_gets_valid_v0_9_surfaces_and_its_action_reaches_the_agent() {
    the_flow("grpc", "GRPC 1.0").await;
}
