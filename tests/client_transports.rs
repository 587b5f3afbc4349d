//! Our client against our server over TCP, every operation on each interface the card
//! offers: JSON-RPC 1.0 (module `jsonrpc_1_0`), HTTP+JSON 1.0 (`rest_1_0`) and JSON-RPC 0.3
//! (`jsonrpc_0_3`), picked by the client's preference from the card it discovers.
#![cfg(feature = "client")]

// The interop tests' echo agent and server: "echo: <text>", word by word; "wait ..." never
// answers. Only part of the module is used here.
#[allow(dead_code)]
#[path = "interop/support.rs"]
mod support;

use a2ui_agent::a2a::{Message, StreamEvent, Task, TaskState};
use a2ui_agent::client::{Client, EventStream, SendResult, Transport};
use futures::StreamExt;
use support::start_server;

/// A client of a fresh server that prefers `transport` alone.
async fn client_over(transport: Transport) -> Client {
    let url = start_server().await;
    let client = Client::builder(url)
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
        SendResult::Message(message) => panic!("expected a task, got {message:?}"),
    }
}

/// Every event of `stream`, failing the test on an error.
async fn all_events(mut stream: EventStream) -> Vec<StreamEvent> {
    let mut events = Vec::new();
    while let Some(event) = stream.next().await {
        events.push(event.unwrap());
    }
    events
}

/// The text of the agent's messages in `events`' status updates, in order.
fn streamed_text(events: &[StreamEvent]) -> String {
    events
        .iter()
        .filter_map(|event| match event {
            StreamEvent::StatusUpdate(update) => update.status.message.as_ref(),
            _ => None,
        })
        .map(Message::text)
        .collect()
}

/// The first event of a stream that has one: the task.
async fn first_task(stream: &mut EventStream) -> Task {
    match stream.next().await {
        Some(Ok(StreamEvent::Task(task))) => task,
        other => panic!("expected the task first, got {other:?}"),
    }
}

macro_rules! operations {
    ($module:ident, $transport:expr) => {
        mod $module {
            use super::*;

            #[tokio::test]
            async fn a_blocking_send_answers_the_task_with_the_agents_reply() {
                let client = client_over($transport).await;
                let task = task_of(
                    client
                        .send(a2ui_agent::client::text_request("hello"))
                        .await
                        .unwrap(),
                );
                assert_eq!(task.status.state, TaskState::InputRequired);
                let reply = task.status.message.as_ref().map(Message::text);
                assert_eq!(reply.as_deref(), Some("echo: hello"));
            }

            #[tokio::test]
            async fn a_streamed_send_yields_the_task_then_updates_up_to_the_last() {
                let client = client_over($transport).await;
                let stream = client
                    .send_streaming(a2ui_agent::client::text_request("hello there"))
                    .await
                    .unwrap();
                let events = all_events(stream).await;
                assert!(
                    matches!(events.first(), Some(StreamEvent::Task(_))),
                    "{events:?}"
                );
                let last = events.last().unwrap();
                assert!(last.is_final(), "{last:?}");
                assert!(
                    streamed_text(&events).contains("echo: hello there"),
                    "{events:?}"
                );
            }

            #[tokio::test]
            async fn get_reads_back_the_task_a_send_made_with_its_history() {
                let client = client_over($transport).await;
                let sent = task_of(
                    client
                        .send(a2ui_agent::client::text_request("remember me"))
                        .await
                        .unwrap(),
                );
                let query = a2ui_agent::a2a::TaskQuery {
                    id: sent.id.clone(),
                    history_length: None,
                };
                let task = client.get_task(query).await.unwrap();
                assert_eq!(
                    (task.id.as_str(), task.status.state),
                    (sent.id.as_str(), TaskState::InputRequired)
                );
                assert_eq!(
                    task.history.first().map(Message::text).as_deref(),
                    Some("remember me")
                );
            }

            #[tokio::test]
            async fn getting_an_unknown_task_is_the_agents_task_not_found_error() {
                let client = client_over($transport).await;
                let query = a2ui_agent::a2a::TaskQuery {
                    id: "no-such-task".into(),
                    history_length: None,
                };
                let error = client.get_task(query).await.unwrap_err();
                assert_eq!(error.agent_code(), Some(-32001), "{error}");
            }

            #[tokio::test]
            async fn cancel_ends_a_running_task_and_its_subscriber_sees_it_end() {
                let client = client_over($transport).await;
                let mut started = client
                    .send_streaming(a2ui_agent::client::text_request("wait for me"))
                    .await
                    .unwrap();
                let task = first_task(&mut started).await;
                let mut subscription = client.subscribe(&task.id).await.unwrap();
                let canceled = client.cancel_task(&task.id).await.unwrap();
                assert_eq!(canceled.status.state, TaskState::Canceled);
                let mut last = None;
                while let Some(event) = subscription.next().await {
                    last = Some(event.unwrap());
                }
                let Some(StreamEvent::StatusUpdate(update)) = last else {
                    panic!("the subscription ended with {last:?}");
                };
                assert_eq!(
                    (update.task_id.as_str(), update.status.state),
                    (task.id.as_str(), TaskState::Canceled)
                );
                let again = client.cancel_task(&task.id).await.unwrap_err();
                assert_eq!(again.agent_code(), Some(-32002), "{again}");
            }
        }
    };
}

