//! Push notification configs in every store: several per task in the order set, replaced
//! in place by id, bounded per task, scoped to the task's owner, and gone with their task
//! (expiry); SQLite keeps them across a restart, and PostgreSQL instances sharing a
//! database see each other's.
#![cfg(all(feature = "sqlite", feature = "postgres"))]

mod support;

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use a2ui_agent::a2a::{PushConfig, TaskState};
use a2ui_agent::clock::ManualClock;
use a2ui_agent::store::{
    InMemoryStore, Owner, PostgresStore, PushConfigPut, SqliteStore, TaskStore,
};
use support::stores::bare_task;

fn config(id: &str, n: u32) -> PushConfig {
    PushConfig::new(id, format!("https://example.com/{n}"))
}

async fn ids(store: &dyn TaskStore, owner: &Owner, task: &str) -> Option<Vec<String>> {
    let configs = store.push_configs(owner, task).await.unwrap()?;
    Some(
        configs
            .into_iter()
            .map(|c| format!("{}={}", c.id, c.url))
            .collect(),
    )
}

/// What every store does with configs.
async fn behaves(store: &dyn TaskStore) {
    let alice = Owner::new("alice");
    let bob = Owner::new("bob");
    store
        .put(&alice, bare_task("t", TaskState::InputRequired))
        .await
        .unwrap();
    assert_eq!(
        store
            .put_push_config(&alice, "missing", config("a", 1), 2)
            .await
            .unwrap(),
        PushConfigPut::NoTask
    );
    assert_eq!(ids(store, &alice, "t").await, Some(vec![]));
    for (id, n) in [("a", 1), ("b", 2)] {
        let put = store
            .put_push_config(&alice, "t", config(id, n), 2)
            .await
            .unwrap();
        assert_eq!(put, PushConfigPut::Kept);
    }
    assert_eq!(
        store
            .put_push_config(&alice, "t", config("c", 3), 2)
            .await
            .unwrap(),
        PushConfigPut::Full
    );
    store
        .put_push_config(&alice, "t", config("a", 4), 2)
        .await
        .unwrap();
    let expected = vec![
        "a=https://example.com/4".to_owned(),
        "b=https://example.com/2".into(),
    ];
    assert_eq!(ids(store, &alice, "t").await, Some(expected.clone()));
    // An update of the task keeps its configs.
    store
        .put(&alice, bare_task("t", TaskState::Working))
        .await
        .unwrap();
    assert_eq!(ids(store, &alice, "t").await, Some(expected));
    // Another owner finds no task at all.
    assert_eq!(ids(store, &bob, "t").await, None);
    assert_eq!(
        store
            .put_push_config(&bob, "t", config("x", 9), 2)
            .await
            .unwrap(),
        PushConfigPut::NoTask
    );
    assert_eq!(
        store.delete_push_config(&bob, "t", "a").await.unwrap(),
        None
    );
    assert_eq!(
        store.delete_push_config(&alice, "t", "a").await.unwrap(),
        Some(true)
    );
    assert_eq!(
        store.delete_push_config(&alice, "t", "a").await.unwrap(),
        Some(false)
    );
    assert_eq!(ids(store, &alice, "t").await.map(|ids| ids.len()), Some(1));
}

#[tokio::test]
async fn the_in_memory_store_keeps_configs_with_their_task() {
    behaves(&InMemoryStore::new()).await;
    let clock = Arc::new(ManualClock::new(SystemTime::now()));
    let store = InMemoryStore::new()
        .idle_timeout(Duration::from_secs(60))
        .clock(clock.clone());
    expires(&store, &clock).await;
}

#[tokio::test]
async fn sqlite_keeps_configs_across_a_restart_and_forgets_them_with_the_task() {
    behaves(&SqliteStore::open_in_memory().unwrap()).await;
    let dir = std::env::temp_dir().join(format!("a2ui-push-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("tasks.db");
    let owner = Owner::new("alice");
    {
        let store = SqliteStore::open(&path).unwrap();
        store
            .put(&owner, bare_task("kept", TaskState::InputRequired))
            .await
            .unwrap();
        store
            .put_push_config(&owner, "kept", config("a", 1), 5)
            .await
            .unwrap();
    }
    let store = SqliteStore::open(&path).unwrap();
    assert_eq!(
        ids(&store, &owner, "kept").await,
        Some(vec!["a=https://example.com/1".into()])
    );
    drop(store);
    let _ = std::fs::remove_dir_all(&dir);
    let clock = Arc::new(ManualClock::new(SystemTime::now()));
    let store = SqliteStore::open_in_memory()
        .unwrap()
        .finished_ttl(Duration::from_secs(60))
        .clock(clock.clone());
    expires(&store, &clock).await;
}

/// A finished task's configs go when it expires; a new task of the same id has none.
async fn expires(store: &dyn TaskStore, clock: &ManualClock) {
    let owner = Owner::anonymous();
    store
        .put(&owner, bare_task("old", TaskState::Completed))
        .await
        .unwrap();
    store
        .put_push_config(&owner, "old", config("a", 1), 5)
        .await
        .unwrap();
    clock.advance(Duration::from_secs(120));
    assert_eq!(ids(store, &owner, "old").await, None);
    // Another write sweeps the expired rows; the id comes back without configs.
    store
        .put(&owner, bare_task("other", TaskState::Completed))
        .await
        .unwrap();
    store
        .put(&owner, bare_task("old", TaskState::InputRequired))
        .await
        .unwrap();
    assert_eq!(ids(store, &owner, "old").await, Some(vec![]));
}

#[tokio::test]
async fn postgres_instances_see_each_others_configs() {
    let Some(cluster) = support::postgres::cluster() else {
        println!("skipped: PostgreSQL is not installed");
        return;
    };
    let url = cluster.database("push");
    let one = PostgresStore::builder(url.as_str())
        .connect()
        .await
        .unwrap();
    behaves(&one).await;
    let two = PostgresStore::builder(url.as_str())
        .connect()
        .await
        .unwrap();
    let owner = Owner::new("alice");
    one.put(&owner, bare_task("shared", TaskState::InputRequired))
        .await
        .unwrap();
    two.put_push_config(&owner, "shared", config("from-two", 2), 5)
        .await
        .unwrap();
    assert_eq!(
        ids(&one, &owner, "shared").await,
        Some(vec!["from-two=https://example.com/2".into()])
    );
}

#[tokio::test]
async fn the_in_memory_store_counts_configs_in_its_bytes() {
    let store = InMemoryStore::new();
    let owner = Owner::anonymous();
    store
        .put(&owner, bare_task("t", TaskState::InputRequired))
        .await
        .unwrap();
    let bare = store.bytes();
    let mut big = config("a", 1);
    big.token = Some("k".repeat(4000));
    store.put_push_config(&owner, "t", big, 5).await.unwrap();
    assert!(
        store.bytes() >= bare + 4000,
        "{} after {bare}",
        store.bytes()
    );
    // An update of the task carries them, counted once.
    let with_config = store.bytes();
    store
        .put(&owner, bare_task("t", TaskState::InputRequired))
        .await
        .unwrap();
    assert_eq!(store.bytes(), with_config);
    store.delete_push_config(&owner, "t", "a").await.unwrap();
    assert_eq!(store.bytes(), bare);
}
