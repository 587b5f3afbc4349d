//! What the interop tests share: our server on a real socket with the agent the client
//! scripts expect, and a way to run a script with a deadline.
//!
//! The clients are the real SDKs installed by `scripts/install-test-deps.sh`. When they are
//! absent a test prints that it skipped; with `A2UI_REQUIRE_INTEROP=1` (the test command sets
//! it) it fails instead, so a broken install cannot pass silently.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use a2ui_agent::a2a::card::AgentCard;
use a2ui_agent::a2a::{Message, Role};
use a2ui_agent::agent::{AgentError, Reply};
use a2ui_agent::request::Request;
use a2ui_agent::server::A2uiServer;
use serde_json::Value;
use tokio::net::TcpListener;

/// How long one client script may run. The slowest scenario waits 8 s for the agent; the rest
/// is interpreter start-up, which on a loaded machine can take several seconds.
const SCRIPT_DEADLINE: Duration = Duration::from_secs(120);

/// How long the `slow` agent stays silent: longer than the Python client's 5 s read timeout.
pub const SILENCE: Duration = Duration::from_secs(8);

/// The crate root, where `.venv/` and `tests/interop/` live.
pub fn crate_root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Returns `path` when it exists. Otherwise prints a skip message and returns `None`, or
/// panics when `A2UI_REQUIRE_INTEROP=1`.
pub fn installed(path: PathBuf, what: &str) -> Option<PathBuf> {
    if path.exists() {
        return Some(path);
    }
    let why = format!(
        "{what} is not installed ({} is missing); run scripts/install-test-deps.sh",
        path.display()
    );
    if std::env::var("A2UI_REQUIRE_INTEROP").as_deref() == Ok("1") {
        panic!("A2UI_REQUIRE_INTEROP=1 but {why}");
    }
    eprintln!("skipped: {why}");
    None
}

/// The agent the client scripts are written against (`scripts/reference_server.py` answers
/// the same way):
/// - any text: "echo: <text>", plus " | history: <earlier user texts joined by ' / '>" on a
///   continued task, streamed word by word;
/// - "slow ...": the same after [`SILENCE`] without a word;
/// - "wait ...": never answers; only a cancel ends it.
pub async fn test_agent(request: Request) -> Result<Reply, AgentError> {
    let text = request.text();
    if text.starts_with("wait") {
        return Ok(Reply::stream(futures::stream::pending::<String>()));
    }
    if text.starts_with("slow") {
        tokio::time::sleep(SILENCE).await;
    }
    let earlier: Vec<String> = request
        .history()
        .iter()
        .filter(|message| message.role == Role::User)
        .map(Message::text)
        .collect();
    let mut reply = format!("echo: {text}");
    if !earlier.is_empty() {
        reply.push_str(" | history: ");
        reply.push_str(&earlier.join(" / "));
    }
    let words: Vec<Result<String, AgentError>> = reply
        .split_inclusive(' ')
        .map(|word| Ok(word.to_owned()))
        .collect();
    Ok(Reply::stream(futures::stream::iter(words)))
}

/// Serves [`test_agent`] on `127.0.0.1:0` for the rest of the test; returns the base URL.
pub async fn start_server() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/", listener.local_addr().unwrap());
    let card = AgentCard::builder("interop")
        .description("The interop tests' echo agent")
        .url(&url)
        .build();
    let server = A2uiServer::builder(card, test_agent).build().unwrap();
    tokio::spawn(async move { axum::serve(listener, server.router()).await });
    url
}

/// What a client script printed.
pub struct ScriptRun {
    /// The script, for failure messages.
    pub script: String,
    /// Whether it exited 0.
    pub success: bool,
    /// Its standard output: one JSON line describing what it saw.
    pub stdout: String,
    /// Its standard error: `FAIL: why` on failure.
    pub stderr: String,
}

impl ScriptRun {
    /// The JSON line the script printed, after asserting that it exited 0; `what` names the
    /// scenario in the failure message.
    pub fn passed(&self, what: &str) -> Value {
        assert!(
            self.success,
            "{what}: the client ({}) failed\n--- stderr\n{}--- stdout\n{}",
            self.script, self.stderr, self.stdout
        );
        serde_json::from_str(self.stdout.trim()).unwrap_or_else(|error| {
            panic!(
                "{what}: {} printed no JSON ({error}): {:?}",
                self.script, self.stdout
            )
        })
    }
}

/// The kinds of the stream events a script saw, in order (its `events` field).
pub fn event_kinds(seen: &Value) -> Vec<&str> {
    seen["events"]
        .as_array()
        .map(|events| events.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// `node` from `PATH`, or a path that does not exist (the script run then fails saying so).
#[allow(dead_code)] // the Python interop tests run no Node script
pub fn node_on_path() -> PathBuf {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|dir| dir.join("node"))
        .find(|candidate| candidate.is_file())
        .unwrap_or_else(|| "node (not on PATH)".into())
}

/// Runs the page driver `script` of `web/` with `node`, in Chromium `browser` against the
/// page at `url`, screenshots going to `screenshots`, killed after `deadline`; its stdout,
/// once it exited 0 (it panics with the driver's output otherwise).
#[allow(dead_code)] // only the browser tests drive the page
pub async fn drive_page(
    node: &Path,
    script: &str,
    url: &str,
    screenshots: &Path,
    browser: &Path,
    deadline: Duration,
) -> String {
    let run = tokio::process::Command::new(node)
        .arg(script)
        .arg(url)
        .arg(screenshots)
        .arg(browser)
        .current_dir(crate_root().join("web"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap()
        .wait_with_output();
    let output = tokio::time::timeout(deadline, run)
        .await
        .unwrap_or_else(|_| panic!("the browser scenario ran over {deadline:?}"))
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "the browser scenario failed (screenshots in {})\n--- stderr\n{}--- stdout\n{stdout}",
        screenshots.display(),
        String::from_utf8_lossy(&output.stderr),
    );
    stdout
}

/// Runs `program args...` from `dir`, killing it after [`SCRIPT_DEADLINE`].
pub async fn run_script(program: &Path, args: &[&str], dir: &Path) -> ScriptRun {
    let script = format!("{} {}", program.display(), args.join(" "));
    let child = tokio::process::Command::new(program)
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap_or_else(|error| panic!("cannot start {}: {error}", program.display()));
    let output = tokio::time::timeout(SCRIPT_DEADLINE, child.wait_with_output())
        .await
        .unwrap_or_else(|_| {
            panic!(
                "{} {args:?} ran over {SCRIPT_DEADLINE:?}",
                program.display()
            )
        })
        .unwrap();
    ScriptRun {
        script,
        success: output.status.success(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}
