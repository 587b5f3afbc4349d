//! `a2ui-agent serve --auth-tokens FILE`: the real binary with a token per caller. Each
//! caller's token works, no token or a wrong one is 401, the card declares the schemes,
//! each caller lists only its own tasks, and a bad file stops the server without showing
//! any token.

mod support;

use std::time::Duration;

use serde_json::{Value, json};
use support::{serve_command, spawn_binary, text_message};

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

#[tokio::test]
async fn a_bad_token_file_stops_the_server_without_showing_a_token() {
    let path = token_file("bad", "alice tok-alice-1\nbob tok-alice-1\n");
    let output = serve_command(&["--auth-tokens", path.to_str().unwrap()])
        .output()
        .await
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("line 2"), "{stderr}");
    assert!(!stderr.contains("tok-alice-1"), "{stderr}");
    std::fs::remove_file(path).ok();
}
