//! A followed stream survives a dropped connection: our client talks to our server through a
//! TCP proxy in this test that cuts every connection mid-stream and refuses new ones while
//! the agent goes on; the client subscribes again and the caller sees each artifact part
//! once, in order, and the task's real last state, over every interface. A proxy that never
//! lets the client back in ends the stream with an error after the retries.
#![cfg(feature = "client")]

#[path = "support/proxy.rs"]
mod proxy;

use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Mutex};
use std::time::Duration;

use a2ui_agent::a2a::{Part, StreamEvent, TaskState};
use a2ui_agent::agent::{AgentError, Reply, ReplyEvent};
use a2ui_agent::client::{Client, ClientError, EventStream, Transport, text_request};
use a2ui_agent::request::Request;
use a2ui_agent::{A2uiServer, AgentCard};
use futures::StreamExt;
use proxy::Proxy;
use serde_json::{Value, json};
use tokio::net::TcpListener;
use tokio::sync::Notify;

/// Two gates per task, by its text: after the first artifact part, and before completing.
static GATES: LazyLock<Mutex<HashMap<String, [Arc<Notify>; 2]>>> = LazyLock::new(Default::default);

fn gate(text: &str, which: usize) -> Arc<Notify> {
    let mut gates = GATES.lock().unwrap();
    gates.entry(text.to_owned()).or_default()[which].clone()
}

/// Three artifact parts (the first, gate 0, two more, gate 1), then completed.
async fn agent(request: Request) -> Result<Reply, AgentError> {
    let text = request.text();
    let (first, second) = (gate(&text, 0), gate(&text, 1));
    let events = async_stream::stream! {
        yield Ok::<_, AgentError>(ReplyEvent::chunk(vec![Part::text("part-1")], false));
        first.notified().await;
        yield Ok(ReplyEvent::chunk(vec![Part::text("part-2")], false));
        yield Ok(ReplyEvent::chunk(vec![Part::text("part-3")], true));
        second.notified().await;
    };
    Ok(Reply::events(events).with_final_state(TaskState::Completed))
}

/// Our server behind a proxy (the card lists the proxy's URL): the proxy, the client's base
/// URL, and the server's own URL.
async fn start() -> (Arc<Proxy>, String, String) {
    let server_listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let server_addr = server_listener.local_addr().unwrap();
    let proxy_listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/", proxy_listener.local_addr().unwrap());
    let card = AgentCard::builder("followed").url(&url).build();
    let server = A2uiServer::builder(card, agent).build().unwrap();
    tokio::spawn(async move { axum::serve(server_listener, server.router()).await });
    let proxy = Proxy::start(proxy_listener, server_addr);
    (proxy, url, format!("http://{server_addr}/"))
}

