//! Our client against the SDKs' own servers, over TCP: the Python `a2a-sdk` 1.3.0 and
//! `@a2a-js/sdk` 1.3.0 (Express), each serving the agent of `tests/interop/python/sdk_server.py`
//! and `tests/interop/js/sdk_server.mjs` with the SDK's request handler, in-memory task and push
//! config stores. Their cards list JSON-RPC 1.0, HTTP+JSON 1.0 (under `/rest`) and JSON-RPC 0.3;
//! every operation our client offers runs over each (`python_jsonrpc_1_0`, `js_rest_1_0`, ...):
//! blocking and streaming sends, a continued input-required task, get, list (1.0), cancel,
//! subscribe, the push config round trip, the extended card, and the SDK's errors as the
//! client's A2A errors. A stream cut by a proxy is picked up again against both, whether it
//! was a send's (`EventStream::resuming`) or a task followed by its id (`Client::follow`).
//! Skipped (with a message) when an SDK is absent, unless `A2UI_REQUIRE_INTEROP=1`.
#![cfg(feature = "client")]

#[allow(dead_code)]
#[path = "interop/support.rs"]
mod support;

#[path = "interop/sdk_servers.rs"]
mod sdk_servers;

#[path = "support/proxy.rs"]
mod proxy;

use std::time::Duration;

use a2ui_agent::a2a::{Message, Part, PushConfig, StreamEvent, Task, TaskState};
use a2ui_agent::client::{Client, ClientError, EventStream, SendResult, Transport, text_request};
use futures::StreamExt;
use sdk_servers::{Sdk, SdkServer};
use serde_json::json;

/// A client of `server` that prefers `transport` alone.
async fn client_of(server: &SdkServer, transport: Transport) -> Client {
    let client = Client::builder(server.url.clone())
        .prefer([transport])
        .connect()
        .await
        .unwrap();
    assert_eq!(client.transport(), transport);
    client
}

/// The task of a send's answer.
fn task_of(result: SendResult) -> Task {
    match result {
        SendResult::Task(task) => task,
        SendResult::Message(message) => panic!("expected a task, got the message {message:?}"),
    }
}

fn status_text(task: &Task) -> String {
    task.status
        .message
        .as_ref()
        .map(Message::text)
        .unwrap_or_default()
}

/// Every event of `events` to its end, failing on an error.
async fn all(mut events: EventStream) -> Vec<StreamEvent> {
    let mut seen = Vec::new();
    while let Some(event) = events.next().await {
        seen.push(event.unwrap_or_else(|error| panic!("after {seen:?}: {error}")));
    }
    seen
}

/// The texts of the artifact parts the events carried, in order (a task's own artifacts
/// included: what a subscription starts with).
fn artifact_texts(events: &[StreamEvent]) -> Vec<String> {
    let updates = events.iter().flat_map(|event| match event {
        StreamEvent::ArtifactUpdate(update) => vec![&update.artifact.parts],
        StreamEvent::Task(task) => task.artifacts.iter().map(|a| &a.parts).collect(),
        _ => Vec::new(),
    });
    updates
        .flatten()
        .filter_map(|part| part.as_text().map(str::to_owned))
        .collect()
}

/// The state the last event left the task in, and the text of its status message.
fn last_status(events: &[StreamEvent]) -> (TaskState, String) {
    match events.last() {
        Some(StreamEvent::StatusUpdate(update)) => (
            update.status.state,
            update
                .status
                .message
                .as_ref()
                .map(Message::text)
                .unwrap_or_default(),
        ),
        Some(StreamEvent::Task(task)) => (task.status.state, status_text(task)),
        other => panic!("the stream ended with {other:?}"),
    }
}

/// The first event of a stream, which must be the task.
async fn first_task(events: &mut EventStream) -> Task {
    match events.next().await {
        Some(Ok(StreamEvent::Task(task))) => task,
        other => panic!("expected the task first, got {other:?}"),
    }
}

/// A second user message on `task`.
fn continuing(task: &Task, text: &str) -> a2ui_agent::a2a::SendRequest {
    let mut request = text_request(text);
    request.message.task_id = Some(task.id.clone());
    request.message.context_id = Some(task.context_id.clone());
    request
}

