//! What a request body may look like, over real TCP, on both protocol versions and both
//! bindings: repeated keys are refused (-32600 in the envelope, -32602 in params, 400 on
//! HTTP+JSON), a message with no parts is -32602 (400), the decoding budget's caps answer
//! -32602 (400); the "server busy" answer carries `Retry-After`; and the per-client task cap
//! holds for a router served by plain `axum::serve` with connect info.

mod support;

use std::net::SocketAddr;

use a2ui_agent::agent::{AgentError, Reply};
use a2ui_agent::request::Request;
use a2ui_agent::server::{A2uiServer, Limits, ServerBuilder};
use serde_json::{Value, json};

use support::{TestServer, builder, spawn};

fn ok_agent() -> ServerBuilder {
    builder(|_: Request| async { Ok::<_, AgentError>(Reply::text("ok")) })
}

/// An agent whose reply never ends (until canceled).
fn endless_agent() -> ServerBuilder {
    builder(|_: Request| async {
        Ok::<_, AgentError>(Reply::stream(futures::stream::pending::<
            Result<String, AgentError>,
        >()))
    })
}

async fn ok_server() -> TestServer {
    spawn(ok_agent().build().unwrap()).await
}

/// The JSON-RPC error code of an answer that must be HTTP 200.
async fn rpc_code(server: &TestServer, body: &str) -> i64 {
    let (status, answer) = server.post_raw(body.to_owned()).await;
    assert_eq!(status, 200, "{answer}");
    answer["error"]["code"]
        .as_i64()
        .unwrap_or_else(|| panic!("not an error: {answer}"))
}

/// Posts `body` as is to the HTTP+JSON `path`; the status and the body.
async fn rest_raw(server: &TestServer, path: &str, body: &str) -> (u16, Value) {
    let response = server
        .client
        .post(format!("{}{path}", server.url))
        .header("content-type", "application/a2a+json")
        .body(body.to_owned())
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

const PART_0_3: &str = r#"{"kind":"text","text":"hi"}"#;
const PART_1_0: &str = r#"{"text":"hi"}"#;

fn message_0_3(parts: &str) -> String {
    format!(r#"{{"kind":"message","role":"user","messageId":"m","parts":{parts}}}"#)
}

fn message_1_0(parts: &str) -> String {
    format!(r#"{{"role":"ROLE_USER","messageId":"m","parts":{parts}}}"#)
}

fn call(method: &str, params: &str) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":1,"method":"{method}","params":{params}}}"#)
}

#[tokio::test]
async fn a_key_repeated_in_the_envelope_is_an_invalid_request_and_nothing_runs() {
    let server = ok_server().await;
    let send = format!(r#"{{"message":{}}}"#, message_0_3(&format!("[{PART_0_3}]")));
    // Two methods: serde alone would run the second, a send.
    let twice = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tasks/get","method":"message/send","params":{send}}}"#
    );
    assert_eq!(rpc_code(&server, &twice).await, -32600);
    let twice_v1 = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"GetTask","method":"SendMessage","params":{send}}}"#
    );
    assert_eq!(rpc_code(&server, &twice_v1).await, -32600);
    let ids = r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"tasks/get","params":{"id":"x"}}"#;
    assert_eq!(rpc_code(&server, ids).await, -32600);
    // Nothing ran: no task exists.
    let listed = server.call_v1("ListTasks", json!({})).await;
    assert_eq!(listed["result"]["totalSize"], 0, "{listed}");
}

