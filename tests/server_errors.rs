//! Every JSON-RPC error code of WIRE.md §1 over a real socket, from the inputs that cause
//! it; after each bad request the server still answers the next one.

mod support;

use a2ui_agent::a2a::Task;
use a2ui_agent::a2a::TaskState;
use a2ui_agent::agent::{AgentError, Reply};
use a2ui_agent::request::Request;
use a2ui_agent::store::{Owner, StoreError, TaskStore};
use futures::future::BoxFuture;
use serde_json::{Value, json};
use support::{TestServer, builder, spawn, text_message};

async fn echo(request: Request) -> Result<Reply, AgentError> {
    Ok(Reply::text(request.text()))
}

async fn server() -> TestServer {
    spawn(builder(echo).body_limit(64 * 1024).build().unwrap()).await
}

/// Posts `body`; checks the error code and id, then that a good request still works.
async fn assert_error(server: &TestServer, body: &str, code: i64, id: Value) -> Value {
    let (status, response) = server.post_raw(body.to_owned()).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(response["jsonrpc"], "2.0", "{body}");
    assert_eq!(response["error"]["code"], code, "{body} -> {response}");
    assert_eq!(response["id"], id, "{body} -> {response}");
    assert!(response["error"]["message"].is_string());
    assert!(response.get("result").is_none());
    assert_still_serves(server).await;
    response
}

async fn assert_still_serves(server: &TestServer) {
    let task = server
        .result("message/send", text_message("still there?"))
        .await;
    assert_eq!(
        task["status"]["message"]["parts"][0]["text"],
        "still there?"
    );
}

fn request(method: &str, params: Value) -> String {
    json!({"jsonrpc": "2.0", "id": "r", "method": method, "params": params}).to_string()
}

fn message(fields: Value) -> String {
    request("message/send", json!({ "message": fields }))
}

#[tokio::test]
async fn a_body_that_is_not_json_is_a_parse_error_with_a_null_id() {
    let server = server().await;
    for body in ["{", "not json", "{\"jsonrpc\": \"2.0\", \"id\": 1,", ""] {
        assert_error(&server, body, -32700, Value::Null).await;
    }
}

#[tokio::test]
async fn json_that_is_not_a_request_object_is_an_invalid_request() {
    let server = server().await;
    for body in ["3", "\"text\"", "null", "true"] {
        assert_error(&server, body, -32600, Value::Null).await;
    }
}

#[tokio::test]
async fn a_batch_is_an_invalid_request() {
    let server = server().await;
    let batch = format!("[{}]", request("tasks/get", json!({"id": "x"})));
    assert_error(&server, &batch, -32600, Value::Null).await;
    assert_error(&server, "[]", -32600, Value::Null).await;
}

#[tokio::test]
async fn a_wrong_or_missing_jsonrpc_version_is_an_invalid_request() {
    let server = server().await;
    let wrong = json!({"jsonrpc": "1.0", "id": 5, "method": "tasks/get", "params": {"id": "x"}});
    assert_error(&server, &wrong.to_string(), -32600, json!(5)).await;
    let number = json!({"jsonrpc": 2.0, "id": 5, "method": "tasks/get"});
    assert_error(&server, &number.to_string(), -32600, json!(5)).await;
    let missing = json!({"id": "a", "method": "tasks/get", "params": {"id": "x"}});
    assert_error(&server, &missing.to_string(), -32600, json!("a")).await;
}

#[tokio::test]
async fn a_missing_or_non_string_method_is_an_invalid_request() {
    let server = server().await;
    let missing = json!({"jsonrpc": "2.0", "id": 1, "params": {}});
    assert_error(&server, &missing.to_string(), -32600, json!(1)).await;
    let number = json!({"jsonrpc": "2.0", "id": 1, "method": 7});
    assert_error(&server, &number.to_string(), -32600, json!(1)).await;
}

#[tokio::test]
async fn an_id_that_is_an_object_array_or_bool_is_an_invalid_request() {
    let server = server().await;
    for id in [json!({"a": 1}), json!([1]), json!(true)] {
        let body =
            json!({"jsonrpc": "2.0", "id": id, "method": "tasks/get", "params": {"id": "x"}});
        assert_error(&server, &body.to_string(), -32600, Value::Null).await;
    }
}

#[tokio::test]
async fn an_unknown_method_is_method_not_found() {
    let server = server().await;
    let response = assert_error(
        &server,
        &request("tasks/list", json!({})),
        -32601,
        json!("r"),
    )
    .await;
    assert!(
        response["error"]["message"]
            .as_str()
            .unwrap()
            .contains("tasks/list")
    );
    // A PascalCase name is an A2A 1.0 method: unknown ones answer in the 1.0 shape, whose
    // `data` names the error in a google.rpc.ErrorInfo.
    let response = assert_error(
        &server,
        &request("DeleteTask", json!({})),
        -32601,
        json!("r"),
    )
    .await;
    assert_eq!(
        response["error"]["data"][0]["reason"], "METHOD_NOT_FOUND",
        "{response}"
    );
}

