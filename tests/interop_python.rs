//! Our server against the real Python A2A client, `a2a-sdk` 1.3.0, over TCP, on each of its
//! transports our card leads to.
//!
//! Our card offers JSON-RPC 1.0, HTTP+JSON 1.0, gRPC 1.0 (the `grpc` feature) and JSON-RPC
//! 0.3. With its default config the SDK picks JSON-RPC 1.0 (module `jsonrpc_1_0`); with
//! `supported_protocol_bindings=["HTTP+JSON"]` the REST binding (`rest_1_0`); with `["GRPC"]`
//! and its `grpc` extra, gRPC (`grpc_1_0`); given the card's 0.3 interface alone, as a 0.3
//! agent's card would read, its 0.3 compat transport (`jsonrpc_0_3`). Each test runs one
//! scenario of `tests/interop/python/client.py` (card resolution, send, stream, get, list,
//! cancel, continuation, keep-alive, resubscribe) against a fresh server; the script exits
//! non-zero with `FAIL: why` when the client sees something wrong. Skipped (with a message)
//! when `.venv` is absent, unless `A2UI_REQUIRE_INTEROP=1`.
#![cfg(feature = "server")]

#[path = "interop/support.rs"]
mod support;

use support::{ScriptRun, crate_root, installed, run_script, start_server};

/// Runs one scenario of the Python client script over `transport` against a fresh server,
/// with the URL it was given; `None` when the client is not installed (and not required).
async fn python_scenario(scenario: &str, transport: &str) -> Option<(ScriptRun, String)> {
    let python = installed(
        crate_root().join(".venv/bin/python"),
        "the Python a2a-sdk client",
    )?;
    let url = start_server().await;
    let dir = crate_root().join("tests/interop/python");
    let run = run_script(&python, &["client.py", &url, scenario, transport], &dir).await;
    Some((run, url))
}

/// The scenarios every transport passes, run over `$transport` whose client class is
/// `$class`.
macro_rules! scenarios {
    ($module:ident, $transport:literal, $class:literal $(, $keepalive:ident)?) => {
        mod $module {
            use super::python_scenario;
            use super::support::event_kinds;

            async fn python_scenario_here(
                scenario: &str,
            ) -> Option<(super::support::ScriptRun, String)> {
                python_scenario(scenario, $transport).await
            }

            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn the_python_client_resolves_our_card_to_this_transport() {
                let Some((run, url)) = python_scenario_here("card").await else {
                    return;
                };
                let seen = run.passed("card resolution");
                assert_eq!(seen["transport"], $class, "{seen}");
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
                let Some((run, _)) = python_scenario_here("send").await else {
                    return;
                };
                let seen = run.passed("blocking message/send");
                assert_eq!(seen["state"], "TASK_STATE_INPUT_REQUIRED", "{seen}");
                assert_eq!(seen["text"], "echo: hello", "{seen}");
            }

            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn a_stream_to_the_python_client_ends_by_itself_after_the_final_update() {
                let Some((run, _)) = python_scenario_here("stream").await else {
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
                let Some((run, _)) = python_scenario_here("get").await else {
                    return;
                };
                let seen = run.passed("tasks/get");
                assert_eq!(seen["state"], "TASK_STATE_INPUT_REQUIRED", "{seen}");
                assert_eq!(seen["text"], "echo: hello", "{seen}");
            }

            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn the_python_client_cancels_a_running_task() {
                let Some((run, _)) = python_scenario_here("cancel").await else {
                    return;
                };
                let seen = run.passed("tasks/cancel of a running task");
                assert_eq!(seen["state"], "TASK_STATE_CANCELED", "{seen}");
            }

            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn the_python_client_continues_a_task_by_id_and_the_agent_sees_the_history() {
                let Some((run, _)) = python_scenario_here("continue").await else {
                    return;
                };
                let seen = run.passed("continuation by taskId");
                assert_eq!(seen["text"], "echo: second | history: first", "{seen}");
            }

            $(
            #[doc = concat!(
                "Over HTTP only (", stringify!($keepalive), "): the client's read timeout ",
                "between stream events."
            )]
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn a_stream_from_an_agent_silent_for_8_s_completes_under_the_python_clients_5_s_read_timeout()
            {
                let Some((run, _)) = python_scenario_here("keepalive").await else {
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
            )?

            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn a_python_client_resubscribed_to_a_running_task_sees_it_canceled_and_the_stream_end() {
                let Some((run, _)) = python_scenario_here("resubscribe").await else {
                    return;
                };
                let seen = run.passed("tasks/resubscribe, then tasks/cancel from another client");
                assert_eq!(event_kinds(&seen).first(), Some(&"task"), "{seen}");
                assert_eq!(seen["state"], "TASK_STATE_CANCELED", "{seen}");
            }
        }
    };
}

scenarios!(jsonrpc_1_0, "jsonrpc", "JsonRpcTransport", keepalive);
scenarios!(rest_1_0, "rest", "RestTransport", keepalive);
scenarios!(jsonrpc_0_3, "0.3", "CompatJsonRpcTransport", keepalive);
// gRPC streams have no read timeout between messages: no keep-alive scenario.
scenarios!(grpc_1_0, "grpc", "GrpcTransport");

/// ListTasks, one task per page: the 1.0 transports only (0.3 has no listing).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_python_client_pages_through_a_contexts_tasks_over_every_1_0_binding() {
    for transport in ["jsonrpc", "rest", "grpc"] {
        let Some((run, _)) = python_scenario("list", transport).await else {
            return;
        };
        let seen = run.passed("ListTasks page by page");
        assert_eq!(seen["taskIds"].as_array().map(Vec::len), Some(2), "{seen}");
    }
}