fn query(id: &str) -> a2ui_agent::a2a::TaskQuery {
    a2ui_agent::a2a::TaskQuery {
        id: id.to_owned(),
        history_length: None,
    }
}

fn hook(id: &str) -> PushConfig {
    let mut config = PushConfig::new(id, "http://127.0.0.1:9/hook");
    config.token = Some("a long random token".into());
    config
}

/// The operations every SDK server offers over `$transport`.
macro_rules! operations {
    ($module:ident, $sdk:expr, $transport:expr) => {
        mod $module {
            use super::*;

            async fn client() -> Option<(SdkServer, Client)> {
                let server = sdk_servers::start($sdk, None).await?;
                let client = client_of(&server, $transport).await;
                Some((server, client))
            }

            #[tokio::test]
            async fn a_blocking_send_answers_the_text_and_data_parts_and_asks_for_input() {
                let Some((_server, client)) = client().await else { return };
                let task = task_of(client.send(text_request("hello")).await.unwrap());
                assert_eq!(task.status.state, TaskState::InputRequired, "{task:?}");
                assert_eq!(status_text(&task), "what next?");
                let parts = &task.artifacts.first().expect("an artifact").parts;
                assert_eq!(parts.first().and_then(Part::as_text), Some("echo: hello"));
                let data = parts.get(1).and_then(Part::as_data).cloned();
                assert_eq!(
                    data.map(serde_json::Value::Object),
                    Some(json!({"echo": "hello", "first": true}))
                );
            }

            #[tokio::test]
            async fn a_second_message_continues_the_input_required_task_to_completion() {
                let Some((_server, client)) = client().await else { return };
                let first = task_of(client.send(text_request("first")).await.unwrap());
                let second = task_of(client.send(continuing(&first, "second")).await.unwrap());
                assert_eq!(second.id, first.id);
                assert_eq!(second.status.state, TaskState::Completed, "{second:?}");
                assert_eq!(status_text(&second), "done: first / second");
            }

            #[tokio::test]
            async fn a_stream_brings_typed_events_in_order_and_ends_completed() {
                let Some((_server, client)) = client().await else { return };
                let stream = client.send_streaming(text_request("slow 3")).await.unwrap();
                let events = all(stream).await;
                assert!(matches!(events.first(), Some(StreamEvent::Task(_))), "{events:?}");
                assert_eq!(artifact_texts(&events), ["part-1", "part-2", "part-3"]);
                assert_eq!(
                    last_status(&events),
                    (TaskState::Completed, "done after 3 parts".to_owned())
                );
                let appended: Vec<_> = events
                    .iter()
                    .filter_map(|event| match event {
                        StreamEvent::ArtifactUpdate(update) => Some(update.append == Some(true)),
                        _ => None,
                    })
                    .collect();
                assert_eq!(appended, [false, true, true], "{events:?}");
            }

            #[tokio::test]
            async fn get_reads_back_the_task_with_its_history_and_an_unknown_id_is_not_found() {
                let Some((_server, client)) = client().await else { return };
                let sent = task_of(client.send(text_request("remember me")).await.unwrap());
                let task = client.get_task(query(&sent.id)).await.unwrap();
                assert_eq!(task.id, sent.id);
                assert_eq!(task.status.state, TaskState::InputRequired);
                let first = task.history.first().map(Message::text);
                assert_eq!(first.as_deref(), Some("remember me"));
                let error = client.get_task(query("no-such-task")).await.unwrap_err();
                assert_eq!(error.agent_code(), Some(-32001), "{error}");
            }

            #[tokio::test]
            async fn cancel_ends_a_running_task_and_its_subscriber_sees_it_end() {
                let Some((_server, client)) = client().await else { return };
                let mut started = client.send_streaming(text_request("slow 200")).await.unwrap();
                let task = first_task(&mut started).await;
                let subscription = client.subscribe(&task.id).await.unwrap();
                let canceled = client.cancel_task(&task.id).await.unwrap();
                assert_eq!(canceled.status.state, TaskState::Canceled, "{canceled:?}");
                let events = all(subscription).await;
                assert_eq!(last_status(&events).0, TaskState::Canceled, "{events:?}");
                // A2A 1.0 lists an already canceled task under TaskNotCancelableError (the
                // Python SDK's answer) and calls cancel idempotent (@a2a-js/sdk answers the
                // canceled task again): either is what the spec allows.
                match client.cancel_task(&task.id).await {
                    Ok(again) => assert_eq!(again.status.state, TaskState::Canceled),
                    Err(again) => assert_eq!(again.agent_code(), Some(-32002), "{again}"),
                }
                let unknown = client.cancel_task("no-such-task").await.unwrap_err();
                assert_eq!(unknown.agent_code(), Some(-32001), "{unknown}");
            }

            #[tokio::test]
            async fn a_subscriber_to_a_running_task_sees_it_first_and_its_end() {
                let Some((_server, client)) = client().await else { return };
                let mut started = client.send_streaming(text_request("slow 5")).await.unwrap();
                let task = first_task(&mut started).await;
                let events = all(client.subscribe(&task.id).await.unwrap()).await;
                assert!(
                    matches!(events.first(), Some(StreamEvent::Task(t)) if t.id == task.id),
                    "{events:?}"
                );
                assert_eq!(
                    last_status(&events),
                    (TaskState::Completed, "done after 5 parts".to_owned())
                );
            }

            #[tokio::test]
            async fn a_push_config_is_set_read_listed_and_deleted() {
                let Some((_server, client)) = client().await else { return };
                let task = task_of(client.send(text_request("hook me")).await.unwrap());
                let stored = client.set_push_config(&task.id, hook("mine")).await.unwrap();
                assert_eq!(stored.id, "mine");
                assert_eq!(stored.url, "http://127.0.0.1:9/hook");
                let read = client.get_push_config(&task.id, "mine").await.unwrap();
                assert_eq!(read.token.as_deref(), Some("a long random token"));
                let listed = client.list_push_configs(&task.id).await.unwrap();
                let ids: Vec<&str> = listed.iter().map(|config| config.id.as_str()).collect();
                assert_eq!(ids, ["mine"]);
                client.delete_push_config(&task.id, "mine").await.unwrap();
                assert!(client.list_push_configs(&task.id).await.unwrap().is_empty());
                let error = client.set_push_config("no-such-task", hook("x")).await.unwrap_err();
                assert_eq!(error.agent_code(), Some(-32001), "{error}");
            }

            #[tokio::test]
            async fn the_extended_card_is_the_sdks_extended_one() {
                let Some((_server, client)) = client().await else { return };
                let public = client.card().await.unwrap();
                assert_eq!(public.name, $sdk.card_name());
                let extended = client.extended_card().await.unwrap();
                assert_eq!(extended.name, format!("{} (extended)", $sdk.card_name()));
            }
        }
    };
}

