//! An agent that fails or panics fails its task, with the reason as the status message, and
//! the server keeps serving.

mod support;

use a2ui_agent::agent::{Agent, AgentError, Reply};
use a2ui_agent::request::Request;
use futures::future::BoxFuture;
use serde_json::Value;
use support::{TestServer, builder, spawn, text_message};

async fn assert_failed_with(server: &TestServer, reason: &str) -> Value {
    let task = server.result("message/send", text_message("go")).await;
    assert_eq!(task["status"]["state"], "failed", "{task}");
    assert_eq!(task["status"]["message"]["parts"][0]["text"], reason);
    task
}

#[tokio::test]
async fn an_agent_error_fails_the_task_with_its_reason() {
    let agent =
        |_request: Request| async { Err::<Reply, _>(AgentError::new("the model is unavailable")) };
    let server = spawn(builder(agent).build().unwrap()).await;
    assert_failed_with(&server, "the model is unavailable").await;
}

#[tokio::test]
async fn an_error_in_the_middle_of_a_stream_fails_the_task_after_the_chunks_sent() {
    let agent = |_request: Request| async {
        let items = vec![
            Ok("partial ".to_owned()),
            Err(AgentError::new("connection to the model lost")),
            Ok("never sent".to_owned()),
        ];
        Ok(Reply::stream(futures::stream::iter(items)))
    };
    let server = spawn(builder(agent).build().unwrap()).await;
    let sse = server.stream("message/stream", text_message("go")).await;
    let texts: Vec<&Value> = sse
        .results()
        .into_iter()
        .map(|result| &result["status"]["message"]["parts"][0]["text"])
        .filter(|text| text.is_string())
        .collect();
    assert_eq!(texts, ["partial ", "connection to the model lost"]);
    let last = sse.results().last().copied().cloned().unwrap();
    assert_eq!(last["status"]["state"], "failed");
    assert_eq!(last["final"], true);
}

#[tokio::test]
async fn a_panicking_agent_fails_its_task_and_the_server_keeps_serving() {
    let agent = |request: Request| async move {
        if request.text() == "panic" {
            panic!("agent bug");
        }
        Ok::<_, AgentError>(Reply::text("fine"))
    };
    let server = spawn(builder(agent).build().unwrap()).await;
    let task = server.result("message/send", text_message("panic")).await;
    assert_eq!(task["status"]["state"], "failed");
    let reason = task["status"]["message"]["parts"][0]["text"]
        .as_str()
        .unwrap();
    assert!(
        !reason.contains("agent bug"),
        "panic detail leaked: {reason}"
    );
    let task = server.result("message/send", text_message("hello")).await;
    assert_eq!(task["status"]["message"]["parts"][0]["text"], "fine");
}

#[tokio::test]
async fn a_stream_that_panics_fails_its_task_and_closes_the_response() {
    let agent = |_request: Request| async {
        let stream = futures::stream::iter(0..3).map(|n| {
            if n == 1 {
                panic!("stream bug");
            }
            Ok::<_, AgentError>(format!("{n}"))
        });
        Ok(Reply::stream(stream))
    };
    use futures::StreamExt;
    let server = spawn(builder(agent).build().unwrap()).await;
    let sse = server.stream("message/stream", text_message("go")).await;
    let last = sse.results().last().copied().cloned().unwrap();
    assert_eq!(last["status"]["state"], "failed");
    assert_eq!(last["final"], true);
    server
        .result("tasks/get", serde_json::json!({"id": last["taskId"]}))
        .await;
}

/// Panics before returning its future.
struct PanicsOnCall;

impl Agent for PanicsOnCall {
    fn call(&self, _request: Request) -> BoxFuture<'static, Result<Reply, AgentError>> {
        panic!("synchronous agent bug")
    }
}

#[tokio::test]
async fn an_agent_that_panics_before_returning_its_future_fails_its_task() {
    let server = spawn(builder(PanicsOnCall).build().unwrap()).await;
    let task = server.result("message/send", text_message("go")).await;
    assert_eq!(task["status"]["state"], "failed");
    let task = server.result("message/send", text_message("again")).await;
    assert_eq!(task["status"]["state"], "failed");
}
