//! What the agent is handed: text, parts, metadata, ids and requested extensions; and the
//! injectable ids and clock that make responses reproducible.

mod support;

use std::time::{Duration, UNIX_EPOCH};

use a2ui_agent::a2a::Part;
use a2ui_agent::agent::{AgentError, Reply};
use a2ui_agent::clock::ManualClock;
use a2ui_agent::request::Request;
use a2ui_agent::task::SequentialIds;
use serde_json::json;
use support::{builder, spawn, text_message};

async fn describe(request: Request) -> Result<Reply, AgentError> {
    let kinds: Vec<&str> = request
        .parts()
        .iter()
        .map(|part| match part {
            Part::Text { .. } => "text",
            Part::File { .. } => "file",
            Part::Data { .. } => "data",
        })
        .collect();
    let summary = json!({
        "text": request.text(),
        "kinds": kinds,
        "metadata": request.metadata(),
        "messageId": request.message_id(),
        "taskId": request.task_id(),
        "contextId": request.context_id(),
        "extensions": request.requested_extensions(),
    });
    Ok(Reply::text(summary.to_string()))
}

fn summary(task: &serde_json::Value) -> serde_json::Value {
    serde_json::from_str(
        task["status"]["message"]["parts"][0]["text"]
            .as_str()
            .unwrap(),
    )
    .unwrap()
}

#[tokio::test]
async fn the_agent_sees_the_requested_extensions_from_both_headers_and_the_message() {
    let server = spawn(builder(describe).build().unwrap()).await;
    let mut params = text_message("hi");
    params["message"]["extensions"] = json!(["urn:d", "urn:a"]);
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": params});
    let response: serde_json::Value = server
        .client
        .post(&server.url)
        .header("X-A2A-Extensions", "urn:a, urn:b")
        .header("a2a-extensions", "urn:c")
        .json(&body)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let seen = summary(&response["result"]);
    assert_eq!(
        seen["extensions"],
        json!(["urn:a", "urn:b", "urn:c", "urn:d"])
    );
}

#[tokio::test]
async fn the_agent_sees_every_part_the_metadata_and_the_ids() {
    let server = spawn(builder(describe).build().unwrap()).await;
    let params = json!({"message": {"kind": "message", "role": "user", "messageId": "m-7",
    "contextId": "ctx-1", "metadata": {"a2uiClientCapabilities": {"v0.9": {}}},
    "parts": [
        {"kind": "text", "text": "look "},
        {"kind": "file", "file": {"uri": "https://example.com/cat.png"}},
        {"kind": "data", "data": {"action": "click"}},
        {"kind": "text", "text": "here"}
    ]}});
    let task = server.result("message/send", params).await;
    let seen = summary(&task);
    assert_eq!(seen["text"], "look here");
    assert_eq!(seen["kinds"], json!(["text", "file", "data", "text"]));
    assert_eq!(
        seen["metadata"]["a2uiClientCapabilities"],
        json!({"v0.9": {}})
    );
    assert_eq!(seen["messageId"], "m-7");
    assert_eq!(seen["taskId"], task["id"]);
    assert_eq!(seen["contextId"], "ctx-1");
}

#[tokio::test]
async fn pinned_ids_and_clock_make_the_response_reproducible() {
    let start = UNIX_EPOCH + Duration::from_millis(1_767_323_045_678);
    let server = spawn(
        builder(|_request: Request| async { Ok::<_, AgentError>(Reply::text("ok")) })
            .ids(SequentialIds::new("id-"))
            .clock(ManualClock::new(start))
            .build()
            .unwrap(),
    )
    .await;
    let task = server.result("message/send", text_message("hi")).await;
    assert_eq!(task["contextId"], "id-1");
    assert_eq!(task["id"], "id-2");
    assert_eq!(task["status"]["message"]["messageId"], "id-3");
    assert_eq!(task["status"]["timestamp"], "2026-01-02T03:04:05.678Z");
}