operations!(python_jsonrpc_1_0, Sdk::Python, Transport::JsonRpc1_0);
operations!(python_rest_1_0, Sdk::Python, Transport::HttpJson1_0);
operations!(python_jsonrpc_0_3, Sdk::Python, Transport::JsonRpc0_3);
operations!(js_jsonrpc_1_0, Sdk::Js, Transport::JsonRpc1_0);
operations!(js_rest_1_0, Sdk::Js, Transport::HttpJson1_0);
operations!(js_jsonrpc_0_3, Sdk::Js, Transport::JsonRpc0_3);

/// Lists a context's tasks over both 1.0 bindings of `sdk`'s server.
async fn list_a_contexts_tasks(sdk: Sdk) {
    let Some(server) = sdk_servers::start(sdk, None).await else {
        return;
    };
    for transport in [Transport::JsonRpc1_0, Transport::HttpJson1_0] {
        let client = client_of(&server, transport).await;
        let first = task_of(client.send(text_request("one")).await.unwrap());
        let mut second = text_request("two");
        second.message.context_id = Some(first.context_id.clone());
        let second = task_of(client.send(second).await.unwrap());
        let query = a2ui_agent::a2a::TaskListQuery {
            context_id: Some(first.context_id.clone()),
            page_size: 10,
            ..Default::default()
        };
        let page = client.list_tasks(&query).await.unwrap();
        let mut listed: Vec<String> = page.tasks.into_iter().map(|task| task.id).collect();
        listed.sort();
        let mut sent = vec![first.id, second.id];
        sent.sort();
        assert_eq!(listed, sent, "{sdk:?} {transport}");
    }
    let client = client_of(&server, Transport::JsonRpc0_3).await;
    let error = client
        .list_tasks(&a2ui_agent::a2a::TaskListQuery::default())
        .await
        .unwrap_err();
    assert!(matches!(error, ClientError::Unsupported(_)), "{error}");
}

