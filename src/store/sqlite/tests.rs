//! The SQLite store's own tests: files reopened, one thread, expiry, budgets, paging.

use proptest::prelude::*;
use serde_json::Value;
use std::time::UNIX_EPOCH;

use super::super::row::STOPPED_MESSAGE;
use super::*;
use crate::a2a::{Artifact, Message, Part, TaskState, TaskStatus};
use crate::clock::ManualClock;
use crate::store::list_page;

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
        metadata: Some(serde_json::Map::from_iter([("k".into(), Value::from(1))])),
    }
}

fn block_on<T>(future: impl std::future::Future<Output = T>) -> T {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(future)
}

/// The first column of the first row `sql` returns, read on the store's thread.
fn query<T: rusqlite::types::FromSql + Send + 'static>(
    store: &SqliteStore,
    sql: &'static str,
) -> T {
    block_on(store.blocking(move |c| c.query_row(sql, [], |r| r.get(0)).map_err(sql_error)))
        .unwrap()
}

fn temp_path(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("a2ui-sqlite-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir.join("tasks.db")
}

#[test]
fn a_task_reads_back_as_it_was_stored_after_reopening_the_file() {
    let path = temp_path("roundtrip");
    let stored = task("t1", TaskState::InputRequired, 1);
    block_on(async {
        let store = SqliteStore::open(&path).unwrap();
        store
            .put(&Owner::anonymous(), stored.clone())
            .await
            .unwrap();
    });
    let store = SqliteStore::open(&path).unwrap();
    let read = block_on(store.get(&Owner::anonymous(), "t1")).unwrap();
    assert_eq!(read, Some(stored));
    let version: i64 = query(&store, "SELECT MAX(version) FROM schema_migrations");
    assert_eq!(version, MIGRATIONS.len() as i64);
    let mode: String = query(&store, "PRAGMA journal_mode");
    assert_eq!(mode, "wal");
}

#[test]
fn concurrent_calls_share_one_thread_and_a_panic_fails_only_its_call() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(4)
        .enable_all()
        .build()
        .unwrap();
    let store = SqliteStore::open_in_memory().unwrap();
    let threads = runtime.block_on(async {
        let calls = (0..64).map(|_| {
            let store = store.clone();
            tokio::spawn(async move {
                store
                    .blocking(|_| {
                        std::thread::sleep(Duration::from_millis(1));
                        let thread = std::thread::current();
                        Ok((thread.id(), thread.name().map(str::to_owned)))
                    })
                    .await
            })
        });
        futures::future::join_all(calls).await
    });
    let threads: std::collections::HashSet<_> = threads
        .into_iter()
        .map(|joined| joined.unwrap().unwrap())
        .collect();
    let names: Vec<_> = threads.iter().map(|(_, name)| name.as_deref()).collect();
    assert_eq!(names, [Some("a2ui-sqlite")], "64 calls ran on {threads:?}");

    let panicked = block_on(store.blocking(|_| -> Result<(), StoreError> { panic!("bug") }));
    assert!(
        matches!(panicked, Err(StoreError::Panicked { .. })),
        "{panicked:?}"
    );
    block_on(store.put(&Owner::anonymous(), task("after", TaskState::Working, 1))).unwrap();
    assert!(
        block_on(store.get(&Owner::anonymous(), "after"))
            .unwrap()
            .is_some()
    );
}

#[test]
fn a_listing_decodes_only_what_the_query_asks_for() {
    let store = SqliteStore::open_in_memory().unwrap();
    let mut stored = task("t", TaskState::Completed, 1);
    stored
        .history
        .push(Message::agent("t-h2", vec![Part::text("later")]));
    block_on(store.put(&Owner::anonymous(), stored.clone())).unwrap();
    let whole = TaskListQuery {
        include_artifacts: true,
        ..TaskListQuery::default()
    };
    assert_eq!(
        block_on(store.list(&Owner::anonymous(), &whole))
            .unwrap()
            .unwrap()
            .tasks,
        [stored.clone()]
    );
    // An artifact and an older message that would not decode are not decoded when the
    // query does not want them.
    let sql = r#"UPDATE tasks SET artifacts = '[{"bad":1}]',
        history = '[{"bad":2},' || substr(history, 2)"#;
    block_on(store.blocking(move |c| c.execute(sql, []).map_err(sql_error))).unwrap();
    let listed = TaskListQuery {
        history_length: Some(2),
        ..TaskListQuery::default()
    };
    let page = block_on(store.list(&Owner::anonymous(), &listed))
        .unwrap()
        .unwrap();
    stored.artifacts.clear();
    assert_eq!(page.tasks, [stored]);
    assert!(block_on(store.list(&Owner::anonymous(), &whole)).is_err());
}

#[test]
fn a_file_from_a_newer_schema_is_refused() {
    let path = temp_path("newer");
    drop(SqliteStore::open(&path).unwrap());
    Connection::open(&path)
        .unwrap()
        .execute("INSERT INTO schema_migrations VALUES (999, 'later')", [])
        .unwrap();
    let error = SqliteStore::open(&path).unwrap_err();
    assert!(error.to_string().contains("schema version 999"), "{error}");
}

