//! `serve --metrics` scraped by the real Prometheus: Debian's `/usr/bin/prometheus`, started
//! here with a generated config and a temporary data folder on a free port, scrapes the
//! binary's `/metrics` while the demo answers a few requests; queries through Prometheus's
//! HTTP API (`/api/v1/query`) then return the counts those requests made.
//!
//! Without Prometheus the test prints that it skipped, or fails when
//! `A2UI_REQUIRE_INTEROP=1` (the test command sets it; `scripts/install-test-deps.sh`
//! installs Debian's package when run as root).
#![cfg(feature = "cli")]

mod support;

use std::net::TcpListener;
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use a2ui_agent::a2ui::ProtocolVersion;
use serde_json::{Value, json};
use support::{TestServer, serve_command, spawn_binary};

const PROMETHEUS: &str = "/usr/bin/prometheus";

/// Prometheus's path, or `None` after saying why the test skips (a panic when required).
fn prometheus() -> Option<&'static Path> {
    let path = Path::new(PROMETHEUS);
    if path.exists() {
        return Some(path);
    }
    let why = format!(
        "Prometheus is not installed ({PROMETHEUS} is missing); run scripts/install-test-deps.sh as root"
    );
    if std::env::var("A2UI_REQUIRE_INTEROP").as_deref() == Ok("1") {
        panic!("A2UI_REQUIRE_INTEROP=1 but {why}");
    }
    eprintln!("skipped: {why}");
    None
}

/// A port free a moment ago on loopback.
fn free_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}

/// Starts Prometheus scraping `target` every second; the child (killed when dropped), its
/// URL and the folder holding its config and data (removed when dropped).
fn start_prometheus(binary: &Path, target: &str) -> (tokio::process::Child, String, TempDir) {
    let dir = TempDir::new("a2ui-prometheus");
    let config = dir.0.join("prometheus.yml");
    std::fs::write(
        &config,
        format!(
            "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n\
             scrape_configs:\n  - job_name: a2ui-agent\n    static_configs:\n      - targets: ['{target}']\n"
        ),
    )
    .unwrap();
    let port = free_port();
    let child = tokio::process::Command::new(binary)
        .arg(format!("--config.file={}", config.display()))
        .arg(format!(
            "--storage.tsdb.path={}",
            dir.0.join("data").display()
        ))
        .arg(format!("--web.listen-address=127.0.0.1:{port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("prometheus starts");
    (child, format!("http://127.0.0.1:{port}"), dir)
}

/// A folder of its own under the system's temporary folder, removed when dropped.
struct TempDir(std::path::PathBuf);

impl TempDir {
    fn new(prefix: &str) -> Self {
        let path = std::env::temp_dir().join(format!("{prefix}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).unwrap();
        TempDir(path)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The one value `query` gives through Prometheus's HTTP API, `None` while it gives none.
async fn query(client: &reqwest::Client, prometheus: &str, query: &str) -> Option<f64> {
    let response = client
        .get(format!("{prometheus}/api/v1/query"))
        .query(&[("query", query)])
        .send()
        .await
        .ok()?;
    let body: Value = response.json().await.ok()?;
    let value = body["data"]["result"].as_array()?.first()?["value"][1]
        .as_str()?
        .parse()
        .ok()?;
    Some(value)
}

/// Waits (up to a minute: a start and a few scrapes) until `query` gives `expected`; panics
/// with the last value seen otherwise.
async fn until_equal(client: &reqwest::Client, prometheus: &str, text: &str, expected: f64) {
    let mut last = None;
    for _ in 0..120 {
        last = query(client, prometheus, text).await;
        if last == Some(expected) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    panic!("{text}: expected {expected} from Prometheus, last saw {last:?}");
}

#[tokio::test]
async fn prometheus_scrapes_the_counts_of_the_requests_the_demo_answered() {
    let Some(binary) = prometheus() else { return };
    let metrics_port = free_port();
    let metrics_addr = format!("127.0.0.1:{metrics_port}");
    let command = serve_command(&[
        "--min-delay-ms",
        "0",
        "--max-delay-ms",
        "0",
        "--metrics",
        "--metrics-addr",
        &metrics_addr,
    ]);
    let (_agent, url) = spawn_binary(command, Duration::from_secs(30)).await;
    let server = TestServer::external(url.clone());
    let client = reqwest::Client::new();

    // The demo answers: three sends and one stream with A2UI, one lookup of a task that
    // does not exist.
    let version = ProtocolVersion::V0_9;
    let mut read = 0;
    for _ in 0..3 {
        let answer = server.ask("message/send", version, "Dinner?").await;
        assert_eq!(answer.last()["status"]["state"], "input-required");
        read += support::a2ui_messages(&answer.reply_parts(), version).len();
    }
    let streamed = server.ask("message/stream", version, "Dinner?").await;
    assert!(streamed.working_messages().len() > 5);
    read += support::a2ui_messages(&streamed.reply_parts(), version).len();
    let missing = client
        .post(&url)
        .json(&json!({"jsonrpc": "2.0", "id": 9, "method": "tasks/get", "params": {"id": "nope"}}))
        .send()
        .await
        .unwrap();
    assert_eq!(missing.status(), 200);

    // The API listener does not serve the metrics; their own listener does, as OpenMetrics.
    let on_api = client.get(format!("{url}metrics")).send().await.unwrap();
    assert_ne!(on_api.status(), 200, "the API port must not serve /metrics");
    let scraped = client
        .get(format!("http://{metrics_addr}/metrics"))
        .send()
        .await
        .unwrap();
    assert!(
        scraped.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("application/openmetrics-text"),
    );
    let text = scraped.text().await.unwrap();
    assert!(text.ends_with("# EOF\n"), "{text}");

    let (_prometheus, prometheus_url, _dir) = start_prometheus(binary, &metrics_addr);
    let sends =
        r#"sum(a2ui_requests_total{binding="a2a-jsonrpc",method="message/send",outcome="ok"})"#;
    until_equal(&client, &prometheus_url, sends, 3.0).await;
    let streams =
        r#"sum(a2ui_requests_total{binding="a2a-jsonrpc",method="message/stream",outcome="ok"})"#;
    until_equal(&client, &prometheus_url, streams, 1.0).await;
    let not_found = r#"sum(a2ui_requests_total{method="tasks/get",outcome="not_found"})"#;
    until_equal(&client, &prometheus_url, not_found, 1.0).await;
    until_equal(&client, &prometheus_url, "a2ui_tasks_running", 0.0).await;
    until_equal(&client, &prometheus_url, "sum(a2ui_streams_open)", 0.0).await;

    // Every A2UI message the client read was counted as sent, and every SSE event written.
    let sent = query(&client, &prometheus_url, "a2ui_messages_sent_total").await;
    assert_eq!(sent, Some(read as f64), "the A2UI messages the client read");
    let events = query(
        &client,
        &prometheus_url,
        r#"sum(a2ui_sse_events_total{binding="a2a-jsonrpc"})"#,
    )
    .await;
    assert_eq!(events, Some(streamed.events.len() as f64));
    // The store was timed: every task was put at least once.
    let puts = query(
        &client,
        &prometheus_url,
        r#"sum(a2ui_store_operation_seconds_count{operation="put"})"#,
    )
    .await
    .unwrap_or(0.0);
    assert!(puts >= 4.0, "{puts} store puts");
}