/// The task as the server holds it, read past the proxy (JSON-RPC 1.0 `GetTask`).
async fn task_on_server(server: &str, id: &str) -> Value {
    let answer: Value = reqwest::Client::new()
        .post(server)
        .header("A2A-Version", "1.0")
        .json(&json!({"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"id": id}}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    answer["result"].clone()
}

/// Waits until the task on the server satisfies `done` (a guard against a hang, not a
/// timing assertion).
async fn until(server: &str, id: &str, done: impl Fn(&Value) -> bool) {
    for _ in 0..600 {
        if done(&task_on_server(server, id).await) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!(
        "task {id} never got there: {}",
        task_on_server(server, id).await
    );
}

fn parts_on_server(task: &Value) -> usize {
    task["artifacts"][0]["parts"].as_array().map_or(0, Vec::len)
}

async fn client_over(url: &str, transport: Transport) -> Client {
    Client::builder(url)
        .prefer([transport])
        .retries(8, Duration::from_millis(20))
        .stream_idle_timeout(Duration::from_secs(30))
        .connect()
        .await
        .unwrap()
}

/// What the caller saw: the artifact texts in order, the status states in order, and the
/// last event.
struct Seen {
    texts: Vec<String>,
    states: Vec<TaskState>,
    last: Option<StreamEvent>,
}

async fn next(events: &mut EventStream) -> StreamEvent {
    events
        .next()
        .await
        .expect("the stream ended early")
        .expect("the stream failed")
}

fn note(seen: &mut Seen, event: StreamEvent) {
    match &event {
        StreamEvent::Task(task) => seen.states.push(task.status.state),
        StreamEvent::StatusUpdate(update) => seen.states.push(update.status.state),
        StreamEvent::ArtifactUpdate(update) => {
            for part in &update.artifact.parts {
                if let Part::Text { text, .. } = part {
                    seen.texts.push(text.clone());
                }
            }
        }
        StreamEvent::Message(_) => {}
    }
    seen.last = Some(event);
}

/// Follows a task through a cut: the first part live, the next two while the client is
/// shut out; the last state after (`finish_while_cut`: before) the client is let back in.
async fn follow_through_a_cut(transport: Transport, finish_while_cut: bool) -> Seen {
    let (proxy, url, server) = start().await;
    let client = client_over(&url, transport).await;
    let text = format!("follow {transport} {finish_while_cut}");
    let mut events = client
        .send_streaming(text_request(&text))
        .await
        .unwrap()
        .resuming(&client);
    let mut seen = Seen {
        texts: Vec::new(),
        states: Vec::new(),
        last: None,
    };
    let first = next(&mut events).await;
    let StreamEvent::Task(task) = &first else {
        panic!("{transport}: expected the task first, got {first:?}");
    };
    let id = task.id.clone();
    note(&mut seen, first);
    while seen.texts.is_empty() {
        let event = next(&mut events).await;
        note(&mut seen, event);
    }

    proxy.cut();
    gate(&text, 0).notify_one();
    until(&server, &id, |task| parts_on_server(task) == 3).await;
    if finish_while_cut {
        gate(&text, 1).notify_one();
        until(&server, &id, |task| {
            task["status"]["state"] == "TASK_STATE_COMPLETED"
        })
        .await;
    }
    proxy.reopen();
    if !finish_while_cut {
        // Let the client back in before the task ends: it catches up from the snapshot,
        // then the last state comes live.
        while seen.texts.len() < 3 {
            let event = next(&mut events).await;
            note(&mut seen, event);
        }
        gate(&text, 1).notify_one();
    }
    while let Some(event) = events.next().await {
        note(
            &mut seen,
            event.unwrap_or_else(|e| panic!("{transport}: {e}")),
        );
    }
    seen
}

fn assert_consistent(seen: &Seen, transport: Transport) {
    assert_eq!(
        seen.texts,
        ["part-1", "part-2", "part-3"],
        "{transport}: each part once, in order"
    );
    assert_eq!(
        seen.states.last(),
        Some(&TaskState::Completed),
        "{transport}: {:?}",
        seen.states
    );
    assert!(
        seen.last.as_ref().is_some_and(StreamEvent::is_final),
        "{transport}: the stream ends on its final event: {:?}",
        seen.last
    );
    assert!(
        seen.states
            .windows(2)
            .all(|pair| pair[0] != pair[1] || pair[0] == TaskState::Working),
        "{transport}: a settled state is not repeated: {:?}",
        seen.states
    );
    let completed = seen
        .states
        .iter()
        .filter(|state| **state == TaskState::Completed)
        .count();
    assert_eq!(completed, 1, "{transport}: {:?}", seen.states);
}

#[tokio::test]
async fn a_stream_cut_mid_task_is_picked_up_without_repeats_or_gaps() {
    for transport in Transport::ALL {
        let seen = follow_through_a_cut(transport, false).await;
        assert_consistent(&seen, transport);
    }
}

#[tokio::test]
async fn a_task_that_ended_while_the_client_was_cut_off_ends_the_stream_in_its_last_state() {
    for transport in Transport::ALL {
        let seen = follow_through_a_cut(transport, true).await;
        assert_consistent(&seen, transport);
    }
}

#[tokio::test]
async fn follow_streams_a_running_task_by_its_id() {
    let (_proxy, url, _) = start().await;
    let client = client_over(&url, Transport::JsonRpc1_0).await;
    let text = "follow by id";
    let mut started = client.send_streaming(text_request(text)).await.unwrap();
    let Some(Ok(StreamEvent::Task(task))) = started.next().await else {
        panic!("expected the task first");
    };
    drop(started);
    let mut events = client.follow(&task.id);
    let first = next(&mut events).await;
    assert!(
        matches!(&first, StreamEvent::Task(t) if t.id == task.id),
        "{first:?}"
    );
    gate(text, 0).notify_one();
    gate(text, 1).notify_one();
    let mut last = first;
    while let Some(event) = events.next().await {
        last = event.unwrap();
    }
    assert!(
        matches!(&last, StreamEvent::StatusUpdate(u) if u.status.state == TaskState::Completed),
        "{last:?}"
    );
}

#[tokio::test]
async fn a_proxy_that_never_lets_the_client_back_ends_the_stream_with_an_error_after_the_retries() {
    let (proxy, url, _) = start().await;
    let client = Client::builder(&url)
        .retries(2, Duration::from_millis(10))
        .connect()
        .await
        .unwrap();
    let text = "shut out";
    let mut events = client
        .send_streaming(text_request(text))
        .await
        .unwrap()
        .resuming(&client);
    assert!(matches!(next(&mut events).await, StreamEvent::Task(_)));
    proxy.cut();
    let mut items = Vec::new();
    while let Some(item) = events.next().await {
        items.push(item);
    }
    let Some(Err(error)) = items.last() else {
        panic!("expected an error last: {items:?}");
    };
    assert!(
        matches!(error, ClientError::Transport(_) | ClientError::BadAnswer(_)),
        "{error:?}"
    );
    gate(text, 0).notify_one();
    gate(text, 1).notify_one();
}
