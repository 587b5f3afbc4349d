//! A hostile body must not become a large in-memory model: `a2ui-agent serve` as a real
//! process over real TCP, its peak RSS (`VmHWM` in `/proc/PID/status`) read before and after
//! each attack. The attacks are the issue's: one ~4 MiB request of 150,000 one-letter text
//! parts (0.3 `message/send`, 1.0 `SendMessage`, `POST /message:send`), a ~4 MiB `tasks/get`
//! padded with 2 million numbers, and 8 of the first at once. Each is refused with -32602
//! (400 on the HTTP+JSON binding) and grows the peak by less than 64 MiB.
//!
//! The server runs with an 8 MiB body and message limit, so the refusal comes from the
//! decoding budget's part count and value count, not from the (1 MiB) default limits.
#![cfg(all(feature = "cli", target_os = "linux"))]

mod support;

use std::time::Duration;

use serde_json::{Value, json};

use support::{serve_command, spawn_binary};

const WITHIN: Duration = Duration::from_secs(30);
const PARTS: usize = 150_000;
/// The most the peak RSS may grow per attack.
const GROWTH_BOUND_KIB: u64 = 64 * 1024;

/// A field of `/proc/PID/status` in KiB.
fn status_kib(pid: u32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|line| line.strip_prefix(field))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or_else(|| panic!("no {field} in /proc/{pid}/status"))
}

/// `count` one-letter text parts in the shape of 0.3 (`kind`) or 1.0.
fn parts(count: usize, v1: bool) -> String {
    let part = if v1 {
        r#"{"text":"a"}"#
    } else {
        r#"{"kind":"text","text":"a"}"#
    };
    let mut parts = String::with_capacity(count * (part.len() + 1) + 2);
    parts.push('[');
    for index in 0..count {
        if index > 0 {
            parts.push(',');
        }
        parts.push_str(part);
    }
    parts.push(']');
    parts
}

fn v0_3_send() -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"message/send","params":{{"message":{{"kind":"message","role":"user","messageId":"m","parts":{}}}}}}}"#,
        parts(PARTS, false)
    )
}

fn v1_0_message() -> String {
    format!(
        r#"{{"message":{{"role":"ROLE_USER","messageId":"m","parts":{}}}}}"#,
        parts(PARTS, true)
    )
}

fn v1_0_send() -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{}}}"#,
        v1_0_message()
    )
}

/// A `tasks/get` of about 4 MiB: an id and the 150,000-part message beside it.
fn get_with_message() -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{{"id":"no-such-task","message":{{"kind":"message","role":"user","messageId":"m","parts":{}}}}}}}"#,
        parts(PARTS, false)
    )
}

/// A `tasks/get` of about 4 MiB: an id and 2 million numbers beside it.
fn padded_get() -> String {
    let padding = vec!["0"; 2_000_000].join(",");
    format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{{"id":"no-such-task","pad":[{padding}]}}}}"#
    )
}

struct Attacked {
    child: tokio::process::Child,
    base: String,
    client: reqwest::Client,
}

async fn server() -> Attacked {
    let command = serve_command(&["--body-limit", "8388608", "--max-message-bytes", "8388608"]);
    let (child, base) = spawn_binary(command, WITHIN).await;
    let attacked = Attacked {
        child,
        base,
        client: reqwest::Client::new(),
    };
    // Warm up: one ordinary request, so lazy start-up allocations are not counted.
    let (status, _) = attacked
        .post(
            "",
            json!({"jsonrpc":"2.0","id":0,"method":"tasks/get","params":{"id":"x"}}).to_string(),
        )
        .await;
    assert_eq!(status, 200);
    attacked
}

impl Attacked {
    fn pid(&self) -> u32 {
        self.child.id().unwrap()
    }

    async fn post(&self, path: &str, body: String) -> (u16, Value) {
        let response = tokio::time::timeout(
            WITHIN,
            self.client
                .post(format!("{}{path}", self.base))
                .header("content-type", "application/json")
                .body(body)
                .send(),
        )
        .await
        .expect("no answer in time")
        .unwrap();
        let status = response.status().as_u16();
        let text = response.text().await.unwrap();
        (status, serde_json::from_str(&text).unwrap_or(Value::Null))
    }

    /// Sends `bodies` at once to `path`; each answer must be a refusal. Returns the growth of
    /// the peak RSS in KiB.
    async fn peak_growth(&self, path: &str, bodies: Vec<String>) -> u64 {
        let before = status_kib(self.pid(), "VmHWM:");
        let answers =
            futures::future::join_all(bodies.into_iter().map(|body| self.post(path, body))).await;
        let after = status_kib(self.pid(), "VmHWM:");
        let growth = after.saturating_sub(before);
        eprintln!("{path:?}: peak RSS {before} KiB -> {after} KiB: +{growth} KiB");
        for (status, body) in answers {
            let refused = match path {
                "" => status == 200 && body["error"]["code"] == -32602,
                _ => status == 400,
            };
            assert!(
                refused || status == 413,
                "not refused: {status} {}",
                body.to_string().chars().take(300).collect::<String>()
            );
        }
        growth
    }
}

fn assert_bounded(growth: u64) {
    assert!(
        growth < GROWTH_BOUND_KIB,
        "the peak RSS grew by {growth} KiB (bound {GROWTH_BOUND_KIB} KiB)"
    );
}

#[tokio::test]
async fn a_0_3_send_of_150000_parts_is_refused_within_a_memory_bound() {
    let server = server().await;
    assert_bounded(server.peak_growth("", vec![v0_3_send()]).await);
}

#[tokio::test]
async fn a_1_0_send_of_150000_parts_is_refused_within_a_memory_bound_on_both_bindings() {
    let server = server().await;
    assert_bounded(server.peak_growth("", vec![v1_0_send()]).await);
    assert_bounded(
        server
            .peak_growth("message:send", vec![v1_0_message()])
            .await,
    );
}

#[tokio::test]
async fn a_4_mib_tasks_get_is_refused_within_a_memory_bound() {
    let server = server().await;
    assert_bounded(server.peak_growth("", vec![get_with_message()]).await);
    assert_bounded(server.peak_growth("", vec![padded_get()]).await);
}

#[tokio::test]
async fn eight_hostile_sends_at_once_stay_within_the_bound() {
    let server = server().await;
    let body = v0_3_send();
    assert_bounded(server.peak_growth("", vec![body; 8]).await);
}
