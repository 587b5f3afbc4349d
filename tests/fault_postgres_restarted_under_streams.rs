//! The PostgreSQL server restarted (`pg_ctl stop -m fast`, then start) while streams run on
//! two `a2ui-agent serve --store postgres://` instances sharing it: every task ends in the
//! state its agent gave it, every stream ends with that state (or ends early with an error,
//! and a resubscription then gets it), and nothing is lost or written twice: each stream that
//! ran through carries exactly the chunks of an undisturbed run, each stored task holds one
//! user message and the same reply, and the table holds one row per task. Its own cluster
//! (one test in this binary): the restart would disturb any other test on it. Skipped
//! without PostgreSQL (see `support::postgres`).
#![cfg(feature = "cli")]

mod support;

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use support::{SseReader, TestServer, serve_store, text_of};

/// The demo's pause between chunks: a "Dinner?" reply then streams for a few seconds.
const DELAY_MS: u64 = 150;

/// How a stream ended.
#[derive(Debug)]
enum End {
    /// With a final update: its state, its status message, and the text of the updates
    /// before it.
    Final(Value, String),
    /// Early, with an error event or none (the task's state is to be read).
    Early(String),
}

/// Reads `events` to its end, for at most 60 s.
async fn read_to_end(events: &mut SseReader) -> End {
    let read = async {
        let mut text = String::new();
        loop {
            let Some(event) = events.next_event().await else {
                return End::Early("the stream closed".to_owned());
            };
            if let Some(error) = event.get("error") {
                return End::Early(error.to_string());
            }
            let result = &event["result"];
            if result["final"] == true {
                return End::Final(result["status"].clone(), text);
            }
            let parts = &result["status"]["message"]["parts"];
            if parts.is_array() {
                text.push_str(&text_of(parts));
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(60), read)
        .await
        .expect("a stream neither ended nor sent its final update within 60 s")
}

/// `tasks/get` of `id` on `server`, retried while the database is still coming back (at
/// most 30 s).
async fn get_when_back(server: &TestServer, id: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let response = server.call("tasks/get", json!({"id": id})).await;
        if response.get("result").is_some() {
            return response["result"].clone();
        }
        assert!(
            Instant::now() < deadline,
            "tasks/get still fails: {response}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// The final update of `id` through a resubscription on `server` (a task already over gets
/// its final state as the only event), retried while the database is coming back.
async fn final_by_resubscribing(server: &TestServer, id: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let mut events = SseReader::new(
            server
                .open_stream("tasks/resubscribe", json!({"id": id}))
                .await,
        );
        match read_to_end(&mut events).await {
            End::Final(status, _) => return status,
            End::Early(error) if error.contains("terminal") || error.contains("-32004") => {
                return get_when_back(server, id).await["status"].clone();
            }
            End::Early(error) => {
                assert!(
                    Instant::now() < deadline,
                    "resubscribing still fails: {error}"
                );
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
        }
    }
}

/// Now, as the server writes a status timestamp (UTC, milliseconds): two compare as times.
fn now_utc() -> String {
    let format = time::macros::format_description!(
        "[year]-[month]-[day]T[hour]:[minute]:[second].[subsecond digits:3]Z"
    );
    time::OffsetDateTime::now_utc().format(&format).unwrap()
}

/// The user messages and agent messages of a stored task, by role.
fn messages_by_role(task: &Value) -> (usize, usize) {
    let history = task["history"].as_array().unwrap();
    let users = history.iter().filter(|m| m["role"] == "user").count();
    (users, history.len() - users)
}

#[tokio::test]
async fn a_postgres_restart_under_running_streams_loses_and_duplicates_nothing() {
    let Some(cluster) = support::postgres::cluster() else {
        return;
    };
    let url = cluster.database("restart");
    let (_a_child, a) = serve_store(&url, DELAY_MS, &[]).await;
    let (_b_child, b) = serve_store(&url, DELAY_MS, &[]).await;

    // An undisturbed run: what every stream and stored task should hold.
    let (mut events, reference_id) = a.stream_dinner().await;
    let End::Final(reference_status, reference_text) = read_to_end(&mut events).await else {
        panic!("the undisturbed stream ended early");
    };
    assert_eq!(reference_status["state"], "input-required");
    let reference = a.get_task(&reference_id).await;

    // Three streams on each instance, and each instance watching one task of the other.
    let mut streams = Vec::new();
    for server in [&a, &a, &a, &b, &b, &b] {
        let (events, id) = server.stream_dinner().await;
        streams.push((server, events, id, true));
    }
    for (watcher, watched) in [(&b, 0), (&a, 3)] {
        let id = streams[watched].2.clone();
        let mut events = SseReader::new(
            watcher
                .open_stream("tasks/resubscribe", json!({"id": id}))
                .await,
        );
        events.next_event().await.expect("the resubscription opens");
        streams.push((watcher, events, id, false));
    }

    let stopped = Instant::now();
    let stopped_at = now_utc();
    tokio::task::spawn_blocking(|| cluster.stop())
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_secs(1)).await;
    tokio::task::spawn_blocking(|| cluster.start())
        .await
        .unwrap();
    println!("PostgreSQL was down for {:?}", stopped.elapsed());

    let mut early = 0;
    for (server, mut events, id, from_start) in streams {
        let status = match read_to_end(&mut events).await {
            End::Final(status, text) => {
                if from_start {
                    assert_eq!(text, reference_text, "task {id}: chunks lost or repeated");
                }
                status
            }
            End::Early(error) => {
                println!("task {id}: the stream ended early ({error}); resubscribing");
                early += 1;
                final_by_resubscribing(server, &id).await
            }
        };
        assert_eq!(status["state"], "input-required", "task {id}: {status}");
        assert!(
            status["timestamp"].as_str().unwrap() > stopped_at.as_str(),
            "task {id} ended before PostgreSQL stopped ({stopped_at}): nothing was tested"
        );
        // Stored as the stream said, through either instance.
        for reader in [&a, &b] {
            let task = get_when_back(reader, &id).await;
            // (A stream's final update repeats none of the parts its updates carried.)
            assert_eq!(task["status"]["state"], status["state"], "task {id}");
            assert_eq!(
                task["status"]["timestamp"], status["timestamp"],
                "task {id}"
            );
            assert_eq!(
                messages_by_role(&task),
                messages_by_role(&reference),
                "task {id}: {task}"
            );
            assert_eq!(
                text_of(&task["status"]["message"]["parts"]),
                text_of(&reference["status"]["message"]["parts"])
            );
        }
    }
    println!("{early} of 8 streams ended early and were resubscribed");

    // One row per task: the reference and the six streamed.
    let (client, connection) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(connection);
    let rows: i64 = client
        .query_one("SELECT COUNT(*) FROM a2ui_tasks", &[])
        .await
        .unwrap()
        .get(0);
    assert_eq!(rows, 7);
}
