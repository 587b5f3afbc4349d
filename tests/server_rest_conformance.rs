//! What the A2A TCK checks of the HTTP+JSON binding beyond the happy path: the error shape
//! and content type, an unsupported `A2A-Version`, and unknown members in a body.
//!
//! Content type: spec §11.1 says `application/a2a+json` SHOULD be used; the TCK insists on
//! `application/json`. A client that asks for `application/a2a+json` (by `Accept`, or by
//! sending it with no JSON type in `Accept`) gets it; others get `application/json`.

mod support;

use a2ui_agent::a2a::TaskState;
use a2ui_agent::agent::{AgentError, Reply};
use a2ui_agent::request::Request;
use serde_json::{Value, json};
use support::{builder, spawn};

async fn done(request: Request) -> Result<Reply, AgentError> {
    Ok(Reply::text(request.text()).with_final_state(TaskState::Completed))
}

async fn get(
    server: &support::TestServer,
    path: &str,
    headers: &[(&str, &str)],
) -> (u16, String, Value) {
    let mut request = server.client.get(format!("{}{path}", server.url));
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    let content_type = response
        .headers()
        .get("content-type")
        .map(|value| value.to_str().unwrap().to_owned())
        .unwrap_or_default();
    (
        status,
        content_type,
        response.json().await.unwrap_or(Value::Null),
    )
}

#[tokio::test]
async fn errors_are_google_rpc_status_bodies_typed_by_what_the_client_accepts() {
    let server = spawn(builder(done).build().unwrap()).await;
    let (status, content_type, body) = get(&server, "tasks/nope", &[("A2A-Version", "1.0")]).await;
    assert_eq!(status, 404);
    assert_eq!(content_type, "application/json");
    let error = &body["error"];
    assert_eq!(error["code"], 404, "{body}");
    assert_eq!(error["status"], "NOT_FOUND");
    assert!(error["message"].as_str().unwrap().contains("nope"));
    assert_eq!(
        error["details"][0]["@type"],
        "type.googleapis.com/google.rpc.ErrorInfo"
    );
    assert_eq!(error["details"][0]["reason"], "TASK_NOT_FOUND");
    assert_eq!(error["details"][0]["domain"], "a2a-protocol.org");

    let (_, content_type, _) = get(
        &server,
        "tasks/nope",
        &[("Accept", "application/a2a+json"), ("A2A-Version", "1.0")],
    )
    .await;
    assert_eq!(content_type, "application/a2a+json");
    let (_, content_type, _) = get(
        &server,
        "tasks/nope",
        &[("Accept", "application/json, */*"), ("A2A-Version", "1.0")],
    )
    .await;
    assert_eq!(content_type, "application/json");
}

#[tokio::test]
async fn a_client_sending_a2a_json_gets_a2a_json_back() {
    let server = spawn(builder(done).build().unwrap()).await;
    let (status, body) = server
        .rest("POST", "message:send", Some(support::text_message_v1("hi")))
        .await;
    assert_eq!(status, 200, "{body}");
    let response = server
        .client
        .post(format!("{}message:send", server.url))
        .header("content-type", "application/a2a+json")
        .header("accept", "*/*")
        .body(support::text_message_v1("hi").to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(response.headers()["content-type"], "application/a2a+json");
    let response = server
        .client
        .post(format!("{}message:send", server.url))
        .header("content-type", "application/json")
        .body(support::text_message_v1("hi").to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(response.headers()["content-type"], "application/json");
}

#[tokio::test]
async fn an_unsupported_version_is_400_on_every_route() {
    let server = spawn(builder(done).build().unwrap()).await;
    let response = server
        .client
        .post(format!("{}message:send", server.url))
        .header("content-type", "application/json")
        .header("A2A-Version", "99.0")
        .body(support::text_message_v1("hi").to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 400);
    let body: Value = response.json().await.unwrap();
    assert_eq!(
        body["error"]["details"][0]["reason"],
        "VERSION_NOT_SUPPORTED"
    );
    for path in ["tasks/some-task", "tasks", "extendedAgentCard"] {
        let (status, _, body) = get(&server, path, &[("A2A-Version", "99.0")]).await;
        assert_eq!(status, 400, "{path}: {body}");
        assert_eq!(
            body["error"]["details"][0]["reason"],
            "VERSION_NOT_SUPPORTED"
        );
    }
}

#[tokio::test]
async fn the_http_json_interface_url_takes_paths_without_a_double_slash() {
    let server = spawn(builder(done).build().unwrap()).await;
    let (_, _, card) = get(&server, ".well-known/agent-card.json", &[]).await;
    let rest = card["supportedInterfaces"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["protocolBinding"] == "HTTP+JSON")
        .unwrap()["url"]
        .as_str()
        .unwrap()
        .to_owned();
    let response = server
        .client
        .post(format!("{rest}/message:send"))
        .header("content-type", "application/json")
        .body(support::text_message_v1("hi").to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
}

#[tokio::test]
async fn unknown_members_of_a_body_are_ignored() {
    // DM-SERIAL-005: a receiver ignores fields it does not know, at every level.
    let server = spawn(builder(done).build().unwrap()).await;
    let body = json!({
        "message": {
            "role": "ROLE_USER",
            "messageId": "m-unknown-fields",
            "parts": [{"text": "hi", "futurePartField": 1}],
            "futureMessageField": {"nested": true}
        },
        "configuration": {"futureConfigField": "x"},
        "futureRequestField": [1, 2, 3]
    });
    let (status, answer) = server.rest("POST", "message:send", Some(body)).await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["task"]["status"]["state"], "TASK_STATE_COMPLETED");
}

#[tokio::test]
async fn proto_field_names_are_read_as_well_as_json_names() {
    // ProtoJSON parsers accept the proto field name (`history_length`) too; the TCK sends it.
    let server = spawn(builder(done).build().unwrap()).await;
    let sent = server
        .call_v1(
            "SendMessage",
            json!({"message": {"role": "ROLE_USER", "message_id": "m-proto-names",
                   "parts": [{"text": "hi"}]}}),
        )
        .await;
    let id = sent["result"]["task"]["id"].as_str().unwrap().to_owned();
    let task = server
        .call_v1("GetTask", json!({"id": id, "history_length": 0}))
        .await;
    let history = task["result"].get("history");
    assert!(
        history.is_none_or(|h| h == &json!([])),
        "history_length 0 was not read: {task}"
    );
}