#[tokio::test]
async fn the_python_server_lists_a_contexts_tasks_over_1_0() {
    list_a_contexts_tasks(Sdk::Python).await;
}

#[tokio::test]
async fn the_js_server_lists_a_contexts_tasks_over_1_0() {
    list_a_contexts_tasks(Sdk::Js).await;
}

/// The parts of the task's first artifact as the SDK server holds it, read past any proxy
/// (JSON-RPC 1.0 `GetTask` to the server's own URL).
async fn parts_on_server(server: &SdkServer, id: &str) -> usize {
    let answer: serde_json::Value = reqwest::Client::new()
        .post(&server.url)
        .header("A2A-Version", "1.0")
        .json(&json!({"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"id": id}}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    answer["result"]["artifacts"][0]["parts"]
        .as_array()
        .map_or(0, Vec::len)
}

/// Follows a "slow 10" task over `transport` (the send's own stream, or `by_id` with
/// `Client::follow`) through a proxy that cuts the stream after the first part and lets the
/// client back in once the server holds at least three: the events the caller saw.
async fn follow_through_a_cut(
    server: &SdkServer,
    proxy: &proxy::Proxy,
    public: &str,
    transport: Transport,
    by_id: bool,
) -> Vec<StreamEvent> {
    let client = Client::builder(public)
        .prefer([transport])
        .retries(8, Duration::from_millis(50))
        .connect()
        .await
        .unwrap();
    let mut events = client
        .send_streaming(text_request("slow 10"))
        .await
        .unwrap()
        .resuming(&client);
    let mut task = first_task(&mut events).await;
    if by_id {
        drop(events);
        events = client.follow(&task.id);
        task = first_task(&mut events).await;
    }
    let mut seen = vec![StreamEvent::Task(task.clone())];
    while artifact_texts(&seen).is_empty() {
        let event = events.next().await.expect("the stream ended early");
        seen.push(event.unwrap_or_else(|error| panic!("{transport}: {error}")));
    }
    proxy.cut();
    // A guard against a hang, not a timing assertion.
    let mut polls = 0;
    while parts_on_server(server, &task.id).await < 3 {
        polls += 1;
        assert!(
            polls < 600,
            "{transport}: the task never got past its third part"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    proxy.reopen();
    seen.extend(all(events).await);
    seen
}

/// Follows a stream cut mid-task from `sdk`'s server over every interface.
async fn follow_through_cuts(sdk: Sdk) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let public = format!("http://{}/", listener.local_addr().unwrap());
    let Some(server) = sdk_servers::start(sdk, Some(&public)).await else {
        return;
    };
    let proxy = proxy::Proxy::start(listener, server.addr());
    for (transport, by_id) in Transport::ALL
        .into_iter()
        .flat_map(|t| [(t, false), (t, true)])
    {
        let seen = follow_through_a_cut(&server, &proxy, &public, transport, by_id).await;
        let expected: Vec<String> = (1..=10).map(|n| format!("part-{n}")).collect();
        assert_eq!(
            artifact_texts(&seen),
            expected,
            "{transport} (by id: {by_id}): each part once, in order"
        );
        assert_eq!(
            last_status(&seen),
            (TaskState::Completed, "done after 10 parts".to_owned()),
            "{transport}"
        );
        let completed = seen.iter().filter(|event| match event {
            StreamEvent::StatusUpdate(update) => update.status.state == TaskState::Completed,
            StreamEvent::Task(task) => task.status.state == TaskState::Completed,
            _ => false,
        });
        assert_eq!(completed.count(), 1, "{transport}: {seen:?}");
    }
}

#[tokio::test]
async fn a_stream_from_the_python_server_cut_mid_task_is_followed_without_repeats_or_gaps() {
    follow_through_cuts(Sdk::Python).await;
}

#[tokio::test]
async fn a_stream_from_the_js_server_cut_mid_task_is_followed_without_repeats_or_gaps() {
    follow_through_cuts(Sdk::Js).await;
}
