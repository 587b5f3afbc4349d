//! `a2ui-agent serve` as an operator runs it: SIGTERM with a half-open connection and a
//! stream in flight exits within the drain deadline, the stream ending `failed`; and
//! `--auth-token-env` guards the endpoint.
#![cfg(all(feature = "cli", unix))]

mod support;

use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use support::{serve_command, spawn_binary};

/// Liveness bound: many times the deadlines configured below.
const WITHIN: Duration = Duration::from_secs(20);

/// Runs `a2ui-agent serve --port 0 <extra>`; the child and the address it listens on.
async fn serve(extra: &[&str], env: &[(&str, &str)]) -> (tokio::process::Child, String) {
    let mut command = serve_command(extra);
    command.envs(env.iter().copied());
    let (child, url) = spawn_binary(command, WITHIN).await;
    let address = url
        .trim_start_matches("http://")
        .trim_end_matches('/')
        .to_owned();
    (child, address)
}

fn stream_request() -> String {
    json!({"jsonrpc": "2.0", "id": 1, "method": "message/stream",
           "params": {"message": {"kind": "message", "role": "user", "messageId": "m-1",
                                  "parts": [{"kind": "text", "text": "Dinner?"}]}}})
    .to_string()
}

#[tokio::test]
async fn sigterm_with_a_half_open_connection_exits_within_the_deadline_failing_the_stream() {
    // Each streamed chunk waits 3 s, so the stream is still running at the 1 s deadline.
    let (mut child, address) = serve(
        &[
            "--drain-deadline",
            "1",
            "--min-delay-ms",
            "3000",
            "--max-delay-ms",
            "3000",
        ],
        &[],
    )
    .await;
    let mut half_open = TcpStream::connect(&address).await.unwrap();
    half_open
        .write_all(b"POST / HTTP/1.1\r\nHost: x\r\n")
        .await
        .unwrap();
    let response = reqwest::Client::new()
        .post(format!("http://{address}/"))
        .header("content-type", "application/json")
        .body(stream_request())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let reading = tokio::spawn(async move { response.text().await.unwrap_or_default() });
    tokio::time::sleep(Duration::from_millis(300)).await;

    let pid = child.id().unwrap().to_string();
    let killed = std::process::Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .unwrap();
    assert!(killed.success());
    let status = tokio::time::timeout(WITHIN, child.wait())
        .await
        .expect("the server did not exit after SIGTERM")
        .unwrap();
    assert!(status.success(), "{status}");

    let body = tokio::time::timeout(WITHIN, reading)
        .await
        .unwrap()
        .unwrap();
    let last: Value = body
        .lines()
        .rev()
        .filter_map(|line| line.strip_prefix("data: "))
        .find_map(|data| serde_json::from_str(data).ok())
        .expect("no event");
    assert_eq!(last["result"]["final"], true, "{last}");
    assert_eq!(last["result"]["status"]["state"], "failed", "{last}");
    let mut rest = Vec::new();
    let closed = tokio::time::timeout(WITHIN, half_open.read_to_end(&mut rest)).await;
    assert!(
        closed.is_ok(),
        "the half-open connection outlived the process"
    );
}

#[tokio::test]
async fn auth_token_env_requires_the_token_on_the_endpoint() {
    let (_child, address) = serve(
        &["--auth-token-env", "A2UI_TEST_TOKEN"],
        &[("A2UI_TEST_TOKEN", "t0ken")],
    )
    .await;
    let client = reqwest::Client::new();
    let url = format!("http://{address}/");
    let send = json!({"jsonrpc": "2.0", "id": 1, "method": "tasks/get", "params": {"id": "x"}})
        .to_string();
    let anonymous = client
        .post(&url)
        .header("content-type", "application/json")
        .body(send.clone())
        .send()
        .await
        .unwrap();
    assert_eq!(anonymous.status(), 401);
    assert!(anonymous.headers().contains_key("www-authenticate"));
    let with_token = client
        .post(&url)
        .header("content-type", "application/json")
        .bearer_auth("t0ken")
        .body(send)
        .send()
        .await
        .unwrap();
    assert_eq!(with_token.status(), 200);
    let card = client
        .get(format!("{url}.well-known/agent-card.json"))
        .send()
        .await
        .unwrap();
    assert_eq!(card.status(), 200);
}
