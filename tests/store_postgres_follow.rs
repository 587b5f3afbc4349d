//! Two instances on one PostgreSQL database subscribe as one instance does. A2A 1.0
//! `SubscribeToTask` ends when the task reaches a terminal state, so a subscriber on one
//! instance follows the task across its interruptions into the runs that continue it,
//! wherever they run, and hears of a cancel made through the other instance; A2A 0.3
//! `tasks/resubscribe` ends at the interruption (the update its `final` flag marks), on
//! the instance that runs the task or not. Skipped without PostgreSQL (see
//! `support::postgres`).
#![cfg(feature = "postgres")]

mod support;

use std::time::Duration;

use a2ui_agent::a2a::TaskState;
use a2ui_agent::agent::{AgentError, Reply};
use a2ui_agent::request::Request;
use a2ui_agent::store::PostgresStore;
use futures::StreamExt;
use serde_json::{Value, json};
use support::{SseReader, TestServer, builder, spawn};

/// "wait" asks for input (its reply streamed over 1.5 s when it says "slow wait");
/// anything else completes.
async fn agent(request: Request) -> Result<Reply, AgentError> {
    let text = request.text();
    let state = if text.ends_with("wait") {
        TaskState::InputRequired
    } else {
        TaskState::Completed
    };
    if text.starts_with("slow") {
        let chunks = futures::stream::iter(0..15).then(|at| async move {
            tokio::time::sleep(Duration::from_millis(100)).await;
            Ok::<_, AgentError>(format!("chunk {at} "))
        });
        return Ok(Reply::stream(chunks).with_final_state(state));
    }
    Ok(Reply::text(format!("got {text}")).with_final_state(state))
}

/// Two servers sharing the database `name`, as two instances.
async fn two_instances(name: &str) -> Option<(TestServer, TestServer)> {
    let cluster = support::postgres::cluster()?;
    let url = cluster.database(name);
    let instance = || async {
        let store = PostgresStore::builder(&url)
            .lease(Duration::from_millis(600))
            .connect()
            .await
            .unwrap();
        spawn(builder(agent).store(store).build().unwrap()).await
    };
    Some((instance().await, instance().await))
}

fn state_of(event: &Value) -> Option<&str> {
    let result = event.get("result").unwrap_or(event);
    result
        .pointer("/statusUpdate/status/state")
        .or_else(|| result.pointer("/task/status/state"))
        .or_else(|| result.pointer("/status/state"))
        .and_then(Value::as_str)
}

/// Reads `reader` to its end (at most 20 s): the states its events carried.
async fn states(mut reader: SseReader) -> Vec<String> {
    let reading = async {
        let mut states = Vec::new();
        while let Some(event) = reader.next_event().await {
            assert!(event.get("error").is_none(), "{event}");
            states.extend(state_of(&event).map(str::to_owned));
        }
        states
    };
    tokio::time::timeout(Duration::from_secs(20), reading)
        .await
        .expect("the subscription did not end within 20 s")
}

/// Sends `text` (1.0) through `server`, continuing task `id` if given; the task's id.
async fn send(server: &TestServer, text: &str, id: Option<&str>) -> String {
    let mut message = json!({"role": "ROLE_USER", "messageId": support::unique_id(),
        "parts": [{"text": text}]});
    if let Some(id) = id {
        message["taskId"] = json!(id);
    }
    let sent = server
        .call_v1("SendMessage", json!({"message": message}))
        .await;
    sent["result"]["task"]["id"]
        .as_str()
        .unwrap_or_else(|| panic!("{sent}"))
        .to_owned()
}

#[tokio::test]
async fn a_1_0_subscriber_follows_the_task_into_runs_on_either_instance() {
    let Some((a, b)) = two_instances("follow").await else {
        return;
    };
    let id = send(&a, "wait", None).await;
    let mut on_b = b.open_v1("SubscribeToTask", json!({"id": id})).await;
    let first = on_b.next_event().await.expect("no snapshot");
    assert_eq!(
        state_of(&first),
        Some("TASK_STATE_INPUT_REQUIRED"),
        "{first}"
    );
    // Continued on A, interrupted again; then on B, to the end.
    send(&a, "wait", Some(&id)).await;
    send(&b, "done", Some(&id)).await;
    let states = states(on_b).await;
    assert!(
        states
            .iter()
            .any(|state| state == "TASK_STATE_INPUT_REQUIRED"),
        "{states:?}"
    );
    assert_eq!(
        states.last().map(String::as_str),
        Some("TASK_STATE_COMPLETED"),
        "{states:?}"
    );
}

#[tokio::test]
async fn a_1_0_subscriber_hears_of_a_cancel_made_through_the_other_instance() {
    let Some((a, b)) = two_instances("follow_cancel").await else {
        return;
    };
    let id = send(&a, "wait", None).await;
    let mut on_b = b.open_v1("SubscribeToTask", json!({"id": id})).await;
    on_b.next_event().await.expect("no snapshot");
    let canceled = a.call_v1("CancelTask", json!({"id": id})).await;
    assert_eq!(
        canceled["result"]["status"]["state"], "TASK_STATE_CANCELED",
        "{canceled}"
    );
    let states = states(on_b).await;
    assert_eq!(
        states.last().map(String::as_str),
        Some("TASK_STATE_CANCELED"),
        "{states:?}"
    );
}

#[tokio::test]
async fn a_0_3_resubscribe_ends_at_the_interruption_on_the_other_instance() {
    let Some((a, b)) = two_instances("resubscribe").await else {
        return;
    };
    let mut streaming = SseReader::new(
        a.open_stream("message/stream", support::text_message("slow wait"))
            .await,
    );
    let first = streaming.next_event().await.expect("no first event");
    let id = first["result"]["id"].as_str().unwrap().to_owned();
    let response = b.open_stream("tasks/resubscribe", json!({"id": id})).await;
    let mut events = Vec::new();
    let mut reader = SseReader::new(response);
    let reading = async {
        while let Some(event) = reader.next_event().await {
            events.push(event);
        }
    };
    tokio::time::timeout(Duration::from_secs(20), reading)
        .await
        .expect("the resubscription did not end at the interruption");
    assert_eq!(
        events[0]["result"]["status"]["state"], "working",
        "the run had ended: {events:?}"
    );
    let last = events.last().expect("no event");
    assert_eq!(
        last["result"]["status"]["state"], "input-required",
        "{last}"
    );
    assert_eq!(last["result"]["final"], true, "{last}");
}
