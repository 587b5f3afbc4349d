//! gRPC calls are counted in the request metrics like the other bindings' requests: a real
//! gRPC client (grpcio, the Python a2a-sdk's `grpc` extra, running
//! `tests/interop/python/grpc_calls.py`) calls `A2uiServer::serve` on a real socket, and
//! `/metrics`, scraped over HTTP from its own listener, counts each call under binding
//! `a2a-grpc`, its gRPC method and its outcome, and a streaming call held open is in the
//! open-streams gauge until the client cancels it. Skipped (with a message) when `.venv` is
//! absent, unless `A2UI_REQUIRE_INTEROP=1`.
#![cfg(all(feature = "grpc", feature = "metrics"))]

#[allow(dead_code)] // the other interop tests' server and helpers
#[path = "interop/support.rs"]
mod support;

use a2ui_agent::a2a::card::AgentCard;
use a2ui_agent::observe::Metrics;
use a2ui_agent::server::A2uiServer;
use std::process::Stdio;
use std::time::Duration;
use support::{crate_root, installed, run_script, test_agent};

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpListener;

/// The value of the sample `series` in the scraped `text`, if exported.
fn sample(text: &str, series: &str) -> Option<f64> {
    text.lines()
        .find_map(|line| line.strip_prefix(series)?.strip_prefix(' '))
        .and_then(|value| value.parse().ok())
}

/// Serves the test agent over gRPC with metrics on; returns its `host:port` and the URL
/// of its `/metrics`.
async fn metered_server() -> (String, String) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap().to_string();
    let card = AgentCard::builder("grpc metrics")
        .url(format!("http://{address}/"))
        .build();
    let metrics = Metrics::new();
    let server = A2uiServer::builder(card, test_agent)
        .metrics(&metrics)
        .body_limit(64 * 1024)
        .build()
        .unwrap();
    let scrape = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let metrics_url = format!("http://{}/metrics", scrape.local_addr().unwrap());
    let router = server.metrics_router().expect("metrics were given");
    tokio::spawn(async move { axum::serve(scrape, router).await });
    tokio::spawn(async move { server.serve(listener).await });
    (address, metrics_url)
}

async fn scrape(url: &str) -> String {
    reqwest::get(url).await.unwrap().text().await.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn grpc_calls_are_counted_by_method_and_outcome() {
    let Some(python) = installed(
        crate_root().join(".venv/bin/python"),
        "the Python a2a-sdk client",
    ) else {
        return;
    };
    let (address, metrics_url) = metered_server().await;

    let dir = crate_root().join("tests/interop/python");
    let run = run_script(&python, &["grpc_calls.py", &address], &dir).await;
    let seen = run.passed("grpc calls");
    assert_eq!(seen["get"], "OK", "{seen}");
    assert_eq!(seen["missing"], "NOT_FOUND", "{seen}");
    assert_eq!(seen["version"], "UNIMPLEMENTED", "{seen}");
    assert_eq!(seen["oversized"], "OUT_OF_RANGE", "{seen}");
    assert_eq!(seen["bogus"], "UNIMPLEMENTED", "{seen}");

    let text = scrape(&metrics_url).await;
    let count = |method: &str, outcome: &str| {
        let series = format!(
            r#"a2ui_requests_total{{binding="a2a-grpc",method="{method}",outcome="{outcome}"}}"#
        );
        sample(&text, &series)
    };
    assert_eq!(count("SendMessage", "ok"), Some(1.0), "{text}");
    assert_eq!(count("GetTask", "ok"), Some(1.0), "{text}");
    assert_eq!(count("GetTask", "not_found"), Some(1.0), "{text}");
    // The version refusal is ours; the size refusal is tonic's, before any method runs.
    assert_eq!(count("GetTask", "client_error"), Some(2.0), "{text}");
    assert_eq!(count("other", "client_error"), Some(1.0), "{text}");
    // Counted once, under gRPC only.
    let others = text
        .lines()
        .filter(|line| line.starts_with("a2ui_requests_total{") && !line.contains("a2a-grpc"))
        .count();
    assert_eq!(others, 0, "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_grpc_stream_is_counted_open_until_its_client_cancels_it() {
    let Some(python) = installed(
        crate_root().join(".venv/bin/python"),
        "the Python a2a-sdk client",
    ) else {
        return;
    };
    let (address, metrics_url) = metered_server().await;
    let open_series = r#"a2ui_streams_open{binding="a2a-grpc"}"#;

    let mut child = tokio::process::Command::new(&python)
        .args(["grpc_stream_open.py", &address])
        .current_dir(crate_root().join("tests/interop/python"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let opened = tokio::time::timeout(Duration::from_secs(30), lines.next_line())
        .await
        .expect("the script printed nothing in 30 s")
        .unwrap()
        .unwrap_or_default();
    assert!(
        opened.starts_with("OPEN "),
        "the stream did not open: {opened:?}"
    );

    let text = scrape(&metrics_url).await;
    assert_eq!(sample(&text, open_series), Some(1.0), "{text}");

    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"close\n")
        .await
        .unwrap();
    let closed = tokio::time::timeout(Duration::from_secs(30), lines.next_line())
        .await
        .expect("the script did not close the stream in 30 s")
        .unwrap()
        .unwrap_or_default();
    assert_eq!(closed, "CLOSED");
    // The server notices the cancelled call when its stream is next polled or dropped.
    let mut now = f64::NAN;
    for _ in 0..100 {
        now = sample(&scrape(&metrics_url).await, open_series).unwrap_or(f64::NAN);
        if now == 0.0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(now, 0.0, "the cancelled stream is still counted open");
}
