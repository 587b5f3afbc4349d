//! A durable [`TaskStore`] in one SQLite file, for a server on one machine.
//!
//! The in-memory store forgets every conversation waiting in `input-required` when the
//! process stops; this one keeps them in a file, so `serve --store sqlite:tasks.db` picks them
//! up after a restart. The file is in WAL mode (readers do not wait for the writer, and a
//! crash loses at most the transaction being written). The schema is created and upgraded by
//! migrations compiled into the binary, applied in order at open and recorded in a
//! `schema_migrations` table.
//!
//! SQLite calls block, so the connection lives on a thread of its own (the *worker*) and each
//! call is a job sent to it over a bounded channel, answered on a oneshot. One connection is
//! all a single process needs (SQLite has one writer anyway), and one thread bounds what
//! concurrent reads cost: with `spawn_blocking` per call, 16 concurrent reads parked 16+
//! threads of tokio's blocking pool on the connection's mutex, each decoding tasks in its own
//! malloc arena, and a burst of listings left the process hundreds of MB larger. Jobs beyond
//! the queue's room wait in their callers (async), not in threads.
//!
//! A task the previous process left `submitted` or `working` cannot be finished by anyone:
//! its agent died with the process. [`SqliteStore::open`] stores such tasks as `failed`, with
//! a status message saying the server stopped while the task ran. Tasks waiting for input
//! continue normally.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use futures::future::BoxFuture;
use rusqlite::{Connection, OptionalExtension, params};
use tokio::sync::{mpsc, oneshot};

use super::budget::Budget;
use super::codec::state_name;
use super::projection::Projection;
use super::row::{COLUMNS, Limits, Row, add_ms, millis, stopped};
use super::{StoreError, TaskStore};
use crate::a2a::{PushConfig, Task, TaskListQuery, TaskPage};
use crate::clock::{Clock, SystemClock, timestamp};
use crate::store::PushConfigPut;
use crate::store::page::{sql_page, sql_page_start};
use crate::store::{Owner, normalized_timestamp};

/// The schema, one step per entry, applied in order; never edit a released step, add one.
const MIGRATIONS: &[&str] = &[
    "
    CREATE TABLE tasks (
        id TEXT PRIMARY KEY NOT NULL,
        context_id TEXT NOT NULL,
        state TEXT NOT NULL,
        -- The status timestamp: the listing order (newest first, then id).
        status_ts TEXT NOT NULL,
        status_message TEXT,
        history TEXT NOT NULL,
        artifacts TEXT NOT NULL,
        metadata TEXT,
        -- Unix milliseconds after which the task is forgotten; NULL while it runs.
        expires_ms INTEGER
    ) STRICT;
    CREATE INDEX tasks_listing ON tasks (status_ts DESC, id DESC);
    CREATE INDEX tasks_context ON tasks (context_id, status_ts DESC, id DESC);
    CREATE INDEX tasks_expiry ON tasks (expires_ms) WHERE expires_ms IS NOT NULL;
",
    "
    -- Messages and artifacts are written in the store's own format 1 (store::codec); rows
    -- of format 0 (A2A 0.3 JSON) read as they are and are rewritten when next written. The
    -- step changes no table: it makes an older a2ui-agent, which cannot read format 1,
    -- refuse the file.
",
    "
    -- Whose task it is (`Owner::key`): every read and listing is scoped to it in SQL. Tasks
    -- written before callers were told apart are the anonymous owner's ('').
    ALTER TABLE tasks ADD COLUMN caller TEXT NOT NULL DEFAULT '';
    DROP INDEX tasks_listing;
    DROP INDEX tasks_context;
    CREATE INDEX tasks_listing ON tasks (caller, status_ts DESC, id DESC);
    CREATE INDEX tasks_context ON tasks (caller, context_id, status_ts DESC, id DESC);
",
    "
    -- Push notification configs, several per task in the order first set (`seq`); read and
    -- written only through their live task of the caller, deleted with it.
    CREATE TABLE push_configs (
        task_id TEXT NOT NULL,
        id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        config TEXT NOT NULL,
        PRIMARY KEY (task_id, id)
    ) STRICT;
    CREATE TRIGGER push_configs_with_task AFTER DELETE ON tasks
    BEGIN
        DELETE FROM push_configs WHERE task_id = old.id;
    END;
",
];

