//! Push notification configs over A2A 1.0 (JSON-RPC and HTTP+JSON) and 0.3: several per
//! task, set in place by id, read, listed in order and paged, deleted idempotently; the
//! spec's errors for a missing task or config; the per-task limit; another caller's task
//! answered exactly as a missing one; push off answers `PushNotificationNotSupported` and
//! the card says so.

mod support;

use a2ui_agent::a2a::TaskState;
use a2ui_agent::agent::{AgentError, Reply};
use a2ui_agent::push::PushSettings;
use a2ui_agent::request::Request;
use a2ui_agent::server::TokenTable;
use serde_json::{Value, json};
use support::{TestServer, builder, spawn, text_message, text_message_v1};

async fn ask(_: Request) -> Result<Reply, AgentError> {
    Ok(Reply::text("tell me more").with_final_state(TaskState::InputRequired))
}

/// Webhooks on example.com: https, a public name (it need not resolve here).
fn settings() -> PushSettings {
    PushSettings::default().max_configs_per_task(3)
}

async fn server() -> TestServer {
    spawn(builder(ask).push(settings()).build().unwrap()).await
}

async fn new_task(server: &TestServer) -> String {
    let task = server.call_v1("SendMessage", text_message_v1("hi")).await;
    task["result"]["task"]["id"].as_str().unwrap().to_owned()
}

fn hook(n: u32) -> String {
    format!("https://example.com/hook/{n}")
}

#[tokio::test]
async fn the_card_declares_push_only_when_it_is_on() {
    let on = server().await;
    let card: Value = on
        .client
        .get(format!("{}.well-known/agent-card.json", on.url))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(card["capabilities"]["pushNotifications"], true);
    let off = spawn(builder(ask).build().unwrap()).await;
    let card: Value = off
        .client
        .get(format!("{}.well-known/agent-card.json", off.url))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(card["capabilities"]["pushNotifications"], false);
    let task = new_task(&off).await;
    let error = off
        .call_v1(
            "CreateTaskPushNotificationConfig",
            json!({"taskId": task, "url": hook(1)}),
        )
        .await;
    assert_eq!(error["error"]["code"], -32003);
    let (status, _) = off
        .rest(
            "GET",
            &format!("tasks/{task}/pushNotificationConfigs"),
            None,
        )
        .await;
    assert_eq!(status, 400);
}

