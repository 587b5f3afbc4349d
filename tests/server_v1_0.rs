//! A2A 1.0 on the wire, over JSON-RPC and HTTP+JSON, from a raw HTTP client: every bad input
//! gets its error in the 1.0 shape (a `google.rpc.ErrorInfo` naming it), `ListTasks` filters
//! and pages, and the extension headers are read and echoed under both names.
#![cfg(feature = "server")]

mod support;

use a2ui_agent::agent::{AgentError, Reply};
use a2ui_agent::request::Request;
use serde_json::{Value, json};
use support::{TestServer, builder, spawn, text_message_v1};

async fn server() -> TestServer {
    spawn(
        builder(|request: Request| async move {
            Ok::<_, AgentError>(Reply::text(format!("echo: {}", request.text())))
        })
        .build()
        .unwrap(),
    )
    .await
}

/// The reason of a 1.0 error's `google.rpc.ErrorInfo`.
fn reason(details: &Value) -> &str {
    let info = &details[0];
    assert_eq!(
        info["@type"], "type.googleapis.com/google.rpc.ErrorInfo",
        "{details}"
    );
    assert_eq!(info["domain"], "a2a-protocol.org", "{details}");
    info["reason"].as_str().unwrap_or_default()
}

/// Asserts a JSON-RPC 1.0 error: code, reason, and a message containing `needle`.
fn assert_rpc_error(response: &Value, code: i64, why: &str, needle: &str) {
    let error = &response["error"];
    assert_eq!(error["code"], code, "{response}");
    assert_eq!(reason(&error["data"]), why, "{response}");
    let message = error["message"].as_str().unwrap_or_default();
    assert!(message.contains(needle), "{needle:?} not in {response}");
}

/// Asserts an HTTP+JSON error: status, `google.rpc.Status` body, reason, message.
fn assert_rest_error(answer: &(u16, Value), status: u16, why: &str, needle: &str) {
    let (code, body) = answer;
    assert_eq!(*code, status, "{body}");
    let error = &body["error"];
    assert_eq!(error["code"], status, "{body}");
    assert_eq!(reason(&error["details"]), why, "{body}");
    let message = error["message"].as_str().unwrap_or_default();
    assert!(message.contains(needle), "{needle:?} not in {body}");
}

fn malformed_part() -> Value {
    json!({"message": {"role": "ROLE_USER", "messageId": "m",
        "parts": [{"text": "a"}, {"text": "b", "data": {}}]}})
}

#[tokio::test]
async fn every_bad_input_gets_its_error_over_json_rpc() {
    let server = server().await;
    let response = server.call_v1("FrobnicateTask", json!({})).await;
    assert_rpc_error(&response, -32601, "METHOD_NOT_FOUND", "FrobnicateTask");
    let response = server.call_v1("SendMessage", malformed_part()).await;
    assert_rpc_error(
        &response,
        -32602,
        "INVALID_PARAMS",
        "params.message.parts[1]: expected exactly one of text, raw, url, data",
    );
    let response = server.call_v1("SendMessage", json!({})).await;
    assert_rpc_error(
        &response,
        -32602,
        "INVALID_PARAMS",
        "params.message: missing",
    );
    let response = server
        .call_v1("ListTasks", json!({"pageToken": "not-ours"}))
        .await;
    assert_rpc_error(&response, -32602, "INVALID_PARAMS", "pageToken");
    let response = server.call_v1("GetTask", json!({"id": "nope"})).await;
    assert_rpc_error(&response, -32001, "TASK_NOT_FOUND", "nope");
    assert_eq!(response["error"]["data"][0]["metadata"]["taskId"], "nope");
    let response = server
        .call_v1("CreateTaskPushNotificationConfig", json!({}))
        .await;
    assert_rpc_error(&response, -32003, "PUSH_NOTIFICATION_NOT_SUPPORTED", "");
    let response = server.call_v1("GetExtendedAgentCard", json!({})).await;
    // No extended card declared: UnsupportedOperationError (1.0 §3.3.4).
    assert_rpc_error(&response, -32004, "UNSUPPORTED_OPERATION", "");

    let body = json!({"jsonrpc": "2.0", "id": 7, "method": "GetTask", "params": {"id": "x"}});
    let response: Value = server
        .client
        .post(&server.url)
        .header("content-type", "application/json")
        .header("A2A-Version", "0.5")
        .body(body.to_string())
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_rpc_error(&response, -32009, "VERSION_NOT_SUPPORTED", "0.3, 1.0");
    assert_eq!(response["id"], 7, "{response}");
}