/// A [`TaskStore`] in a SQLite file.
///
/// # Example
///
/// ```
/// use std::time::Duration;
/// use a2ui_agent::store::SqliteStore;
///
/// # fn main() -> Result<(), a2ui_agent::store::StoreError> {
/// let store = SqliteStore::open_in_memory()?
///     .max_history(50)
///     .max_history_bytes(256 * 1024)
///     .max_parts_bytes(256 * 1024)
///     .finished_ttl(Duration::from_secs(3600));
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct SqliteStore {
    worker: Worker,
    limits: Limits,
    clock: Arc<dyn Clock>,
}

/// A job for the worker: it runs with the connection and sends its answer itself.
type Job = Box<dyn FnOnce(&mut Connection) + Send>;

/// The sending end of the worker thread's queue; the thread ends (closing the connection)
/// when the last clone of the store is dropped.
#[derive(Clone)]
struct Worker {
    jobs: mpsc::Sender<Job>,
}

impl Worker {
    /// How many jobs wait for the worker before callers wait to send theirs.
    const QUEUE: usize = 64;

    /// Starts the thread that owns `connection`.
    fn start(mut connection: Connection) -> Result<Self, StoreError> {
        let (jobs, mut queue) = mpsc::channel::<Job>(Self::QUEUE);
        std::thread::Builder::new()
            .name("a2ui-sqlite".into())
            .spawn(move || {
                while let Some(job) = queue.blocking_recv() {
                    job(&mut connection);
                }
            })
            .map_err(|error| StoreError::Io {
                engine: ENGINE,
                doing: "start its thread",
                source: Arc::new(error),
            })?;
        Ok(Self { jobs })
    }
}

impl std::fmt::Debug for SqliteStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteStore")
            .field("limits", &self.limits)
            .finish_non_exhaustive()
    }
}

/// How errors name this store.
const ENGINE: &str = "sqlite";

fn sql_error(error: rusqlite::Error) -> StoreError {
    StoreError::database(ENGINE, error)
}

impl SqliteStore {
    /// Default: at most 1 MiB of history (as JSON) per task.
    pub const DEFAULT_MAX_HISTORY_BYTES: usize = Budget::DEFAULT_MAX_HISTORY_BYTES;
    /// Default: at most 1 MiB of status message and artifacts (as JSON) per task.
    pub const DEFAULT_MAX_PARTS_BYTES: usize = Budget::DEFAULT_MAX_PARTS_BYTES;
    /// Default: terminal tasks are forgotten an hour after their last update.
    pub const DEFAULT_FINISHED_TTL: Duration = Limits::DEFAULT_FINISHED_TTL;
    /// Default: tasks waiting for input are forgotten a week after their last update.
    pub const DEFAULT_INTERRUPTED_TTL: Duration = Limits::DEFAULT_INTERRUPTED_TTL;

