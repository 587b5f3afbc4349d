//! Two tenants on one server (A2A 1.0 multi-tenancy), over JSON-RPC and HTTP+JSON: each
//! acts under its own `/{tenant}/` paths and `tenant` member, sees only its own tasks, and
//! a request for the other tenant — or one that does not exist — is answered exactly as a
//! task that does not exist; continuing another tenant's task is not found, and its
//! `contextId` is not joined. Each runs with the in-memory store, SQLite and PostgreSQL
//! (skipped without it). The card lists each tenant's interfaces. Callers that name no
//! tenant work as without tenants.
#![cfg(feature = "server")]

mod support;

use a2ui_agent::a2a::TaskState;
use a2ui_agent::agent::{AgentError, Reply};
use a2ui_agent::request::Request;
use a2ui_agent::server::{Principal, TokenTable};
use serde_json::{Value, json};
use support::stores::Store;
use support::{TestServer, builder, spawn, text_message_v1};

async fn chat(request: Request) -> Result<Reply, AgentError> {
    Ok(Reply::text(format!("reply to {}", request.text()))
        .with_final_state(TaskState::InputRequired))
}

struct Tenants {
    _server: TestServer,
    acme: TestServer,
    globex: TestServer,
    url: String,
}

/// The two tenants' server on `store`; `None` when the store is not available here.
async fn tenants(store: Store) -> Option<Tenants> {
    let table = TokenTable::new()
        .with(Principal::new("alice").with_tenant("acme"), "acme-token")
        .with(Principal::new("bob").with_tenant("globex"), "globex-token");
    let server = builder(chat).auth_tokens(table).tenants(["acme", "globex"]);
    let server = spawn(store.on(server).await?.build().unwrap()).await;
    let client = |token: &str| {
        let mut headers = reqwest::header::HeaderMap::new();
        headers.insert("authorization", format!("Bearer {token}").parse().unwrap());
        let mut caller = TestServer::external(server.url.clone());
        caller.client = reqwest::Client::builder()
            .default_headers(headers)
            .build()
            .unwrap();
        caller
    };
    Some(Tenants {
        acme: client("acme-token"),
        globex: client("globex-token"),
        url: server.url.clone(),
        _server: server,
    })
}

