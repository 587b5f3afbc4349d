//! Databases written by an older a2ui-agent open and read back after the upgrade.
//!
//! Up to a35bb6e the stores kept messages and artifacts as A2A 0.3 JSON (store format 0);
//! they now write a format of their own. `store_migration/sqlite_v1.db` is a file that
//! a35bb6e's `SqliteStore` wrote (then vacuumed to 512-byte pages), and
//! `store_migration/postgres_v1.sql` a `pg_dump` of the database its `PostgresStore` wrote,
//! both holding the tasks of [`tasks`]: every kind of part, artifacts with and without their
//! options, history, metadata. Each is opened by today's store, which must migrate the
//! schema, read every task back equal, list them, and write a task again in the new format.
//! The PostgreSQL half is skipped without PostgreSQL (see `support::postgres`).
#![cfg(all(feature = "sqlite", feature = "postgres"))]

mod support;

use std::path::PathBuf;
use std::sync::Arc;

use a2ui_agent::a2a::{
    Artifact, FileBody, FileContent, Message, Part, Task, TaskListQuery, TaskState, TaskStatus,
};
use a2ui_agent::store::{Owner, PostgresStore, SqliteStore, TaskStore};
use serde_json::{Map, Value, json};

fn map(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        other => panic!("not an object: {other}"),
    }
}

/// The tasks the fixtures hold, as the older code was given them.
fn tasks() -> Vec<Task> {
    let mime = Arc::new(map(json!({"mimeType": "application/json+a2ui"})));
    let mut user = Message::user("u1", vec![Part::text("Book a table for two")]);
    user.context_id = Some("ctx-1".into());
    user.task_id = Some("t-waiting".into());
    user.reference_task_ids = vec!["t-done".into()];
    user.extensions = vec!["https://a2ui.org/a2a-extension/a2ui/v0.8".into()];
    user.metadata = Some(map(json!({"client": "fixture", "n": 1.5})));
    let surface = json!({"surfaceUpdate": {"surfaceId": "s", "components": [
        {"id": "root", "component": {"Text": {"text": {"literalString": "héllo \"q\" \u{1F600}"}}}}
    ]}});
    let mut reply = Message::agent(
        "r1",
        vec![
            Part::Text {
                text: "Pick a time:".into(),
                metadata: Some(Arc::new(map(json!({"lang": "en"})))),
            },
            Part::Data {
                data: Arc::new(map(
                    json!({"beginRendering": {"surfaceId": "s", "root": "root"}}),
                )),
                metadata: Some(mime.clone()),
            },
            Part::Data {
                data: Arc::new(map(surface)),
                metadata: Some(mime),
            },
            Part::File {
                file: FileContent {
                    body: FileBody::Bytes("aGVsbG8=".into()),
                    mime_type: Some("text/plain".into()),
                    name: Some("hello.txt".into()),
                },
                metadata: None,
            },
            Part::File {
                file: FileContent {
                    body: FileBody::Uri("https://example.com/menu.pdf".into()),
                    mime_type: None,
                    name: None,
                },
                metadata: Some(Arc::new(map(json!({"size": 1234})))),
            },
        ],
    );
    reply.context_id = Some("ctx-1".into());
    reply.task_id = Some("t-waiting".into());
    let waiting = Task {
        id: "t-waiting".into(),
        context_id: "ctx-1".into(),
        status: TaskStatus {
            state: TaskState::InputRequired,
            message: Some(reply),
            timestamp: Some("2026-12-01T09:00:01.000Z".into()),
        },
        artifacts: vec![
            Artifact {
                artifact_id: "a1".into(),
                name: Some("menu".into()),
                description: Some("Tonight's menu".into()),
                parts: vec![
                    Part::text("soup"),
                    Part::data(map(json!({"price": 12, "tags": ["hot", null, true]}))),
                ],
                extensions: vec!["urn:x".into()],
                metadata: Some(map(json!({"k": "v"}))),
            },
            Artifact {
                artifact_id: "a2".into(),
                name: None,
                description: None,
                parts: vec![],
                extensions: vec![],
                metadata: None,
            },
        ],
        history: vec![user, Message::agent("h2", vec![Part::text("earlier")])],
        metadata: Some(map(
            json!({"owner": "fixture", "nested": {"a": [1, 2.25, -3]}}),
        )),
    };
    let done = Task {
        id: "t-done".into(),
        context_id: "ctx-2".into(),
        status: TaskStatus {
            state: TaskState::Completed,
            message: Some(Message::agent("r2", vec![Part::text("Done.")])),
            timestamp: Some("2026-12-01T09:00:02.000Z".into()),
        },
        artifacts: vec![],
        history: vec![Message::user("u2", vec![Part::text("thanks")])],
        metadata: None,
    };
    let bare = Task {
        id: "t-bare".into(),
        context_id: "ctx-2".into(),
        status: TaskStatus {
            state: TaskState::Canceled,
            message: None,
            timestamp: None,
        },
        artifacts: vec![],
        history: vec![],
        metadata: None,
    };
    vec![waiting, done, bare]
}

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/store_migration")
        .join(name)
}

