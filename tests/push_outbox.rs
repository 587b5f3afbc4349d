//! The push outbox of PostgreSQL: deliveries an instance holds are left alone while it
//! lives, taken over whole (every delivery of a webhook, in the order held, by exactly one
//! of two instances asking at once) once its lease expired, forgotten once released, and
//! gone with their config; and `serve --push` instances on one database: an instance
//! killed with SIGKILL while its deliveries to a webhook that is down are pending has them
//! delivered by its peer, in order, exactly as a healthy webhook of the same task got them.
//! Skipped without PostgreSQL (see `support::postgres`).
#![cfg(feature = "cli")]

mod support;

use std::time::Duration;

use a2ui_agent::a2a::{PushConfig, TaskState};
use a2ui_agent::store::{
    Adopted, Held, Owner, PendingUpdate, PostgresStore, STOPPED_MESSAGE, TaskStore,
};
use serde_json::json;
use support::stores::bare_task;
use support::webhook::{Behaviour, Received, Receiver};
use support::{TestServer, serve_store, text_message_v1, text_of};

/// The lease of the `serve` instances: short, so a killed one is taken over within a second.
const LEASE: Duration = Duration::from_millis(600);
/// The lease of the stores the store-level test opens: long enough that a live one is never
/// taken for dead on a loaded machine (its beat every third of it may slip).
const STORE_LEASE: Duration = Duration::from_secs(2);

async fn store(url: &str) -> PostgresStore {
    PostgresStore::builder(url)
        .lease(STORE_LEASE)
        .connect()
        .await
        .unwrap()
}

fn held<'a>(task_id: &'a str, config_id: &'a str, body: &'a str) -> Held<'a> {
    Held {
        task_id,
        config_id,
        content_type: "application/a2a+json",
        body: body.as_bytes(),
    }
}

/// The body of an update the holder encoded (checking its content type).
fn encoded(adopted: &Adopted) -> &str {
    match &adopted.update {
        PendingUpdate::Encoded { content_type, body } => {
            assert_eq!(content_type, "application/a2a+json");
            std::str::from_utf8(body).unwrap()
        }
        PendingUpdate::Stopped(task) => panic!("not an encoded update: {task:?}"),
    }
}

