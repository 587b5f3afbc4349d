//! The demo in a plain MCP Apps host, drawn by the server's own renderer bundle: Debian's
//! headless Chromium opens a host page built on ext-apps' `AppBridge` and the MCP TypeScript
//! client (`tests/interop/mcp-host`), which calls the agent's tool on `a2ui-agent serve
//! --mcp`, reads the tool's `ui://` resource and shows it in a sandboxed iframe under the
//! MCP Apps CSP. Inside the iframe the restaurant cards draw; Book and Confirm go back
//! through the host as `tools/call` (naming their surface), and the booking confirmation,
//! built from the form's values, draws. The host knows nothing of A2UI.
//!
//! It prints the milliseconds from the host's call to the first and last card, from Book to
//! the form and from Confirm to the confirmation (`cargo test --features cli --test
//! e2e_browser_mcp_app -- --nocapture`); screenshots go to `target/tmp/browser-mcp-app/`.
//! Skipped (with a message) when Chromium or the host page's npm packages are absent, unless
//! `A2UI_REQUIRE_INTEROP=1`.
#![cfg(all(feature = "cli", feature = "mcp"))]

// Only `installed`, `crate_root`, `node_on_path` and `run_script`.
#[allow(dead_code)]
#[path = "interop/support.rs"]
mod interop;
mod support;

use std::path::{Path, PathBuf};
use std::time::Duration;

use interop::{crate_root, installed, node_on_path, run_script};
use support::{serve_command, spawn_binary};

/// Chromium, where Debian installs it (or `$CHROMIUM`).
fn chromium() -> PathBuf {
    std::env::var_os("CHROMIUM").map_or_else(|| "/usr/bin/chromium".into(), PathBuf::from)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_plain_mcp_apps_host_shows_the_demo_in_the_renderer_bundle_and_books_a_table() {
    let dir = crate_root().join("tests/interop/mcp-host");
    let (Some(_), Some(browser), Some(node)) = (
        installed(
            dir.join("node_modules/@modelcontextprotocol/ext-apps/package.json"),
            "the MCP Apps host page's npm packages",
        ),
        installed(chromium(), "Chromium"),
        installed(node_on_path(), "node"),
    ) else {
        return;
    };
    let built = run_script(&node, &["build.mjs"], &dir).await;
    assert!(
        built.success,
        "the host page does not build:\n{}",
        built.stderr
    );

    let command = serve_command(&["--mcp", "--min-delay-ms", "0", "--max-delay-ms", "0"]);
    let (_server, url) = spawn_binary(command, Duration::from_secs(30)).await;
    let screenshots = Path::new(env!("CARGO_TARGET_TMPDIR")).join("browser-mcp-app");
    let browser = browser.to_string_lossy();
    let run = run_script(
        &node,
        &[
            "test.mjs",
            &url,
            "/mcp",
            &screenshots.to_string_lossy(),
            &browser,
        ],
        &dir,
    )
    .await;
    let seen = run.passed("the MCP Apps host in Chromium");
    assert_eq!(
        seen["actions"],
        serde_json::json!(["select", "book"]),
        "{seen}"
    );
    let ms = |key: &str| seen[key].as_i64().unwrap_or(-1);
    eprintln!(
        "in an MCP Apps host in Chromium, ms: tool call to first card {}, to last card {}; \
         Book to form {}; Confirm to booking {}; screenshots in {}",
        ms("first_card_ms"),
        ms("last_card_ms"),
        ms("form_ms"),
        ms("booking_ms"),
        screenshots.display()
    );
}