    /// Opens (or creates) the store in the file at `path`, applies the migrations it lacks
    /// and fails the tasks a previous process left running.
    ///
    /// # Errors
    ///
    /// [`StoreError::Database`] when the file cannot be opened, [`StoreError::NewerSchema`]
    /// when it was written by a newer
    /// version of this crate.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, StoreError> {
        let connection = Connection::open(path).map_err(sql_error)?;
        Self::with_connection(connection, SystemTime::now())
    }

    /// A store that lives only as long as the value (for tests and examples).
    ///
    /// # Errors
    ///
    /// [`StoreError::Database`] when SQLite cannot start.
    pub fn open_in_memory() -> Result<Self, StoreError> {
        let connection = Connection::open_in_memory().map_err(sql_error)?;
        Self::with_connection(connection, SystemTime::now())
    }

    fn with_connection(mut connection: Connection, now: SystemTime) -> Result<Self, StoreError> {
        connection
            .pragma_update(None, "journal_mode", "WAL")
            .map_err(sql_error)?;
        connection
            .pragma_update(None, "synchronous", "NORMAL")
            .map_err(sql_error)?;
        connection
            .busy_timeout(Duration::from_secs(5))
            .map_err(sql_error)?;
        migrate(&mut connection)?;
        fail_orphans(&mut connection, now)?;
        if connection.is_readonly(rusqlite::MAIN_DB).unwrap_or(false) {
            tracing::warn!(
                "the SQLite task store is read-only: its tasks are served, but no task can be stored"
            );
        }
        Ok(Self {
            worker: Worker::start(connection)?,
            limits: Limits::DEFAULT,
            clock: Arc::new(SystemClock),
        })
    }

    super::row::limit_setters!(limits);

    /// The clock that dates updates and expiries.
    #[must_use]
    pub fn clock(mut self, clock: impl Clock) -> Self {
        self.clock = Arc::new(clock);
        self
    }

    fn now_ms(&self) -> i64 {
        millis(self.clock.now())
    }

    /// Runs `job` with the connection on the store's thread.
    fn blocking<T: Send + 'static>(
        &self,
        job: impl FnOnce(&mut Connection) -> Result<T, StoreError> + Send + 'static,
    ) -> BoxFuture<'static, Result<T, StoreError>> {
        let jobs = self.worker.jobs.clone();
        Box::pin(async move {
            let stopped = || StoreError::Unavailable {
                engine: ENGINE,
                reason: "the store's thread has stopped",
            };
            let (answer, answered) = oneshot::channel();
            let job: Job = Box::new(move |connection| {
                // A panic fails this call, not the thread every later call needs.
                let result = catch_unwind(AssertUnwindSafe(|| job(connection)))
                    .unwrap_or_else(|_| Err(StoreError::Panicked { engine: ENGINE }));
                // The caller may have gone (its request was dropped): nothing to tell.
                let _ = answer.send(result);
            });
            jobs.send(job).await.map_err(|_| stopped())?;
            answered.await.map_err(|_| stopped())?
        })
    }
}

/// Applies the migrations the file lacks, each in its own transaction.
fn migrate(connection: &mut Connection) -> Result<(), StoreError> {
    connection
        .execute_batch(
            "CREATE TABLE IF NOT EXISTS schema_migrations (
                version INTEGER PRIMARY KEY NOT NULL,
                applied_at TEXT NOT NULL
            ) STRICT;",
        )
        .map_err(sql_error)?;
    let applied: i64 = connection
        .query_row(
            "SELECT COALESCE(MAX(version), 0) FROM schema_migrations",
            [],
            |row| row.get(0),
        )
        .map_err(sql_error)?;
    let known = MIGRATIONS.len() as i64;
    if applied > known {
        return Err(StoreError::NewerSchema {
            engine: ENGINE,
            found: applied,
            known,
        });
    }
    for (index, step) in MIGRATIONS.iter().enumerate().skip(applied as usize) {
        let transaction = connection.transaction().map_err(sql_error)?;
        transaction.execute_batch(step).map_err(sql_error)?;
        transaction
            .execute(
                "INSERT INTO schema_migrations (version, applied_at) VALUES (?1, ?2)",
                params![index as i64 + 1, timestamp(SystemTime::now())],
            )
            .map_err(sql_error)?;
        transaction.commit().map_err(sql_error)?;
    }
    Ok(())
}

/// Stores every task left `submitted` or `working` by a previous process as `failed`.
fn fail_orphans(connection: &mut Connection, now: SystemTime) -> Result<(), StoreError> {
    let transaction = connection.transaction().map_err(sql_error)?;
    let orphans = {
        let mut statement = transaction
            .prepare(&format!(
                "SELECT {COLUMNS}, caller FROM tasks WHERE state IN ('submitted', 'working')"
            ))
            .map_err(sql_error)?;
        let rows = statement
            .query_map([], |row| Ok((read_row(row)?, row.get::<_, String>(8)?)))
            .map_err(sql_error)?;
        rows.collect::<Result<Vec<_>, _>>().map_err(sql_error)?
    };
    for (row, caller) in orphans {
        let task = stopped(row.decode(ENGINE)?, now);
        tracing::warn!(task_id = %task.id, "the task was running when the server stopped: failed");
        let expires_ms = add_ms(millis(now), SqliteStore::DEFAULT_FINISHED_TTL);
        write(&transaction, &caller, &task, Some(expires_ms))?;
    }
    transaction.commit().map_err(sql_error)
}

