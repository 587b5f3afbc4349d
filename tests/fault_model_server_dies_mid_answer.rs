//! A model server that dies or freezes in the middle of an answer: the real `a2ui-agent
//! serve --model-url` binary in front of a model server run as a process of its own
//! (`tests/faults/model_server.py`), which streams the first words of an answer and then is
//! killed with SIGKILL, or goes silent with its connection open. The client's stream ends with
//! the task `failed` and a message that names the kind of failure and an error id, never the
//! model server's address; a frozen model is given up on after the idle timeout and its
//! connection closed; a killed one is noticed at once, not after the timeout.
#![cfg(feature = "cli")]

mod support;

use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::Value;
use support::{TestServer, serve_command, spawn_binary, text_message};
use tokio::io::{AsyncBufReadExt, BufReader, Lines};
use tokio::process::{Child, ChildStdout};

/// The model server process, its port, and its stdout lines.
async fn model_server(mode: &str) -> (Child, u16, Lines<BufReader<ChildStdout>>) {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/faults/model_server.py");
    let mut child = tokio::process::Command::new("python3")
        .args([script, mode])
        .stdout(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("python3 runs the scripted model server");
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let first = expect_line(&mut lines, "port").await;
    let port = first.trim_start_matches("port ").parse().unwrap();
    (child, port, lines)
}

/// The next line the model server prints, which must start with `word` (within 30 s).
async fn expect_line(lines: &mut Lines<BufReader<ChildStdout>>, word: &str) -> String {
    let line = tokio::time::timeout(Duration::from_secs(30), lines.next_line())
        .await
        .unwrap_or_else(|_| panic!("the model server did not print {word:?} within 30 s"))
        .unwrap()
        .unwrap_or_else(|| panic!("the model server exited before printing {word:?}"));
    assert!(line.starts_with(word), "{line:?}");
    line
}

/// `serve --model-url` for the model server on `port`, with `idle_s` as its idle timeout.
async fn serve(port: u16, idle_s: u64) -> (Child, TestServer) {
    let url = format!("http://127.0.0.1:{port}/v1");
    let idle = idle_s.to_string();
    let command = serve_command(&[
        "--model-url",
        &url,
        "--model",
        "m",
        "--model-idle-timeout-secs",
        &idle,
    ]);
    let (child, url) = spawn_binary(command, Duration::from_secs(30)).await;
    (child, TestServer::external(url))
}

/// The stream's events, read to its end (bounded by `within`), and the raw body.
async fn read_all(mut response: reqwest::Response, within: Duration) -> (Vec<Value>, String) {
    let read = async {
        let mut body = Vec::new();
        while let Some(chunk) = response.chunk().await.unwrap() {
            body.extend_from_slice(&chunk);
        }
        String::from_utf8(body).unwrap()
    };
    let body = tokio::time::timeout(within, read)
        .await
        .expect("the client's stream did not end in time");
    let events = body
        .lines()
        .filter_map(|line| line.strip_prefix("data: "))
        .map(|data| serde_json::from_str(data).unwrap())
        .collect();
    (events, body)
}

/// Checks the stream carried the model's first words, then ended `failed` with a message
/// starting with `reason` and an error id, and nothing naming the model server.
fn assert_failed_without_the_address(events: &[Value], body: &str, reason: &str, port: u16) {
    let last = &events.last().expect("no event")["result"];
    assert_eq!(last["final"], true, "{body}");
    assert_eq!(last["status"]["state"], "failed", "{body}");
    let text = last["status"]["message"]["parts"][0]["text"]
        .as_str()
        .unwrap();
    assert!(text.starts_with(&format!("{reason} (error id ")), "{text}");
    assert!(
        body.contains("Hello"),
        "the first words reached the client: {body}"
    );
    assert!(!body.contains("127.0.0.1"), "{body}");
    assert!(!body.contains(&format!(":{port}")), "{body}");
    assert!(!body.contains("/v1"), "{body}");
}

#[tokio::test]
async fn a_model_server_killed_mid_answer_fails_the_task_at_once_without_naming_its_address() {
    let (mut model, port, mut said) = model_server("die").await;
    // A long idle timeout: the failure must come from the dead connection, not the timer.
    let (_server_child, server) = serve(port, 60).await;
    let response = server
        .open_stream("message/stream", text_message("Dinner?"))
        .await;
    expect_line(&mut said, "streaming").await;
    model.start_kill().unwrap();
    let killed = Instant::now();
    let (events, body) = read_all(response, Duration::from_secs(20)).await;
    println!("the stream ended {:?} after the kill", killed.elapsed());
    assert_failed_without_the_address(&events, &body, "The model's answer was cut off", port);

    // The task is stored failed, with the same message.
    let id = events[0]["result"]["id"].as_str().unwrap();
    let task = server.get_task(id).await;
    assert_eq!(task["status"]["state"], "failed", "{task}");
    assert_eq!(
        task["status"]["message"],
        events.last().unwrap()["result"]["status"]["message"]
    );
}

#[tokio::test]
async fn a_model_server_that_freezes_mid_answer_fails_the_task_after_the_idle_timeout_and_is_hung_up_on()
 {
    let (_model, port, mut said) = model_server("freeze").await;
    let (_server_child, server) = serve(port, 2).await;
    let response = server
        .open_stream("message/stream", text_message("Dinner?"))
        .await;
    expect_line(&mut said, "streaming").await;
    let frozen = Instant::now();
    // The idle timeout (2 s) and a margin for a slow machine bound the wait.
    let (events, body) = read_all(response, Duration::from_secs(20)).await;
    let ended = frozen.elapsed();
    println!("the stream ended {ended:?} after the model froze");
    assert_failed_without_the_address(&events, &body, "The model server stopped answering", port);
    // The server closed its connection to the frozen model.
    expect_line(&mut said, "closed").await;
}