#[tokio::test]
async fn missing_or_ill_typed_params_are_invalid_params_naming_the_field() {
    let server = server().await;
    let cases = [
        (
            json!({"jsonrpc": "2.0", "id": "r", "method": "message/send"}).to_string(),
            "params: missing",
        ),
        (
            request("message/send", json!([])),
            "params: expected an object",
        ),
        (
            request("message/send", json!({})),
            "params.message: missing",
        ),
        (
            message(json!({"kind": "message", "role": "user", "parts": []})),
            "params.message.messageId: missing",
        ),
        (
            message(json!({"role": "user", "messageId": "m", "parts": {"kind": "text"}})),
            "params.message.parts: expected an array",
        ),
        (
            message(json!({"role": "user", "messageId": "m", "parts": [{"kind": "video"}]})),
            "params.message.parts[0].kind: unknown kind \"video\"",
        ),
        (
            message(json!({"role": "user", "messageId": "m", "parts": [{"text": "x"}]})),
            "params.message.parts[0].kind: missing",
        ),
        (
            message(json!({"role": "user", "messageId": 9, "parts": []})),
            "params.message.messageId: expected a string",
        ),
        (
            message(json!({"role": 1, "messageId": "m", "parts": []})),
            "params.message.role: expected a string",
        ),
        (
            message(
                json!({"role": "user", "messageId": "m", "parts": [{"kind": "text", "text": 3}]}),
            ),
            "params.message.parts[0].text: expected a string",
        ),
        (
            request(
                "message/send",
                json!({"message": {"role": "user", "messageId": "m",
                                   "parts": [{"kind": "text", "text": "x"}]},
                       "configuration": {"blocking": "yes"}}),
            ),
            "params.configuration.blocking: expected a boolean",
        ),
        (
            request("tasks/get", json!({"id": "x", "historyLength": -1})),
            "params.historyLength: expected a non-negative integer",
        ),
        (request("tasks/get", json!({})), "params.id: missing"),
        (
            request("tasks/cancel", json!({"id": 3})),
            "params.id: expected a string",
        ),
    ];
    for (body, expected) in cases {
        let response = assert_error(&server, &body, -32602, json!("r")).await;
        assert_eq!(response["error"]["message"], expected, "{body}");
    }
}

#[tokio::test]
async fn unknown_fields_are_ignored() {
    let server = server().await;
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "message/send", "extra": [1],
        "params": {"message": {"role": "user", "messageId": "m", "novel": {"x": 1},
            "parts": [{"kind": "text", "text": "ok", "future": true}]}, "more": null}});
    let (_, response) = server.post_raw(body.to_string()).await;
    assert_eq!(
        response["result"]["status"]["message"]["parts"][0]["text"],
        "ok"
    );
}

