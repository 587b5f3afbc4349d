//! A2A 1.0 `SubscribeToTask` ends when the task reaches a terminal state (§3.1.6): a
//! subscriber to an interrupted task follows the run that continues it, and the stream's
//! last event carries the terminal state. (0.3's `tasks/resubscribe` ends at the
//! interruption, as its `final` flag says; tested with the other 0.3 streams.)

mod support;

use a2ui_agent::a2a::TaskState;
use a2ui_agent::agent::{AgentError, Reply};
use a2ui_agent::request::Request;
use serde_json::{Value, json};
use support::{SseReader, builder, spawn};

/// "wait" asks for input; anything else completes.
async fn agent(request: Request) -> Result<Reply, AgentError> {
    let state = if request.text() == "wait" {
        TaskState::InputRequired
    } else {
        TaskState::Completed
    };
    Ok(Reply::text(format!("got {}", request.text())).with_final_state(state))
}

async fn interrupted_task(server: &support::TestServer) -> String {
    let sent = server
        .call_v1("SendMessage", support::text_message_v1("wait"))
        .await;
    assert_eq!(
        sent["result"]["task"]["status"]["state"], "TASK_STATE_INPUT_REQUIRED",
        "{sent}"
    );
    sent["result"]["task"]["id"].as_str().unwrap().to_owned()
}

fn state_of(event: &Value) -> Option<&str> {
    let result = event.get("result").unwrap_or(event);
    result
        .pointer("/statusUpdate/status/state")
        .or_else(|| result.pointer("/task/status/state"))
        .and_then(Value::as_str)
}

/// Reads `reader` to its end; the states its events carried.
async fn states(mut reader: SseReader) -> Vec<String> {
    let mut states = Vec::new();
    while let Some(event) = reader.next_event().await {
        assert!(event.get("error").is_none(), "{event}");
        states.extend(state_of(&event).map(str::to_owned));
    }
    states
}

async fn open_json_rpc(server: &support::TestServer, id: &str) -> SseReader {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "SubscribeToTask",
                      "params": {"id": id}});
    let response = server
        .client
        .post(&server.url)
        .header("content-type", "application/json")
        .header("A2A-Version", "1.0")
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    assert!(
        response.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/event-stream")
    );
    SseReader::new(response)
}

#[tokio::test]
async fn a_subscription_follows_the_continuation_to_the_terminal_state() {
    let server = spawn(builder(agent).build().unwrap()).await;
    let id = interrupted_task(&server).await;
    let mut reader = open_json_rpc(&server, &id).await;
    let first = reader.next_event().await.unwrap();
    assert_eq!(
        state_of(&first),
        Some("TASK_STATE_INPUT_REQUIRED"),
        "{first}"
    );
    let continued = server
        .call_v1(
            "SendMessage",
            json!({"message": {"role": "ROLE_USER", "messageId": "m-done", "taskId": id,
                   "parts": [{"text": "done"}]}}),
        )
        .await;
    assert_eq!(
        continued["result"]["task"]["status"]["state"],
        "TASK_STATE_COMPLETED"
    );
    let states = states(reader).await;
    assert_eq!(
        states.last().map(String::as_str),
        Some("TASK_STATE_COMPLETED"),
        "{states:?}"
    );
}

#[tokio::test]
async fn over_http_json_too_and_an_interruption_on_the_way_does_not_end_it() {
    let server = spawn(builder(agent).build().unwrap()).await;
    let id = interrupted_task(&server).await;
    let response = server
        .client
        .get(format!("{}tasks/{id}:subscribe", server.url))
        .header("A2A-Version", "1.0")
        .send()
        .await
        .unwrap();
    let mut reader = SseReader::new(response);
    assert_eq!(
        state_of(&reader.next_event().await.unwrap()),
        Some("TASK_STATE_INPUT_REQUIRED")
    );
    for (n, text) in ["wait", "done"].into_iter().enumerate() {
        server
            .call_v1(
                "SendMessage",
                json!({"message": {"role": "ROLE_USER", "messageId": format!("m-{n}"),
                       "taskId": id, "parts": [{"text": text}]}}),
            )
            .await;
    }
    let states = states(reader).await;
    assert!(
        states.iter().any(|s| s == "TASK_STATE_INPUT_REQUIRED"),
        "{states:?}"
    );
    assert_eq!(
        states.last().map(String::as_str),
        Some("TASK_STATE_COMPLETED"),
        "{states:?}"
    );
}

#[tokio::test]
async fn canceling_the_interrupted_task_ends_the_subscription_canceled() {
    let server = spawn(builder(agent).build().unwrap()).await;
    let id = interrupted_task(&server).await;
    let mut reader = open_json_rpc(&server, &id).await;
    reader.next_event().await.unwrap();
    let canceled = server.call_v1("CancelTask", json!({"id": id})).await;
    assert_eq!(
        canceled["result"]["status"]["state"], "TASK_STATE_CANCELED",
        "{canceled}"
    );
    let states = states(reader).await;
    assert_eq!(
        states.last().map(String::as_str),
        Some("TASK_STATE_CANCELED"),
        "{states:?}"
    );
}
