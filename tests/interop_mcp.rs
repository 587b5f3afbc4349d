//! `a2ui-agent serve --mcp` with the official MCP clients: Python's `mcp` 2.3.0
//! (`tests/interop/mcp/client.py`, A2UI v1.0 declared in `initialize`) and TypeScript's
//! `@modelcontextprotocol/sdk` 1.32.2 (`tests/interop/mcp-js/client.mjs`, A2UI v0.9 declared
//! per call in `_meta`) each list the agent's tool, call it against the demo agent with a
//! progress token, press Book (the `select` action as `tools/call`) and Confirm (`book`),
//! and get the surfaces and the booking; every A2UI message of every result validates
//! against the basic catalog of the version the client declared, by our validator and by the
//! official one (`a2ui-agent-sdk`'s `validate_payload`, `tests/interop/mcp/official_validate.py`,
//! over each conversation's results as one stream). Behind bearer tokens, the same. Skipped (with a message) when the clients are not installed, unless
//! `A2UI_REQUIRE_INTEROP=1`.
#![cfg(all(feature = "cli", feature = "mcp"))]

mod support;

#[allow(dead_code)] // the echo agent and its helpers serve the other interop tests
#[path = "interop/support.rs"]
mod interop;

use std::time::Duration;

use a2ui_agent::a2ui::{ProtocolVersion, Validator};
use interop::{crate_root, installed, node_on_path, run_script};
use serde_json::Value;
use support::{serve_command, spawn_binary};

/// `serve --mcp` (and `extra`) with the demo streaming without pauses; the child and the
/// MCP URL.
async fn serve(extra: &[&str]) -> (tokio::process::Child, String) {
    let mut args = vec!["--mcp", "--min-delay-ms", "0", "--max-delay-ms", "0"];
    args.extend_from_slice(extra);
    let (child, url) = spawn_binary(serve_command(&args), Duration::from_secs(30)).await;
    (child, format!("{url}mcp"))
}

/// The official A2UI validator (`a2ui-agent-sdk` in `.venv`) accepts the A2UI messages of
/// `results`, read in order as one stream, in `version`; skipped (with a message) when the
/// SDK is not installed, unless `A2UI_REQUIRE_INTEROP=1`.
async fn officially_valid(results: &Value, version: ProtocolVersion) {
    let Some(python) = installed(
        crate_root().join(".venv/bin/python"),
        "a2ui-agent-sdk (.venv)",
    ) else {
        return;
    };
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let path =
        std::env::temp_dir().join(format!("a2ui-mcp-results-{}-{n}.json", std::process::id()));
    std::fs::write(&path, results.to_string()).unwrap();
    let script = "tests/interop/mcp/official_validate.py";
    let args = [script, version.as_str(), path.to_str().unwrap()];
    let verdict = run_script(&python, &args, crate_root())
        .await
        .passed("the official validator");
    let _ = std::fs::remove_file(&path);
    let count: usize = results
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_array().unwrap().len())
        .sum();
    assert_eq!(verdict["validated"], count, "{verdict}");
}

