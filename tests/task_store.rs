//! The server's task memory stays bounded: finished tasks are forgotten past the store's
//! capacity or idle time, running tasks are never forgotten, and a task keeps at most its
//! byte budget.

mod support;

use std::sync::Arc;
use std::time::{Duration, UNIX_EPOCH};

use a2ui_agent::a2a::TaskState;
use a2ui_agent::agent::{AgentError, Reply};
use a2ui_agent::clock::ManualClock;
use a2ui_agent::request::Request;
use a2ui_agent::store::InMemoryStore;
use serde_json::json;
use support::{builder, spawn, text_message};

async fn done(_request: Request) -> Result<Reply, AgentError> {
    Ok(Reply::text("done").with_final_state(TaskState::Completed))
}

#[tokio::test]
async fn finished_tasks_past_the_capacity_are_forgotten_oldest_first() {
    let server = spawn(
        builder(done)
            .store(InMemoryStore::new().capacity(2))
            .build()
            .unwrap(),
    )
    .await;
    let mut ids = Vec::new();
    for n in 0..3 {
        let task = server
            .result("message/send", text_message(&n.to_string()))
            .await;
        ids.push(task["id"].clone());
    }
    assert_eq!(
        server.error_code("tasks/get", json!({"id": ids[0]})).await,
        -32001
    );
    server.result("tasks/get", json!({"id": ids[1]})).await;
    server.result("tasks/get", json!({"id": ids[2]})).await;
}

#[tokio::test]
async fn finished_tasks_idle_past_the_timeout_are_forgotten() {
    let clock = Arc::new(ManualClock::new(
        UNIX_EPOCH + Duration::from_secs(1_000_000),
    ));
    let server = spawn(
        builder(done)
            .clock(clock.clone())
            .store(
                InMemoryStore::new()
                    .idle_timeout(Duration::from_secs(60))
                    .clock(clock.clone()),
            )
            .build()
            .unwrap(),
    )
    .await;
    let task = server.result("message/send", text_message("x")).await;
    clock.advance(Duration::from_secs(59));
    server.result("tasks/get", json!({"id": task["id"]})).await;
    clock.advance(Duration::from_secs(1));
    assert_eq!(
        server
            .error_code("tasks/get", json!({"id": task["id"]}))
            .await,
        -32001
    );
}

#[tokio::test]
async fn a_store_full_of_running_tasks_refuses_new_ones_and_recovers_when_they_finish() {
    let gate = Arc::new(tokio::sync::Semaphore::new(0));
    let agent_gate = gate.clone();
    let agent = move |_request: Request| {
        let gate = agent_gate.clone();
        async move {
            gate.acquire().await.unwrap().forget();
            Ok::<_, AgentError>(Reply::text("ok").with_final_state(TaskState::Completed))
        }
    };
    let server = spawn(
        builder(agent)
            .store(InMemoryStore::new().capacity(1))
            .build()
            .unwrap(),
    )
    .await;
    let mut params = text_message("first");
    params["configuration"] = json!({"blocking": false});
    let first = server.result("message/send", params).await;
    // The client is told to come back later, not that the server broke.
    let refused = server.call("message/send", text_message("second")).await;
    assert_eq!(refused["error"]["code"], -32000, "{refused}");
    let message = refused["error"]["message"].as_str().unwrap_or_default();
    assert!(message.starts_with("Server busy"), "{message}");
    gate.add_permits(2);
    server
        .wait_for_state(first["id"].as_str().unwrap(), "completed")
        .await;
    let third = server.result("message/send", text_message("third")).await;
    assert_eq!(third["status"]["state"], "completed");
}

#[tokio::test]
async fn a_reply_too_large_for_the_store_is_streamed_whole_and_kept_as_a_note() {
    let big = |_request: Request| async {
        Ok::<_, AgentError>(Reply::text("z".repeat(20_000)).with_final_state(TaskState::Completed))
    };
    let server = spawn(
        builder(big)
            .store(InMemoryStore::new().max_parts_bytes(4_000))
            .build()
            .unwrap(),
    )
    .await;
    let sent = server.result("message/send", text_message("x")).await;
    let whole = sent["status"]["message"]["parts"][0]["text"]
        .as_str()
        .unwrap();
    assert_eq!(whole.len(), 20_000, "the caller gets the whole reply");
    let kept = server.result("tasks/get", json!({"id": sent["id"]})).await;
    assert_eq!(kept["status"]["state"], "completed");
    let message = &kept["status"]["message"];
    assert_eq!(message["messageId"], sent["status"]["message"]["messageId"]);
    let note = message["parts"][0]["text"].as_str().unwrap();
    assert!(note.contains("not kept"), "{note}");
    assert!(
        kept.to_string().len() < 5_000,
        "{} bytes kept",
        kept.to_string().len()
    );
}
