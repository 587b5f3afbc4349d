//! With PostgreSQL, a running task's chunks go out as notifications only while another
//! instance watches it. An instance whose task nobody else follows sends none (counted from
//! a connection of the test's own that listens on the events channel), only the task's
//! state changes; a second instance's `SubscribeToTask` still gets every chunk made after it
//! subscribed, the same as the client of the instance that runs the task. Underneath: a
//! runner has heard of a watcher by the time the watcher's `watch` returns (one on its own
//! instance too), a continued task's runner finds the watchers that came while it waited
//! for input, and a watch that ended is forgotten. Skipped without PostgreSQL (see `support::postgres`).
#![cfg(feature = "cli")]

mod support;

use std::time::Duration;

use a2ui_agent::a2a::TaskState;
use a2ui_agent::store::{Owner, PostgresStore, TaskStore};
use futures::StreamExt;
use serde_json::{Value, json};
use support::stores::bare_task;
use support::{SseReader, TestServer, serve_store};
use tokio::sync::mpsc;
use tokio_postgres::AsyncMessage;

/// `a2ui-agent serve --store URL` on a free port, demo chunks `delay_ms` apart.
async fn serve(url: &str, delay_ms: u64) -> (tokio::process::Child, TestServer) {
    serve_store(url, delay_ms, &[]).await
}

/// Listens on the channel task events go out on; the payloads, as they come.
async fn listen_to_events(url: &str) -> (tokio_postgres::Client, mpsc::UnboundedReceiver<Value>) {
    let (client, mut connection) = tokio_postgres::connect(url, tokio_postgres::NoTls)
        .await
        .unwrap();
    let (sender, receiver) = mpsc::unbounded_channel();
    tokio::spawn(async move {
        let mut messages = futures::stream::poll_fn(move |cx| connection.poll_message(cx));
        while let Some(Ok(message)) = messages.next().await {
            if let AsyncMessage::Notification(note) = message {
                let _ = sender.send(serde_json::from_str(note.payload()).unwrap());
            }
        }
    });
    client.batch_execute("LISTEN a2ui_events").await.unwrap();
    (client, receiver)
}

/// The notifications about task `id` up to its final update (at most 20 s): how many of
/// them were chunks (`working` updates with a message, or artifact chunks), and how many
/// in all.
async fn notes_to_final(notes: &mut mpsc::UnboundedReceiver<Value>, id: &str) -> (usize, usize) {
    let (mut chunks, mut all) = (0, 0);
    let counting = async {
        while let Some(note) = notes.recv().await {
            if note["t"] != id {
                continue;
            }
            all += 1;
            let event = &note["e"];
            assert!(
                !event.is_null(),
                "an event of this size is sent inline: {note}"
            );
            if event["final"] == true {
                return;
            }
            let chunk = event["kind"] == "artifact"
                || (event["state"] == "working" && !event["message"].is_null());
            chunks += usize::from(chunk);
        }
        panic!("the listening connection ended");
    };
    tokio::time::timeout(Duration::from_secs(20), counting)
        .await
        .expect("no final update notified within 20 s");
    (chunks, all)
}

/// Streams the demo's "Dinner?" through `server`: the open stream and the task's id.
async fn stream_dinner(server: &TestServer) -> (SseReader, String) {
    let mut events = server
        .open_v1(
            "SendStreamingMessage",
            json!({"message": {"role": "ROLE_USER", "messageId": support::unique_id(),
               "parts": [{"text": "Dinner?"}]}}),
        )
        .await;
    let first = events.next_event().await.expect("no first event");
    let id = first["result"]["task"]["id"]
        .as_str()
        .unwrap_or_else(|| panic!("the first event is not the task: {first}"))
        .to_owned();
    (events, id)
}

/// Reads `events` to the end of the reply (its update that leaves `working`), or until it
/// got `upto` chunks (at most 20 s): the parts of each update that carried some, in order.
async fn chunks(events: &mut SseReader, upto: usize) -> Vec<Value> {
    let reading = async {
        let mut chunks = Vec::new();
        while chunks.len() < upto {
            let Some(event) = events.next_event().await else {
                break;
            };
            assert!(event.get("error").is_none(), "{event}");
            let status = &event["result"]["statusUpdate"]["status"];
            let parts = &status["message"]["parts"];
            if parts.is_array() {
                chunks.push(parts.clone());
            }
            // The reply's end: a `SubscribeToTask` stream goes on past an interruption.
            if status["state"] != "TASK_STATE_WORKING" && status["state"].is_string() {
                break;
            }
        }
        chunks
    };
    tokio::time::timeout(Duration::from_secs(20), reading)
        .await
        .expect("the stream did not end within 20 s")
}

/// [`chunks`] to the end of the stream.
async fn chunks_to_end(events: &mut SseReader) -> Vec<Value> {
    chunks(events, usize::MAX).await
}