fn read_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<Row> {
    Ok(Row {
        id: row.get(0)?,
        context_id: row.get(1)?,
        state: row.get(2)?,
        status_ts: row.get(3)?,
        status_message: row.get(4)?,
        history: row.get(5)?,
        artifacts: row.get(6)?,
        metadata: row.get(7)?,
    })
}

/// Inserts or replaces `task` of `caller` (an [`Owner::key`]), forgotten at `expires_ms`
/// (never while `None`); another caller's task of the same id is left as it is.
fn write(
    connection: &Connection,
    caller: &str,
    task: &Task,
    expires_ms: Option<i64>,
) -> Result<(), StoreError> {
    let row = Row::encode(task);
    let written = connection
        .execute(
            "INSERT INTO tasks
                (id, context_id, state, status_ts, status_message, history, artifacts,
                 metadata, expires_ms, caller)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)
             ON CONFLICT (id) DO UPDATE SET context_id = excluded.context_id,
                state = excluded.state, status_ts = excluded.status_ts,
                status_message = excluded.status_message, history = excluded.history,
                artifacts = excluded.artifacts, metadata = excluded.metadata,
                expires_ms = excluded.expires_ms
             WHERE tasks.caller = excluded.caller",
            params![
                row.id,
                row.context_id,
                row.state,
                row.status_ts,
                row.status_message,
                row.history,
                row.artifacts,
                row.metadata,
                expires_ms,
                caller,
            ],
        )
        .map_err(sql_error)?;
    if written == 0 {
        return Err(StoreError::OtherOwner {
            engine: ENGINE,
            id: task.id.clone(),
        });
    }
    Ok(())
}

/// Named parameters as rusqlite takes them.
fn named<'a>(
    values: &'a [(&'a str, Box<dyn rusqlite::ToSql>)],
) -> Vec<(&'a str, &'a dyn rusqlite::ToSql)> {
    values
        .iter()
        .map(|(name, value)| (*name, value.as_ref()))
        .collect()
}

impl TaskStore for SqliteStore {
    fn get<'a>(
        &'a self,
        owner: &'a Owner,
        id: &'a str,
    ) -> BoxFuture<'a, Result<Option<Task>, StoreError>> {
        let id = id.to_owned();
        let caller = owner.key();
        let now = self.now_ms();
        self.blocking(move |connection| {
            let row = connection
                .query_row(
                    &format!(
                        "SELECT {COLUMNS} FROM tasks
                         WHERE id = ?1 AND caller = ?3
                           AND (expires_ms IS NULL OR expires_ms > ?2)"
                    ),
                    params![id, now, caller],
                    read_row,
                )
                .optional()
                .map_err(sql_error)?;
            row.map(|row| row.decode(ENGINE)).transpose()
        })
    }

    fn put<'a>(
        &'a self,
        owner: &'a Owner,
        mut task: Task,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        let caller = owner.key();
        let now = self.now_ms();
        let limits = self.limits;
        self.blocking(move |connection| {
            limits.budget.apply(&mut task);
            let expires_ms = limits.expires_ms(task.status.state, now);
            let transaction = connection.transaction().map_err(sql_error)?;
            transaction
                .execute(
                    "DELETE FROM tasks WHERE expires_ms IS NOT NULL AND expires_ms <= ?1",
                    params![now],
                )
                .map_err(sql_error)?;
            write(&transaction, &caller, &task, expires_ms)?;
            transaction.commit().map_err(sql_error)
        })
    }

    fn list<'a>(
        &'a self,
        owner: &'a Owner,
        query: &'a TaskListQuery,
    ) -> BoxFuture<'a, Result<Option<TaskPage>, StoreError>> {
        let now = self.now_ms();
        let caller = owner.key();
        let query = query.clone();
        self.blocking(move |connection| list(connection, &caller, &query, now))
    }

    fn put_push_config<'a>(
        &'a self,
        owner: &'a Owner,
        task_id: &'a str,
        config: PushConfig,
        max: usize,
    ) -> BoxFuture<'a, Result<PushConfigPut, StoreError>> {
        let (caller, task_id, now) = (owner.key(), task_id.to_owned(), self.now_ms());
        self.blocking(move |connection| {
            push_configs::put(connection, &caller, &task_id, &config, max, now)
        })
    }

    fn push_configs<'a>(
        &'a self,
        owner: &'a Owner,
        task_id: &'a str,
    ) -> BoxFuture<'a, Result<Option<Vec<PushConfig>>, StoreError>> {
        let (caller, task_id, now) = (owner.key(), task_id.to_owned(), self.now_ms());
        self.blocking(move |connection| push_configs::list(connection, &caller, &task_id, now))
    }

    fn delete_push_config<'a>(
        &'a self,
        owner: &'a Owner,
        task_id: &'a str,
        config_id: &'a str,
    ) -> BoxFuture<'a, Result<Option<bool>, StoreError>> {
        let (caller, task_id, now) = (owner.key(), task_id.to_owned(), self.now_ms());
        let config_id = config_id.to_owned();
        self.blocking(move |connection| {
            push_configs::delete(connection, &caller, &task_id, &config_id, now)
        })
    }
}