/// A JSON-RPC 1.0 call to `path` (relative to the server's root).
async fn rpc(caller: &TestServer, path: &str, method: &str, params: Value) -> Value {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    caller
        .client
        .post(format!("{}{path}", caller.url))
        .header("content-type", "application/json")
        .header("a2a-version", "1.0")
        .body(body.to_string())
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

/// An HTTP+JSON call: status and body.
async fn rest(caller: &TestServer, method: &str, path: &str, body: Option<Value>) -> (u16, Value) {
    let url = format!("{}{path}", caller.url);
    let request = match method {
        "GET" => caller.client.get(url),
        _ => caller.client.post(url),
    };
    let request = match body {
        Some(body) => request
            .header("content-type", "application/json")
            .body(body.to_string()),
        None => request,
    };
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    let text = response.text().await.unwrap();
    (
        status,
        serde_json::from_str(&text).unwrap_or(Value::String(text)),
    )
}

fn with_tenant(mut params: Value, tenant: &str) -> Value {
    params["tenant"] = json!(tenant);
    params
}

async fn over_json_rpc(store: Store) {
    let Some(t) = tenants(store).await else {
        return;
    };
    // Acme's task, started with the `tenant` member at the root, and one under its path.
    let sent = rpc(
        &t.acme,
        "",
        "SendMessage",
        with_tenant(text_message_v1("hi"), "acme"),
    )
    .await;
    let acme_task = sent["result"]["task"]["id"]
        .as_str()
        .expect("a task")
        .to_owned();
    let sent = rpc(&t.acme, "acme/", "SendMessage", text_message_v1("again")).await;
    assert!(sent["result"]["task"]["id"].is_string(), "{sent}");

    // Acme finds it in its tenant, by path, by member, and naming none.
    for (path, params) in [
        ("acme/", json!({"id": acme_task})),
        ("acme", json!({"id": acme_task})),
        ("", json!({"id": acme_task, "tenant": "acme"})),
        ("", json!({"id": acme_task})),
    ] {
        let got = rpc(&t.acme, path, "GetTask", params).await;
        assert_eq!(got["result"]["id"], acme_task.as_str(), "{got}");
    }
    let listed = rpc(&t.acme, "acme/", "ListTasks", json!({})).await;
    assert_eq!(
        listed["result"]["tasks"].as_array().unwrap().len(),
        2,
        "{listed}"
    );

    // Globex sees none of them, in its tenant or asking for acme's.
    let listed = rpc(&t.globex, "globex/", "ListTasks", json!({})).await;
    assert_eq!(listed["result"]["tasks"], json!([]), "{listed}");
    let missing = rpc(
        &t.globex,
        "globex/",
        "GetTask",
        json!({"id": "no-such-task"}),
    )
    .await;
    let missing = &missing["error"];
    assert_eq!(missing["code"], -32001, "{missing}");
    let theirs = rpc(&t.globex, "globex/", "GetTask", json!({"id": acme_task})).await;
    assert_eq!(theirs["error"]["code"], -32001, "{theirs}");

    // Asking for another tenant — acme, or one that does not exist — is not found, the
    // same answer either way, whatever the method.
    let mut answers = Vec::new();
    for (path, params) in [
        ("acme/", json!({"id": acme_task})),
        ("", json!({"id": acme_task, "tenant": "acme"})),
        ("initech/", json!({"id": acme_task})),
        ("", json!({"id": acme_task, "tenant": "initech"})),
    ] {
        answers.push(rpc(&t.globex, path, "GetTask", params).await["error"].clone());
    }
    for answer in &answers {
        assert_eq!(answer, &answers[0]);
        assert_eq!(answer["code"], -32001, "{answer}");
    }
    // ... and the very answer acme's task gets in globex's own tenant, where it is missing.
    assert_eq!(answers[0], theirs["error"], "{theirs}");
    let canceled = rpc(&t.globex, "acme/", "CancelTask", json!({"id": acme_task})).await;
    assert_eq!(canceled["error"]["code"], -32001, "{canceled}");
    let sent = rpc(&t.globex, "acme/", "SendMessage", text_message_v1("in?")).await;
    assert_eq!(sent["error"]["code"], -32001, "{sent}");
    let listed = rpc(&t.globex, "acme/", "ListTasks", json!({})).await;
    assert_eq!(listed["error"]["code"], -32001, "{listed}");
    let subscribed = rpc(
        &t.globex,
        "acme/",
        "SubscribeToTask",
        json!({"id": acme_task}),
    )
    .await;
    assert_eq!(subscribed["error"], answers[0], "{subscribed}");

    // Continuing acme's task from globex's own tenant: not found, as a missing task is.
    let mut continuing = text_message_v1("mine now");
    continuing["message"]["taskId"] = json!(acme_task);
    let continued = rpc(&t.globex, "globex/", "SendMessage", continuing).await;
    let mut missing_one = text_message_v1("mine now");
    missing_one["message"]["taskId"] = json!("no-such-task");
    let missing_continued = rpc(&t.globex, "globex/", "SendMessage", missing_one).await;
    assert_eq!(
        continued["error"]["code"], missing_continued["error"]["code"],
        "{continued}"
    );
    assert_eq!(continued["error"]["code"], -32001, "{continued}");

    // Acme's contextId in globex is globex's own context: a new task there, and neither
    // tenant sees the other's task in it.
    let got = rpc(&t.acme, "acme/", "GetTask", json!({"id": acme_task})).await;
    let acme_context = got["result"]["contextId"].as_str().unwrap().to_owned();
    let mut in_acme_context = text_message_v1("globex in acme's context");
    in_acme_context["message"]["contextId"] = json!(acme_context);
    let sent = rpc(&t.globex, "globex/", "SendMessage", in_acme_context).await;
    let globex_task = sent["result"]["task"]["id"]
        .as_str()
        .expect("a task")
        .to_owned();
    assert_ne!(globex_task, acme_task);
    for (caller, path, own) in [
        (&t.acme, "acme/", &acme_task),
        (&t.globex, "globex/", &globex_task),
    ] {
        let listed = rpc(
            caller,
            path,
            "ListTasks",
            json!({"contextId": acme_context}),
        )
        .await;
        let ids: Vec<&str> = listed["result"]["tasks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|task| task["id"].as_str().unwrap())
            .collect();
        assert_eq!(ids, [own.as_str()], "{listed}");
    }

    // Acme's task is untouched.
    let got = rpc(&t.acme, "acme/", "GetTask", json!({"id": acme_task})).await;
    assert_eq!(
        got["result"]["status"]["state"], "TASK_STATE_INPUT_REQUIRED",
        "{got}"
    );
}

async fn over_http_json(store: Store) {
    let Some(t) = tenants(store).await else {
        return;
    };
    let (status, sent) = rest(
        &t.acme,
        "POST",
        "acme/message:send",
        Some(text_message_v1("hi")),
    )
    .await;
    assert_eq!(status, 200, "{sent}");
    let acme_task = sent["task"]["id"].as_str().expect("a task").to_owned();

    let (status, got) = rest(&t.acme, "GET", &format!("acme/tasks/{acme_task}"), None).await;
    assert_eq!((status, &got["id"]), (200, &json!(acme_task)), "{got}");
    let (status, listed) = rest(&t.acme, "GET", "acme/tasks", None).await;
    assert_eq!(status, 200, "{listed}");
    assert_eq!(listed["tasks"].as_array().unwrap().len(), 1, "{listed}");

    let (status, listed) = rest(&t.globex, "GET", "globex/tasks", None).await;
    assert_eq!((status, &listed["tasks"]), (200, &json!([])), "{listed}");
    let (status, missing) = rest(&t.globex, "GET", "globex/tasks/no-such-task", None).await;
    assert_eq!(status, 404, "{missing}");

    // Another tenant's path, body or query: not found, the same for a tenant that exists
    // and one that does not.
    for (method, path, body) in [
        ("GET", format!("acme/tasks/{acme_task}"), None),
        ("GET", format!("initech/tasks/{acme_task}"), None),
        ("GET", format!("tasks/{acme_task}?tenant=acme"), None),
        (
            "POST",
            format!("acme/tasks/{acme_task}:cancel"),
            Some(json!({})),
        ),
        (
            "POST",
            "acme/message:send".to_owned(),
            Some(text_message_v1("in?")),
        ),
        (
            "POST",
            "message:send".to_owned(),
            Some(with_tenant(text_message_v1("in?"), "acme")),
        ),
        ("GET", "acme/tasks".to_owned(), None),
        ("GET", format!("acme/tasks/{acme_task}:subscribe"), None),
    ] {
        let (status, refused) = rest(&t.globex, method, &path, body).await;
        assert_eq!(status, 404, "{method} {path}: {refused}");
        assert_eq!(
            refused["error"]["status"], "NOT_FOUND",
            "{method} {path}: {refused}"
        );
    }
    // The very answer acme's task gets in globex's own tenant, where it is missing.
    let (_, by_path) = rest(&t.globex, "GET", &format!("acme/tasks/{acme_task}"), None).await;
    let (_, own) = rest(&t.globex, "GET", &format!("globex/tasks/{acme_task}"), None).await;
    assert_eq!(by_path, own);
    let (status, got) = rest(&t.acme, "GET", &format!("acme/tasks/{acme_task}"), None).await;
    assert_eq!(
        (status, &got["status"]["state"]),
        (200, &json!("TASK_STATE_INPUT_REQUIRED"))
    );
}

#[tokio::test]
async fn each_tenant_sees_only_its_own_tasks_over_json_rpc_in_memory() {
    over_json_rpc(Store::Memory).await;
}

#[cfg(feature = "sqlite")]
#[tokio::test]
async fn each_tenant_sees_only_its_own_tasks_over_json_rpc_in_sqlite() {
    over_json_rpc(Store::Sqlite).await;
}

#[cfg(feature = "postgres")]
#[tokio::test]
async fn each_tenant_sees_only_its_own_tasks_over_json_rpc_in_postgres() {
    over_json_rpc(Store::Postgres).await;
}

#[tokio::test]
async fn each_tenant_sees_only_its_own_tasks_over_http_json_in_memory() {
    over_http_json(Store::Memory).await;
}

#[cfg(feature = "sqlite")]
#[tokio::test]
async fn each_tenant_sees_only_its_own_tasks_over_http_json_in_sqlite() {
    over_http_json(Store::Sqlite).await;
}

#[cfg(feature = "postgres")]
#[tokio::test]
async fn each_tenant_sees_only_its_own_tasks_over_http_json_in_postgres() {
    over_http_json(Store::Postgres).await;
}

#[tokio::test]
async fn the_card_lists_each_tenants_interfaces() {
    let t = tenants(Store::Memory).await.expect("the in-memory store");
    let card: Value = reqwest::get(format!("{}.well-known/agent-card.json", t.url))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let interfaces = card["supportedInterfaces"].as_array().unwrap();
    for tenant in ["acme", "globex"] {
        let bindings: Vec<&Value> = interfaces
            .iter()
            .filter(|i| i["tenant"] == tenant)
            .map(|i| &i["protocolBinding"])
            .collect();
        let mut expected = vec![json!("JSONRPC"), json!("HTTP+JSON")];
        if cfg!(feature = "grpc") {
            expected.push(json!("GRPC"));
        }
        assert_eq!(bindings, expected.iter().collect::<Vec<_>>(), "{card}");
    }
    // The default interfaces come first, without a tenant.
    assert!(interfaces[0].get("tenant").is_none(), "{card}");
}

#[tokio::test]
async fn without_tenants_on_nothing_changes_for_callers() {
    let server = spawn(builder(chat).build().unwrap()).await;
    let sent = rpc(&server, "", "SendMessage", text_message_v1("hi")).await;
    assert!(sent["result"]["task"]["id"].is_string(), "{sent}");
    let card = server.card().await;
    assert!(
        card["supportedInterfaces"]
            .as_array()
            .unwrap()
            .iter()
            .all(|i| i.get("tenant").is_none()),
        "{card}"
    );
    // No tenant paths.
    let (status, _) = rest(&server, "GET", "acme/tasks", None).await;
    assert_eq!(status, 404);
}