#[tokio::test]
async fn a_body_over_the_limit_gets_http_413_and_the_next_request_is_served() {
    let server = server().await;
    let big = "x".repeat(64 * 1024 + 1);
    let (status, answer) = server.post_raw(big.clone()).await;
    assert_eq!(status, 413);
    // A JSON-RPC client reads the refusal as a JSON-RPC error, not as an unparsable page.
    assert_eq!(answer["error"]["code"], -32600, "{answer}");
    assert_eq!(answer["id"], Value::Null, "{answer}");
    assert!(
        answer["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("over the limit")),
        "{answer}"
    );
    assert_still_serves(&server).await;
    // The HTTP+JSON binding answers with its own error body.
    let (status, answer) = server
        .rest("POST", "message:send", Some(Value::String(big)))
        .await;
    assert_eq!(status, 413);
    assert_eq!(answer["error"]["code"], 413, "{answer}");
    assert_eq!(answer["error"]["status"], "INVALID_ARGUMENT", "{answer}");
    assert_still_serves(&server).await;
}

#[tokio::test]
async fn an_unknown_task_is_task_not_found() {
    let server = server().await;
    assert_error(
        &server,
        &request("tasks/get", json!({"id": "nope"})),
        -32001,
        json!("r"),
    )
    .await;
    assert_error(
        &server,
        &request("tasks/cancel", json!({"id": "nope"})),
        -32001,
        json!("r"),
    )
    .await;
    let mut continuation = text_message("again");
    continuation["message"]["taskId"] = json!("nope");
    assert_error(
        &server,
        &request("message/send", continuation),
        -32001,
        json!("r"),
    )
    .await;
}

#[tokio::test]
async fn canceling_a_terminal_task_is_task_not_cancelable() {
    let agent = |_request: Request| async {
        Ok::<_, AgentError>(Reply::text("done").with_final_state(TaskState::Completed))
    };
    let server = spawn(builder(agent).build().unwrap()).await;
    let task = server.result("message/send", text_message("go")).await;
    let body = request("tasks/cancel", json!({"id": task["id"]}));
    let (_, response) = server.post_raw(body).await;
    assert_eq!(response["error"]["code"], -32002);
    let (_, response) = server
        .post_raw(request("tasks/get", json!({"id": task["id"]})))
        .await;
    assert_eq!(response["result"]["status"]["state"], "completed");
}

#[tokio::test]
async fn push_notification_methods_are_not_supported() {
    let server = server().await;
    for method in ["set", "get", "list", "delete"] {
        let method = format!("tasks/pushNotificationConfig/{method}");
        assert_error(
            &server,
            &request(&method, json!({"id": "t"})),
            -32003,
            json!("r"),
        )
        .await;
    }
}

#[tokio::test]
async fn a_message_to_a_terminal_task_is_an_unsupported_operation() {
    let agent = |_request: Request| async {
        Ok::<_, AgentError>(Reply::text("bye").with_final_state(TaskState::Completed))
    };
    let server = spawn(builder(agent).build().unwrap()).await;
    let task = server.result("message/send", text_message("go")).await;
    let mut continuation = text_message("again");
    continuation["message"]["taskId"] = task["id"].clone();
    let (_, response) = server.post_raw(request("message/send", continuation)).await;
    assert_eq!(response["error"]["code"], -32004);
}

#[tokio::test]
async fn output_modes_the_agent_cannot_produce_are_content_type_not_supported() {
    let server = server().await;
    let mut params = text_message("hi");
    params["configuration"] = json!({"acceptedOutputModes": ["image/png", "audio/*"]});
    assert_error(
        &server,
        &request("message/send", params),
        -32005,
        json!("r"),
    )
    .await;
    let mut params = text_message("hi");
    params["configuration"] = json!({"acceptedOutputModes": ["text/*"]});
    server.result("message/send", params).await;
}

#[tokio::test]
async fn an_agent_asking_to_end_in_a_running_state_is_an_invalid_agent_response() {
    let agent = |_request: Request| async {
        Ok::<_, AgentError>(Reply::text("hm").with_final_state(TaskState::Working))
    };
    let server = spawn(builder(agent).build().unwrap()).await;
    let (_, response) = server
        .post_raw(request("message/send", text_message("go")))
        .await;
    assert_eq!(response["error"]["code"], -32006);
    let task_id = response["error"]["data"]["taskId"].as_str().unwrap();
    let task = server.get_task(task_id).await;
    assert_eq!(task["status"]["state"], "failed");
}

#[tokio::test]
async fn the_extended_card_is_not_configured() {
    let server = server().await;
    let body = request("agent/getAuthenticatedExtendedCard", json!({}));
    assert_error(&server, &body, -32007, json!("r")).await;
}

/// A store that cannot store: every put fails.
struct BrokenStore;

impl TaskStore for BrokenStore {
    fn get<'a>(
        &'a self,
        _owner: &'a Owner,
        _id: &'a str,
    ) -> BoxFuture<'a, Result<Option<Task>, StoreError>> {
        Box::pin(async { Ok(None) })
    }

    fn put<'a>(&'a self, _owner: &'a Owner, _task: Task) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async { Err(StoreError::backend("disk on fire at /var/secret")) })
    }
}

#[tokio::test]
async fn a_failing_store_is_an_internal_error_without_its_detail() {
    let server = spawn(builder(echo).store(BrokenStore).build().unwrap()).await;
    let (_, response) = server
        .post_raw(request("message/send", text_message("x")))
        .await;
    assert_eq!(response["error"]["code"], -32603);
    let message = response["error"]["message"].as_str().unwrap();
    assert!(!message.contains("secret"), "{message}");
    let (_, response) = server
        .post_raw(request("tasks/get", json!({"id": "x"})))
        .await;
    assert_eq!(response["error"]["code"], -32001);
}

#[tokio::test]
async fn a_streaming_call_that_fails_before_starting_is_one_error_event_then_the_end() {
    let server = server().await;
    let sse = server
        .stream("message/stream", json!({"message": {}}))
        .await;
    assert_eq!(sse.content_type, "text/event-stream");
    assert_eq!(sse.events.len(), 1);
    assert_eq!(sse.events[0]["error"]["code"], -32602);
    assert_eq!(sse.events[0]["id"], "s-1");
    let sse = server
        .stream("tasks/resubscribe", json!({"id": "nope"}))
        .await;
    assert_eq!(sse.events.len(), 1);
    assert_eq!(sse.events[0]["error"]["code"], -32001);
}

#[tokio::test]
async fn a_push_notification_config_in_a_send_is_not_supported() {
    let server = server().await;
    let mut params = text_message("hi");
    params["configuration"] =
        json!({"pushNotificationConfig": {"url": "https://example.com/hook"}});
    assert_error(
        &server,
        &request("message/send", params),
        -32003,
        json!("r"),
    )
    .await;
}