#[tokio::test]
async fn configs_are_created_read_listed_and_deleted_over_json_rpc() {
    let server = server().await;
    let task = new_task(&server).await;
    let created = server
        .call_v1(
            "CreateTaskPushNotificationConfig",
            json!({
        "taskId": task, "id": "a", "url": hook(1), "token": "t1",
        "authentication": {"scheme": "Bearer", "credentials": "s"}}),
        )
        .await;
    assert_eq!(
        created["result"],
        json!({"id": "a", "taskId": task, "url": hook(1),
        "token": "t1", "authentication": {"scheme": "Bearer"}})
    );
    // No id: the server picks one.
    let second = server
        .call_v1(
            "CreateTaskPushNotificationConfig",
            json!({"task_id": task, "url": hook(2)}),
        )
        .await;
    let second_id = second["result"]["id"].as_str().unwrap().to_owned();
    assert!(!second_id.is_empty());
    // Same id again: replaced in place.
    server
        .call_v1(
            "CreateTaskPushNotificationConfig",
            json!({"taskId": task, "id": "a", "url": hook(3)}),
        )
        .await;
    let got = server
        .call_v1(
            "GetTaskPushNotificationConfig",
            json!({"taskId": task, "id": "a"}),
        )
        .await;
    assert_eq!(got["result"]["url"], hook(3));
    let listed = server
        .call_v1("ListTaskPushNotificationConfigs", json!({"taskId": task}))
        .await;
    let ids: Vec<&str> = listed["result"]["configs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["a", second_id.as_str()]);
    assert_eq!(listed["result"]["nextPageToken"], "");
    // Paged one at a time.
    let page = server
        .call_v1(
            "ListTaskPushNotificationConfigs",
            json!({"taskId": task, "pageSize": 1}),
        )
        .await;
    assert_eq!(page["result"]["configs"].as_array().unwrap().len(), 1);
    let next = page["result"]["nextPageToken"].as_str().unwrap().to_owned();
    let page = server
        .call_v1(
            "ListTaskPushNotificationConfigs",
            json!({"taskId": task, "pageSize": 1, "pageToken": next}),
        )
        .await;
    assert_eq!(page["result"]["configs"][0]["id"], second_id.as_str());
    // Deleted, twice: no error; then it is not found.
    for _ in 0..2 {
        let deleted = server
            .call_v1(
                "DeleteTaskPushNotificationConfig",
                json!({"taskId": task, "id": "a"}),
            )
            .await;
        assert_eq!(deleted["result"], json!({}));
    }
    let gone = server
        .call_v1(
            "GetTaskPushNotificationConfig",
            json!({"taskId": task, "id": "a"}),
        )
        .await;
    assert_eq!(gone["error"]["code"], -32001);
}

#[tokio::test]
async fn missing_tasks_bad_urls_and_the_limit_are_the_spec_errors() {
    let server = server().await;
    let missing = server
        .call_v1(
            "CreateTaskPushNotificationConfig",
            json!({"taskId": "nope", "url": hook(1)}),
        )
        .await;
    assert_eq!(missing["error"]["code"], -32001);
    let missing = server
        .call_v1("ListTaskPushNotificationConfigs", json!({"taskId": "nope"}))
        .await;
    assert_eq!(missing["error"]["code"], -32001);
    let task = new_task(&server).await;
    let no_url = server
        .call_v1("CreateTaskPushNotificationConfig", json!({"taskId": task}))
        .await;
    assert_eq!(no_url["error"]["code"], -32602);
    let long = format!("https://example.com/{}", "x".repeat(3000));
    let too_long = server
        .call_v1(
            "CreateTaskPushNotificationConfig",
            json!({"taskId": task, "url": long}),
        )
        .await;
    assert_eq!(too_long["error"]["code"], -32602);
    assert!(
        too_long["error"]["message"]
            .as_str()
            .unwrap()
            .contains("at most 2048")
    );
    for n in 0..3 {
        let kept = server
            .call_v1(
                "CreateTaskPushNotificationConfig",
                json!({"taskId": task, "url": hook(n)}),
            )
            .await;
        assert!(kept.get("result").is_some(), "{kept}");
    }
    let over = server
        .call_v1(
            "CreateTaskPushNotificationConfig",
            json!({"taskId": task, "url": hook(9)}),
        )
        .await;
    assert_eq!(over["error"]["code"], -32602);
    assert!(
        over["error"]["message"]
            .as_str()
            .unwrap()
            .contains("delete one first"),
        "{over}"
    );
}

#[tokio::test]
async fn configs_work_over_http_json() {
    let server = server().await;
    let task = new_task(&server).await;
    let path = format!("tasks/{task}/pushNotificationConfigs");
    let (status, created) = server
        .rest("POST", &path, Some(json!({"id": "r", "url": hook(1)})))
        .await;
    assert_eq!(
        (status, created["taskId"].as_str()),
        (200, Some(task.as_str()))
    );
    let (status, got) = server.rest("GET", &format!("{path}/r"), None).await;
    assert_eq!((status, got["url"].as_str()), (200, Some(hook(1).as_str())));
    let (status, listed) = server.rest("GET", &path, None).await;
    assert_eq!(
        (status, listed["configs"].as_array().map(Vec::len)),
        (200, Some(1))
    );
    let (status, _) = server.rest("DELETE", &format!("{path}/r"), None).await;
    assert_eq!(status, 200);
    let (status, _) = server.rest("DELETE", &format!("{path}/r"), None).await;
    assert_eq!(status, 200);
    let (status, _) = server.rest("GET", &format!("{path}/r"), None).await;
    assert_eq!(status, 404);
}

#[tokio::test]
async fn configs_work_over_0_3() {
    let server = server().await;
    let task = server.result("message/send", text_message("hi")).await;
    let task = task["id"].as_str().unwrap().to_owned();
    let config = json!({"taskId": task, "pushNotificationConfig": {"id": "c", "url": hook(1),
        "authentication": {"schemes": ["Bearer"], "credentials": "s"}}});
    let set = server
        .result("tasks/pushNotificationConfig/set", config.clone())
        .await;
    // Answered without the credentials (see below).
    let config = json!({"taskId": task, "pushNotificationConfig": {"id": "c", "url": hook(1),
        "authentication": {"schemes": ["Bearer"]}}});
    assert_eq!(set, config);
    let got = server
        .result(
            "tasks/pushNotificationConfig/get",
            json!({"id": task, "pushNotificationConfigId": "c"}),
        )
        .await;
    assert_eq!(got, config);
    // Without a config id: the task's (here its only) config.
    let got = server
        .result("tasks/pushNotificationConfig/get", json!({"id": task}))
        .await;
    assert_eq!(got, config);
    let listed = server
        .result("tasks/pushNotificationConfig/list", json!({"id": task}))
        .await;
    assert_eq!(listed, json!([config]));
    let deleted = server
        .result(
            "tasks/pushNotificationConfig/delete",
            json!({"id": task, "pushNotificationConfigId": "c"}),
        )
        .await;
    assert_eq!(deleted, Value::Null);
    let listed = server
        .result("tasks/pushNotificationConfig/list", json!({"id": task}))
        .await;
    assert_eq!(listed, json!([]));
}

#[tokio::test]
async fn another_callers_task_is_answered_as_a_missing_one() {
    let table = TokenTable::parse("alice alice-token\nbob bob-token\n").unwrap();
    let server = spawn(
        builder(ask)
            .push(settings())
            .auth_tokens(table)
            .build()
            .unwrap(),
    )
    .await;
    let caller = |token: &str| {
        let mut headers = reqwest::header::HeaderMap::new();
        headers.insert("authorization", format!("Bearer {token}").parse().unwrap());
        let mut caller = TestServer::external(server.url.clone());
        caller.client = reqwest::Client::builder()
            .default_headers(headers)
            .build()
            .unwrap();
        caller
    };
    let (alice, bob) = (caller("alice-token"), caller("bob-token"));
    let task = new_task(&alice).await;
    alice
        .call_v1(
            "CreateTaskPushNotificationConfig",
            json!({"taskId": task, "id": "a", "url": hook(1)}),
        )
        .await;
    let theirs = |method: &str, params: Value| {
        let bob = &bob;
        let method = method.to_owned();
        async move { bob.call_v1(&method, params).await["error"].clone() }
    };
    let missing = theirs(
        "GetTaskPushNotificationConfig",
        json!({"taskId": "nope", "id": "a"}),
    )
    .await;
    for (method, params) in [
        (
            "GetTaskPushNotificationConfig",
            json!({"taskId": task, "id": "a"}),
        ),
        ("ListTaskPushNotificationConfigs", json!({"taskId": task})),
        (
            "DeleteTaskPushNotificationConfig",
            json!({"taskId": task, "id": "a"}),
        ),
        (
            "CreateTaskPushNotificationConfig",
            json!({"taskId": task, "url": hook(2)}),
        ),
    ] {
        let error = theirs(method, params).await;
        assert_eq!(error["code"], missing["code"], "{method}");
        assert_eq!(
            error["message"].as_str().unwrap().replace(&task, "ID"),
            missing["message"].as_str().unwrap().replace("nope", "ID"),
            "{method}"
        );
    }
    let still = alice
        .call_v1("ListTaskPushNotificationConfigs", json!({"taskId": task}))
        .await;
    assert_eq!(still["result"]["configs"].as_array().map(Vec::len), Some(1));
}

/// 0.3 makes the config id optional on set and on get: a config set without one is the
/// one a get without one reads, whatever other configs the task has.
#[tokio::test]
async fn a_0_3_config_set_without_an_id_is_the_one_a_get_without_an_id_reads() {
    let server = server().await;
    let task = server.result("message/send", text_message("hi")).await;
    let task = task["id"].as_str().unwrap().to_owned();
    let other = json!({"taskId": task, "pushNotificationConfig": {"id": "other", "url": hook(1)}});
    server
        .result("tasks/pushNotificationConfig/set", other.clone())
        .await;
    let set = server
        .result(
            "tasks/pushNotificationConfig/set",
            json!({"taskId": task, "pushNotificationConfig": {"url": hook(2), "token": "t"}}),
        )
        .await;
    assert_eq!(set["pushNotificationConfig"]["url"], hook(2), "{set}");
    let got = server
        .result("tasks/pushNotificationConfig/get", json!({"id": task}))
        .await;
    assert_eq!(got, set);
    let listed = server
        .result("tasks/pushNotificationConfig/list", json!({"id": task}))
        .await;
    assert_eq!(listed, json!([other, set]));
    // Set again without an id: the same config is replaced, not a second one added.
    let again = server
        .result(
            "tasks/pushNotificationConfig/set",
            json!({"taskId": task, "pushNotificationConfig": {"url": hook(3)}}),
        )
        .await;
    let got = server
        .result("tasks/pushNotificationConfig/get", json!({"id": task}))
        .await;
    assert_eq!(got, again);
    let listed = server
        .result("tasks/pushNotificationConfig/list", json!({"id": task}))
        .await;
    assert_eq!(listed.as_array().map(Vec::len), Some(2), "{listed}");
}

/// The credentials a config's webhook is called with are the agent's to send, not to show:
/// no answer of any binding or version holds them (the spec makes them optional in every
/// answer); the scheme, the URL and the token the webhook checks are shown.
#[tokio::test]
async fn no_answer_shows_the_credentials_a_config_was_set_with() {
    const SECRET: &str = "s3cret-credentials";
    let server = server().await;
    let task = new_task(&server).await;
    let mut answers = Vec::new();
    let auth = json!({"scheme": "Bearer", "credentials": SECRET});
    answers.push(
        server
            .call_v1(
                "CreateTaskPushNotificationConfig",
                json!({"taskId": task, "id": "a", "url": hook(1), "token": "t1", "authentication": auth}),
            )
            .await,
    );
    answers.push(
        server
            .call_v1(
                "GetTaskPushNotificationConfig",
                json!({"taskId": task, "id": "a"}),
            )
            .await,
    );
    answers.push(
        server
            .call_v1("ListTaskPushNotificationConfigs", json!({"taskId": task}))
            .await,
    );
    let path = format!("tasks/{task}/pushNotificationConfigs");
    let body = json!({"id": "r", "url": hook(2), "authentication": auth});
    answers.push(server.rest("POST", &path, Some(body)).await.1);
    answers.push(server.rest("GET", &format!("{path}/r"), None).await.1);
    answers.push(server.rest("GET", &path, None).await.1);
    let old = server.result("message/send", text_message("hi")).await;
    let old = old["id"].as_str().unwrap().to_owned();
    let config = json!({"taskId": old, "pushNotificationConfig": {"id": "c", "url": hook(3),
        "authentication": {"schemes": ["Bearer"], "credentials": SECRET}}});
    answers.push(
        server
            .call("tasks/pushNotificationConfig/set", config)
            .await,
    );
    let query = json!({"id": old, "pushNotificationConfigId": "c"});
    answers.push(server.call("tasks/pushNotificationConfig/get", query).await);
    answers.push(
        server
            .call("tasks/pushNotificationConfig/list", json!({"id": old}))
            .await,
    );
    for answer in &answers {
        let text = answer.to_string();
        assert!(!text.contains(SECRET), "{answer:#}");
        assert!(text.contains("Bearer"), "the scheme is shown: {answer:#}");
    }
    assert_eq!(answers[0]["result"]["token"], "t1", "{:#}", answers[0]);
}