/// What a client saw holds the demo's three steps, each result's A2UI valid in `version`,
/// by our validator and by the official one.
async fn check_conversation(seen: &Value, version: ProtocolVersion) {
    officially_valid(&seen["results"], version).await;
    let results = seen["results"].as_array().unwrap();
    assert_eq!(results.len(), 3, "{seen}");
    for messages in results {
        let messages = messages.as_array().unwrap();
        assert!(!messages.is_empty(), "{seen}");
        for message in messages {
            assert_eq!(message["version"], version.as_str(), "{message}");
        }
        Validator::basic(version)
            .check_response(messages)
            .unwrap_or_else(|errors| panic!("{version}: {errors:?}\n{messages:#?}"));
    }
    let texts: Vec<&str> = seen["texts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|text| text.as_str().unwrap())
        .collect();
    assert!(texts[0].contains("restaurants"), "{texts:?}");
    let restaurant = seen["restaurant"].as_str().unwrap();
    assert!(texts[1].contains(restaurant), "{texts:?}");
    assert!(
        texts[2].contains(&format!("Your table at {restaurant} is booked")),
        "{texts:?}"
    );
    // The confirmation shows what the form sent back through the action's context.
    let confirmation = results[2].to_string();
    assert!(
        confirmation.contains(&format!("at {restaurant}, 2 people, 19:30")),
        "{confirmation}"
    );
    assert_eq!(seen["tools"].as_array().unwrap().len(), 1, "{seen}");
}

async fn python(url: &str, token: Option<&str>) -> Option<Value> {
    let python = installed(
        crate_root().join(".venv-mcp/bin/python"),
        "the Python MCP client (mcp)",
    )?;
    let mut args = vec!["tests/interop/mcp/client.py", url];
    args.extend(token);
    Some(
        run_script(&python, &args, crate_root())
            .await
            .passed("Python mcp client"),
    )
}

async fn typescript(url: &str, token: Option<&str>) -> Option<Value> {
    let dir = crate_root().join("tests/interop/mcp-js");
    installed(
        dir.join("node_modules/@modelcontextprotocol/sdk/package.json"),
        "the TypeScript MCP client (@modelcontextprotocol/sdk)",
    )?;
    let mut args = vec!["client.mjs", url];
    args.extend(token);
    Some(
        run_script(&node_on_path(), &args, &dir)
            .await
            .passed("@modelcontextprotocol/sdk client"),
    )
}

#[tokio::test]
async fn the_python_mcp_client_books_a_table_through_the_tool_and_its_actions() {
    let (_child, url) = serve(&[]).await;
    let Some(seen) = python(&url, None).await else {
        return;
    };
    check_conversation(&seen, ProtocolVersion::V1_0).await;
    // Progress came while the model wrote: the text grew from one notification to the next.
    let progress = seen["progress"].as_array().unwrap();
    assert!(progress.len() > 3, "{seen}");
    let first = progress[0]["message"].as_str().unwrap();
    let last = progress[progress.len() - 1]["message"].as_str().unwrap();
    assert!(
        last.len() > first.len() && last.starts_with(first),
        "{progress:?}"
    );
    // The surfaces' action became an app-only tool of the session; one conversation.
    assert!(seen["toolsAfter"].to_string().contains("select"), "{seen}");
    assert_eq!(
        seen["selectMeta"]["ui"]["visibility"],
        serde_json::json!(["app"])
    );
    let contexts = seen["contextIds"].as_array().unwrap();
    assert!(contexts[0].is_string() && contexts.iter().all(|id| *id == contexts[0]));
}

#[tokio::test]
async fn the_typescript_mcp_client_gets_the_version_it_asks_for_per_call() {
    let (_child, url) = serve(&[]).await;
    let Some(seen) = typescript(&url, None).await else {
        return;
    };
    check_conversation(&seen, ProtocolVersion::V0_9).await;
    assert!(seen["progress"].as_u64().unwrap() > 3, "{seen}");
}

#[tokio::test]
async fn both_clients_converse_behind_bearer_tokens() {
    let path = std::env::temp_dir().join(format!("a2ui-mcp-tokens-{}", std::process::id()));
    std::fs::write(&path, "alice tok-alice-1\nbob tok-bob-2\n").unwrap();
    let (_child, url) = serve(&["--auth-tokens", path.to_str().unwrap()]).await;
    // No token: 401 before MCP.
    let response = reqwest::Client::new()
        .post(&url)
        .header("accept", "application/json, text/event-stream")
        .json(&serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 401);
    if let Some(seen) = python(&url, Some("tok-alice-1")).await {
        check_conversation(&seen, ProtocolVersion::V1_0).await;
    }
    if let Some(seen) = typescript(&url, Some("tok-bob-2")).await {
        check_conversation(&seen, ProtocolVersion::V0_9).await;
    }
    let _ = std::fs::remove_file(path);
}
