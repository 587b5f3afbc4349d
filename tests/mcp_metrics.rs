//! MCP requests are counted in the request metrics under binding `mcp`: listing the tools
//! and resources, reading a resource (one that exists and one that does not) and calling
//! the agent's tool, each by its MCP method and outcome, over Streamable HTTP on a real
//! socket.
#![cfg(all(feature = "mcp", feature = "metrics"))]

mod mcp_client;
mod support;

use a2ui_agent::agent::Reply;
use a2ui_agent::observe::Metrics;
use a2ui_agent::request::Request;
use mcp_client::Mcp;
use serde_json::json;
use support::{builder, spawn};

/// The value of the sample `series` in `text`, if exported.
fn sample(text: &str, series: &str) -> Option<f64> {
    text.lines()
        .find_map(|line| line.strip_prefix(series)?.strip_prefix(' '))
        .and_then(|value| value.parse().ok())
}

#[tokio::test]
async fn listing_reading_and_calling_are_counted_by_method_and_outcome() {
    let echo = |request: Request| async move { Reply::text(format!("echo: {}", request.text())) };
    let metrics = Metrics::new();
    let server = spawn(builder(echo).mcp("/mcp").metrics(&metrics).build().unwrap()).await;
    let mut client = Mcp::new(format!("{}mcp", server.url), None);
    client.initialize().await;

    let tool = client.tool_name().await;
    let listed = client.request(3, "resources/list", json!({})).await;
    let uri = listed.body["result"]["resources"][0]["uri"]
        .as_str()
        .unwrap_or_else(|| panic!("{listed:?}"))
        .to_owned();
    let read = client
        .request(4, "resources/read", json!({"uri": uri}))
        .await;
    assert!(read.body["result"]["contents"].is_array(), "{read:?}");
    let missing = client
        .request(5, "resources/read", json!({"uri": "ui://nowhere/x.html"}))
        .await;
    assert!(missing.body["error"].is_object(), "{missing:?}");
    let answer = client.ask(&tool, "hi").await;
    assert_ne!(answer["isError"], true, "{answer}");

    let text = metrics.encode();
    let count = |method: &str, outcome: &str| {
        let series = format!(
            r#"a2ui_requests_total{{binding="mcp",method="{method}",outcome="{outcome}"}}"#
        );
        sample(&text, &series)
    };
    assert_eq!(count("tools/list", "ok"), Some(1.0), "{text}");
    assert_eq!(count("resources/list", "ok"), Some(1.0), "{text}");
    assert_eq!(count("resources/read", "ok"), Some(1.0), "{text}");
    assert_eq!(count("resources/read", "not_found"), Some(1.0), "{text}");
    assert_eq!(count("tools/call", "ok"), Some(1.0), "{text}");
}
