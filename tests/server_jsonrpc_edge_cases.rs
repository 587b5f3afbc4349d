//! JSON-RPC bodies that are not requests, from a corpus of hostile bodies: each gets the
//! error JSON-RPC 2.0 names for it, and an id only when there is a request to take it from.
//! And the 1.0 streaming methods answer an error before the stream as plain JSON.

mod support;

use a2ui_agent::a2a::TaskState;
use a2ui_agent::agent::{AgentError, Reply};
use a2ui_agent::request::Request;
use serde_json::{Value, json};
use support::{builder, spawn};

async fn done(request: Request) -> Result<Reply, AgentError> {
    Ok(Reply::text(request.text()).with_final_state(TaskState::Completed))
}

#[tokio::test]
async fn a_body_that_is_not_json_is_a_parse_error_with_a_null_id() {
    let server = spawn(builder(done).build().unwrap()).await;
    // Invalid UTF-8 inside a string: not JSON, though an id can be read before it.
    let mut body = br#"{"jsonrpc":"2.0","id":42,"method":"message/send","params":{"x":""#.to_vec();
    body.extend_from_slice(&[0xff, 0xfe]);
    body.extend_from_slice(br#""}}"#);
    let (status, answer) = server.post_raw(body).await;
    assert_eq!(status, 200);
    assert_eq!(answer["error"]["code"], -32700, "{answer}");
    assert_eq!(answer["id"], Value::Null, "{answer}");
    let (_, answer) = server
        .post_raw(r#"{"jsonrpc":"2.0","id":7,"method":"#)
        .await;
    assert_eq!(answer["error"]["code"], -32700, "{answer}");
    assert_eq!(answer["id"], Value::Null, "{answer}");
}

#[tokio::test]
async fn a_deep_body_that_is_not_a_request_object_is_an_invalid_request() {
    let server = spawn(builder(done).build().unwrap()).await;
    let deep = format!("{}{}", "[".repeat(5000), "]".repeat(5000));
    let (status, answer) = server.post_raw(deep).await;
    assert_eq!(status, 200);
    let code = answer["error"]["code"].as_i64().unwrap();
    assert!(code == -32600 || code == -32700, "{answer}");
    assert_eq!(answer["id"], Value::Null);
    // The same depth inside a request's params is the params' fault, and the id is echoed.
    let params = format!("{}{}", "[".repeat(5000), "]".repeat(5000));
    let request =
        format!(r#"{{"jsonrpc":"2.0","id":3,"method":"message/send","params":{params}}}"#);
    let (_, answer) = server.post_raw(request).await;
    assert_eq!(answer["error"]["code"], -32602, "{answer}");
    assert_eq!(answer["id"], 3);
}

#[tokio::test]
async fn a_1_0_stream_refused_before_it_starts_answers_plain_json() {
    let server = spawn(builder(done).build().unwrap()).await;
    let body = json!({"jsonrpc": "2.0", "id": 9, "method": "SubscribeToTask",
                      "params": {"id": "no-such-task"}});
    let response = server
        .client
        .post(&server.url)
        .header("content-type", "application/json")
        .header("accept", "text/event-stream")
        .header("A2A-Version", "1.0")
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert!(
        response.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("application/json")
    );
    let answer: Value = response.json().await.unwrap();
    assert_eq!(answer["error"]["code"], -32001, "{answer}");
    assert_eq!(answer["id"], 9);
    // A 0.3 stream keeps answering its error as one event of a stream.
    let body = json!({"jsonrpc": "2.0", "id": 9, "method": "tasks/resubscribe",
                      "params": {"id": "no-such-task"}});
    let sse = support::read_sse(
        server
            .client
            .post(&server.url)
            .header("content-type", "application/json")
            .body(body.to_string())
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert!(sse.content_type.starts_with("text/event-stream"), "{sse:?}");
}
