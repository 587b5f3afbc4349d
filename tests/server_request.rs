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

/// The agent names the actions it was handed, one per line: `name surface context`.
async fn actions(request: Request) -> Result<Reply, AgentError> {
    let seen: Vec<String> = request
        .actions()
        .iter()
        .map(|a| {
            let surface = a.surface_id.as_deref().unwrap_or("-");
            format!(
                "{} {surface} {}",
                a.name,
                serde_json::Value::Object(a.context.clone())
            )
        })
        .collect();
    Ok(Reply::text(seen.join("\n")))
}

#[tokio::test]
async fn an_a2ui_data_part_holds_one_message_or_an_array_of_them_as_the_extension_writes_it() {
    let server = spawn(builder(actions).build().unwrap()).await;
    let action = |name: &str| {
        json!({"version": "v0.9", "action": {"name": name, "surfaceId": "s",
            "sourceComponentId": "b", "timestamp": "2026-01-01T00:00:00Z", "context": {"n": 1}}})
    };
    // A2A 1.0: `data` is any JSON value, and the extension specifications write an array.
    let params = json!({"message": {"role": "ROLE_USER", "messageId": "m-1", "parts": [
        {"data": [action("first"), action("second")], "mediaType": "application/json+a2ui"},
        {"data": action("third"), "mediaType": "application/json+a2ui"}
    ]}});
    let response = server.call_v1("SendMessage", params).await;
    let text = &response["result"]["task"]["status"]["message"]["parts"][0]["text"];
    assert_eq!(
        text, "first s {\"n\":1}\nsecond s {\"n\":1}\nthird s {\"n\":1}",
        "{response}"
    );
    // An array holding something other than messages is refused where it is.
    let params = json!({"message": {"role": "ROLE_USER", "messageId": "m-2",
        "parts": [{"data": [1, 2]}]}});
    let response = server.call_v1("SendMessage", params).await;
    assert_eq!(response["error"]["code"], -32602, "{response}");
    let message = response["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("parts[0].data"), "{response}");
}
