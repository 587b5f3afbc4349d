//! A2UI end to end with the real Python A2A client, `a2a-sdk` 1.3.0, over TCP, for v0.8 and
//! v0.9: the client activates the extension and declares its capabilities, reads the demo's
//! streamed surfaces and sends a user action back (`tests/interop/a2ui_e2e.py`). The messages
//! it received are validated here against the catalog. The client takes its default transport
//! (JSON-RPC 1.0, where parts carry `mediaType` too); the v0.9 flow also runs over HTTP+JSON
//! 1.0, gRPC 1.0 (the A2UI messages travel as the proto's data parts) and JSON-RPC 0.3. Skipped (with a message) when `.venv` is absent, unless
//! `A2UI_REQUIRE_INTEROP=1`.
#![cfg(feature = "server")]

#[allow(dead_code)] // the echo agent and its helpers serve the other interop tests
#[path = "interop/support.rs"]
mod support;

#[path = "../src/bin/a2ui-agent/demo.rs"]
mod demo;

use a2ui_agent::a2a::card::AgentCard;
use a2ui_agent::a2ui::{ProtocolVersion, Validator};
use a2ui_agent::agent::{Agent, AgentError, Reply};
use a2ui_agent::generator::Generator;
use a2ui_agent::request::Request;
use a2ui_agent::server::A2uiServer;
use demo::{DemoConfig, RestaurantFinder};
use serde_json::Value;
use support::{crate_root, installed, run_script};
use tokio::net::TcpListener;

/// The demo, except that "break" makes it write a malformed block mid-stream.
async fn agent(request: Request) -> Result<Reply, AgentError> {
    if request.text() == "break" {
        let chunks = [
            "Here is your list:\n<a2ui-",
            "json>[{\"version\": \"v0.9\", \"deleteSurface\": ",
            "{\"surfaceId\": }}]</a2ui-json>\nand more text",
        ]
        .map(|c| Ok(c.to_owned()));
        return Ok(Reply::stream(futures::stream::iter(chunks)));
    }
    let demo = RestaurantFinder::new(DemoConfig::default().without_delays());
    demo.call(request).await
}

async fn start_server() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/", listener.local_addr().unwrap());
    let server = A2uiServer::builder(AgentCard::builder("a2ui interop").url(&url).build(), agent)
        .generator(Generator::v0_9())
        .generator(Generator::v0_8())
        .build()
        .unwrap();
    tokio::spawn(async move { axum::serve(listener, server.router()).await });
    url
}

async fn scenario(name: &str, version: ProtocolVersion) -> Option<Value> {
    scenario_over(name, version, "jsonrpc").await
}

/// Runs scenario `name` with the client on `transport` (`jsonrpc`, `rest`, `grpc` or `0.3`).
async fn scenario_over(name: &str, version: ProtocolVersion, transport: &str) -> Option<Value> {
    let python = installed(
        crate_root().join(".venv/bin/python"),
        "the Python a2a-sdk client",
    )?;
    let url = start_server().await;
    let dir = crate_root().join("tests/interop");
    let run = run_script(
        &python,
        &["a2ui_e2e.py", &url, name, version.as_str(), transport],
        &dir,
    )
    .await;
    Some(run.passed(name))
}

/// Checks one streamed turn: every DataPart has the version's MIME type and the messages
/// validate against the basic catalog; returns the messages.
fn checked_messages(turn: &Value, version: ProtocolVersion) -> Vec<Value> {
    assert_eq!(turn["state"], "TASK_STATE_INPUT_REQUIRED", "{turn}");
    assert_eq!(turn["echoed"], version.extension_uri(), "{turn}");
    let updates = turn["updates"].as_array().unwrap();
    assert!(
        updates.len() >= 2,
        "one working update per completed part: {turn}"
    );
    let mut messages = Vec::new();
    let on_1_0 = turn["transport"] != "CompatJsonRpcTransport";
    for update in updates {
        for part in update.as_array().unwrap() {
            assert_eq!(part["mimeType"], version.mime_type(), "{part}");
            if on_1_0 {
                // 1.0 parts carry the type in `mediaType` too.
                assert_eq!(part["mediaType"], version.mime_type(), "{part}");
            }
            messages.push(part["data"].clone());
        }
    }
    Validator::basic(version)
        .check_response(&messages)
        .unwrap_or_else(|errors| panic!("{version}: {errors:?}"));
    messages
}

async fn the_flow(version: ProtocolVersion) {
    the_flow_over(version, "jsonrpc", "JsonRpcTransport").await;
}

async fn the_flow_over(version: ProtocolVersion, transport: &str, class: &str) {
    let Some(seen) = scenario_over("flow", version, transport).await else {
        return;
    };
    assert_eq!(seen["first"]["transport"], class, "{seen}");
    let results = checked_messages(&seen["first"], version);
    assert!(
        results
            .iter()
            .any(|m| m.to_string().contains("Trattoria Alba")),
        "{results:?}"
    );
    let confirmation = checked_messages(&seen["second"], version);
    let shown: String = confirmation.iter().map(Value::to_string).collect();
    assert!(
        shown.contains("Ada at Sakura House, 2 people, 20:00"),
        "the action did not reach the agent: {shown}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_python_client_gets_valid_v0_8_surfaces_and_its_action_reaches_the_agent() {
    the_flow(ProtocolVersion::V0_8).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_python_client_gets_valid_v0_9_surfaces_and_its_action_reaches_the_agent() {
    the_flow(ProtocolVersion::V0_9).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_http_json_the_python_client_gets_valid_v0_9_surfaces_and_its_action_reaches_the_agent()
 {
    the_flow_over(ProtocolVersion::V0_9, "rest", "RestTransport").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_grpc_the_python_client_gets_valid_v0_9_surfaces_and_its_action_reaches_the_agent() {
    the_flow_over(ProtocolVersion::V0_9, "grpc", "GrpcTransport").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_json_rpc_0_3_the_python_client_gets_valid_v0_9_surfaces_and_its_action_reaches_the_agent()
 {
    the_flow_over(ProtocolVersion::V0_9, "0.3", "CompatJsonRpcTransport").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unknown_catalog_fails_the_python_clients_task_with_a_clear_message() {
    for version in [ProtocolVersion::V0_8, ProtocolVersion::V0_9] {
        let Some(seen) = scenario("unknown-catalog", version).await else {
            return;
        };
        assert_eq!(seen["state"], "TASK_STATE_FAILED", "{seen}");
        let text = seen["text"].as_str().unwrap();
        assert!(
            text.contains("https://example.com/no-such-catalog.json")
                && text.contains(version.basic_catalog_id()),
            "{text}"
        );
        assert!(seen["updates"].as_array().unwrap().is_empty(), "{seen}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_malformed_block_fails_the_python_clients_task_and_the_next_one_is_served() {
    let Some(seen) = scenario("malformed", ProtocolVersion::V0_9).await else {
        return;
    };
    assert_eq!(seen["broken"]["state"], "TASK_STATE_FAILED", "{seen}");
    let reason = seen["broken"]["text"].as_str().unwrap();
    assert!(reason.contains("cannot be read"), "{reason}");
    checked_messages(&seen["after"], ProtocolVersion::V0_9);
}
