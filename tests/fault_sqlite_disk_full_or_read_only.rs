//! `serve --store sqlite:PATH` when the file cannot take writes: the real binary, its disk
//! "full" (a file size limit set with `ulimit -f` in the shell that starts it, SIGXFSZ
//! ignored, so a write past it fails as on a full disk) or its file read-only (written by a
//! first run, then `chmod a-w`, and served by a process that cannot override permissions).
//! Clients get an error saying the task could not be stored, never the file's path; what was
//! stored before stays readable; and the database is intact afterwards (`PRAGMA
//! integrity_check`), opening again in a server without the fault.
#![cfg(feature = "cli")]

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use serde_json::{Value, json};
use support::{TestServer, params, serve_store, spawn_binary, text_message};

/// A fresh directory for one test's database.
fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("a2ui-fault-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn binary() -> &'static str {
    env!("CARGO_BIN_EXE_a2ui-agent")
}

/// `serve --store sqlite:DB` started by `sh -c PRELUDE; exec BINARY serve ...`.
async fn serve_after(prelude: &str, db: &Path) -> (tokio::process::Child, TestServer) {
    let mut command = tokio::process::Command::new("sh");
    let store = format!("sqlite:{}", db.display());
    command.args(["-c", &format!("{prelude}; exec \"$0\" \"$@\""), binary()]);
    command.args([
        "serve",
        "--port",
        "0",
        "--min-delay-ms",
        "0",
        "--max-delay-ms",
        "0",
        "--store",
        &store,
    ]);
    let (child, url) = spawn_binary(command, Duration::from_secs(30)).await;
    (child, TestServer::external(url))
}

/// SIGKILL, and wait for the process to be gone.
async fn kill_hard(mut child: tokio::process::Child) {
    child.start_kill().unwrap();
    child.wait().await.unwrap();
}

/// A user message of about `bytes` bytes starting a new task.
fn big_message(bytes: usize) -> Value {
    let text = format!("Dinner? {}", "x".repeat(bytes));
    params(json!([{"kind": "text", "text": text}]), None, None)
}

/// Checks that `error` says the task could not be stored, without a path or the engine's
/// own words.
fn assert_clear_store_error(error: &Value, dir: &Path) {
    assert_eq!(error["code"], -32603, "{error}");
    let message = error["message"].as_str().unwrap();
    assert!(message.contains("could not be stored"), "{error}");
    let text = error.to_string();
    let dir = dir.display().to_string();
    for inside in [
        dir.as_str(),
        "tasks.db",
        "/tmp",
        "sqlite",
        "readonly",
        "disk I/O",
    ] {
        assert!(!text.contains(inside), "{inside:?} in {text}");
    }
}

/// Reopens the file (after the server is gone) and checks it: `integrity_check` says `ok`;
/// the number of tasks stored.
fn check_database(db: &Path) -> i64 {
    let connection = rusqlite::Connection::open(db).unwrap();
    let verdict: String = connection
        .query_row("PRAGMA integrity_check", [], |row| row.get(0))
        .unwrap();
    assert_eq!(verdict, "ok");
    connection
        .query_row("SELECT COUNT(*) FROM tasks", [], |row| row.get(0))
        .unwrap()
}

#[tokio::test]
async fn a_full_disk_gets_clients_a_clear_error_and_leaves_the_database_intact() {
    let dir = temp_dir("full");
    let db = dir.join("tasks.db");
    // 400 KiB for a file (blocks of 512 bytes in a POSIX shell, 1 KiB in bash: either is
    // reached by the messages below).
    let (child, server) = serve_after("trap '' XFSZ; ulimit -f 800", &db).await;
    let mut stored = Vec::new();
    let mut refused = None;
    for _ in 0..200 {
        let response = server.call("message/send", big_message(16 * 1024)).await;
        match response.get("error") {
            None => stored.push(response["result"]["id"].as_str().unwrap().to_owned()),
            Some(error) => {
                refused = Some(error.clone());
                break;
            }
        }
    }
    let refused = refused.expect("200 messages of 16 KiB fit in a 400 KiB file");
    println!("{} tasks stored before the disk was full", stored.len());
    assert!(!stored.is_empty(), "the file limit let nothing be stored");
    assert_clear_store_error(&refused, &dir);

    // A stream gets the same error as its one event.
    let sse = server
        .stream("message/stream", big_message(16 * 1024))
        .await;
    let last = sse.events.last().expect("no event");
    assert_clear_store_error(&last["error"], &dir);

    // What was stored still reads.
    let first = server.get_task(&stored[0]).await;
    assert_eq!(first["status"]["state"], "input-required", "{first}");
    kill_hard(child).await;

    assert!(check_database(&db) >= stored.len() as i64);
    // Without the limit, the same file serves again and takes new tasks.
    let (_child, server) = serve_store(&format!("sqlite:{}", db.display()), 0, &[]).await;
    let first = server.get_task(&stored[0]).await;
    assert_eq!(first["status"]["state"], "input-required", "{first}");
    server.ask_dinner().await;
    let _ = std::fs::remove_dir_all(&dir);
}

/// Whether this process is root (which writes read-only files unless it drops the
/// capability to).
fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|output| output.stdout.trim_ascii() == b"0")
}

fn chmod(mode: &str, paths: &[PathBuf]) {
    let status = Command::new("chmod")
        .arg(mode)
        .args(paths)
        .status()
        .unwrap();
    assert!(status.success());
}

#[tokio::test]
async fn a_read_only_database_file_still_serves_its_tasks_and_refuses_new_ones_clearly() {
    let dir = temp_dir("read-only");
    let db = dir.join("tasks.db");
    let (child, server) = serve_store(&format!("sqlite:{}", db.display()), 0, &[]).await;
    let waiting = server.ask_dinner().await["id"].as_str().unwrap().to_owned();
    kill_hard(child).await;

    let files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    chmod("a-w", &files);
    chmod("a-w", std::slice::from_ref(&dir));
    // Root writes whatever the mode says, unless the process cannot override permissions.
    let prelude = if is_root() {
        "exec setpriv --bounding-set=-dac_override,-dac_read_search,-fowner -- \"$0\" \"$@\""
    } else {
        "true"
    };
    let (child, server) = serve_after(prelude, &db).await;

    let kept = server.get_task(&waiting).await;
    assert_eq!(kept["status"]["state"], "input-required", "{kept}");
    let response = server.call("message/send", text_message("Dinner?")).await;
    assert_clear_store_error(&response["error"], &dir);
    let answer = params(
        json!([{"kind": "text", "text": "The Japanese one, please."}]),
        None,
        Some(&waiting),
    );
    let response = server.call("message/send", answer).await;
    assert_clear_store_error(&response["error"], &dir);
    let kept = server.get_task(&waiting).await;
    assert_eq!(kept["status"]["state"], "input-required", "{kept}");
    kill_hard(child).await;

    chmod("u+w", std::slice::from_ref(&dir));
    chmod("u+w", &files);
    assert_eq!(check_database(&db), 1);
    let _ = std::fs::remove_dir_all(&dir);
}