#[tokio::test]
async fn a_key_repeated_in_params_is_invalid_params_on_both_versions_and_bindings() {
    let server = ok_server().await;
    let message = message_0_3(&format!("[{PART_0_3}]"));
    let two_messages = format!(r#"{{"message":{message},"message":{message}}}"#);
    assert_eq!(
        rpc_code(&server, &call("message/send", &two_messages)).await,
        -32602
    );
    let two_parts = format!(
        r#"{{"message":{{"kind":"message","role":"user","messageId":"m","parts":[{PART_0_3}],"parts":[{PART_0_3}]}}}}"#
    );
    assert_eq!(
        rpc_code(&server, &call("message/stream", &two_parts)).await,
        -32602
    );
    let two_texts = format!(
        r#"{{"message":{}}}"#,
        message_1_0(r#"[{"text":"a","text":"b"}]"#)
    );
    assert_eq!(
        rpc_code(&server, &call("SendMessage", &two_texts)).await,
        -32602
    );
    let two_ids = r#"{"id":"a","id":"b"}"#;
    assert_eq!(rpc_code(&server, &call("GetTask", two_ids)).await, -32602);
    let (status, body) = rest_raw(&server, "message:send", &two_texts).await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(body["error"]["status"], "INVALID_ARGUMENT", "{body}");
}

#[tokio::test]
async fn a_message_without_parts_is_invalid_params_on_both_versions_and_bindings() {
    let server = ok_server().await;
    let empty_0_3 = format!(r#"{{"message":{}}}"#, message_0_3("[]"));
    let empty_1_0 = format!(r#"{{"message":{}}}"#, message_1_0("[]"));
    for (method, params) in [("message/send", &empty_0_3), ("SendMessage", &empty_1_0)] {
        let (status, answer) = server.post_raw(call(method, params)).await;
        assert_eq!(status, 200);
        assert_eq!(answer["error"]["code"], -32602, "{method}: {answer}");
        let message = answer["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains("parts"), "{method}: {message}");
    }
    // A stream refuses in its SSE body; the error is there all the same.
    for (method, params) in [
        ("message/stream", &empty_0_3),
        ("SendStreamingMessage", &empty_1_0),
    ] {
        let streamed = server
            .client
            .post(&server.url)
            .header("content-type", "application/json")
            .body(call(method, params))
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        assert!(streamed.contains("-32602"), "{method}: {streamed}");
    }
    for path in ["message:send", "message:stream"] {
        let (status, body) = rest_raw(&server, path, &empty_1_0).await;
        assert_eq!(status, 400, "{path}: {body}");
    }
}

#[tokio::test]
async fn the_decoding_budget_refuses_too_many_parts_values_or_bytes_on_every_route() {
    let limits = Limits {
        max_parts_per_message: 2,
        max_part_bytes: 64,
        max_json_values: 200,
        ..Limits::default()
    };
    let server = spawn(ok_agent().limits(limits).build().unwrap()).await;
    let three_0_3 = format!(
        r#"{{"message":{}}}"#,
        message_0_3(&format!("[{PART_0_3},{PART_0_3},{PART_0_3}]"))
    );
    let three_1_0 = format!(
        r#"{{"message":{}}}"#,
        message_1_0(&format!("[{PART_1_0},{PART_1_0},{PART_1_0}]"))
    );
    let two_1_0 = format!(
        r#"{{"message":{}}}"#,
        message_1_0(&format!("[{PART_1_0},{PART_1_0}]"))
    );
    assert_eq!(
        rpc_code(&server, &call("message/send", &three_0_3)).await,
        -32602
    );
    assert_eq!(
        rpc_code(&server, &call("SendMessage", &three_1_0)).await,
        -32602
    );
    let (status, _) = rest_raw(&server, "message:send", &three_1_0).await;
    assert_eq!(status, 400);
    // Within the caps the same message goes through.
    let (status, body) = rest_raw(&server, "message:send", &two_1_0).await;
    assert_eq!(status, 200, "{body}");
    let long = format!(
        r#"{{"message":{}}}"#,
        message_1_0(&format!(r#"[{{"text":"{}"}}]"#, "a".repeat(64)))
    );
    assert_eq!(rpc_code(&server, &call("SendMessage", &long)).await, -32602);
    let padded = format!(r#"{{"id":"x","pad":[{}]}}"#, vec!["0"; 300].join(","));
    let (status, answer) = server.post_raw(call("tasks/get", &padded)).await;
    assert_eq!(status, 200);
    assert_eq!(answer["error"]["code"], -32602, "{answer}");
    assert_eq!(answer["id"], 1, "the refusal echoes the request's id");
}

#[tokio::test]
async fn the_busy_answer_says_when_to_retry_on_both_bindings() {
    let limits = Limits {
        max_running_tasks: 1,
        ..Limits::default()
    };
    let server = spawn(endless_agent().limits(limits).build().unwrap()).await;
    let mut params = support::text_message("hi");
    params["configuration"] = json!({"blocking": false});
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": params});
    let send = || {
        server
            .client
            .post(&server.url)
            .header("content-type", "application/json")
            .body(body.to_string())
            .send()
    };
    let first = send().await.unwrap();
    assert!(first.headers().get("retry-after").is_none());
    let first: Value = first.json().await.unwrap();
    assert!(first["result"].is_object(), "{first}");

    let busy = send().await.unwrap();
    assert_eq!(busy.status(), 200);
    assert_eq!(busy.headers()["retry-after"], "1");
    let busy: Value = busy.json().await.unwrap();
    assert_eq!(busy["error"]["code"], -32000, "{busy}");

    // A stream refused for the same reason answers in SSE, with the same header.
    let mut stream_body = body.clone();
    stream_body["method"] = json!("message/stream");
    let streamed = server
        .client
        .post(&server.url)
        .header("content-type", "application/json")
        .body(stream_body.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(streamed.headers()["retry-after"], "1");
    let events = streamed.text().await.unwrap();
    assert!(events.contains("-32000"), "{events}");

    let mut rest_body = support::text_message_v1("hi");
    rest_body["configuration"] = json!({"returnImmediately": true});
    let response = server
        .client
        .post(format!("{}message:send", server.url))
        .header("content-type", "application/a2a+json")
        .body(rest_body.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 503);
    assert_eq!(response.headers()["retry-after"], "1");
}

#[tokio::test]
async fn the_per_client_cap_holds_for_a_router_served_by_axum_with_connect_info() {
    let limits = Limits {
        max_running_tasks_per_client: 1,
        ..Limits::default()
    };
    let server: A2uiServer = endless_agent().limits(limits).build().unwrap();
    let app = axum::Router::new().nest("/agent", server.router());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let serving = tokio::spawn(async move {
        axum::serve(
            listener,
            app.into_make_service_with_connect_info::<SocketAddr>(),
        )
        .await
        .unwrap();
    });
    let client = reqwest::Client::new();
    let mut params = support::text_message("hi");
    params["configuration"] = json!({"blocking": false});
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": params});
    let send = || async {
        client
            .post(format!("http://{address}/agent"))
            .header("content-type", "application/json")
            .body(body.to_string())
            .send()
            .await
            .unwrap()
            .json::<Value>()
            .await
            .unwrap()
    };
    let first = send().await;
    assert!(first["result"].is_object(), "{first}");
    let second = send().await;
    assert_eq!(second["error"]["code"], -32000, "{second}");
    let message = second["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("you have 1 tasks running"), "{message}");
    serving.abort();
}