#[test]
fn tasks_left_running_are_failed_at_open_and_waiting_ones_are_kept() {
    let path = temp_path("orphans");
    block_on(async {
        let store = SqliteStore::open(&path).unwrap();
        for (id, state) in [
            ("w", TaskState::Working),
            ("s", TaskState::Submitted),
            ("i", TaskState::InputRequired),
        ] {
            store
                .put(&Owner::anonymous(), task(id, state, 1))
                .await
                .unwrap();
        }
    });
    let store = SqliteStore::open(&path).unwrap();
    for id in ["w", "s"] {
        let task = block_on(store.get(&Owner::anonymous(), id))
            .unwrap()
            .unwrap();
        assert_eq!(task.status.state, TaskState::Failed);
        assert_eq!(task.status.message.unwrap().text(), STOPPED_MESSAGE);
        // The partial reply the agent had sent is kept in the history.
        assert_eq!(task.history.last().unwrap().message_id, format!("{id}-m"));
    }
    let waiting = block_on(store.get(&Owner::anonymous(), "i"))
        .unwrap()
        .unwrap();
    assert_eq!(waiting.status.state, TaskState::InputRequired);
}

#[test]
fn finished_tasks_expire_after_their_ttl_and_running_ones_never() {
    let clock = Arc::new(ManualClock::new(UNIX_EPOCH + Duration::from_secs(1000)));
    let store = SqliteStore::open_in_memory()
        .unwrap()
        .finished_ttl(Duration::from_secs(60))
        .interrupted_ttl(Duration::from_secs(600))
        .clock(clock.clone());
    block_on(async {
        store
            .put(&Owner::anonymous(), task("done", TaskState::Completed, 1))
            .await
            .unwrap();
        store
            .put(
                &Owner::anonymous(),
                task("asks", TaskState::InputRequired, 2),
            )
            .await
            .unwrap();
        store
            .put(&Owner::anonymous(), task("runs", TaskState::Working, 3))
            .await
            .unwrap();
        clock.advance(Duration::from_secs(59));
        assert!(
            store
                .get(&Owner::anonymous(), "done")
                .await
                .unwrap()
                .is_some()
        );
        clock.advance(Duration::from_secs(1));
        assert!(
            store
                .get(&Owner::anonymous(), "done")
                .await
                .unwrap()
                .is_none()
        );
        let page = store
            .list(&Owner::anonymous(), &TaskListQuery::default())
            .await
            .unwrap()
            .unwrap();
        assert_eq!(page.total_size, 2);
        clock.advance(Duration::from_secs(3600));
        assert!(
            store
                .get(&Owner::anonymous(), "asks")
                .await
                .unwrap()
                .is_none()
        );
        assert!(
            store
                .get(&Owner::anonymous(), "runs")
                .await
                .unwrap()
                .is_some()
        );
        // Expired rows are deleted on the next write, not only hidden.
        store
            .put(&Owner::anonymous(), task("new", TaskState::Working, 4))
            .await
            .unwrap();
    });
    let rows: i64 = query(&store, "SELECT COUNT(*) FROM tasks");
    assert_eq!(rows, 2);
}

#[test]
fn history_is_bounded_by_messages_and_by_bytes_keeping_the_newest() {
    let store = SqliteStore::open_in_memory()
        .unwrap()
        .max_history(3)
        .max_history_bytes(2_000);
    let mut long = task("t", TaskState::InputRequired, 1);
    long.history = (0..10)
        .map(|n| Message::agent(format!("m{n}"), vec![Part::text("x".repeat(100))]))
        .collect();
    block_on(store.put(&Owner::anonymous(), long.clone())).unwrap();
    let kept = block_on(store.get(&Owner::anonymous(), "t"))
        .unwrap()
        .unwrap()
        .history;
    let ids: Vec<_> = kept.iter().map(|m| m.message_id.as_str()).collect();
    assert_eq!(ids, ["m7", "m8", "m9"]);

    long.history = (0..10)
        .map(|n| Message::agent(format!("m{n}"), vec![Part::text("y".repeat(900))]))
        .collect();
    block_on(store.put(&Owner::anonymous(), long.clone())).unwrap();
    let kept = block_on(store.get(&Owner::anonymous(), "t"))
        .unwrap()
        .unwrap()
        .history;
    let ids: Vec<_> = kept.iter().map(|m| m.message_id.as_str()).collect();
    assert_eq!(ids, ["m8", "m9"]);

    long.history = vec![Message::agent("huge", vec![Part::text("z".repeat(10_000))])];
    block_on(store.put(&Owner::anonymous(), long)).unwrap();
    let kept = block_on(store.get(&Owner::anonymous(), "t"))
        .unwrap()
        .unwrap()
        .history;
    assert_eq!(
        kept.len(),
        1,
        "the newest message is kept whatever its size"
    );
    assert_eq!(kept[0].message_id, "huge");
    let notice = kept[0].parts[0].as_text().unwrap_or_default();
    assert!(notice.contains("not kept"), "its parts are not: {notice}");
}