#[tokio::test]
async fn an_instance_whose_task_nobody_else_watches_notifies_its_state_changes_but_no_chunk() {
    let Some(cluster) = support::postgres::cluster() else {
        return;
    };
    let url = cluster.database("unwatched");
    let (_listening, mut notes) = listen_to_events(&url).await;
    let (_a_child, a) = serve(&url, 5).await;
    let (mut events, id) = stream_dinner(&a).await;
    let streamed = chunks_to_end(&mut events).await;
    assert!(
        streamed.len() > 1,
        "the reply came in one chunk: {streamed:?}"
    );
    // The final update is notified after every earlier one: all of them are in.
    let (chunks, all) = notes_to_final(&mut notes, &id).await;
    assert_eq!(
        chunks,
        0,
        "{chunks} of {} chunks were notified",
        streamed.len()
    );
    assert_eq!(all, 2, "`working`, then the final update");
}

#[tokio::test]
async fn a_second_instances_subscriber_gets_every_chunk_after_it_subscribed() {
    let Some(cluster) = support::postgres::cluster() else {
        return;
    };
    let url = cluster.database("watched");
    let (_listening, mut notes) = listen_to_events(&url).await;
    // Chunks 40 ms apart: the reply is still being written when B subscribes.
    let (_a_child, a) = serve(&url, 40).await;
    let (_b_child, b) = serve(&url, 0).await;
    let (mut a_events, id) = stream_dinner(&a).await;
    // A few chunks nobody else watches first.
    let mut from_a = chunks(&mut a_events, 3).await;
    let mut b_events = b.open_v1("SubscribeToTask", json!({"id": id})).await;
    let snapshot = b_events.next_event().await.expect("no snapshot");
    assert_eq!(snapshot["result"]["task"]["id"], id.as_str(), "{snapshot}");

    let (rest_of_a, from_b) =
        tokio::join!(chunks_to_end(&mut a_events), chunks_to_end(&mut b_events));
    from_a.extend(rest_of_a);
    assert!(!from_b.is_empty(), "B's subscriber got no chunk");
    assert!(
        from_b.len() < from_a.len(),
        "B got the chunks before it subscribed"
    );
    // Every chunk from the first B got on, in order: the tail of what A's client got.
    assert!(
        from_a.ends_with(&from_b),
        "B got {} chunks that are not A's last ones (A got {})",
        from_b.len(),
        from_a.len()
    );
    let (chunks, _) = notes_to_final(&mut notes, &id).await;
    assert_eq!(
        chunks,
        from_b.len(),
        "every chunk notified reached B, and only those"
    );
    println!(
        "B subscribed {} chunks into the reply and got the other {}",
        from_a.len() - from_b.len(),
        from_b.len()
    );
}

/// Two stores on the database at `url`, as two instances; their lease is short, so a beat
/// comes every 200 ms.
async fn two_instances(url: &str) -> (PostgresStore, PostgresStore) {
    let connect = || {
        PostgresStore::builder(url)
            .lease(Duration::from_millis(600))
            .connect()
    };
    (connect().await.unwrap(), connect().await.unwrap())
}

#[tokio::test]
async fn a_runner_has_heard_of_a_watcher_by_the_time_its_watch_returns() {
    let Some(cluster) = support::postgres::cluster() else {
        return;
    };
    let (runner, watcher) = two_instances(&cluster.database("handshake")).await;
    let (runs, watches) = (runner.cluster().unwrap(), watcher.cluster().unwrap());
    // As the task manager does: the run is registered before the task is stored running.
    let run = runs.run("busy");
    runner
        .put(&Owner::anonymous(), bare_task("busy", TaskState::Working))
        .await
        .unwrap();
    assert!(!run.is_watched());
    let _events = watches.watch("busy").await.unwrap();
    assert!(run.is_watched(), "watch returned before the runner knew");
    // A run of another task stays unwatched.
    let other = runs.run("alone");
    runner
        .put(&Owner::anonymous(), bare_task("alone", TaskState::Working))
        .await
        .unwrap();
    assert!(!other.is_watched());
    // Until a subscriber on the runner's own instance follows it through the channel (it
    // came as the run started, before the task manager knew of it).
    let _own = runs.watch("alone").await.unwrap();
    assert!(other.is_watched(), "a watcher on the runner's instance");
}

#[tokio::test]
async fn a_continued_task_finds_the_watchers_that_came_while_it_waited_until_they_leave() {
    let Some(cluster) = support::postgres::cluster() else {
        return;
    };
    let (runner, watcher) = two_instances(&cluster.database("continued")).await;
    let (runs, watches) = (runner.cluster().unwrap(), watcher.cluster().unwrap());
    let owner = Owner::anonymous();
    let waiting = bare_task("waiting", TaskState::InputRequired);
    runner.put(&owner, waiting.clone()).await.unwrap();
    // Nothing runs it: the watch returns without an answer to wait for.
    let events = watches.watch("waiting").await.unwrap();
    let _run = runs.run("waiting");
    let mut continued = bare_task("waiting", TaskState::Working);
    continued.status.timestamp = Some("2026-01-01T00:00:01.000Z".into());
    assert!(
        runner
            .replace(&owner, &waiting.status, continued)
            .await
            .unwrap()
    );
    // The runner may have heard the announcement before the run was registered: the
    // table still has it.
    assert!(runs.announced("waiting").await.unwrap());
    assert!(!runs.announced("nobody-watches").await.unwrap());
    // Once the watcher is gone, its next beat takes its announcement back.
    drop(events);
    let mut gone = false;
    for _ in 0..100 {
        if !runs.announced("waiting").await.unwrap() {
            gone = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(gone, "the watch that ended is still announced");
}
