//! The demo over AG-UI, drawn by CopilotKit's A2UI renderer in a real browser: Debian's
//! headless Chromium opens a page wired as a CopilotKit frontend wires A2UI
//! (`tests/interop/agui-browser`: `@ag-ui/client`'s HttpAgent, `@copilotkit/a2ui-renderer`,
//! the catalog context CopilotKit sends), asks `a2ui-agent serve --ag-ui` for dinner, sees
//! the restaurant cards while the reply still streams, presses Book, fills the form and
//! presses Confirm, and sees the booking, all on one thread with no console error.
//!
//! It prints the milliseconds from Send to the first drawn component, the first and last
//! card and the end of the stream (`cargo test --test e2e_browser_agui -- --nocapture`);
//! screenshots go to `target/tmp/browser-agui/`. Skipped (with a message) when Chromium or
//! the page's npm packages are absent, unless `A2UI_REQUIRE_INTEROP=1`.
#![cfg(feature = "cli")]

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
async fn a_copilotkit_page_draws_the_demo_over_ag_ui_while_it_streams_and_books_a_table() {
    let dir = crate_root().join("tests/interop/agui-browser");
    let (Some(_), Some(browser), Some(node)) = (
        installed(
            dir.join("node_modules/@copilotkit/a2ui-renderer"),
            "the AG-UI page's npm packages",
        ),
        installed(chromium(), "Chromium"),
        installed(node_on_path(), "node"),
    ) else {
        return;
    };
    let built = run_script(&node, &["build.mjs"], &dir).await;
    assert!(built.success, "the page does not build:\n{}", built.stderr);

    // Short pauses between chunks: a reply streams for a second or two, long enough to see
    // it draw progressively.
    let command = serve_command(&["--ag-ui", "--min-delay-ms", "2", "--max-delay-ms", "5"]);
    let (_server, url) = spawn_binary(command, Duration::from_secs(30)).await;
    let screenshots = Path::new(env!("CARGO_TARGET_TMPDIR")).join("browser-agui");
    let browser = browser.to_string_lossy();
    let run = run_script(
        &node,
        &[
            "test.mjs",
            &url,
            "/ag-ui",
            &screenshots.to_string_lossy(),
            &browser,
        ],
        &dir,
    )
    .await;
    let seen = run.passed("the AG-UI page in Chromium");
    let ms = |key: &str| seen[key].as_i64().unwrap_or(-1);
    eprintln!(
        "over AG-UI in Chromium, ms from Send: first component {}, first card {}, last card {}, \
         stream end {}; screenshots in {}",
        ms("first_component_ms"),
        ms("first_card_ms"),
        ms("last_card_ms"),
        ms("stream_end_ms"),
        screenshots.display()
    );
}
