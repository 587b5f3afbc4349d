//! Our server against the real JavaScript A2A client, `@a2a-js/sdk` 1.3.0, over TCP.
//!
//! The SDK speaks A2A 1.0 natively; with `legacyCompat` enabled its card resolver reads our
//! 0.3 card and its JSON-RPC factory picks the 0.3 transport. Each test runs one scenario of
//! `tests/interop/js/client.mjs` against a fresh server; the script exits non-zero with
//! `FAIL: why` when the client sees something wrong. Skipped (with a message) when
//! `tests/interop/js/node_modules` is absent, unless `A2UI_REQUIRE_INTEROP=1`.
#![cfg(feature = "server")]

#[path = "interop/support.rs"]
mod support;

use support::{ScriptRun, crate_root, event_kinds, installed, run_script, start_server};

/// Runs one scenario of the JS client script against a fresh server; `None` when the client
/// is not installed (and not required).
async fn js_scenario(scenario: &str) -> Option<ScriptRun> {
    let dir = crate_root().join("tests/interop/js");
    installed(
        dir.join("node_modules/@a2a-js/sdk"),
        "the @a2a-js/sdk client",
    )?;
    let node = installed(node_on_path(), "node")?;
    let url = start_server().await;
    Some(run_script(&node, &["client.mjs", &url, scenario], &dir).await)
}

/// `node` from `PATH`, or a path that does not exist.
fn node_on_path() -> std::path::PathBuf {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|dir| dir.join("node"))
        .find(|candidate| candidate.is_file())
        .unwrap_or_else(|| "node (not on PATH)".into())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_js_client_in_legacy_compat_mode_sends_and_gets_an_input_required_task_with_the_agents_text()
 {
    let Some(run) = js_scenario("send").await else {
        return;
    };
    let seen = run.passed("blocking message/send");
    assert_eq!(seen["state"], "TASK_STATE_INPUT_REQUIRED", "{seen}");
    assert_eq!(seen["text"], "echo: hello", "{seen}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stream_to_the_js_client_in_legacy_compat_mode_ends_by_itself_after_the_final_update() {
    let Some(run) = js_scenario("stream").await else {
        return;
    };
    let seen = run.passed("message/stream read to the end");
    let events = event_kinds(&seen);
    assert_eq!(events.first(), Some(&"task"), "{seen}");
    assert_eq!(events.last(), Some(&"statusUpdate"), "{seen}");
    assert_eq!(seen["state"], "TASK_STATE_INPUT_REQUIRED", "{seen}");
    assert!(seen["text"].as_str().unwrap().contains("hello"), "{seen}");
}