#[test]
fn a_reply_over_the_parts_budget_reads_back_as_a_notice() {
    let store = SqliteStore::open_in_memory()
        .unwrap()
        .max_parts_bytes(1_000);
    let mut task = task("t", TaskState::Completed, 1);
    task.artifacts.clear();
    task.status.message = Some(Message::agent("r", vec![Part::text("y".repeat(50_000))]));
    block_on(store.put(&Owner::anonymous(), task)).unwrap();
    let reply = block_on(store.get(&Owner::anonymous(), "t"))
        .unwrap()
        .unwrap()
        .status
        .message
        .unwrap();
    assert_eq!(reply.message_id, "r");
    let notice = reply.parts[0].as_text().unwrap_or_default();
    assert!(notice.contains("not kept"), "{notice}");
}

#[test]
fn a_page_token_this_store_did_not_write_is_refused() {
    let store = SqliteStore::open_in_memory().unwrap();
    let query = TaskListQuery {
        page_token: Some("nope".into()),
        ..TaskListQuery::default()
    };
    assert_eq!(
        block_on(store.list(&Owner::anonymous(), &query)).unwrap(),
        None
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

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
        let states = [TaskState::Completed, TaskState::InputRequired, TaskState::Working];
        let tasks: Vec<Task> = seconds
            .iter()
            .enumerate()
            .map(|(i, s)| task(&"t".repeat(i % 3 + 1).replace('t', &format!("{i}")), states[i % 3], *s))
            .collect();
        let store = SqliteStore::open_in_memory().unwrap();
        block_on(async {
            for task in &tasks {
                store.put(&Owner::anonymous(), task.clone()).await.unwrap();
            }
        });
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
            expected.tasks = expected
                .tasks
                .into_iter()
                .map(|mut task| {
                    if !include_artifacts {
                        task.artifacts.clear();
                    }
                    task.with_history_length(history_length)
                })
                .collect();
            let got = block_on(store.list(&Owner::anonymous(), &query)).unwrap().unwrap();
            prop_assert_eq!(&got, &expected);
            if got.next_page_token.is_empty() {
                break;
            }
            query.page_token = Some(got.next_page_token);
        }
    }
}

#[test]
fn a_database_from_before_owners_keeps_its_tasks_for_the_anonymous_owner() {
    let connection = Connection::open_in_memory().unwrap();
    connection
        .execute_batch(
            "CREATE TABLE schema_migrations (
                version INTEGER PRIMARY KEY NOT NULL, applied_at TEXT NOT NULL) STRICT;",
        )
        .unwrap();
    connection.execute_batch(MIGRATIONS[0]).unwrap();
    connection
        .execute("INSERT INTO schema_migrations VALUES (1, 'then')", [])
        .unwrap();
    let old = task("old", TaskState::InputRequired, 1);
    let row = Row::encode(&old);
    connection
        .execute(
            "INSERT INTO tasks (id, context_id, state, status_ts, status_message, history,
                artifacts, metadata, expires_ms) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, NULL)",
            params![
                row.id,
                row.context_id,
                row.state,
                row.status_ts,
                row.status_message,
                row.history,
                row.artifacts,
                row.metadata
            ],
        )
        .unwrap();
    let store = SqliteStore::with_connection(connection, SystemTime::now()).unwrap();
    let anonymous = block_on(store.get(&Owner::anonymous(), "old")).unwrap();
    assert_eq!(anonymous, Some(old));
    assert!(
        block_on(store.get(&Owner::new("alice"), "old"))
            .unwrap()
            .is_none()
    );
}

#[test]
fn another_owners_task_is_neither_read_listed_nor_overwritten() {
    let store = SqliteStore::open_in_memory().unwrap();
    let alice = Owner::new("alice");
    let bob = Owner::new("bob");
    let tenant_bob = Owner::new("alice").with_tenant("other");
    let kept = task("t1", TaskState::InputRequired, 1);
    block_on(store.put(&alice, kept.clone())).unwrap();
    let all = TaskListQuery::default();
    for other in [&bob, &tenant_bob, &Owner::anonymous()] {
        assert!(block_on(store.get(other, "t1")).unwrap().is_none());
        let page = block_on(store.list(other, &all)).unwrap().unwrap();
        assert!(page.tasks.is_empty() && page.total_size == 0);
        let overwrite = block_on(store.put(other, task("t1", TaskState::Completed, 2)));
        assert!(
            matches!(overwrite, Err(StoreError::OtherOwner { .. })),
            "{overwrite:?}"
        );
    }
    let read = block_on(store.get(&alice, "t1")).unwrap().unwrap();
    assert_eq!(read.status.state, TaskState::InputRequired);
    let page = block_on(store.list(&alice, &all)).unwrap().unwrap();
    assert_eq!(page.tasks.len(), 1);
}
