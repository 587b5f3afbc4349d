//! Our server against the real Python A2A client, `a2a-sdk` 1.3.0, over TCP.
//!
//! The SDK speaks A2A 1.0 natively and falls back to its 0.3 JSON-RPC transport when the card
//! says 0.3, as ours does. Each test runs one scenario of `tests/interop/python/client.py`
//! (card resolution, send, stream, get, cancel, continuation, keep-alive) against a fresh
//! server; the script exits non-zero with `FAIL: why` when the client sees something wrong.
//! Skipped (with a message) when `.venv` is absent, unless `A2UI_REQUIRE_INTEROP=1`.
#![cfg(feature = "server")]

#[path = "interop/support.rs"]
mod support;

use support::{ScriptRun, crate_root, event_kinds, installed, run_script, start_server};

/// Runs one scenario of the Python client script against a fresh server, with the URL it
/// was given; `None` when the client is not installed (and not required).
async fn python_scenario(scenario: &str) -> Option<(ScriptRun, String)> {
    let python = installed(
        crate_root().join(".venv/bin/python"),
        "the Python a2a-sdk client",
    )?;
    let url = start_server().await;
    let dir = crate_root().join("tests/interop/python");
    let run = run_script(&python, &["client.py", &url, scenario], &dir).await;
    Some((run, url))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_python_client_resolves_our_card_to_its_0_3_json_rpc_transport() {
    let Some((run, url)) = python_scenario("card").await else {
        return;
    };
    let seen = run.passed("card resolution");
    assert_eq!(seen["transport"], "CompatJsonRpcTransport", "{seen}");
    assert_eq!(
        seen["url"], url,
        "the card's interface is not the server's URL: {seen}"
    );
    assert_eq!(
        seen["streaming"], true,
        "the card does not advertise streaming: {seen}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_blocking_send_from_the_python_client_returns_an_input_required_task_with_the_agents_text()
 {
    let Some((run, _)) = python_scenario("send").await else {
        return;
    };
    let seen = run.passed("blocking message/send");
    assert_eq!(seen["state"], "TASK_STATE_INPUT_REQUIRED", "{seen}");
    assert_eq!(seen["text"], "echo: hello", "{seen}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stream_to_the_python_client_ends_by_itself_after_the_final_update() {
    let Some((run, _)) = python_scenario("stream").await else {
        return;
    };
    // The client returns only when the server closes the response; the script gives up (and
    // fails) if that takes a minute.
    let seen = run.passed("message/stream read to the end");
    let events = event_kinds(&seen);
    assert_eq!(events.first(), Some(&"task"), "{seen}");
    assert_eq!(events.last(), Some(&"status_update"), "{seen}");
    assert!(
        events.len() >= 3,
        "expected the Task, a working update and the final update: {seen}"
    );
    assert!(seen["text"].as_str().unwrap().contains("hello"), "{seen}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_python_client_gets_a_task_with_its_state_reply_and_history() {
    let Some((run, _)) = python_scenario("get").await else {
        return;
    };
    let seen = run.passed("tasks/get");
    assert_eq!(seen["state"], "TASK_STATE_INPUT_REQUIRED", "{seen}");
    assert_eq!(seen["text"], "echo: hello", "{seen}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_python_client_cancels_a_running_task() {
    let Some((run, _)) = python_scenario("cancel").await else {
        return;
    };
    let seen = run.passed("tasks/cancel of a running task");
    assert_eq!(seen["state"], "TASK_STATE_CANCELED", "{seen}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_python_client_continues_a_task_by_id_and_the_agent_sees_the_history() {
    let Some((run, _)) = python_scenario("continue").await else {
        return;
    };
    let seen = run.passed("continuation by taskId");
    assert_eq!(seen["text"], "echo: second | history: first", "{seen}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stream_from_an_agent_silent_for_8_s_completes_under_the_python_clients_5_s_read_timeout()
{
    let Some((run, _)) = python_scenario("keepalive").await else {
        return;
    };
    let seen = run.passed("a silent agent behind keep-alive comments");
    assert_eq!(
        seen["readTimeout"], 5.0,
        "the client's default read timeout changed: {seen}"
    );
    assert!(
        seen["text"].as_str().unwrap().contains("slow hello"),
        "{seen}"
    );
}