/// One page of `caller`'s tasks: the owner is the first filter of both queries.
fn list(
    connection: &Connection,
    caller: &str,
    query: &TaskListQuery,
    now: i64,
) -> Result<Option<TaskPage>, StoreError> {
    let Some((cursor, page_size)) = sql_page_start(query) else {
        return Ok(None);
    };
    let mut filters =
        String::from("caller = :caller AND (expires_ms IS NULL OR expires_ms > :now)");
    let mut values: Vec<(&str, Box<dyn rusqlite::ToSql>)> = vec![
        (":caller", Box::new(caller.to_owned())),
        (":now", Box::new(now)),
    ];
    if let Some(context) = &query.context_id {
        filters.push_str(" AND context_id = :context");
        values.push((":context", Box::new(context.clone())));
    }
    if let Some(state) = query.state {
        filters.push_str(" AND state = :state");
        values.push((":state", Box::new(state_name(state))));
    }
    if let Some(after) = &query.status_timestamp_after {
        filters.push_str(" AND status_ts >= :after");
        values.push((":after", Box::new(normalized_timestamp(after))));
    }
    let total_size: i64 = connection
        .query_row(
            &format!("SELECT COUNT(*) FROM tasks WHERE {filters}"),
            named(&values).as_slice(),
            |row| row.get(0),
        )
        .map_err(sql_error)?;
    let mut page_filters = filters;
    if let Some(cursor) = &cursor {
        page_filters.push_str(
            " AND (status_ts < :cursor_ts OR (status_ts = :cursor_ts AND id < :cursor_id))",
        );
        values.push((":cursor_ts", Box::new(cursor.timestamp().to_owned())));
        values.push((":cursor_id", Box::new(cursor.id().to_owned())));
    }
    values.push((":limit", Box::new(page_size as i64 + 1)));
    let mut statement = connection
        .prepare(&format!(
            "SELECT {COLUMNS} FROM tasks WHERE {page_filters}
             ORDER BY status_ts DESC, id DESC LIMIT :limit"
        ))
        .map_err(sql_error)?;
    let rows = statement
        .query_map(named(&values).as_slice(), read_row)
        .map_err(sql_error)?
        .collect::<Result<Vec<_>, _>>()
        .map_err(sql_error)?;
    let wanted = Projection::listed(query);
    let tasks = rows
        .into_iter()
        .map(|row| row.decode_wanted(ENGINE, wanted))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Some(sql_page(tasks, page_size, total_size)))
}

mod push_configs;
#[cfg(test)]
mod tests;
