//! The tables of the PostgreSQL store, created and upgraded by migrations compiled into the
//! binary, applied under an advisory lock (two instances starting together do not race) and
//! recorded in `a2ui_schema_migrations`.

use std::time::SystemTime;

use tokio_postgres::Client;

use super::{ENGINE, pg_error};
use crate::clock::timestamp;
use crate::store::StoreError;

/// The schema, one step per entry, applied in order; never edit a released step, add one.
/// Text columns that are compared or sorted use the "C" collation: byte order, the order
/// the other stores and the reference pager use whatever the database's locale.
const MIGRATIONS: &[&str] = &[
    "
    CREATE TABLE a2ui_tasks (
        id TEXT COLLATE \"C\" PRIMARY KEY,
        context_id TEXT COLLATE \"C\" NOT NULL,
        state TEXT NOT NULL,
        status_ts TEXT COLLATE \"C\" NOT NULL,
        status_message TEXT,
        history TEXT NOT NULL,
        artifacts TEXT NOT NULL,
        metadata TEXT,
        -- Unix milliseconds after which the task is forgotten; NULL while it runs.
        expires_ms BIGINT,
        -- The instance running it while it is submitted or working.
        owner TEXT
    );
    CREATE INDEX a2ui_tasks_listing ON a2ui_tasks (status_ts DESC, id DESC);
    CREATE INDEX a2ui_tasks_context ON a2ui_tasks (context_id, status_ts DESC, id DESC);
    CREATE INDEX a2ui_tasks_expiry ON a2ui_tasks (expires_ms) WHERE expires_ms IS NOT NULL;
    CREATE INDEX a2ui_tasks_running ON a2ui_tasks (owner) WHERE expires_ms IS NULL;
    CREATE TABLE a2ui_instances (
        id TEXT PRIMARY KEY,
        heartbeat TIMESTAMPTZ NOT NULL
    );
    -- Events too large for a notification; the notification carries the row id.
    CREATE TABLE a2ui_events (
        id BIGSERIAL PRIMARY KEY,
        payload TEXT NOT NULL,
        created TIMESTAMPTZ NOT NULL DEFAULT now()
    );
",
    "
    -- Messages, artifacts and events are written in the store's own format 1 (store::codec);
    -- rows of format 0 (A2A 0.3 JSON) read as they are and are rewritten when next written.
    -- No table changes: the step makes an older a2ui-agent, which cannot read format 1,
    -- refuse the database at start. Upgrade every instance together.
    COMMENT ON TABLE a2ui_tasks IS 'a2ui-agent tasks; messages and artifacts in store format 1';
",
    "
    -- Whose task it is (`Owner::key`; `owner` is the instance running it): every read,
    -- write and listing is scoped to it in SQL. Tasks written before callers were told
    -- apart are the anonymous owner's ('').
    ALTER TABLE a2ui_tasks ADD COLUMN caller TEXT COLLATE \"C\" NOT NULL DEFAULT '';
    DROP INDEX a2ui_tasks_listing;
    DROP INDEX a2ui_tasks_context;
    CREATE INDEX a2ui_tasks_listing ON a2ui_tasks (caller, status_ts DESC, id DESC);
    CREATE INDEX a2ui_tasks_context ON a2ui_tasks (caller, context_id, status_ts DESC, id DESC);
",
    "
    -- Push notification configs, several per task in the order first set (`seq`); read and
    -- written only through their live task of the caller, deleted with it.
    CREATE TABLE a2ui_push_configs (
        task_id TEXT COLLATE \"C\" NOT NULL REFERENCES a2ui_tasks (id) ON DELETE CASCADE,
        id TEXT COLLATE \"C\" NOT NULL,
        seq BIGSERIAL,
        config TEXT NOT NULL,
        PRIMARY KEY (task_id, id)
    );
",
    "
    -- Push deliveries not acknowledged yet, held by the instance sending them (`instance`);
    -- a peer takes over those of an instance whose lease expired (see `outbox`). They go
    -- with their config, and so with their task. A NULL body is the final update of a task
    -- failed by a peer because its instance stopped, held by no instance ('').
    CREATE TABLE a2ui_push_outbox (
        id BIGSERIAL PRIMARY KEY,
        task_id TEXT COLLATE \"C\" NOT NULL,
        config_id TEXT COLLATE \"C\" NOT NULL,
        instance TEXT NOT NULL,
        content_type TEXT NOT NULL,
        body BYTEA,
        FOREIGN KEY (task_id, config_id) REFERENCES a2ui_push_configs (task_id, id)
            ON DELETE CASCADE
    );
    CREATE INDEX a2ui_push_outbox_instance ON a2ui_push_outbox (instance);
    CREATE INDEX a2ui_push_outbox_webhook ON a2ui_push_outbox (task_id, config_id, id);
",
    "
    -- The instances that watch a task they do not run (they follow it for a client): its
    -- runner publishes its chunks only while one does (store::postgres::notify::interest).
    -- A row lives while its instance watches the task and its lease is alive.
    CREATE TABLE a2ui_watchers (
        task_id TEXT COLLATE \"C\" NOT NULL,
        instance TEXT NOT NULL,
        PRIMARY KEY (task_id, instance)
    );
",
];

/// The advisory lock key migrations run under ("a2ui" in ASCII).
const MIGRATION_LOCK: i64 = 0x6132_7569;

/// Applies the migrations the database lacks, under an advisory lock, in one transaction.
pub(super) async fn migrate(client: &mut Client) -> Result<(), StoreError> {
    let transaction = client.transaction().await.map_err(pg_error)?;
    transaction
        .execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])
        .await
        .map_err(pg_error)?;
    transaction
        .batch_execute(
            "CREATE TABLE IF NOT EXISTS a2ui_schema_migrations (
                version BIGINT PRIMARY KEY,
                applied_at TEXT NOT NULL
            )",
        )
        .await
        .map_err(pg_error)?;
    let applied: i64 = transaction
        .query_one(
            "SELECT COALESCE(MAX(version), 0)::BIGINT FROM a2ui_schema_migrations",
            &[],
        )
        .await
        .map_err(pg_error)?
        .try_get(0)
        .map_err(pg_error)?;
    let known = MIGRATIONS.len() as i64;
    if applied > known {
        return Err(StoreError::NewerSchema {
            engine: ENGINE,
            found: applied,
            known,
        });
    }
    for (index, step) in MIGRATIONS.iter().enumerate().skip(applied as usize) {
        transaction.batch_execute(step).await.map_err(pg_error)?;
        transaction
            .execute(
                "INSERT INTO a2ui_schema_migrations (version, applied_at) VALUES ($1, $2)",
                &[&(index as i64 + 1), &timestamp(SystemTime::now())],
            )
            .await
            .map_err(pg_error)?;
    }
    transaction.commit().await.map_err(pg_error)
}
