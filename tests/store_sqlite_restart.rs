//! `serve --store sqlite:PATH` across a crash: the real binary on a real socket, killed with
//! SIGKILL and started again on the same file. A conversation waiting for input continues
//! with its history; a task that was streaming when the process died is `failed`, saying so.
#![cfg(feature = "cli")]

mod support;

use std::path::{Path, PathBuf};

use a2ui_agent::store::STOPPED_MESSAGE;
use serde_json::json;
use support::{TestServer, params, serve_store, text_of};

/// A fresh directory for one test's database.
fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("a2ui-restart-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs `a2ui-agent serve --store sqlite:DB` on a free port, chunks `delay_ms` apart.
async fn serve(db: &Path, delay_ms: u64) -> (tokio::process::Child, TestServer) {
    serve_store(&format!("sqlite:{}", db.display()), delay_ms, &[]).await
}

/// SIGKILL: no shutdown code runs.
async fn kill_hard(mut child: tokio::process::Child) {
    child.start_kill().unwrap();
    child.wait().await.unwrap();
}

#[tokio::test]
async fn a_conversation_waiting_for_input_continues_after_the_server_is_killed() {
    let dir = temp_dir("input");
    let db = dir.join("tasks.db");
    let (child, server) = serve(&db, 0).await;
    let first = server.ask_dinner().await;
    let task_id = first["id"].as_str().unwrap().to_owned();
    let first_user_message = first["history"][0]["messageId"].clone();
    kill_hard(child).await;

    let (_child, server) = serve(&db, 0).await;
    let kept = server.get_task(&task_id).await;
    assert_eq!(kept["status"]["state"], "input-required");
    assert!(text_of(&kept["status"]["message"]["parts"]).contains("Sakura House"));

    let second = server
        .result(
            "message/send",
            params(
                json!([{"kind": "text", "text": "The Japanese one, please."}]),
                None,
                Some(&task_id),
            ),
        )
        .await;
    assert_eq!(second["id"], task_id.as_str());
    assert!(
        ["input-required", "completed"].contains(&second["status"]["state"].as_str().unwrap()),
        "{second}"
    );
    // The earlier turn (the user's question and the agent's answer) is still the history the
    // continuation was given.
    let history = second["history"].as_array().unwrap();
    assert_eq!(history[0]["messageId"], first_user_message);
    assert_eq!(history[1]["role"], "agent");
    assert!(text_of(&history[1]["parts"]).contains("Sakura House"));
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test]
async fn a_task_streaming_when_the_server_is_killed_is_failed_after_the_restart() {
    let dir = temp_dir("working");
    let db = dir.join("tasks.db");
    // Slow chunks: the reply takes minutes, so the task is surely working at the kill.
    let (child, server) = serve(&db, 400).await;
    let (events, task_id) = server.stream_dinner().await;
    assert_eq!(
        server.get_task(&task_id).await["status"]["state"],
        "working"
    );
    kill_hard(child).await;
    drop(events);

    let (_child, server) = serve(&db, 0).await;
    let task = server.get_task(&task_id).await;
    assert_eq!(task["status"]["state"], "failed", "{task}");
    assert_eq!(
        text_of(&task["status"]["message"]["parts"]),
        STOPPED_MESSAGE
    );
    // Nothing is left working: the listing filtered by state finds nothing.
    let page = server
        .call_v1("ListTasks", json!({"status": "TASK_STATE_WORKING"}))
        .await;
    assert_eq!(page["result"]["totalSize"], 0, "{page}");
    let _ = std::fs::remove_dir_all(dir);
}