/// The fixture's waiting task once the user answered it (as the store writes it again).
fn answered() -> Task {
    let mut waiting = tasks().remove(0);
    waiting
        .history
        .push(Message::user("u3", vec![Part::text("at eight")]));
    waiting
}

/// Every fixture task reads back equal (the waiting one `answered` once it was) for the
/// anonymous owner, the one of rows from before owners, and for nobody else; the listing
/// has them all (newest first), and a task written again reads back equal too.
async fn reads_back(store: &impl TaskStore, answered_before: bool) {
    let anonymous = Owner::anonymous();
    for mut task in tasks() {
        if answered_before && task.id == "t-waiting" {
            task = answered();
        }
        assert_eq!(
            store.get(&anonymous, &task.id).await.unwrap(),
            Some(task.clone())
        );
        let someone = Owner::new("someone");
        assert_eq!(store.get(&someone, &task.id).await.unwrap(), None);
    }
    let all = TaskListQuery {
        include_artifacts: true,
        ..TaskListQuery::default()
    };
    let page = store.list(&anonymous, &all).await.unwrap().unwrap();
    let ids: Vec<&str> = page.tasks.iter().map(|task| task.id.as_str()).collect();
    assert_eq!(ids, ["t-done", "t-waiting", "t-bare"]);
    store.put(&anonymous, answered()).await.unwrap();
    assert_eq!(
        store.get(&anonymous, "t-waiting").await.unwrap(),
        Some(answered())
    );
}

#[tokio::test]
async fn a_sqlite_file_written_by_the_older_format_reads_back_and_is_rewritten() {
    let dir = std::env::temp_dir().join(format!("a2ui-migration-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("tasks.db");
    std::fs::copy(fixture("sqlite_v1.db"), &path).unwrap();
    reads_back(&SqliteStore::open(&path).unwrap(), false).await;

    // Reopened: still all there; the rewritten row is in the new format, the others as
    // they were written.
    reads_back(&SqliteStore::open(&path).unwrap(), true).await;
    let file = rusqlite::Connection::open(&path).unwrap();
    let version: i64 = file
        .query_row("SELECT MAX(version) FROM schema_migrations", [], |row| {
            row.get(0)
        })
        .unwrap();
    assert_eq!(version, 4, "format 1, the caller column, then push configs");
    let kept = |id: &str| -> String {
        file.query_row("SELECT history FROM tasks WHERE id = ?1", [id], |row| {
            row.get(0)
        })
        .unwrap()
    };
    assert!(
        !kept("t-waiting").contains("\"kind\""),
        "{}",
        kept("t-waiting")
    );
    assert!(
        kept("t-done").contains("\"kind\":\"message\""),
        "{}",
        kept("t-done")
    );
    drop(file);
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn a_postgres_database_written_by_the_older_format_reads_back_and_is_rewritten() {
    let Some(cluster) = support::postgres::cluster() else {
        return;
    };
    let url = cluster.database("migration");
    let (client, connection) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
        .await
        .unwrap();
    let driver = tokio::spawn(connection);
    let dump = std::fs::read_to_string(fixture("postgres_v1.sql")).unwrap();
    client.batch_execute(&dump).await.unwrap();
    drop(client);
    let _ = driver.await;

    let store = PostgresStore::builder(url.as_str())
        .connect()
        .await
        .unwrap();
    reads_back(&store, false).await;
    drop(store);
    let store = PostgresStore::builder(url.as_str())
        .connect()
        .await
        .unwrap();
    reads_back(&store, true).await;

    let (client, connection) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(connection);
    let version: i64 = client
        .query_one("SELECT MAX(version) FROM a2ui_schema_migrations", &[])
        .await
        .unwrap()
        .get(0);
    assert_eq!(
        version, 6,
        "format 1, the caller column, push configs, the push outbox, then watch announcements"
    );
    let kept = |id: &'static str| {
        let client = &client;
        async move {
            let row = client
                .query_one("SELECT history FROM a2ui_tasks WHERE id = $1", &[&id])
                .await
                .unwrap();
            row.get::<_, String>(0)
        }
    };
    let rewritten = kept("t-waiting").await;
    assert!(!rewritten.contains("\"kind\""), "{rewritten}");
    let untouched = kept("t-done").await;
    assert!(untouched.contains("\"kind\":\"message\""), "{untouched}");
}
