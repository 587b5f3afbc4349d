//! `serve --store postgres://`: two real `a2ui-agent` processes on one throwaway PostgreSQL
//! cluster behave as one server. A task started on A is read, listed, watched and canceled
//! through B; a conversation waiting on A continues through B, and two instances racing to
//! continue it cannot both win; an instance killed with SIGKILL mid-stream has its task
//! failed by its peer once its lease expires. An instance whose database connections are
//! killed (a restart, a failover, an idle-connection killer) answers errors while it cannot
//! reconnect and works again once it can, and its watchers still get the final update of a
//! task that ended while it was not listening. The SQL listing also pages exactly as the
//! reference pager does. Skipped without PostgreSQL (see `support::postgres`).
#![cfg(feature = "cli")]

mod support;

use std::time::{Duration, Instant};

use a2ui_agent::a2a::{Artifact, Message, Part, Task, TaskListQuery, TaskState, TaskStatus};
use a2ui_agent::store::{
    Owner, PostgresBuilder, PostgresStore, STOPPED_MESSAGE, TaskStore, list_page,
};
use proptest::prelude::*;
use serde_json::{Value, json};
use support::{SseReader, TestServer, params, serve_store, text_of};

/// The lease the instances take: short, so failover takes about a second.
const LEASE_MS: &str = "1000";

/// `a2ui-agent serve --store URL` on a free port, demo chunks `delay_ms` apart.
async fn serve(url: &str, delay_ms: u64) -> (tokio::process::Child, TestServer) {
    serve_with(url, delay_ms, &[]).await
}

/// [`serve`] with `extra` arguments (which may set another `--lease-ms`).
async fn serve_with(
    url: &str,
    delay_ms: u64,
    extra: &[&str],
) -> (tokio::process::Child, TestServer) {
    let mut args = Vec::new();
    if !extra.contains(&"--lease-ms") {
        args.extend_from_slice(&["--lease-ms", LEASE_MS]);
    }
    args.extend_from_slice(extra);
    serve_store(url, delay_ms, &args).await
}

/// Reads `events` to the final update (for at most 20 s: keep-alive comments would let a
/// stream without one go on forever); returns it and the text the updates before carried.
async fn read_to_final(events: &mut SseReader) -> (Value, String) {
    tokio::time::timeout(Duration::from_secs(20), read_to_final_forever(events))
        .await
        .expect("no final update within 20 s")
}

async fn read_to_final_forever(events: &mut SseReader) -> (Value, String) {
    let mut text = String::new();
    loop {
        let event = events.next_event().await.expect("the stream ended early");
        let result = event["result"].clone();
        if result["final"] == true {
            return (result, text);
        }
        let parts = &result["status"]["message"]["parts"];
        if parts.is_array() {
            text.push_str(&text_of(parts));
        }
    }
}

#[tokio::test]
async fn a_task_running_on_one_instance_is_read_watched_and_canceled_through_the_other() {
    let Some(cluster) = support::postgres::cluster() else {
        return;
    };
    let url = cluster.database("cancel");
    // Slow chunks: the reply takes far longer than the test.
    let (_a_child, a) = serve(&url, 100).await;
    let (_b_child, b) = serve(&url, 100).await;
    let (mut a_events, task_id) = a.stream_dinner().await;

    assert_eq!(b.get_task(&task_id).await["status"]["state"], "working");
    let page = b
        .call_v1("ListTasks", json!({"status": "TASK_STATE_WORKING"}))
        .await;
    assert_eq!(page["result"]["totalSize"], 1, "{page}");
    assert_eq!(page["result"]["tasks"][0]["id"], task_id.as_str());

    // B's subscriber gets the updates A's agent streams.
    let mut b_events = SseReader::new(
        b.open_stream("tasks/resubscribe", json!({"id": task_id}))
            .await,
    );
    let first = b_events.next_event().await.unwrap();
    assert_eq!(first["result"]["id"], task_id.as_str(), "{first}");
    let update = loop {
        let update = b_events.next_event().await.unwrap();
        assert_eq!(update["result"]["status"]["state"], "working", "{update}");
        if update["result"]["status"]["message"]["parts"].is_array() {
            break update;
        }
    };
    assert!(
        !text_of(&update["result"]["status"]["message"]["parts"]).is_empty(),
        "{update}"
    );

    // A cancel through B stops A's agent.
    let asked = Instant::now();
    let canceled = b.result("tasks/cancel", json!({"id": task_id})).await;
    let took = asked.elapsed();
    assert_eq!(canceled["status"]["state"], "canceled", "{canceled}");
    let (a_final, _) = read_to_final(&mut a_events).await;
    assert_eq!(a_final["status"]["state"], "canceled", "{a_final}");
    let (b_final, _) = read_to_final(&mut b_events).await;
    assert_eq!(b_final["status"]["state"], "canceled", "{b_final}");
    assert_eq!(a.get_task(&task_id).await["status"]["state"], "canceled");
    println!("cancel through the other instance took {took:?}");
}

