//! Our server against the real JavaScript A2A client, `@a2a-js/sdk` 1.3.0, over TCP, on each
//! of its transports our card leads to.
//!
//! Our card offers JSON-RPC 1.0, HTTP+JSON 1.0, gRPC 1.0 and JSON-RPC 0.3. With the SDK's
//! default options (no `legacyCompat`) it picks JSON-RPC 1.0 (module `jsonrpc_1_0`);
//! preferring `HTTP+JSON`, the REST binding (`rest_1_0`); preferring `GRPC` with its gRPC
//! transport factory, gRPC (`grpc_1_0`); with `legacyCompat` and the card's 0.3 interface
//! alone, its 0.3 transport (`jsonrpc_0_3`). Each test runs one scenario of
//! `tests/interop/js/client.mjs` against a fresh server; the script exits non-zero with
//! `FAIL: why` when the client sees something wrong. Skipped (with a message) when
//! `tests/interop/js/node_modules` is absent, unless `A2UI_REQUIRE_INTEROP=1`.
#![cfg(feature = "server")]

#[path = "interop/support.rs"]
mod support;

use support::{ScriptRun, crate_root, installed, node_on_path, run_script, start_server};

/// Runs one scenario of the JS client script over `transport` against a fresh server; `None`
/// when the client is not installed (and not required).
async fn js_scenario(scenario: &str, transport: &str) -> Option<ScriptRun> {
    let dir = crate_root().join("tests/interop/js");
    installed(
        dir.join("node_modules/@a2a-js/sdk"),
        "the @a2a-js/sdk client",
    )?;
    let node = installed(node_on_path(), "node")?;
    let url = start_server().await;
    Some(run_script(&node, &["client.mjs", &url, scenario, transport], &dir).await)
}

/// The scenarios every transport passes, run over `$transport`.
macro_rules! scenarios {
    ($module:ident, $transport:literal) => {
        mod $module {
            use super::js_scenario;
            use super::support::event_kinds;

            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn the_js_client_sends_and_gets_an_input_required_task_with_the_agents_text() {
                let Some(run) = js_scenario("send", $transport).await else {
                    return;
                };
                let seen = run.passed("blocking send");
                assert_eq!(seen["state"], "TASK_STATE_INPUT_REQUIRED", "{seen}");
                assert_eq!(seen["text"], "echo: hello", "{seen}");
            }

            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn a_stream_to_the_js_client_ends_by_itself_after_the_final_update() {
                let Some(run) = js_scenario("stream", $transport).await else {
                    return;
                };
                let seen = run.passed("streaming send read to the end");
                let events = event_kinds(&seen);
                assert_eq!(events.first(), Some(&"task"), "{seen}");
                assert_eq!(events.last(), Some(&"statusUpdate"), "{seen}");
                assert_eq!(seen["state"], "TASK_STATE_INPUT_REQUIRED", "{seen}");
                assert!(seen["text"].as_str().unwrap().contains("hello"), "{seen}");
            }

            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn the_js_client_gets_a_task_with_its_state_reply_and_history() {
                let Some(run) = js_scenario("get", $transport).await else {
                    return;
                };
                let seen = run.passed("get task");
                assert_eq!(seen["state"], "TASK_STATE_INPUT_REQUIRED", "{seen}");
                assert_eq!(seen["text"], "echo: hello", "{seen}");
            }

            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn the_js_client_cancels_a_running_task() {
                let Some(run) = js_scenario("cancel", $transport).await else {
                    return;
                };
                let seen = run.passed("cancel of a running task");
                assert_eq!(seen["state"], "TASK_STATE_CANCELED", "{seen}");
            }

            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn the_js_client_continues_a_task_by_id_and_the_agent_sees_the_history() {
                let Some(run) = js_scenario("continue", $transport).await else {
                    return;
                };
                let seen = run.passed("continuation by taskId");
                assert_eq!(seen["text"], "echo: second | history: first", "{seen}");
            }

            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn a_js_client_subscribed_to_a_running_task_sees_it_canceled_and_the_stream_end()
            {
                let Some(run) = js_scenario("resubscribe", $transport).await else {
                    return;
                };
                let seen = run.passed("subscribe, then cancel from another client");
                assert_eq!(event_kinds(&seen).first(), Some(&"task"), "{seen}");
                assert_eq!(seen["state"], "TASK_STATE_CANCELED", "{seen}");
            }
        }
    };
}

scenarios!(jsonrpc_1_0, "jsonrpc");
scenarios!(rest_1_0, "rest");
scenarios!(jsonrpc_0_3, "0.3");
scenarios!(grpc_1_0, "grpc");

/// ListTasks, one task per page: the 1.0 transports only (0.3 has no listing).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_js_client_pages_through_a_contexts_tasks_over_every_1_0_binding() {
    for transport in ["jsonrpc", "rest", "grpc"] {
        let Some(run) = js_scenario("list", transport).await else {
            return;
        };
        let seen = run.passed("ListTasks page by page");
        assert_eq!(seen["taskIds"].as_array().map(Vec::len), Some(2), "{seen}");
    }
}