#[tokio::test]
async fn a_stopped_instances_deliveries_are_taken_over_whole_in_order_by_one_peer() {
    let Some(cluster) = support::postgres::cluster() else {
        return;
    };
    let url = cluster.database("outbox_adopt");
    let alice = Owner::new("alice").with_tenant("acme");
    let a = store(&url).await;
    a.put(&alice, bare_task("t", TaskState::InputRequired))
        .await
        .unwrap();
    a.put(&alice, bare_task("u", TaskState::InputRequired))
        .await
        .unwrap();
    for id in ["one", "two"] {
        let config = PushConfig::new(id, format!("https://example.com/{id}"));
        a.put_push_config(&alice, "t", config, 10).await.unwrap();
    }
    let other = PushConfig::new("one", "https://example.com/u");
    a.put_push_config(&alice, "u", other, 10).await.unwrap();
    let outbox = a.push_outbox().unwrap();
    // Two tasks' deliveries in one call, as the push sender batches them.
    let ids = outbox
        .hold(&[
            held("t", "one", "1"),
            held("u", "one", "u1"),
            held("t", "two", "a"),
            held("t", "gone", "x"),
            held("t", "one", "2"),
            held("t", "one", "3"),
        ])
        .await
        .unwrap();
    assert_eq!(ids.len(), 6);
    assert!(
        ids[3].is_none(),
        "a delivery to a config that does not exist is not kept"
    );
    assert!(ids.iter().enumerate().all(|(n, id)| n == 3 || id.is_some()));
    // The first of "t"'s and "u"'s only delivery are done.
    outbox
        .release(&[ids[0].unwrap(), ids[1].unwrap()])
        .await
        .unwrap();

    let b = store(&url).await;
    let c = store(&url).await;
    let (b_outbox, c_outbox) = (b.push_outbox().unwrap(), c.push_outbox().unwrap());
    assert!(
        b_outbox.adopt().await.unwrap().is_empty(),
        "nothing is taken from a live instance"
    );
    drop((outbox, a));
    tokio::time::sleep(STORE_LEASE * 2).await;
    let (from_b, from_c) = tokio::join!(b_outbox.adopt(), c_outbox.adopt());
    let mut taken = from_b.unwrap();
    let from_c = from_c.unwrap();
    for webhook in ["one", "two"] {
        let in_b = taken.iter().filter(|d| d.config.id == webhook).count();
        let in_c = from_c.iter().filter(|d| d.config.id == webhook).count();
        assert!(in_b == 0 || in_c == 0, "{webhook}'s deliveries were split");
    }
    taken.extend(from_c);
    taken.sort_by_key(|d| d.id);
    let bodies: Vec<(String, String)> = taken
        .iter()
        .map(|d| (d.config.id.clone(), encoded(d).to_owned()))
        .collect();
    let want = [("two", "a"), ("one", "2"), ("one", "3")];
    assert_eq!(
        bodies,
        want.map(|(c, b)| (c.to_owned(), b.to_owned())),
        "the delivered one is gone, the rest are taken in the order held"
    );
    for delivery in &taken {
        assert_eq!(delivery.owner_key, alice.key());
        assert_eq!(delivery.task_id, "t");
        assert_eq!(
            delivery.config.url,
            format!("https://example.com/{}", delivery.config.id)
        );
    }
    assert!(b_outbox.adopt().await.unwrap().is_empty(), "taken once");
    assert!(c_outbox.adopt().await.unwrap().is_empty(), "taken once");

    // Deleting a config drops its pending deliveries.
    b.delete_push_config(&alice, "t", "one").await.unwrap();
    drop((b_outbox, b));
    tokio::time::sleep(STORE_LEASE * 2).await;
    let left: Vec<String> = c_outbox
        .adopt()
        .await
        .unwrap()
        .into_iter()
        .map(|d| d.config.id)
        .collect();
    // "one"'s deliveries went with it; "two"'s is taken again only if B held it.
    assert!(left.iter().all(|id| id == "two"), "{left:?}");
}

