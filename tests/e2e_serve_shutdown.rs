//! `a2ui-agent serve` as an operator runs it: SIGTERM with a half-open connection and a
//! stream in flight exits within the drain deadline, the stream ending `failed`; and
//! `--auth-token-env` guards the endpoint.
#![cfg(all(feature = "cli", unix))]

use std::process::Stdio;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;

/// Liveness bound: many times the deadlines configured below.
const WITHIN: Duration = Duration::from_secs(20);

/// Runs `a2ui-agent serve --port 0 <extra>`; the child and the address it listens on.
async fn serve(extra: &[&str], env: &[(&str, &str)]) -> (tokio::process::Child, String) {
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_a2ui-agent"))
        .args(["serve", "--port", "0"])
        .args(extra)
        .envs(env.iter().copied())
        .env("RUST_LOG", "info")
        .env("NO_COLOR", "1")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let find = async {
        while let Some(line) = lines.next_line().await.unwrap() {
            if let Some(rest) = line.split("card at http://").nth(1) {
                return rest.split('/').next().unwrap().to_owned();
            }
        }
        panic!("the server exited without saying where it listens");
    };
    let address = tokio::time::timeout(WITHIN, find)
        .await
        .expect("the server did not start");
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
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
