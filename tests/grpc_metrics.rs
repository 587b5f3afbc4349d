//! gRPC calls are counted in the request metrics like the other bindings' requests: a real
//! gRPC client (grpcio, the Python a2a-sdk's `grpc` extra, running
//! `tests/interop/python/grpc_calls.py`) calls `A2uiServer::serve` on a real socket, and
//! `/metrics`, scraped over HTTP from its own listener, counts each call under binding
//! `a2a-grpc`, its gRPC method and its outcome. Skipped (with a message) when `.venv` is
//! absent, unless `A2UI_REQUIRE_INTEROP=1`.
#![cfg(all(feature = "grpc", feature = "metrics"))]

#[allow(dead_code)] // the other interop tests' server and helpers
#[path = "interop/support.rs"]
mod support;

use a2ui_agent::a2a::card::AgentCard;
use a2ui_agent::observe::Metrics;
use a2ui_agent::server::A2uiServer;
use support::{crate_root, installed, run_script, test_agent};
use tokio::net::TcpListener;

/// The value of the sample `series` in the scraped `text`, if exported.
fn sample(text: &str, series: &str) -> Option<f64> {
    text.lines()
        .find_map(|line| line.strip_prefix(series)?.strip_prefix(' '))
        .and_then(|value| value.parse().ok())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn grpc_calls_are_counted_by_method_and_outcome() {
    let Some(python) = installed(
        crate_root().join(".venv/bin/python"),
        "the Python a2a-sdk client",
    ) else {
        return;
    };
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap().to_string();
    let card = AgentCard::builder("grpc metrics")
        .url(format!("http://{address}/"))
        .build();
    let metrics = Metrics::new();
    let server = A2uiServer::builder(card, test_agent)
        .metrics(&metrics)
        .build()
        .unwrap();
    let scrape = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let metrics_url = format!("http://{}/metrics", scrape.local_addr().unwrap());
    let router = server.metrics_router().expect("metrics were given");
    tokio::spawn(async move { axum::serve(scrape, router).await });
    tokio::spawn(async move { server.serve(listener).await });

    let dir = crate_root().join("tests/interop/python");
    let run = run_script(&python, &["grpc_calls.py", &address], &dir).await;
    let seen = run.passed("grpc calls");
    assert_eq!(seen["get"], "OK", "{seen}");
    assert_eq!(seen["missing"], "NOT_FOUND", "{seen}");
    assert_eq!(seen["version"], "UNIMPLEMENTED", "{seen}");

    let text = reqwest::get(&metrics_url)
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let count = |method: &str, outcome: &str| {
        let series = format!(
            r#"a2ui_requests_total{{binding="a2a-grpc",method="{method}",outcome="{outcome}"}}"#
        );
        sample(&text, &series)
    };
    assert_eq!(count("SendMessage", "ok"), Some(1.0), "{text}");
    assert_eq!(count("GetTask", "ok"), Some(1.0), "{text}");
    assert_eq!(count("GetTask", "not_found"), Some(1.0), "{text}");
    assert_eq!(count("GetTask", "client_error"), Some(1.0), "{text}");
    // Counted once, under gRPC only.
    let others = text
        .lines()
        .filter(|line| line.starts_with("a2ui_requests_total{") && !line.contains("a2a-grpc"))
        .count();
    assert_eq!(others, 0, "{text}");
}