/// `serve --push` on `url`, demo chunks `delay_ms` apart, allowing webhooks on 127.0.0.1
/// and retrying for long.
/// A peer that took a stopped instance's deliveries while this instance's takeover waited
/// for them keeps them: the takeover, which read them as the stopped one's, looks again at
/// who holds them once the peer's change landed. (PostgreSQL rechecks an UPDATE's row after
/// a concurrent change, but not what it joined that row with: a staleness check written as
/// a join passed for the peer's rows too, and two instances sent one webhook's updates.)
#[tokio::test]
async fn deliveries_a_live_peer_took_while_a_takeover_waited_stay_the_peers() {
    let Some(cluster) = support::postgres::cluster() else {
        return;
    };
    let url = cluster.database("outbox_taken_meanwhile");
    let alice = Owner::new("alice");
    let a = store(&url).await;
    a.put(&alice, bare_task("t", TaskState::InputRequired))
        .await
        .unwrap();
    let config = PushConfig::new("one", "https://example.com/one");
    a.put_push_config(&alice, "t", config, 10).await.unwrap();
    let outbox = a.push_outbox().unwrap();
    let ids = outbox
        .hold(&[held("t", "one", "1"), held("t", "one", "2")])
        .await
        .unwrap();
    assert!(ids.iter().all(Option::is_some));
    drop((outbox, a));
    tokio::time::sleep(STORE_LEASE * 2).await;

    // A peer, live for the whole test, takes the rows in a transaction it keeps open.
    let (mut peer, connection) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(connection);
    peer.execute(
        "INSERT INTO a2ui_instances (id, heartbeat) VALUES ('peer', now() + interval '1 hour')",
        &[],
    )
    .await
    .unwrap();
    let taking = peer.transaction().await.unwrap();
    let taken = taking
        .execute(
            "UPDATE a2ui_push_outbox SET instance = 'peer' WHERE task_id = 't'",
            &[],
        )
        .await
        .unwrap();
    assert_eq!(taken, 2);

    // This instance's takeover reads the rows as the stopped instance's, and waits for them.
    let c = store(&url).await;
    let c_outbox = c.push_outbox().unwrap();
    let takeover = tokio::spawn(async move { c_outbox.adopt().await.map(|a| a.len()) });
    let (watcher, connection) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(connection);
    let mut waited = false;
    // Up to 10 s: a loaded machine may take a while to reach the statement.
    for _ in 0..500 {
        let row = watcher
            .query_one(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()
                   AND wait_event_type = 'Lock' AND query LIKE 'UPDATE a2ui_push_outbox%'",
                &[],
            )
            .await
            .unwrap();
        if row.get::<_, i64>(0) > 0 {
            waited = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(waited, "the takeover never waited for the peer's rows");
    taking.commit().await.unwrap();
    let adopted = takeover.await.unwrap().unwrap();
    assert_eq!(adopted, 0, "the takeover took deliveries a live peer holds");
    let holders = watcher
        .query("SELECT DISTINCT instance FROM a2ui_push_outbox", &[])
        .await
        .unwrap();
    let holders: Vec<String> = holders.iter().map(|row| row.get(0)).collect();
    assert_eq!(holders, ["peer"]);
    drop(c);
}

async fn serve(url: &str, delay_ms: u64) -> (tokio::process::Child, TestServer) {
    let lease = LEASE.as_millis().to_string();
    let push = [
        "--lease-ms",
        &lease,
        "--push",
        "--push-allow-http",
        "--push-allow-host",
        "127.0.0.1",
        "--push-max-attempts",
        "1000",
        "--push-first-retry",
        "0.05",
        "--push-timeout",
        "2",
    ];
    serve_store(url, delay_ms, &push).await
}

/// Whether the task's last update (it waits for the user's choice) arrived.
fn settled(received: &[Received]) -> bool {
    received
        .iter()
        .any(|r| r.body["statusUpdate"]["status"]["state"] == "TASK_STATE_INPUT_REQUIRED")
}

#[tokio::test]
async fn a_killed_instances_pending_deliveries_are_made_by_its_peer_in_order() {
    let Some(cluster) = support::postgres::cluster() else {
        return;
    };
    let url = cluster.database("outbox_kill");
    let (mut a_child, a) = serve(&url, 40).await;
    let (_b_child, _b) = serve(&url, 40).await;
    let healthy = Receiver::start(Behaviour::Ack).await;
    let down = Receiver::start(Behaviour::Closed).await;

    // The task runs on A (a demo answer, a chunk every 40 ms); `healthy` is given with the
    // message, `down` while it runs.
    let mut send = text_message_v1("dinner for two");
    send["configuration"] = json!({
        "returnImmediately": true,
        "taskPushNotificationConfig": {"id": "healthy", "url": healthy.url, "token": "h"},
    });
    let answer = a.call_v1("SendMessage", send).await;
    let task_id = answer["result"]["task"]["id"]
        .as_str()
        .unwrap_or_else(|| panic!("{answer}"))
        .to_owned();
    let config = json!({"taskId": task_id, "id": "down", "url": down.url, "token": "d"});
    let set = a.call_v1("CreateTaskPushNotificationConfig", config).await;
    assert!(set.get("result").is_some(), "{set}");
    let sent_by_a = healthy.wait_for(settled).await;
    assert!(down.seen() > 0, "A tried the webhook that is down");
    assert!(down.received().is_empty());

    // A dies with every delivery to `down` pending; once its lease expired, B makes them.
    a_child.start_kill().unwrap();
    a_child.wait().await.unwrap();
    down.open();
    let sent_by_b = down.wait_for(settled).await;
    let bodies = |received: &[Received]| -> Vec<String> {
        received.iter().map(|r| r.body.to_string()).collect()
    };
    // `down` was set after the task started: it has the updates from then on, the same
    // payloads in the same order as `healthy`'s last ones, each exactly once.
    let tail = &sent_by_a[sent_by_a.len() - sent_by_b.len()..];
    assert_eq!(bodies(&sent_by_b), bodies(tail));
    assert!(sent_by_b.len() >= 2, "{}", sent_by_b.len());
    for r in &sent_by_b {
        assert_eq!(r.headers["x-a2a-notification-token"], "d");
    }
    println!(
        "{} updates pending on the killed instance were delivered by its peer",
        sent_by_b.len()
    );
}

#[tokio::test]
async fn the_webhooks_of_a_task_failed_because_its_instance_was_killed_are_told_by_the_peer() {
    let Some(cluster) = support::postgres::cluster() else {
        return;
    };
    let url = cluster.database("outbox_stopped");
    let (mut a_child, a) = serve(&url, 300).await;
    let (_b_child, _b) = serve(&url, 0).await;
    let hook = Receiver::start(Behaviour::Ack).await;
    let mut send = text_message_v1("dinner for two");
    send["configuration"] = json!({
        "returnImmediately": true,
        "taskPushNotificationConfig": {"url": hook.url},
    });
    let answer = a.call_v1("SendMessage", send).await;
    assert!(answer["result"]["task"]["id"].is_string(), "{answer}");
    // A is killed while the task runs (a chunk every 300 ms); B fails the task once A's
    // lease expired, and the webhook hears it as the task's last update.
    hook.wait_for(|received| received.len() >= 3).await;
    a_child.start_kill().unwrap();
    a_child.wait().await.unwrap();
    let received = hook
        .wait_for(|received| {
            received
                .iter()
                .any(|r| r.body["statusUpdate"]["status"]["state"] == "TASK_STATE_FAILED")
        })
        .await;
    let last = &received.last().unwrap().body["statusUpdate"];
    assert_eq!(last["status"]["state"], "TASK_STATE_FAILED", "{last}");
    assert_eq!(
        text_of(&last["status"]["message"]["parts"]),
        STOPPED_MESSAGE,
        "{last}"
    );
    assert_eq!(last["taskId"], answer["result"]["task"]["id"]);
}

#[tokio::test]
async fn a_webhook_set_through_another_instance_gets_the_running_tasks_next_updates() {
    let Some(cluster) = support::postgres::cluster() else {
        return;
    };
    let url = cluster.database("outbox_remote_set");
    let (_a_child, a) = serve(&url, 100).await;
    let (_b_child, b) = serve(&url, 0).await;
    let hook = Receiver::start(Behaviour::Ack).await;
    let mut send = text_message_v1("dinner for two");
    send["configuration"] = json!({"returnImmediately": true});
    let answer = a.call_v1("SendMessage", send).await;
    let task_id = answer["result"]["task"]["id"]
        .as_str()
        .unwrap_or_else(|| panic!("{answer}"))
        .to_owned();
    // The task runs on A with no webhook (A's push sender has read that it has none); the
    // webhook is set through B while it runs.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let config = json!({"taskId": task_id, "id": "late", "url": hook.url});
    let set = b.call_v1("CreateTaskPushNotificationConfig", config).await;
    assert!(set.get("result").is_some(), "{set}");
    let received = hook.wait_for(settled).await;
    let chunks = received
        .iter()
        .filter(|r| r.body["statusUpdate"]["status"]["message"].is_object())
        .count();
    assert!(
        chunks >= 3,
        "only {chunks} chunks reached the webhook set through B"
    );
    assert!(
        received
            .iter()
            .all(|r| r.body["statusUpdate"]["taskId"] == task_id.as_str())
    );
}
