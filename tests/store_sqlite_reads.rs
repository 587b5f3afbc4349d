//! `serve --store sqlite:PATH` under a burst of concurrent reads: the real binary on a real
//! socket. The store answers from one thread that owns its connection, so a dashboard (or
//! the soak's read-back) firing many reads at once must not grow the process by a thread
//! per read: with a blocking-pool thread per call, each parked on the connection's lock and
//! decoding tasks in its own malloc arena, such bursts left the server hundreds of MB larger.
#![cfg(feature = "cli")]

mod support;

use std::time::Duration;

use futures::future::join_all;
use serde_json::json;
use support::{TestServer, params, serve_command, spawn_binary};

/// How many threads process `pid` has now; `None` where `/proc` does not say.
fn threads(pid: u32) -> Option<usize> {
    std::fs::read_dir(format!("/proc/{pid}/task"))
        .ok()
        .map(|entries| entries.count())
}

#[tokio::test]
async fn concurrent_reads_do_not_add_a_thread_each() {
    let dir = std::env::temp_dir().join(format!("a2ui-reads-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let store = format!("sqlite:{}", dir.join("tasks.db").display());
    let command = serve_command(&[
        "--min-delay-ms",
        "0",
        "--max-delay-ms",
        "0",
        "--store",
        &store,
    ]);
    let (child, url) = spawn_binary(command, Duration::from_secs(30)).await;
    let server = TestServer::external(url);
    let pid = child.id().unwrap();
    let Some(before) = threads(pid) else {
        println!("skipped: no /proc/PID/task to count the server's threads");
        return;
    };

    let mut ids = Vec::new();
    for text in ["Dinner?", "Lunch?", "Breakfast?", "Brunch?"] {
        let task = server
            .result(
                "message/send",
                params(json!([{"kind": "text", "text": text}]), None, None),
            )
            .await;
        ids.push(task["id"].as_str().unwrap().to_owned());
    }
    let mut most = before;
    for _ in 0..3 {
        let server = &server;
        let reads = (0..64).map(|n| {
            let id = &ids[n % ids.len()];
            async move {
                if n % 8 == 0 {
                    server.call_v1("ListTasks", json!({"pageSize": 100})).await
                } else {
                    server.get_task(id).await
                }
            }
        });
        for answer in join_all(reads).await {
            assert!(answer.get("error").is_none(), "{answer}");
        }
        // Idle blocking-pool threads linger for seconds: counted right after the burst.
        most = most.max(threads(pid).unwrap_or(0));
    }
    assert!(
        most <= before + 2,
        "192 reads in bursts of 64 took the server from {before} to {most} threads"
    );
    drop(child);
    let _ = std::fs::remove_dir_all(&dir);
}
