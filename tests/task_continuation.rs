//! Continuing a task: a message with the `taskId` of a task waiting for input continues it,
//! the agent sees the history, and messages to other tasks are refused with the right code.

mod support;

use a2ui_agent::a2a::{Role, TaskState};
use a2ui_agent::agent::{AgentError, Reply};
use a2ui_agent::request::Request;
use serde_json::json;
use support::{builder, spawn, text_message};

/// Replies with what it saw: the number of earlier messages and their texts.
async fn recall(request: Request) -> Result<Reply, AgentError> {
    let seen: Vec<String> = request
        .history()
        .iter()
        .map(|message| {
            let who = match message.role {
                Role::User => "user",
                Role::Agent => "agent",
            };
            format!("{who}:{}", message.text())
        })
        .collect();
    let state = if request.text() == "bye" {
        TaskState::Completed
    } else {
        TaskState::InputRequired
    };
    Ok(Reply::text(format!("[{}] {}", seen.join("|"), request.text())).with_final_state(state))
}

fn continue_with(text: &str, task_id: &serde_json::Value) -> serde_json::Value {
    let mut params = text_message(text);
    params["message"]["taskId"] = task_id.clone();
    params
}

#[tokio::test]
async fn a_continuation_reaches_the_agent_with_the_task_history() {
    let server = spawn(builder(recall).build().unwrap()).await;
    let first = server.result("message/send", text_message("hello")).await;
    assert_eq!(first["status"]["message"]["parts"][0]["text"], "[] hello");
    let second = server
        .result("message/send", continue_with("again", &first["id"]))
        .await;
    assert_eq!(second["id"], first["id"]);
    assert_eq!(second["contextId"], first["contextId"]);
    assert_eq!(
        second["status"]["message"]["parts"][0]["text"],
        "[user:hello|agent:[] hello] again"
    );
    let last = server
        .result("message/send", continue_with("bye", &first["id"]))
        .await;
    assert_eq!(last["status"]["state"], "completed");
    assert_eq!(last["history"].as_array().unwrap().len(), 5);
}

#[tokio::test]
async fn a_continuation_streams_like_a_new_task() {
    let server = spawn(builder(recall).build().unwrap()).await;
    let first = server.result("message/send", text_message("hello")).await;
    let sse = server
        .stream("message/stream", continue_with("more", &first["id"]))
        .await;
    let results = sse.results();
    assert_eq!(results[0]["kind"], "task");
    assert_eq!(results[0]["id"], first["id"]);
    let last = results.last().unwrap();
    assert_eq!(last["final"], true);
    assert_eq!(last["status"]["state"], "input-required");
}

#[tokio::test]
async fn a_message_naming_only_the_task_takes_the_tasks_context() {
    let server = spawn(builder(recall).build().unwrap()).await;
    let first = server.result("message/send", text_message("hello")).await;
    let second = server
        .result("message/send", continue_with("more", &first["id"]))
        .await;
    let history = second["history"].as_array().unwrap();
    assert_eq!(history.last().unwrap()["contextId"], first["contextId"]);
}

#[tokio::test]
async fn a_context_that_is_not_the_tasks_is_refused() {
    let server = spawn(builder(recall).build().unwrap()).await;
    let first = server.result("message/send", text_message("hello")).await;
    let mut params = continue_with("more", &first["id"]);
    params["message"]["contextId"] = json!("some-other-context");
    assert_eq!(server.error_code("message/send", params).await, -32602);
    // The task is untouched and can still be continued properly.
    let mut params = continue_with("more", &first["id"]);
    params["message"]["contextId"] = first["contextId"].clone();
    server.result("message/send", params).await;
}

#[tokio::test]
async fn a_message_to_a_finished_task_is_refused() {
    let server = spawn(builder(recall).build().unwrap()).await;
    let first = server.result("message/send", text_message("bye")).await;
    assert_eq!(first["status"]["state"], "completed");
    let code = server
        .error_code("message/send", continue_with("hello?", &first["id"]))
        .await;
    assert_eq!(code, -32004);
    let sse = server
        .stream("message/stream", continue_with("hello?", &first["id"]))
        .await;
    assert_eq!(sse.events[0]["error"]["code"], -32004);
}

#[tokio::test]
async fn a_message_to_a_task_still_running_is_refused() {
    let agent = |_request: Request| async {
        std::future::pending::<()>().await;
        Ok::<_, AgentError>(Reply::text("never"))
    };
    let server = spawn(builder(agent).build().unwrap()).await;
    let mut params = text_message("go");
    params["configuration"] = json!({"blocking": false});
    let task = server.result("message/send", params).await;
    let code = server
        .error_code("message/send", continue_with("hurry", &task["id"]))
        .await;
    assert_eq!(code, -32004);
    server
        .result("tasks/cancel", json!({"id": task["id"]}))
        .await;
}

#[tokio::test]
async fn a_new_message_in_a_known_context_starts_a_new_task_there() {
    let server = spawn(builder(recall).build().unwrap()).await;
    let first = server.result("message/send", text_message("hello")).await;
    let mut params = text_message("another topic");
    params["message"]["contextId"] = first["contextId"].clone();
    let second = server.result("message/send", params).await;
    assert_ne!(second["id"], first["id"]);
    assert_eq!(second["contextId"], first["contextId"]);
}

#[tokio::test]
async fn a_long_conversation_keeps_only_the_newest_messages_of_its_history() {
    let server = spawn(builder(recall).max_history(3).build().unwrap()).await;
    let first = server.result("message/send", text_message("m1")).await;
    let mut task = first.clone();
    for text in ["m2", "m3", "m4"] {
        task = server
            .result("message/send", continue_with(text, &first["id"]))
            .await;
    }
    let texts: Vec<&str> = task["history"]
        .as_array()
        .unwrap()
        .iter()
        .map(|message| message["parts"][0]["text"].as_str().unwrap())
        .collect();
    assert_eq!(texts.len(), 3);
    assert_eq!((texts[0], texts[2]), ("m3", "m4"));
    // The agent saw only the two messages before "m4": "m3" and its reply to it.
    let reply = task["status"]["message"]["parts"][0]["text"]
        .as_str()
        .unwrap();
    assert!(reply.starts_with("[user:m3|agent:[user:m2|"), "{reply}");
    assert!(reply.ends_with("] m4"), "{reply}");
}
