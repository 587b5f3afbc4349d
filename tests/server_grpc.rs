//! The gRPC binding against hostile and edge-case input, with grpcio (the Python a2a-sdk's
//! `grpc` extra) on a real socket, through `A2uiServer::serve`: every refusal is a clean gRPC
//! status with the A2A `ErrorInfo` where the error is A2A's, a caller never sees another's
//! task, and a stream the client drops gives back what it held. The scenarios are
//! `tests/interop/python/grpc_hostile.py`. Skipped (with a message) when `.venv` is absent,
//! unless `A2UI_REQUIRE_INTEROP=1`.
#![cfg(feature = "grpc")]

#[allow(dead_code)] // the other interop tests' server and helpers
#[path = "interop/support.rs"]
mod support;

use a2ui_agent::a2a::card::AgentCard;
use a2ui_agent::server::{A2uiServer, Principal, TokenTable};
use serde_json::Value;
use support::{crate_root, installed, run_script, test_agent};
use tokio::net::TcpListener;

/// The largest message the server under test reads.
const MESSAGE_LIMIT: usize = 64 * 1024;

/// A server for two callers, `alice-token` and `bob-token`, on a free port: its `host:port`.
async fn start_server() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap().to_string();
    let card = AgentCard::builder("grpc hostile")
        .url(format!("http://{address}/"))
        .build();
    let tokens = TokenTable::new()
        .with(Principal::new("alice"), "alice-token")
        .with(Principal::new("bob"), "bob-token");
    let server = A2uiServer::builder(card, test_agent)
        .auth_tokens(tokens)
        .body_limit(MESSAGE_LIMIT)
        .cancel_on_disconnect(true)
        .max_subscribers_per_caller(1)
        .build()
        .unwrap();
    tokio::spawn(async move { server.serve(listener).await });
    address
}

/// Runs `scenario` against a fresh server; what the script saw, or `None` when the client is
/// not installed (and not required).
async fn scenario(name: &str) -> Option<Value> {
    let python = installed(
        crate_root().join(".venv/bin/python"),
        "the Python a2a-sdk client",
    )?;
    let target = start_server().await;
    let dir = crate_root().join("tests/interop/python");
    let run = run_script(&python, &["grpc_hostile.py", &target, name], &dir).await;
    Some(run.passed(name))
}

fn assert_refused(seen: &Value, code: &str) {
    assert_eq!(seen["code"], code, "{seen}");
    let message = seen["message"].as_str().unwrap_or_default();
    assert!(!message.is_empty(), "a refusal says why: {seen}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_message_over_the_limit_is_out_of_range_and_says_the_limit() {
    let Some(seen) = scenario("oversized").await else {
        return;
    };
    // tonic's code for a message over the decoding limit.
    assert_refused(&seen, "OUT_OF_RANGE");
    let message = seen["message"].as_str().unwrap();
    assert!(message.contains(&MESSAGE_LIMIT.to_string()), "{seen}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_data_part_nested_300_deep_is_an_invalid_argument() {
    let Some(seen) = scenario("deep").await else {
        return;
    };
    assert_refused(&seen, "INVALID_ARGUMENT");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn invalid_utf8_in_a_string_field_is_an_invalid_argument() {
    let Some(seen) = scenario("utf8").await else {
        return;
    };
    assert_refused(&seen, "INVALID_ARGUMENT");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bytes_that_are_no_message_are_an_invalid_argument() {
    let Some(seen) = scenario("garbage").await else {
        return;
    };
    assert_refused(&seen, "INVALID_ARGUMENT");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_fields_are_ignored() {
    let Some(seen) = scenario("unknown").await else {
        return;
    };
    assert_eq!(seen["state"], "TASK_STATE_INPUT_REQUIRED", "{seen}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a2a_version_0_3_over_grpc_is_unimplemented_with_the_a2a_error_info() {
    let Some(seen) = scenario("version").await else {
        return;
    };
    assert_refused(&seen, "UNIMPLEMENTED");
    assert_eq!(
        seen["errorInfo"]["reason"], "VERSION_NOT_SUPPORTED",
        "{seen}"
    );
    assert_eq!(seen["errorInfo"]["domain"], "a2a-protocol.org", "{seen}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_without_a_token_is_unauthenticated_and_another_callers_task_is_not_found() {
    let Some(seen) = scenario("auth").await else {
        return;
    };
    assert_refused(&seen["anonymous"], "UNAUTHENTICATED");
    let other = &seen["otherCaller"];
    assert_refused(other, "NOT_FOUND");
    assert_eq!(other["errorInfo"]["reason"], "TASK_NOT_FOUND", "{seen}");
    // The answer a missing task gets: it names the id asked for, nothing of its owner.
    assert!(!other.to_string().contains("alice"), "{seen}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dropped_stream_cancels_its_task_and_a_dropped_subscription_gives_its_place_back() {
    let Some(seen) = scenario("abandon").await else {
        return;
    };
    assert_eq!(seen["abandonedState"], "TASK_STATE_CANCELED", "{seen}");
    assert_eq!(seen["subscriptions"], 3, "{seen}");
}
