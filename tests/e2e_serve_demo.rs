//! `a2ui-agent serve`, the README's main command, end to end: the real binary on a free
//! port, a client that negotiates v0.9 or v0.8 and gets the demo's surfaces streamed, valid
//! against the catalog, and a client without A2UI that gets text.
#![cfg(feature = "cli")]

mod support;

use std::time::Duration;

use a2ui_agent::a2ui::{ProtocolVersion, Validator};
use serde_json::json;
use support::{TestServer, a2ui_messages, params, serve_command, spawn_binary, text_of};

/// Runs `a2ui-agent serve --port 0` without pauses; the child and the URL it serves on.
async fn serve() -> (tokio::process::Child, TestServer) {
    let command = serve_command(&["--min-delay-ms", "0", "--max-delay-ms", "0"]);
    let (child, url) = spawn_binary(command, Duration::from_secs(30)).await;
    (child, TestServer::external(url))
}

#[tokio::test]
async fn the_serve_command_streams_valid_demo_surfaces_in_the_negotiated_version() {
    let (_child, server) = serve().await;
    let card = server.card().await;
    assert_eq!(
        card["capabilities"]["extensions"].as_array().unwrap().len(),
        2
    );
    for version in [ProtocolVersion::V0_9, ProtocolVersion::V0_8] {
        let answer = server.ask("message/stream", version, "Dinner?").await;
        assert_eq!(
            answer.extensions_header.as_deref(),
            Some(version.extension_uri())
        );
        let last = answer.last();
        assert_eq!(last["status"]["state"], "input-required");
        let messages = a2ui_messages(&answer.reply_parts(), version);
        Validator::basic(version).check_response(&messages).unwrap();
        assert!(answer.working_messages().len() > 5);
    }
}

#[tokio::test]
async fn the_serve_command_answers_a_client_without_a2ui_in_text() {
    let (_child, server) = serve().await;
    let answer = server
        .exchange(
            "message/send",
            params(json!([{"kind": "text", "text": "Dinner?"}]), None, None),
            &[],
        )
        .await;
    let parts = &answer.reply_parts();
    assert!(
        parts
            .as_array()
            .unwrap()
            .iter()
            .all(|p| p["kind"] == "text")
    );
    assert!(text_of(parts).contains("Sakura House"));
}

#[tokio::test]
async fn a_coalescing_window_sends_the_same_reply_in_fewer_updates() {
    // Chunks 2 ms apart: a 50 ms window gathers many of them into one update.
    let mut servers = Vec::new();
    for window in ["0", "50"] {
        let command = serve_command(&[
            "--min-delay-ms",
            "2",
            "--max-delay-ms",
            "2",
            "--coalesce-ms",
            window,
        ]);
        let (child, url) = spawn_binary(command, Duration::from_secs(30)).await;
        servers.push((child, TestServer::external(url)));
    }
    let version = ProtocolVersion::V0_9;
    let alone = servers[0].1.ask("message/stream", version, "Dinner?").await;
    let joined = servers[1].1.ask("message/stream", version, "Dinner?").await;
    assert_eq!(joined.last()["status"]["state"], "input-required");
    let messages = a2ui_messages(&joined.reply_parts(), version);
    assert_eq!(messages, a2ui_messages(&alone.reply_parts(), version));
    Validator::basic(version).check_response(&messages).unwrap();
    assert!(
        joined.working_messages().len() < alone.working_messages().len(),
        "{} updates with the window, {} without",
        joined.working_messages().len(),
        alone.working_messages().len()
    );
}