operations!(jsonrpc_1_0, Transport::JsonRpc1_0);
operations!(rest_1_0, Transport::HttpJson1_0);
operations!(jsonrpc_0_3, Transport::JsonRpc0_3);

#[tokio::test]
async fn list_pages_through_the_callers_tasks_over_both_1_0_bindings() {
    for transport in [Transport::JsonRpc1_0, Transport::HttpJson1_0] {
        let client = client_over(transport).await;
        let mut ids = Vec::new();
        for text in ["one", "two", "three"] {
            let task = task_of(
                client
                    .send(a2ui_agent::client::text_request(text))
                    .await
                    .unwrap(),
            );
            ids.push(task.id);
        }
        let query = a2ui_agent::a2a::TaskListQuery {
            page_size: 2,
            ..Default::default()
        };
        let first = client.list_tasks(&query).await.unwrap();
        assert_eq!((first.tasks.len(), first.total_size), (2, 3), "{transport}");
        assert!(!first.next_page_token.is_empty(), "{transport}");
        let next = a2ui_agent::a2a::TaskListQuery {
            page_token: Some(first.next_page_token.clone()),
            ..query
        };
        let second = client.list_tasks(&next).await.unwrap();
        let mut listed: Vec<String> = first
            .tasks
            .into_iter()
            .chain(second.tasks)
            .map(|t| t.id)
            .collect();
        listed.sort();
        ids.sort();
        assert_eq!(listed, ids, "{transport}");
    }
}

#[tokio::test]
async fn listing_over_a2a_0_3_is_refused_as_unsupported_without_a_request() {
    let client = client_over(Transport::JsonRpc0_3).await;
    let error = client
        .list_tasks(&a2ui_agent::a2a::TaskListQuery::default())
        .await
        .unwrap_err();
    assert!(
        matches!(error, a2ui_agent::client::ClientError::Unsupported(_)),
        "{error}"
    );
}

#[tokio::test]
async fn the_default_preference_picks_json_rpc_1_0_from_our_card() {
    let client = Client::connect(start_server().await).await.unwrap();
    assert_eq!(client.transport(), Transport::JsonRpc1_0);
    assert_eq!(client.card().await.unwrap().name, "interop");
}

#[tokio::test]
async fn the_extended_card_needs_the_token_and_comes_over_every_interface() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/", listener.local_addr().unwrap());
    let card = a2ui_agent::AgentCard::builder("public").url(&url).build();
    let extended = a2ui_agent::AgentCard::builder("extended").url(&url).build();
    let server = a2ui_agent::A2uiServer::builder(card, support::test_agent)
        .auth_token("letmein")
        .extended_card(extended)
        .build()
        .unwrap();
    tokio::spawn(async move { axum::serve(listener, server.router()).await });
    for transport in Transport::ALL {
        let client = Client::builder(url.clone())
            .prefer([transport])
            .bearer_token("letmein")
            .connect()
            .await
            .unwrap();
        assert_eq!(
            client.extended_card().await.unwrap().name,
            "extended",
            "{transport}"
        );
        let stranger = Client::builder(url.clone())
            .prefer([transport])
            .connect()
            .await
            .unwrap();
        let error = stranger.extended_card().await.unwrap_err();
        assert!(
            matches!(
                error,
                a2ui_agent::client::ClientError::Http { status: 401, .. }
                    | a2ui_agent::client::ClientError::Agent { .. }
            ),
            "{transport}: {error:?}"
        );
    }
}