#[tokio::test]
async fn a_conversation_waiting_on_one_instance_continues_through_the_other_and_only_once() {
    let Some(cluster) = support::postgres::cluster() else {
        return;
    };
    let url = cluster.database("continue");
    // Chunks 20 ms apart: a turn lasts long enough for two continuations to collide.
    let (_a_child, a) = serve(&url, 20).await;
    let (_b_child, b) = serve(&url, 20).await;
    let task_id = ask_dinner(&a).await;

    // Both instances are asked to continue it at once: exactly one runs the turn.
    let answer = params(
        json!([{"kind": "text", "text": "The Japanese one, please."}]),
        None,
        Some(&task_id),
    );
    let (from_a, from_b) = tokio::join!(
        a.call("message/send", answer.clone()),
        b.call("message/send", answer.clone())
    );
    let (won, lost) = match (&from_a["result"], &from_b["result"]) {
        (Value::Object(_), Value::Null) => (&from_a, &from_b),
        (Value::Null, Value::Object(_)) => (&from_b, &from_a),
        _ => panic!("exactly one continuation must win: {from_a} / {from_b}"),
    };
    assert_eq!(lost["error"]["code"], -32004, "{lost}");
    assert_eq!(won["result"]["id"], task_id.as_str());
    let history = won["result"]["history"].as_array().unwrap();
    assert!(
        text_of(&history[1]["parts"]).contains("Sakura House"),
        "{won}"
    );
    // The history holds one continuation: the loser left no trace.
    let kept = b.get_task(&task_id).await;
    assert_eq!(user_messages(&kept), 2, "{kept}");
}

#[tokio::test]
async fn an_instance_killed_mid_stream_has_its_task_failed_by_its_peer_within_the_lease() {
    let Some(cluster) = support::postgres::cluster() else {
        return;
    };
    let url = cluster.database("failover");
    let (mut a_child, a) = serve(&url, 400).await;
    let (_b_child, b) = serve(&url, 0).await;
    let (a_events, task_id) = a.stream_dinner().await;
    let mut b_events = SseReader::new(
        b.open_stream("tasks/resubscribe", json!({"id": task_id}))
            .await,
    );
    b_events.next_event().await.unwrap();

    a_child.start_kill().unwrap();
    a_child.wait().await.unwrap();
    let killed = Instant::now();
    drop(a_events);
    // B's watcher sees the task end, failed, once A's lease expires.
    let (last, _) = read_to_final(&mut b_events).await;
    let took = killed.elapsed();
    assert_eq!(last["status"]["state"], "failed", "{last}");
    let task = b.get_task(&task_id).await;
    assert_eq!(task["status"]["state"], "failed", "{task}");
    assert_eq!(
        text_of(&task["status"]["message"]["parts"]),
        STOPPED_MESSAGE
    );
    let lease = Duration::from_millis(LEASE_MS.parse().unwrap());
    assert!(took < lease * 3, "failover took {took:?}");
    println!("failover after SIGKILL took {took:?} (lease {lease:?})");
    let page = b
        .call_v1("ListTasks", json!({"status": "TASK_STATE_WORKING"}))
        .await;
    assert_eq!(page["result"]["totalSize"], 0, "{page}");
}

