//! The model connector's metrics, against a scripted model server over real HTTP: time to
//! first token and duration per model request, the tokens the server reports, tool calls
//! by tool and outcome (a name the model made up counted as `unknown`, never as a label).
#![cfg(all(feature = "llm", feature = "metrics"))]

mod llm_support;

use std::time::Duration;

use a2ui_agent::llm::{ChatMessage, OpenAiChat, Tool, ToolError};
use a2ui_agent::observe::Metrics;
use futures::StreamExt;
use llm_support::{Answer, MockModel, call, sse, text};
use serde_json::json;

/// An answer of `deltas`, then a usage chunk of `input` and `output` tokens.
fn answer_with_usage(
    deltas: &[serde_json::Value],
    finish: &str,
    input: u64,
    output: u64,
) -> Answer {
    let usage = json!({"id": "chatcmpl-mock", "object": "chat.completion.chunk", "choices": [],
        "usage": {"prompt_tokens": input, "completion_tokens": output, "total_tokens": input + output}});
    let body = sse(deltas, finish).replace(
        "data: [DONE]\n\n",
        &format!("data: {usage}\n\ndata: [DONE]\n\n"),
    );
    Answer::Sse {
        body,
        pause: Duration::ZERO,
    }
}

/// The value of the sample `name{labels}` in `text`, if exported.
fn sample(text: &str, series: &str) -> Option<f64> {
    text.lines()
        .find_map(|line| line.strip_prefix(series)?.strip_prefix(' '))
        .and_then(|value| value.parse().ok())
}

#[tokio::test]
async fn model_requests_tokens_and_tool_calls_are_counted() {
    let calls = answer_with_usage(
        &[
            call(0, Some("c1"), Some("search"), "{}"),
            call(1, Some("c2"), Some("book"), "{}"),
            call(2, Some("c3"), Some("made-up"), "{}"),
        ],
        "tool_calls",
        100,
        7,
    );
    let done = answer_with_usage(&[text("Found "), text("two.")], "stop", 150, 3);
    let mock = MockModel::start(vec![calls, done]).await;
    let search = Tool::new("search", "d", json!({}), |_| async {
        Ok(json!(["Sakura"]))
    });
    let book = Tool::new("book", "d", json!({}), |_| async {
        Err(ToolError::new("no table is free"))
    });
    let metrics = Metrics::new();
    let chat = OpenAiChat::builder(&mock.base_url, "mock-model")
        .retries(0, Duration::ZERO, Duration::ZERO)
        .tool(search)
        .tool(book)
        .metrics(&metrics)
        .build()
        .unwrap();
    let mut reply = Box::pin(chat.reply(vec![ChatMessage::user("Thai food?")]));
    while let Some(item) = reply.next().await {
        item.unwrap();
    }
    drop(reply);

    let text = metrics.encode();
    let model = r#"{model="mock-model"}"#;
    let first_token = format!("a2ui_model_time_to_first_token_seconds_count{model}");
    assert_eq!(sample(&text, &first_token), Some(2.0), "{text}");
    let finished = r#"a2ui_model_duration_seconds_count{model="mock-model",outcome="ok"}"#;
    assert_eq!(sample(&text, finished), Some(2.0), "{text}");
    let tokens = |direction: &str| {
        let series = format!(
            r#"a2ui_model_tokens_total{{model="mock-model",tenant="",direction="{direction}"}}"#
        );
        sample(&text, &series)
    };
    assert_eq!(tokens("input"), Some(250.0), "{text}");
    assert_eq!(tokens("output"), Some(10.0), "{text}");
    let tool = |name: &str, outcome: &str| {
        let series = format!(r#"a2ui_tool_calls_total{{tool="{name}",outcome="{outcome}"}}"#);
        sample(&text, &series)
    };
    assert_eq!(tool("search", "ok"), Some(1.0), "{text}");
    assert_eq!(tool("book", "error"), Some(1.0), "{text}");
    assert_eq!(tool("unknown", "error"), Some(1.0), "{text}");
    assert!(!text.contains("made-up"), "{text}");
}
