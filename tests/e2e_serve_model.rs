//! `a2ui-agent serve --model-url <mock> --model m` end to end: the real binary in front of a
//! scripted OpenAI-compatible model, driven by the real Python A2A client (`a2a-sdk`), for v0.9
//! and v0.8. The model is given the negotiated version's A2UI prompt, and the client receives
//! the model's surfaces as streamed DataParts that validate against the basic catalog.
//! Skipped (with a message) when `.venv` is absent, unless `A2UI_REQUIRE_INTEROP=1`.
#![cfg(feature = "cli")]

#[allow(dead_code)]
#[path = "interop/support.rs"]
mod interop;
mod llm_support;
mod support;

use std::time::Duration;

use a2ui_agent::a2ui::{ProtocolVersion, Validator};
use a2ui_agent::parser::{ParsedPart, parse};
use interop::{crate_root, installed, run_script};
use llm_support::{Answer, MockModel, fixture_content};
use serde_json::Value;
use support::{serve_command, spawn_binary};

/// Runs `a2ui-agent serve --port 0 --model-url URL --model m` with `extra` arguments; the
/// child and the URL it serves on.
pub async fn serve_model(model_url: &str, extra: &[&str]) -> (tokio::process::Child, String) {
    let mut command = serve_command(&["--model-url", model_url, "--model", "m"]);
    command.args(extra).env("A2UI_TEST_KEY", "sk-e2e-secret");
    spawn_binary(command, Duration::from_secs(30)).await
}

/// The A2UI messages the fixture's model answer holds.
fn fixture_messages(name: &str) -> Vec<Value> {
    parse(&fixture_content(name))
        .unwrap()
        .into_iter()
        .flat_map(|part| match part {
            ParsedPart::A2ui(messages) => messages,
            ParsedPart::Text(_) => Vec::new(),
        })
        .collect()
}

async fn one_turn(version: ProtocolVersion, fixture: &str) {
    let Some(python) = installed(
        crate_root().join(".venv/bin/python"),
        "the Python a2a-sdk client",
    ) else {
        return;
    };
    let mock = MockModel::start(vec![Answer::fixture(fixture)]).await;
    let (_child, url) = serve_model(&mock.base_url, &["--api-key-env", "A2UI_TEST_KEY"]).await;
    let run = run_script(
        &python,
        &["a2ui_e2e.py", &url, "turn", version.as_str()],
        &crate_root().join("tests/interop"),
    )
    .await;
    let seen = run.passed("turn");
    assert_eq!(seen["state"], "TASK_STATE_INPUT_REQUIRED", "{seen}");
    assert_eq!(seen["echoed"], version.extension_uri(), "{seen}");
    let mut messages = Vec::new();
    for update in seen["updates"].as_array().unwrap() {
        for part in update.as_array().unwrap() {
            assert_eq!(part["mimeType"], version.mime_type(), "{part}");
            messages.push(part["data"].clone());
        }
    }
    Validator::basic(version)
        .check_response(&messages)
        .unwrap_or_else(|errors| panic!("{version}: {errors:?}"));
    assert!(!messages.is_empty());
    // Every component the model wrote reached the client.
    let sent: String = fixture_messages(fixture)
        .iter()
        .map(Value::to_string)
        .collect();
    for message in &messages {
        for component in message
            .pointer("/updateComponents/components")
            .or(message.pointer("/surfaceUpdate/components"))
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            assert!(sent.contains(&component.to_string()), "{component}");
        }
    }
    // The model was asked with the negotiated version's prompt, the key and the user's words.
    let requests = mock.requests();
    assert_eq!(requests.len(), 1);
    let chat = requests[0]["messages"].as_array().unwrap();
    assert_eq!(chat[0]["role"], "system");
    let prompt = chat[0]["content"].as_str().unwrap();
    assert!(prompt.contains("<a2ui-json>"), "{prompt}");
    assert!(
        prompt.contains(version.basic_catalog_id()),
        "the prompt names another catalog"
    );
    assert_eq!(chat.last().unwrap()["content"], "Show my order");
    assert_eq!(mock.headers()[0]["authorization"], "Bearer sk-e2e-secret");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_python_client_gets_a_models_v0_9_surfaces_through_serve() {
    one_turn(ProtocolVersion::V0_9, "ui_v0_9.sse").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_python_client_gets_a_models_v0_8_surfaces_through_serve() {
    one_turn(ProtocolVersion::V0_8, "ui_v0_8.sse").await;
}

/// The repair options reach the server: with `--max-repairs 1` a model that keeps writing an
/// unknown component is asked twice, and the task fails saying what was wrong; the client
/// never receives the invalid message.
#[tokio::test]
async fn the_repair_options_of_serve_bound_the_model_calls() {
    let mock = MockModel::start(vec![Answer::fixture("invalid_v0_9.sse")]).await;
    let (_child, url) = serve_model(
        &mock.base_url,
        &["--on-invalid", "repair", "--max-repairs", "1"],
    )
    .await;
    let server = support::TestServer::external(url);
    let version = ProtocolVersion::V0_9;
    let answer = server
        .exchange(
            "message/stream",
            support::params(
                serde_json::json!([{"kind": "text", "text": "Show my order"}]),
                Some(support::capabilities(
                    version,
                    &[version.basic_catalog_id()],
                )),
                None,
            ),
            &[version.extension_uri()],
        )
        .await;
    assert_eq!(answer.last()["status"]["state"], "failed");
    let reason = answer.last()["status"]["message"]["parts"][0]["text"]
        .as_str()
        .unwrap();
    assert!(
        reason.contains("after 1 repair turn:") && reason.contains("Marquee"),
        "{reason}"
    );
    let sent = support::a2ui_messages(&answer.reply_parts(), version);
    assert!(!sent.iter().any(|m| m.to_string().contains("Marquee")));
    assert_eq!(mock.requests().len(), 2);
}
