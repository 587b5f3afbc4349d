//! The examples in `examples/` run as their doc comments say: `parse_stream` prints the parts
//! of its chunk stream as they complete, `echo` answers a real client, `mount_in_axum`
//! serves the agent under `/agent` beside the app's own routes and layer, `client` prints
//! what `echo` streams back. `cargo test` (and
//! `cargo build --examples`, which the test command runs first) builds them.
#![cfg(feature = "llm")]

mod support;

use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use a2ui_agent::a2ui::{ProtocolVersion, Validator};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};

/// The built example `name` (next to this test's binary, in `target/<profile>/examples`).
fn example(name: &str) -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let path = exe
        .parent()
        .and_then(|deps| deps.parent())
        .unwrap()
        .join("examples")
        .join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
    assert!(
        path.exists(),
        "{} is not built: run `cargo build --examples --all-features` (cargo test builds it)",
        path.display()
    );
    path
}

/// Starts a server example on a free port; the child and its base URL.
async fn serve(name: &str) -> (tokio::process::Child, String) {
    let mut child = tokio::process::Command::new(example(name))
        .env("PORT", "0")
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let line = tokio::time::timeout(Duration::from_secs(30), lines.next_line())
        .await
        .expect("the example did not start")
        .unwrap()
        .expect("the example printed nothing");
    let url = line
        .split("http://")
        .nth(1)
        .and_then(|rest| rest.split('/').next())
        .map(|address| format!("http://{address}"))
        .unwrap_or_else(|| panic!("no address in {line:?}"));
    (child, url)
}

async fn send(url: &str, text: &str) -> Value {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": {"message": {
        "kind": "message", "role": "user", "messageId": "m1", "parts": [{"kind": "text", "text": text}]}}});
    reqwest::Client::new()
        .post(url)
        .json(&body)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

#[test]
fn parse_stream_prints_each_part_as_it_completes() {
    let output = std::process::Command::new(example("parse_stream"))
        .output()
        .unwrap();
    assert!(output.status.success());
    let lines: Vec<Value> = String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(lines.first().unwrap()["text"], "Here are tonight's");
    assert_eq!(lines.last().unwrap()["text"], "Which one?");
    let messages: Vec<Value> = lines
        .iter()
        .filter_map(|line| line["a2ui"].as_array())
        .flatten()
        .cloned()
        .collect();
    // Each component is sent on its own as it closes, and together they make a valid surface.
    assert_eq!(messages.len(), 4, "{messages:?}");
    Validator::basic(ProtocolVersion::V0_9)
        .check_response(&messages)
        .unwrap();
}

#[tokio::test]
async fn the_echo_example_answers_a_client() {
    let (_child, url) = serve("echo").await;
    let answer = send(&format!("{url}/"), "hello there").await;
    let parts = &answer["result"]["status"]["message"]["parts"];
    assert_eq!(support::text_of(parts), "hello there", "{answer}");
}

#[cfg(feature = "client")]
#[tokio::test]
async fn the_client_example_prints_what_the_echo_example_streams_back() {
    let (_child, url) = serve("echo").await;
    let output = tokio::process::Command::new(example("client"))
        .args([format!("{url}/"), "hello there".to_owned()])
        .output()
        .await
        .unwrap();
    let printed = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{printed}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(printed.starts_with("Echo over JSONRPC 1.0"), "{printed}");
    assert!(printed.contains("hello there"), "{printed}");
}

#[tokio::test]
async fn the_mounted_agent_lives_under_its_path_beside_the_apps_routes() {
    let (_child, url) = serve("mount_in_axum").await;
    let client = reqwest::Client::new();
    let get = |path: &str| client.get(format!("{url}{path}")).send();
    assert_eq!(get("/health").await.unwrap().text().await.unwrap(), "ok");
    let card: Value = get("/agent/.well-known/agent-card.json")
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    // The 1.0 card names its interfaces; each lives under the mount path.
    let interfaces = card["supportedInterfaces"].as_array().unwrap();
    assert!(!interfaces.is_empty(), "{card}");
    for interface in interfaces {
        let at = interface["url"].as_str().unwrap();
        assert!(at.starts_with(&format!("{url}/agent")), "{card}");
    }
    let answer = send(&format!("{url}/agent"), "hi").await;
    assert_eq!(
        support::text_of(&answer["result"]["status"]["message"]["parts"]),
        "You said: hi"
    );
    // The layer sees every request: the three above and this one.
    assert_eq!(
        get("/stats").await.unwrap().text().await.unwrap(),
        "4 requests"
    );
}