#[tokio::test]
async fn every_bad_input_gets_its_error_over_http_json() {
    let server = server().await;
    let answer = server.rest("POST", "tasks/t:frobnicate", None).await;
    assert_rest_error(&answer, 404, "METHOD_NOT_FOUND", "frobnicate");
    let answer = server
        .rest("POST", "message:send", Some(malformed_part()))
        .await;
    assert_rest_error(&answer, 400, "INVALID_PARAMS", "params.message.parts[1]");
    let answer = server.rest("POST", "message:send", Some(json!({}))).await;
    assert_rest_error(&answer, 400, "INVALID_PARAMS", "params.message: missing");
    let answer = server.rest("GET", "tasks?pageToken=not-ours", None).await;
    assert_rest_error(&answer, 400, "INVALID_PARAMS", "pageToken");
    let answer = server.rest("GET", "tasks?pageSize=ten", None).await;
    assert_rest_error(&answer, 400, "INVALID_PARAMS", "pageSize");
    let answer = server.rest("GET", "tasks/nope", None).await;
    assert_rest_error(&answer, 404, "TASK_NOT_FOUND", "nope");
    assert_eq!(
        answer.1["error"]["details"][0]["metadata"]["taskId"],
        "nope"
    );
    let answer = server.rest("POST", "tasks/nope:cancel", None).await;
    assert_rest_error(&answer, 404, "TASK_NOT_FOUND", "nope");
    let answer = server
        .rest("GET", "tasks/t/pushNotificationConfigs", None)
        .await;
    assert_rest_error(&answer, 400, "PUSH_NOTIFICATION_NOT_SUPPORTED", "");
    let answer = server.rest("GET", "extendedAgentCard", None).await;
    assert_rest_error(&answer, 400, "UNSUPPORTED_OPERATION", "");
    // The version may come as a query parameter instead of the header.
    let response = server
        .client
        .get(format!("{}tasks?A2A-Version=2.1", server.url))
        .send()
        .await
        .unwrap();
    let answer = (response.status().as_u16(), response.json().await.unwrap());
    assert_rest_error(&answer, 400, "VERSION_NOT_SUPPORTED", "2.1");

    let response = server
        .client
        .post(format!("{}message:send", server.url))
        .header("content-type", "application/json")
        .header("A2A-Version", "0.3")
        .body(text_message_v1("hi").to_string())
        .send()
        .await
        .unwrap();
    let answer = (response.status().as_u16(), response.json().await.unwrap());
    assert_rest_error(&answer, 400, "VERSION_NOT_SUPPORTED", "0.3");
    let response = server
        .client
        .post(format!("{}message:send", server.url))
        .header("content-type", "application/json")
        .body("{not json")
        .send()
        .await
        .unwrap();
    let answer = (response.status().as_u16(), response.json().await.unwrap());
    assert_rest_error(&answer, 400, "JSON_PARSE", "Parse error");
}

#[tokio::test]
async fn a_send_answers_the_same_task_over_both_bindings() {
    let server = server().await;
    let over_rpc = server.call_v1("SendMessage", text_message_v1("hi")).await;
    let task = &over_rpc["result"]["task"];
    assert_eq!(
        task["status"]["state"], "TASK_STATE_INPUT_REQUIRED",
        "{over_rpc}"
    );
    assert_eq!(
        task["status"]["message"]["role"], "ROLE_AGENT",
        "{over_rpc}"
    );
    assert_eq!(
        task["status"]["message"]["parts"][0]["text"], "echo: hi",
        "{over_rpc}"
    );
    assert!(
        task.get("kind").is_none(),
        "1.0 has no kind tags: {over_rpc}"
    );
    let id = task["id"].as_str().unwrap();
    let (status, over_rest) = server.rest("GET", &format!("tasks/{id}"), None).await;
    assert_eq!(status, 200, "{over_rest}");
    assert_eq!(&over_rest, task);
    let (_, canceled) = server
        .rest("POST", &format!("tasks/{id}:cancel"), None)
        .await;
    assert_eq!(
        canceled["status"]["state"], "TASK_STATE_CANCELED",
        "{canceled}"
    );
    let again = server.call_v1("CancelTask", json!({"id": id})).await;
    assert_rpc_error(&again, -32002, "TASK_NOT_CANCELABLE", id);
    let (status, again) = server
        .rest("POST", &format!("tasks/{id}:cancel"), None)
        .await;
    assert_eq!(
        (status, again["error"]["status"].as_str()),
        (400, Some("FAILED_PRECONDITION"))
    );
}

