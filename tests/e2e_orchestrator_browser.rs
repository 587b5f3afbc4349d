//! The orchestrator in a real browser: `a2ui-agent orchestrate` (the real binary) in front of
//! two sub-agents of two kinds on two stacks, the demo restaurant finder (`a2ui-agent serve`)
//! and a weather agent served by the Python a2a-sdk 1.3.0
//! (`tests/interop/python/weather_agent.py`), whose surface is also called `main`. Debian's
//! headless Chromium, driven by `web/test/orchestrator.mjs`, asks for dinner and for the
//! weather, sees both agents' surfaces at once under distinct ids, presses Refresh (the
//! weather agent redraws) and books a table through the restaurant finder's form (its
//! confirmation shows), with no console error.
//!
//! Screenshots go to `target/tmp/browser-orchestrator/`. Skipped (with a message) when
//! Chromium, `web/node_modules` or `.venv` is absent, unless `A2UI_REQUIRE_INTEROP=1`.
#![cfg(all(feature = "cli", feature = "orchestrator"))]

// Only `installed` (skip or fail the same way as the interop tests), `crate_root` and
// `node_on_path`.
#[allow(dead_code)]
#[path = "interop/support.rs"]
mod interop;
mod support;

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use interop::{crate_root, drive_page, installed, node_on_path};
use support::{serve_command, spawn_binary};
use tokio::io::{AsyncBufReadExt, BufReader};

/// How long the browser scenario may take: four turns, with a browser starting on a machine
/// that may be busy.
const DEADLINE: Duration = Duration::from_secs(300);

/// How long a process may take to say where it listens.
const START: Duration = Duration::from_secs(60);

/// Chromium, where Debian installs it (or `$CHROMIUM`).
fn chromium() -> PathBuf {
    std::env::var_os("CHROMIUM").map_or_else(|| "/usr/bin/chromium".into(), PathBuf::from)
}

/// The weather agent on the Python SDK, started with `python`; the child (killed when
/// dropped) and its base URL.
async fn weather(python: &Path) -> (tokio::process::Child, String) {
    let mut child = tokio::process::Command::new(python)
        .arg(crate_root().join("tests/interop/python/weather_agent.py"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let find = async {
        while let Some(line) = lines.next_line().await.unwrap() {
            if let Some(url) = line.strip_prefix("listening on ") {
                return url.to_owned();
            }
        }
        panic!("the weather agent exited without saying where it listens");
    };
    let url = tokio::time::timeout(START, find)
        .await
        .expect("the weather agent did not say where it listens in time");
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    (child, url)
}

/// `a2ui-agent orchestrate --port 0` in front of `agents`; the child and its base URL.
async fn orchestrate(agents: &[&str]) -> (tokio::process::Child, String) {
    let mut command = serve_command(&[]);
    // `serve_command` starts with `serve --port 0`: the same binary, another command.
    let binary = command.as_std().get_program().to_owned();
    command = tokio::process::Command::new(binary);
    command.args(["orchestrate", "--port", "0"]);
    for agent in agents {
        command.args(["--agent", agent]);
    }
    spawn_binary(command, START).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_person_uses_two_agents_on_two_stacks_through_the_orchestrator_in_chromium() {
    let web = crate_root().join("web");
    let (Some(_), Some(browser), Some(python)) = (
        installed(
            web.join("node_modules/puppeteer-core"),
            "the page's npm packages",
        ),
        installed(chromium(), "Chromium"),
        installed(crate_root().join(".venv/bin/python"), "the Python a2a-sdk"),
    ) else {
        return;
    };
    let Some(node) = installed(node_on_path(), "node") else {
        return;
    };
    let screenshots = Path::new(env!("CARGO_TARGET_TMPDIR")).join("browser-orchestrator");
    let (_demo, demo_url) = spawn_binary(
        serve_command(&["--min-delay-ms", "1", "--max-delay-ms", "3"]),
        START,
    )
    .await;
    let (_weather, weather_url) = weather(&python).await;
    let (_orchestrator, url) = orchestrate(&[&demo_url, &weather_url]).await;

    let stdout = drive_page(
        &node,
        "test/orchestrator.mjs",
        &url,
        &screenshots,
        &browser,
        DEADLINE,
    )
    .await;
    let seen: serde_json::Value = serde_json::from_str(stdout.trim()).expect("one JSON line");
    eprintln!("surfaces on the page: {}", seen["surfaces"]);
}
