//! The page `a2ui-agent serve` answers `GET /` with, in a real browser: Debian's headless
//! Chromium, driven by `web/test/browser.mjs` (puppeteer-core), asks the demo for dinner,
//! sees the restaurant cards drawn by the official A2UI renderer while the reply still
//! streams, presses Book on the first card before the stream ends (the page keeps it as a
//! pending turn and sends it when the reply ends), books a table through the form and sees
//! the confirmation, with no console error; for A2UI v0.9 and v0.8.
//!
//! It prints, per version, the milliseconds from Send to the first drawn component, to the
//! first and last restaurant card, and to the end of the stream (`cargo test --test
//! e2e_browser -- --nocapture`); screenshots go to `target/tmp/browser/`. Skipped (with a
//! message) when Chromium or `web/node_modules` is absent, unless `A2UI_REQUIRE_INTEROP=1`.
#![cfg(feature = "cli")]

// Only `installed` (skip or fail the same way as the interop tests), `crate_root` and
// `node_on_path`.
#[allow(dead_code)]
#[path = "interop/support.rs"]
mod interop;
mod support;

use std::path::{Path, PathBuf};
use std::time::Duration;

use interop::{crate_root, drive_page, installed, node_on_path};
use serde_json::Value;
use support::{serve_command, spawn_binary};

/// How long the browser scenario may take: two versions, three streamed replies each, with a
/// browser starting on a machine that may be busy.
const DEADLINE: Duration = Duration::from_secs(300);

/// Runs `a2ui-agent serve --port 0` with short pauses between chunks, so a reply streams for
/// a few seconds (long enough to see it draw progressively, short enough for a test).
async fn serve() -> (tokio::process::Child, String) {
    let command = serve_command(&["--min-delay-ms", "2", "--max-delay-ms", "5"]);
    spawn_binary(command, Duration::from_secs(30)).await
}

/// Chromium, where Debian installs it (or `$CHROMIUM`).
fn chromium() -> PathBuf {
    std::env::var_os("CHROMIUM").map_or_else(|| "/usr/bin/chromium".into(), PathBuf::from)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_person_sees_the_demo_draw_itself_while_it_streams_and_books_a_table_in_chromium() {
    let web = crate_root().join("web");
    let (Some(_), Some(browser)) = (
        installed(
            web.join("node_modules/puppeteer-core"),
            "the page's npm packages",
        ),
        installed(chromium(), "Chromium"),
    ) else {
        return;
    };
    let Some(node) = installed(node_on_path(), "node") else {
        return;
    };
    let screenshots = Path::new(env!("CARGO_TARGET_TMPDIR")).join("browser");
    let (_server, url) = serve().await;

    let stdout = drive_page(
        &node,
        "test/browser.mjs",
        &url,
        &screenshots,
        &browser,
        DEADLINE,
    )
    .await;

    let runs: Vec<Value> = stdout
        .lines()
        .map(|line| serde_json::from_str(line).expect("the script prints JSON lines"))
        .collect();
    let versions: Vec<&str> = runs.iter().filter_map(|r| r["version"].as_str()).collect();
    assert_eq!(versions, ["v0.9", "v0.8"], "{stdout}");
    eprintln!("progressive rendering in Chromium, milliseconds from Send:");
    eprintln!("version  first component  first card  last card  stream end");
    for run in &runs {
        let ms = |key: &str| run[key].as_i64().unwrap_or(-1);
        eprintln!(
            "{:<7}  {:>15}  {:>10}  {:>9}  {:>10}",
            run["version"].as_str().unwrap_or("?"),
            ms("first_component_ms"),
            ms("first_card_ms"),
            ms("last_card_ms"),
            ms("stream_end_ms"),
        );
    }
    eprintln!("screenshots: {}", screenshots.display());
}