#[tokio::test]
async fn list_tasks_filters_by_context_and_state_and_pages_newest_first() {
    let server = server().await;
    let mut ids = Vec::new();
    let mut context = String::new();
    for text in ["one", "two", "three"] {
        let mut params = text_message_v1(text);
        if !context.is_empty() {
            params["message"]["contextId"] = json!(context);
        }
        let task = server.call_v1("SendMessage", params).await["result"]["task"].clone();
        context = task["contextId"].as_str().unwrap().to_owned();
        ids.push(task["id"].as_str().unwrap().to_owned());
        // Distinct status timestamps (milliseconds), so "newest first" is one order.
        tokio::time::sleep(std::time::Duration::from_millis(3)).await;
    }
    server
        .call_v1("SendMessage", text_message_v1("other"))
        .await;

    let mut listed = Vec::new();
    let mut token = String::new();
    loop {
        let query =
            format!("tasks?contextId={context}&pageSize=2&pageToken={token}&historyLength=0");
        let (status, page) = server.rest("GET", &query, None).await;
        assert_eq!(status, 200, "{page}");
        assert_eq!(page["totalSize"], 3, "{page}");
        assert_eq!(page["pageSize"], 2, "{page}");
        for task in page["tasks"].as_array().unwrap() {
            assert!(task.get("history").is_none(), "historyLength=0: {task}");
            assert!(task.get("artifacts").is_none(), "{task}");
            listed.push(task["id"].as_str().unwrap().to_owned());
        }
        token = page["nextPageToken"].as_str().unwrap().to_owned();
        if token.is_empty() {
            break;
        }
    }
    ids.reverse();
    assert_eq!(listed, ids);

    let page = server
        .call_v1("ListTasks", json!({"status": "TASK_STATE_COMPLETED"}))
        .await;
    assert_eq!(page["result"]["tasks"], json!([]), "{page}");
    assert_eq!(page["result"]["nextPageToken"], "", "{page}");
    let page = server
        .call_v1(
            "ListTasks",
            json!({"status": "TASK_STATE_INPUT_REQUIRED", "pageSize": 1000}),
        )
        .await;
    assert_eq!(page["result"]["totalSize"], 4, "{page}");
    assert_eq!(
        page["result"]["pageSize"], 100,
        "the page size is bounded: {page}"
    );
}

#[tokio::test]
async fn a_streamed_send_over_http_json_is_bare_stream_responses_ending_interrupted() {
    let server = server().await;
    let response = server
        .client
        .post(format!("{}message:stream", server.url))
        .header("content-type", "application/json")
        .body(text_message_v1("hi").to_string())
        .send()
        .await
        .unwrap();
    let sse = support::read_sse(response).await;
    assert!(sse.content_type.starts_with("text/event-stream"), "{sse:?}");
    let kinds: Vec<&str> = sse
        .events
        .iter()
        .map(|event| {
            let object = event.as_object().unwrap();
            assert_eq!(object.len(), 1, "one member per StreamResponse: {event}");
            object.keys().next().unwrap().as_str()
        })
        .collect();
    assert_eq!(kinds.first(), Some(&"task"), "{kinds:?}");
    assert_eq!(kinds.last(), Some(&"statusUpdate"), "{kinds:?}");
    let last = &sse.events.last().unwrap()["statusUpdate"];
    assert_eq!(
        last["status"]["state"], "TASK_STATE_INPUT_REQUIRED",
        "{last}"
    );
    assert!(last.get("final").is_none(), "1.0 has no final: {last}");
}

#[tokio::test]
async fn extension_headers_are_read_under_both_names_and_echoed_under_both() {
    let card = a2ui_agent::AgentCard::builder("ext")
        .extension(a2ui_agent::a2a::card::AgentExtension::new("urn:x"))
        .build();
    let agent = |_: Request| async { "ok" };
    let server = spawn(
        a2ui_agent::A2uiServer::builder(card, agent)
            .build()
            .unwrap(),
    )
    .await;
    for name in ["A2A-Extensions", "X-A2A-Extensions"] {
        let response = server
            .client
            .post(format!("{}message:send", server.url))
            .header("content-type", "application/json")
            .header(name, "urn:unknown, urn:x")
            .body(text_message_v1("hi").to_string())
            .send()
            .await
            .unwrap();
        for echoed in ["a2a-extensions", "x-a2a-extensions"] {
            assert_eq!(
                response.headers().get(echoed).and_then(|v| v.to_str().ok()),
                Some("urn:x"),
                "sent as {name}, echoed as {echoed}"
            );
        }
    }
}

#[tokio::test]
async fn the_card_lists_both_generations_at_the_url_it_was_reached_by() {
    let server = server().await;
    let card: Value = server
        .client
        .get(format!("{}.well-known/agent-card.json", server.url))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let interfaces: Vec<(&str, &str, &str)> = card["supportedInterfaces"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            (
                i["protocolBinding"].as_str().unwrap(),
                i["protocolVersion"].as_str().unwrap(),
                i["url"].as_str().unwrap(),
            )
        })
        .collect();
    let url = server.url.as_str();
    let rest_url = url.trim_end_matches('/');
    // gRPC (its feature) is served on the same port: its target is `host:port`.
    #[cfg(feature = "grpc")]
    let grpc_url = url.trim_start_matches("http://").trim_end_matches('/');
    let expected = [
        ("JSONRPC", "1.0", url),
        ("HTTP+JSON", "1.0", rest_url),
        #[cfg(feature = "grpc")]
        ("GRPC", "1.0", grpc_url),
        ("JSONRPC", "0.3", url),
    ];
    assert_eq!(interfaces, expected);
    // The 0.3 members are in the 0.3 card only.
    assert!(card.get("url").is_none());
    let legacy: Value = server
        .client
        .get(format!("{}.well-known/agent.json", server.url))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(legacy["url"], url);
    assert_eq!(legacy["preferredTransport"], "JSONRPC");
    assert_eq!(legacy["protocolVersion"], "0.3.0");
    assert_eq!(
        legacy["additionalInterfaces"],
        json!([{"url": url, "transport": "JSONRPC"}])
    );
}