#[tokio::test]
async fn a_task_cut_off_by_a_graceful_shutdown_is_stored_failed_and_its_watchers_told() {
    let Some(cluster) = support::postgres::cluster() else {
        return;
    };
    let url = cluster.database("shutdown");
    // Chunks 3 s apart: the reply is still streaming at A's 1 s drain deadline.
    let (mut a_child, a) = serve_with(&url, 3000, &["--drain-deadline", "1"]).await;
    let (_b_child, b) = serve(&url, 0).await;
    let (_a_events, task_id) = a.stream_dinner().await;
    let mut b_events = SseReader::new(
        b.open_stream("tasks/resubscribe", json!({"id": task_id}))
            .await,
    );
    b_events.next_event().await.unwrap();

    let pid = a_child.id().unwrap().to_string();
    let termed = std::process::Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .unwrap();
    assert!(termed.success());
    let status = tokio::time::timeout(Duration::from_secs(20), a_child.wait())
        .await
        .expect("A did not exit after SIGTERM")
        .unwrap();
    assert!(status.success(), "{status}");
    let (last, _) = read_to_final(&mut b_events).await;
    assert_eq!(last["status"]["state"], "failed", "{last}");
    let task = b.get_task(&task_id).await;
    assert_eq!(task["status"]["state"], "failed", "{task}");
}

/// Connections of the test's own, to act on the instances' connections to the database at
/// a URL: one to the `postgres` database (a database cannot refuse connections to itself),
/// one to the tasks' database. Neither is ever terminated.
struct Admin {
    client: tokio_postgres::Client,
    tasks: tokio_postgres::Client,
    database: String,
}

/// The `application_name` of the [`Admin`] connections.
const ADMIN: &str = "a2ui-test-admin";

impl Admin {
    async fn connect(url: &str) -> Admin {
        let (server, database) = url.rsplit_once('/').unwrap();
        let connect = |url: String| async move {
            let (client, connection) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
                .await
                .unwrap();
            tokio::spawn(connection);
            client
        };
        Admin {
            client: connect(format!("{server}/postgres?application_name={ADMIN}")).await,
            tasks: connect(format!("{url}?application_name={ADMIN}")).await,
            database: database.to_owned(),
        }
    }

    /// Whether new connections to the database are accepted (existing ones stay).
    async fn allow_connections(&self, allow: bool) {
        self.client
            .batch_execute(&format!(
                "ALTER DATABASE \"{}\" ALLOW_CONNECTIONS {allow}",
                self.database
            ))
            .await
            .unwrap();
    }

    /// Creates role `name`, a superuser that can log in.
    async fn create_role(&self, name: &str) {
        self.client
            .batch_execute(&format!("CREATE ROLE \"{name}\" LOGIN SUPERUSER"))
            .await
            .unwrap();
    }

    /// Whether role `name` may open new connections (existing ones stay).
    async fn allow_login(&self, name: &str, allow: bool) {
        let login = if allow { "LOGIN" } else { "NOLOGIN" };
        self.client
            .batch_execute(&format!("ALTER ROLE \"{name}\" {login}"))
            .await
            .unwrap();
    }

    /// Kills the other backends of the database that match `filter` (SQL on
    /// `pg_stat_activity`); how many.
    async fn terminate(&self, filter: &str) -> i64 {
        self.client
            .query_one(
                &format!(
                    "SELECT COUNT(pg_terminate_backend(pid)) FROM pg_stat_activity
                     WHERE datname = $1 AND application_name <> $2 AND ({filter})"
                ),
                &[&self.database, &ADMIN],
            )
            .await
            .unwrap()
            .get(0)
    }

    /// The pids of the instances' query connections (a listener's last query is its LISTEN
    /// or the ping it sends now and then).
    async fn query_backends(&self) -> Vec<i32> {
        self.client
            .query(
                "SELECT pid FROM pg_stat_activity WHERE datname = $1 AND application_name <> $2
                   AND query NOT LIKE 'LISTEN%' AND query <> 'SELECT 1'",
                &[&self.database, &ADMIN],
            )
            .await
            .unwrap()
            .iter()
            .map(|row| row.get(0))
            .collect()
    }

    /// The stored state of task `id`.
    async fn state(&self, id: &str) -> String {
        self.tasks
            .query_one("SELECT state FROM a2ui_tasks WHERE id = $1", &[&id])
            .await
            .unwrap()
            .get(0)
    }
}

