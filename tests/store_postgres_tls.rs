//! PostgreSQL over TLS, as managed services require it: a throwaway cluster with `ssl=on`
//! and a certificate for 127.0.0.1 signed by a CA made for the run (see
//! `support::postgres::tls_cluster`). `verify-full` with that CA connects encrypted, and
//! `serve --store 'postgres://...?sslmode=verify-full&sslrootcert=...'` serves tasks through
//! it; another CA, or a host the certificate does not name, is refused with an error that
//! says why; `verify-ca` does not compare the name; `require` encrypts without checking;
//! `sslmode=disable` still connects in the clear. Skipped without PostgreSQL or `openssl`.
#![cfg(feature = "cli")]

mod support;

use std::path::Path;
use std::time::Duration;

use a2ui_agent::a2a::{Message, Part, Task, TaskState, TaskStatus};
use a2ui_agent::store::{Owner, PostgresStore, TaskStore};
use support::{TestServer, serve_command, spawn_binary};

/// `database` on the TLS cluster as `host`, with `params` (already URL-encoded).
fn url(port: u16, host: &str, database: &str, params: &str) -> String {
    format!("postgres://postgres@{host}:{port}/{database}?{params}")
}

fn trusting(ca: &Path, mode: &str) -> String {
    format!("sslmode={mode}&sslrootcert={}", ca.display())
}

/// The database name of a URL `support::postgres` made.
fn database_of(url: &str) -> &str {
    url.rsplit('/').next().unwrap_or_default()
}

/// How many connections to `database` are encrypted, and how many are not.
async fn connections(port: u16, database: &str) -> (i64, i64) {
    let plain = url(port, "127.0.0.1", "postgres", "sslmode=disable");
    let (client, connection) = tokio_postgres::connect(&plain, tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(connection);
    let row = client
        .query_one(
            "SELECT count(*) FILTER (WHERE s.ssl), count(*) FILTER (WHERE NOT s.ssl)
             FROM pg_stat_ssl s JOIN pg_stat_activity a USING (pid) WHERE a.datname = $1",
            &[&database],
        )
        .await
        .unwrap();
    (row.get(0), row.get(1))
}

fn task(id: &str) -> Task {
    Task {
        id: id.into(),
        context_id: "c".into(),
        status: TaskStatus {
            state: TaskState::InputRequired,
            message: Some(Message::agent("m", vec![Part::text("over TLS")])),
            timestamp: Some("2026-12-01T10:00:00.000Z".into()),
        },
        artifacts: vec![],
        history: vec![],
        metadata: None,
    }
}

async fn connect(url: &str) -> Result<PostgresStore, String> {
    PostgresStore::builder(url)
        .connect()
        .await
        .map_err(|error| error.to_string())
}

#[tokio::test]
async fn verify_full_with_the_right_ca_connects_encrypted_and_anything_else_says_why_not() {
    let Some(tls) = support::postgres::tls_cluster() else {
        return;
    };
    let port = tls.postgres.port();
    let database = tls.postgres.database("tls");
    let database = database_of(&database);

    let store = connect(&url(
        port,
        "127.0.0.1",
        database,
        &trusting(&tls.ca, "verify-full"),
    ))
    .await
    .unwrap();
    store.put(&Owner::anonymous(), task("t")).await.unwrap();
    assert_eq!(
        store.get(&Owner::anonymous(), "t").await.unwrap(),
        Some(task("t"))
    );
    // Both of the store's connections (queries, notifications) are encrypted.
    assert_eq!(connections(port, database).await, (2, 0));
    drop(store);

    // Another CA: refused, saying the issuer is unknown.
    let error = connect(&url(
        port,
        "127.0.0.1",
        database,
        &trusting(&tls.other_ca, "verify-full"),
    ))
    .await
    .unwrap_err();
    assert!(
        error.contains("TLS") && error.contains("not signed by a CA of sslrootcert"),
        "{error}"
    );
    println!("with another CA: {error}");
    let error = connect(&url(
        port,
        "127.0.0.1",
        database,
        &trusting(&tls.other_ca, "verify-ca"),
    ))
    .await
    .unwrap_err();
    assert!(
        error.contains("not signed by a CA of sslrootcert"),
        "{error}"
    );

    // The certificate names 127.0.0.1, not localhost: verify-full refuses the name,
    // verify-ca does not look at it.
    let error = connect(&url(
        port,
        "localhost",
        database,
        &trusting(&tls.ca, "verify-full"),
    ))
    .await
    .unwrap_err();
    assert!(
        error.contains("not valid for name \"localhost\""),
        "{error}"
    );
    assert!(error.contains("does not name the host"), "{error}");
    println!("with another name: {error}");
    let store = connect(&url(
        port,
        "localhost",
        database,
        &trusting(&tls.ca, "verify-ca"),
    ))
    .await
    .unwrap();
    assert_eq!(
        store.get(&Owner::anonymous(), "t").await.unwrap(),
        Some(task("t"))
    );
    drop(store);

    // require: encrypted, nothing checked.
    let store = connect(&url(port, "localhost", database, "sslmode=require"))
        .await
        .unwrap();
    assert_eq!(
        store.get(&Owner::anonymous(), "t").await.unwrap(),
        Some(task("t"))
    );
    drop(store);

    // disable: in the clear, even though the server has TLS.
    let store = connect(&url(port, "127.0.0.1", database, "sslmode=disable"))
        .await
        .unwrap();
    assert_eq!(
        store.get(&Owner::anonymous(), "t").await.unwrap(),
        Some(task("t"))
    );
    let (encrypted, plain) = connections(port, database).await;
    assert_eq!(plain, 2, "{encrypted} encrypted");
}

#[tokio::test]
async fn serve_keeps_its_tasks_in_postgres_over_verified_tls() {
    let Some(tls) = support::postgres::tls_cluster() else {
        return;
    };
    let port = tls.postgres.port();
    let database = tls.postgres.database("serve_tls");
    let database = database_of(&database);
    let store = url(
        port,
        "127.0.0.1",
        database,
        &trusting(&tls.ca, "verify-full"),
    );
    let command = serve_command(&[
        "--min-delay-ms",
        "0",
        "--max-delay-ms",
        "0",
        "--store",
        &store,
    ]);
    let (_child, url) = spawn_binary(command, Duration::from_secs(30)).await;
    let server = TestServer::external(url);
    let asked = server.ask_dinner().await;
    let id = asked["id"].as_str().unwrap_or_default();
    let stored = server.get_task(id).await;
    assert_eq!(stored["id"], id, "{stored}");
    assert_eq!(stored["status"]["state"], "input-required", "{stored}");
    let (encrypted, plain) = connections(port, database).await;
    assert!(
        encrypted >= 2 && plain == 0,
        "{encrypted} encrypted, {plain} plain"
    );
}
