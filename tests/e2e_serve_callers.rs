//! `a2ui-agent serve --auth-tokens FILE`: the real binary with a token per caller. Each
//! caller's token works, no token or a wrong one is 401, the card declares the schemes,
//! each caller lists only its own tasks, and a bad file stops the server without showing
//! any token. With `--tenants` and a `tenant=` per caller, two tenants each see only their
//! own tasks under `/{tenant}/`, over JSON-RPC 1.0 and HTTP+JSON, and the card lists the
//! tenants asked for.

mod support;

use std::time::Duration;

use serde_json::{Value, json};
use support::{serve_command, spawn_binary, text_message, text_message_v1};

fn token_file(name: &str, text: &str) -> std::path::PathBuf {
    let path = std::env::temp_dir().join(format!("a2ui-tokens-{}-{name}", std::process::id()));
    std::fs::write(&path, text).unwrap();
    path
}

async fn call(url: &str, token: Option<&str>, method: &str, params: Value) -> (u16, Value) {
    let mut request = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("A2A-Version", "1.0")
        .body(json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).to_string());
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

#[tokio::test]
async fn each_caller_of_the_token_file_sees_only_its_own_tasks() {
    let path = token_file("ok", "# callers\nalice tok-alice-1\nbob tok-bob-2\n");
    let command = serve_command(&["--auth-tokens", path.to_str().unwrap()]);
    let (_child, url) = spawn_binary(command, Duration::from_secs(60)).await;

    let card: Value = reqwest::get(format!("{url}.well-known/agent-card.json"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(
        card["securityRequirements"],
        json!([{"schemes": {"bearer": {"list": []}}}, {"schemes": {"apiKey": {"list": []}}}]),
        "{card}"
    );

    let (status, _) = call(&url, None, "ListTasks", json!({})).await;
    assert_eq!(status, 401);
    let (status, _) = call(&url, Some("tok-alice-"), "ListTasks", json!({})).await;
    assert_eq!(status, 401);

    let mut v03 = text_message("plain text please");
    v03["configuration"] = json!({"blocking": true});
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": v03});
    let sent: Value = reqwest::Client::new()
        .post(&url)
        .bearer_auth("tok-alice-1")
        .header("content-type", "application/json")
        .body(body.to_string())
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let alice_task = sent["result"]["id"].as_str().unwrap().to_owned();

    let (_, alices) = call(&url, Some("tok-alice-1"), "ListTasks", json!({})).await;
    assert!(alices.to_string().contains(&alice_task), "{alices}");
    let (_, bobs) = call(&url, Some("tok-bob-2"), "ListTasks", json!({})).await;
    assert_eq!(bobs["result"]["tasks"], json!([]), "{bobs}");
    let (_, got) = call(
        &url,
        Some("tok-bob-2"),
        "GetTask",
        json!({"id": alice_task}),
    )
    .await;
    assert_eq!(got["error"]["code"], -32001, "{got}");
    std::fs::remove_file(path).ok();
}

/// An HTTP+JSON call with `token`: status and body (`Null` when not JSON).
async fn rest(url: &str, token: &str, method: &str, body: Option<Value>) -> (u16, Value) {
    let client = reqwest::Client::new();
    let request = match body {
        Some(body) => client
            .post(url)
            .header("content-type", "application/a2a+json")
            .body(body.to_string()),
        None if method == "POST" => client.post(url),
        None => client.get(url),
    };
    let response = request
        .bearer_auth(token)
        .header("A2A-Version", "1.0")
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

#[tokio::test]
async fn with_tenants_on_each_tenant_of_the_token_file_sees_only_its_own_tasks() {
    let path = token_file(
        "tenants",
        "# who  token          tenant       scopes\n\
         alice  tok-acme-1     tenant=acme  scopes=read,book\n\
         bob    tok-globex-2   tenant=globex\n",
    );
    let command = serve_command(&[
        "--auth-tokens",
        path.to_str().unwrap(),
        "--tenants",
        "acme,globex",
        "--min-delay-ms",
        "0",
        "--max-delay-ms",
        "0",
    ]);
    let (_child, url) = spawn_binary(command, Duration::from_secs(60)).await;

    let card: Value = reqwest::get(format!("{url}.well-known/agent-card.json"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let interfaces = card["supportedInterfaces"].as_array().unwrap();
    for tenant in ["acme", "globex"] {
        let bindings: Vec<&Value> = interfaces
            .iter()
            .filter(|interface| interface["tenant"] == tenant)
            .map(|interface| &interface["protocolBinding"])
            .collect();
        // The binary is built with gRPC (the `cli` feature turns it on).
        assert_eq!(
            bindings,
            [&json!("JSONRPC"), &json!("HTTP+JSON"), &json!("GRPC")],
            "{card}"
        );
    }

    // Acme's tasks: one over JSON-RPC at /acme/, one over HTTP+JSON at /acme/message:send.
    let mut params = text_message_v1("plain text please");
    params["configuration"] = json!({"returnImmediately": false});
    let (status, sent) = call(
        &format!("{url}acme/"),
        Some("tok-acme-1"),
        "SendMessage",
        params,
    )
    .await;
    assert_eq!(status, 200, "{sent}");
    let by_rpc = sent["result"]["task"]["id"]
        .as_str()
        .expect("a task")
        .to_owned();
    let (status, sent) = rest(
        &format!("{url}acme/message:send"),
        "tok-acme-1",
        "POST",
        Some(text_message_v1("plain text again")),
    )
    .await;
    assert_eq!(status, 200, "{sent}");
    let by_rest = sent["task"]["id"].as_str().expect("a task").to_owned();

    // Acme finds both, by either binding, under its path.
    let (_, listed) = call(
        &format!("{url}acme/"),
        Some("tok-acme-1"),
        "ListTasks",
        json!({}),
    )
    .await;
    let listed = listed["result"]["tasks"].to_string();
    assert!(
        listed.contains(&by_rpc) && listed.contains(&by_rest),
        "{listed}"
    );
    let (status, got) = rest(
        &format!("{url}acme/tasks/{by_rpc}"),
        "tok-acme-1",
        "GET",
        None,
    )
    .await;
    assert_eq!((status, &got["id"]), (200, &json!(by_rpc)), "{got}");

    // Globex sees none of them: not in its tenant, and not by asking for acme's.
    let (_, listed) = call(
        &format!("{url}globex/"),
        Some("tok-globex-2"),
        "ListTasks",
        json!({}),
    )
    .await;
    assert_eq!(listed["result"]["tasks"], json!([]), "{listed}");
    let (status, listed) = rest(&format!("{url}globex/tasks"), "tok-globex-2", "GET", None).await;
    assert_eq!((status, &listed["tasks"]), (200, &json!([])), "{listed}");
    for (tenant_path, id) in [
        ("globex/", &by_rpc),
        ("acme/", &by_rpc),
        ("globex/", &by_rest),
    ] {
        let (_, got) = call(
            &format!("{url}{tenant_path}"),
            Some("tok-globex-2"),
            "GetTask",
            json!({"id": id}),
        )
        .await;
        assert_eq!(got["error"]["code"], -32001, "{tenant_path} {got}");
        let (status, got) = rest(
            &format!("{url}{tenant_path}tasks/{id}"),
            "tok-globex-2",
            "GET",
            None,
        )
        .await;
        assert_eq!(status, 404, "{tenant_path} {got}");
    }
    let (status, _) = rest(
        &format!("{url}acme/tasks/{by_rest}:cancel"),
        "tok-globex-2",
        "POST",
        None,
    )
    .await;
    assert_eq!(status, 404);
    std::fs::remove_file(path).ok();
}

#[tokio::test]
async fn a_bad_token_file_stops_the_server_without_showing_a_token() {
    for (name, text, secret) in [
        ("bad", "alice tok-alice-1\nbob tok-alice-1\n", "tok-alice-1"),
        (
            "field",
            "alice tok-alice-1\nbob tok-bob-2 tok-bob-3\n",
            "tok-bob",
        ),
    ] {
        let path = token_file(name, text);
        let output = serve_command(&["--auth-tokens", path.to_str().unwrap()])
            .output()
            .await
            .unwrap();
        assert!(!output.status.success());
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains("line 2"), "{stderr}");
        assert!(!stderr.contains(secret), "{stderr}");
        std::fs::remove_file(path).ok();
    }
}