/// Calls `tasks/get` for `id` on `server` until `done` accepts the response (for at most
/// `within`); the last response.
async fn poll_get(
    server: &TestServer,
    id: &str,
    within: Duration,
    done: impl Fn(&Value) -> bool,
) -> Value {
    let deadline = Instant::now() + within;
    loop {
        // Each call is bounded too: a store waiting for its connection must not hang.
        let response = tokio::time::timeout(
            Duration::from_secs(20),
            server.call("tasks/get", json!({"id": id})),
        )
        .await
        .expect("tasks/get hung");
        if done(&response) || Instant::now() > deadline {
            return response;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// How many of `task`'s history messages are the user's.
fn user_messages(task: &Value) -> usize {
    task["history"].as_array().map_or(0, |history| {
        history
            .iter()
            .filter(|message| message["role"] == "user")
            .count()
    })
}

/// Asks the demo "Dinner?" on `server` as a new task; its id, once it waits for input.
async fn ask_dinner(server: &TestServer) -> String {
    server.ask_dinner().await["id"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn an_instance_whose_database_connections_are_killed_answers_again_once_it_reconnects() {
    let Some(cluster) = support::postgres::cluster() else {
        return;
    };
    let url = cluster.database("reconnect");
    let (_child, server) = serve(&url, 0).await;
    let task_id = ask_dinner(&server).await;

    // The database refuses new connections, and the instance's are killed.
    let admin = Admin::connect(&url).await;
    admin.allow_connections(false).await;
    let killed = admin.terminate("true").await;
    assert!(killed >= 2, "killed {killed} backends");
    // Meanwhile requests fail with an error rather than hang.
    let down = poll_get(&server, &task_id, Duration::from_secs(20), |r| {
        r.get("error").is_some()
    })
    .await;
    assert_eq!(down["error"]["code"], -32603, "{down}");

    // Once the database takes connections again, the same instance answers again.
    admin.allow_connections(true).await;
    let allowed = Instant::now();
    let back = poll_get(&server, &task_id, Duration::from_secs(30), |r| {
        r.get("result").is_some()
    })
    .await;
    println!(
        "answered again {:?} after the database took connections",
        allowed.elapsed()
    );
    assert_eq!(
        back["result"]["status"]["state"], "input-required",
        "{back}"
    );

    // A new task runs and continues through it.
    let new_id = ask_dinner(&server).await;
    let answer = params(
        json!([{"kind": "text", "text": "The Japanese one, please."}]),
        None,
        Some(&new_id),
    );
    let continued = server.result("message/send", answer).await;
    assert_eq!(
        continued["status"]["state"], "input-required",
        "{continued}"
    );
    let history = continued["history"].as_array().unwrap();
    assert!(
        text_of(&history[1]["parts"]).contains("Sakura House"),
        "{continued}"
    );
    let kept = server.get_task(&new_id).await;
    assert_eq!(user_messages(&kept), 2, "both turns are stored: {kept}");
}

#[tokio::test]
async fn a_watcher_gets_the_final_update_of_a_task_that_ended_while_its_listener_was_down() {
    let Some(cluster) = support::postgres::cluster() else {
        return;
    };
    let url = cluster.database("relisten");
    let (_a_child, a) = serve(&url, 50).await;
    let (_b_child, b) = serve(&url, 0).await;
    let (mut a_events, task_id) = a.stream_dinner().await;
    let mut b_events = SseReader::new(
        b.open_stream("tasks/resubscribe", json!({"id": task_id}))
            .await,
    );
    let first = b_events.next_event().await.unwrap();
    assert_eq!(first["result"]["id"], task_id.as_str(), "{first}");

    // The listening connections are killed (the last query of a listener is its LISTEN, or
    // the ping it sends now and then), and cannot come back until the task ended on A.
    let admin = Admin::connect(&url).await;
    admin.allow_connections(false).await;
    let killed = admin
        .terminate("query LIKE 'LISTEN%' OR query = 'SELECT 1'")
        .await;
    assert!(killed >= 2, "killed {killed} listeners");
    let (a_final, _) = read_to_final(&mut a_events).await;
    assert_eq!(a_final["status"]["state"], "input-required", "{a_final}");
    assert_eq!(admin.state(&task_id).await, "input-required");
    admin.allow_connections(true).await;

    // B listens again and tells its subscriber how the task ended.
    let (b_final, _) = read_to_final(&mut b_events).await;
    assert_eq!(b_final["status"]["state"], "input-required", "{b_final}");
    assert!(
        text_of(&b_final["status"]["message"]["parts"]).contains("restaurants"),
        "the final update carries the stored reply: {b_final}"
    );
}

#[tokio::test]
async fn a_task_that_ends_while_its_instance_cannot_reach_the_database_is_stored_once_it_can() {
    let Some(cluster) = support::postgres::cluster() else {
        return;
    };
    let url = cluster.database("outage");
    // A lease far longer than the outage: no peer may fail the task meanwhile.
    let lease = ["--lease-ms", "60000"];
    let (_a_child, a) = serve_with(&url, 50, &lease).await;
    let (_b_child, b) = serve_with(&url, 0, &lease).await;
    let (mut a_events, task_id) = a.stream_dinner().await;
    let mut b_events = SseReader::new(
        b.open_stream("tasks/resubscribe", json!({"id": task_id}))
            .await,
    );
    b_events.next_event().await.unwrap();

    // Every connection of both instances is killed, and none can come back until A's
    // reply ended: A could neither store nor announce it.
    let admin = Admin::connect(&url).await;
    admin.allow_connections(false).await;
    let killed = admin.terminate("true").await;
    assert!(killed >= 4, "killed {killed} backends");
    let (a_final, _) = read_to_final(&mut a_events).await;
    assert_eq!(a_final["status"]["state"], "input-required", "{a_final}");
    assert_eq!(
        admin.state(&task_id).await,
        "working",
        "the row missed the end"
    );
    admin.allow_connections(true).await;

    // Once back, A stores how the task ended and B's subscriber hears of it.
    let (b_final, _) = read_to_final(&mut b_events).await;
    assert_eq!(b_final["status"]["state"], "input-required", "{b_final}");
    let task = poll_get(&b, &task_id, Duration::from_secs(30), |r| {
        r["result"]["status"]["state"] == "input-required"
    })
    .await;
    assert_eq!(
        task["result"]["status"]["state"], "input-required",
        "{task}"
    );
}

#[tokio::test]
async fn an_instance_cut_off_for_longer_than_its_lease_does_not_undo_the_failure_stored_by_its_peer()
 {
    let Some(cluster) = support::postgres::cluster() else {
        return;
    };
    let url = cluster.database("lapse");
    let admin = Admin::connect(&url).await;
    // A connects as a role of its own, so that only A can be kept out.
    let role = format!("{}_a", admin.database);
    admin.create_role(&role).await;
    let a_url = url.replacen("postgres://postgres@", &format!("postgres://{role}@"), 1);
    // Chunks 250 ms apart: A's agent is still replying when A gets the database back.
    let (_a_child, a) = serve(&a_url, 250).await;
    let (_b_child, b) = serve(&url, 0).await;
    let (mut a_events, task_id) = a.stream_dinner().await;
    let mut b_events = SseReader::new(
        b.open_stream("tasks/resubscribe", json!({"id": task_id}))
            .await,
    );
    b_events.next_event().await.unwrap();

    // A loses the database; once A's lease lapses, B fails A's task.
    admin.allow_login(&role, false).await;
    let killed = admin.terminate(&format!("usename = '{role}'")).await;
    assert!(killed >= 2, "killed {killed} backends");
    let (b_final, _) = read_to_final(&mut b_events).await;
    assert_eq!(b_final["status"]["state"], "failed", "{b_final}");

    // A comes back and its agent finishes the reply: the failure B's subscriber saw stands.
    admin.allow_login(&role, true).await;
    let (a_final, _) = read_to_final(&mut a_events).await;
    assert_eq!(a_final["status"]["state"], "input-required", "{a_final}");
    assert_eq!(admin.state(&task_id).await, "failed");
    let task = poll_get(&a, &task_id, Duration::from_secs(30), |r| {
        r.get("result").is_some()
    })
    .await;
    assert_eq!(task["result"]["status"]["state"], "failed", "{task}");
}

/// A process stopped with SIGSTOP; continued when dropped (even when the test fails).
struct Frozen(i32);

impl Frozen {
    fn new(pid: i32) -> Frozen {
        signal(pid, "STOP");
        Frozen(pid)
    }
}

impl Drop for Frozen {
    fn drop(&mut self) {
        signal(self.0, "CONT");
    }
}

/// Sends `signal` (`STOP`, `CONT`) to process `pid`.
fn signal(pid: i32, signal: &str) {
    let sent = std::process::Command::new("kill")
        .args([format!("-{signal}"), pid.to_string()])
        .status()
        .unwrap();
    assert!(sent.success(), "kill -{signal} {pid}");
}

#[tokio::test]
async fn a_connection_that_stops_answering_is_given_up_and_replaced() {
    let Some(cluster) = support::postgres::cluster() else {
        return;
    };
    let url = cluster.database("frozen");
    let (_child, server) = serve(&url, 0).await;
    let task_id = ask_dinner(&server).await;

    // The backend serving the instance's queries freezes: no answer, no reset, as when a
    // firewall drops a connection silently.
    let admin = Admin::connect(&url).await;
    let frozen = admin.query_backends().await;
    assert_eq!(frozen.len(), 1, "{frozen:?}");
    let stopped = Frozen::new(frozen[0]);
    let froze = Instant::now();
    // A request fails within the query bound, and the instance connects again.
    let response = poll_get(&server, &task_id, Duration::from_secs(60), |r| {
        r.get("result").is_some()
    })
    .await;
    let took = froze.elapsed();
    drop(stopped);
    println!("answered again {took:?} after the connection froze");
    assert_eq!(
        response["result"]["status"]["state"], "input-required",
        "{response}"
    );
    assert_ne!(admin.query_backends().await, frozen);
}

fn task(id: &str, state: TaskState, second: u32) -> Task {
    Task {
        id: id.into(),
        context_id: if id.len().is_multiple_of(2) {
            "even"
        } else {
            "odd"
        }
        .into(),
        status: TaskStatus {
            state,
            message: Some(Message::agent(format!("{id}-m"), vec![Part::text("hi")])),
            timestamp: Some(format!("2026-01-01T00:00:{second:02}.000Z")),
        },
        artifacts: vec![Artifact {
            artifact_id: "a".into(),
            name: Some("n".into()),
            description: None,
            parts: vec![Part::text("x")],
            extensions: vec!["urn:x".into()],
            metadata: None,
        }],
        history: vec![Message::agent(
            format!("{id}-h"),
            vec![Part::text("earlier")],
        )],
        metadata: None,
    }
}

#[tokio::test]
async fn a_reply_over_the_parts_budget_and_old_history_over_the_history_budget_are_not_kept() {
    let Some(url) = listing_url() else {
        return;
    };
    let store = store_in_new_schema_with(url, |builder| {
        builder.max_parts_bytes(1_000).max_history_bytes(2_000)
    })
    .await;
    let mut task = task("budget", TaskState::Completed, 1);
    task.status.message = Some(Message::agent("r", vec![Part::text("y".repeat(50_000))]));
    task.history = (0..10)
        .map(|i| Message::agent(format!("h{i}"), vec![Part::text("z".repeat(500))]))
        .collect();
    store.put(&Owner::anonymous(), task).await.unwrap();
    let kept = store
        .get(&Owner::anonymous(), "budget")
        .await
        .unwrap()
        .unwrap();
    let reply = kept.status.message.unwrap();
    assert_eq!(reply.message_id, "r", "the reply keeps its id");
    let notice = reply.parts[0].as_text().unwrap_or_default();
    assert!(notice.contains("not kept"), "{notice}");
    let ids: Vec<&str> = kept.history.iter().map(|m| m.message_id.as_str()).collect();
    assert!(
        (1..10).contains(&ids.len()) && ids.last() == Some(&"h9"),
        "the oldest history goes first: {ids:?}"
    );
}

#[tokio::test]
async fn another_owners_task_is_neither_read_listed_replaced_nor_overwritten() {
    let Some(url) = listing_url() else {
        return;
    };
    let store = store_in_new_schema(url).await;
    let alice = Owner::new("alice");
    let kept = task("mine", TaskState::InputRequired, 1);
    store.put(&alice, kept.clone()).await.unwrap();
    let all = TaskListQuery::default();
    for other in [
        Owner::new("bob"),
        Owner::new("alice").with_tenant("other"),
        Owner::anonymous(),
    ] {
        assert!(store.get(&other, "mine").await.unwrap().is_none());
        let page = store.list(&other, &all).await.unwrap().unwrap();
        assert!(page.tasks.is_empty() && page.total_size == 0, "{other}");
        let replaced = store
            .replace(&other, &kept.status, task("mine", TaskState::Canceled, 2))
            .await
            .unwrap();
        assert!(!replaced, "{other}");
        let overwritten = store
            .put(&other, task("mine", TaskState::Completed, 3))
            .await;
        assert!(
            matches!(
                overwritten,
                Err(a2ui_agent::store::StoreError::OtherOwner { .. })
            ),
            "{overwritten:?}"
        );
    }
    let read = store.get(&alice, "mine").await.unwrap().unwrap();
    assert_eq!(read.status.state, TaskState::InputRequired);
    assert_eq!(
        store.list(&alice, &all).await.unwrap().unwrap().tasks.len(),
        1
    );
}

/// A store on a schema of its own in the `listing` database (a fresh table per case).
async fn store_in_new_schema(url: &str) -> PostgresStore {
    store_in_new_schema_with(url, |builder| builder).await
}

/// As [`store_in_new_schema`], with the builder's options set by `options`.
async fn store_in_new_schema_with(
    url: &str,
    options: impl FnOnce(PostgresBuilder) -> PostgresBuilder,
) -> PostgresStore {
    static CASE: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let schema = format!(
        "case_{}",
        CASE.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    );
    let (client, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(connection);
    client
        .batch_execute(&format!("CREATE SCHEMA {schema}"))
        .await
        .unwrap();
    options(PostgresStore::builder(format!(
        "{url}?options=-csearch_path%3D{schema}"
    )))
    .connect()
    .await
    .unwrap()
}

fn listing_url() -> Option<&'static str> {
    static URL: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    URL.get_or_init(|| support::postgres::cluster().map(|c| c.database("listing")))
        .as_deref()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// SQL listing gives the same pages as the reference `list_page` over the same tasks,
    /// for every filter.
    #[test]
    fn listing_matches_the_reference_pager(
        seconds in proptest::collection::vec(0u32..5, 0..25),
        page_size in 1usize..6,
        by_context in any::<bool>(),
        by_state in proptest::option::of(0usize..3),
        after in proptest::option::of(0u32..5),
        include_artifacts in any::<bool>(),
        history_length in proptest::option::of(0usize..2),
    ) {
        let Some(url) = listing_url() else {
            return Ok(());
        };
        let states = [TaskState::Completed, TaskState::InputRequired, TaskState::Working];
        let tasks: Vec<Task> = seconds
            .iter()
            .enumerate()
            .map(|(i, s)| task(&format!("{i}").repeat(i % 3 + 1), states[i % 3], *s))
            .collect();
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        runtime.block_on(async {
            let store = store_in_new_schema(url).await;
            for task in &tasks {
                store.put(&Owner::anonymous(), task.clone()).await.unwrap();
            }
            let mut query = TaskListQuery {
                context_id: by_context.then(|| "even".to_owned()),
                state: by_state.map(|i| states[i]),
                status_timestamp_after: after.map(|s| format!("2026-01-01T00:00:{s:02}Z")),
                page_size,
                include_artifacts,
                history_length,
                ..TaskListQuery::default()
            };
            loop {
                // What the query does not ask for is left out.
                let mut expected = list_page(tasks.iter(), &query).unwrap();
                for task in &mut expected.tasks {
                    if !include_artifacts {
                        task.artifacts.clear();
                    }
                    let skip = history_length.map_or(0, |keep| task.history.len().saturating_sub(keep));
                    task.history.drain(..skip);
                }
                let got = store.list(&Owner::anonymous(), &query).await.unwrap().unwrap();
                prop_assert_eq!(&got, &expected);
                if got.next_page_token.is_empty() {
                    break;
                }
                query.page_token = Some(got.next_page_token);
            }
            Ok(())
        })?;
    }
}
