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
use super::row::{COLUMNS, Limits, Row, add_ms, millis, stopped};
use super::wanted::Wanted;
use super::{StoreError, TaskStore};
use crate::a2a::{Task, TaskListQuery, TaskPage};
use crate::clock::{Clock, SystemClock, timestamp};
use crate::store::{Owner, PageCursor, normalized_timestamp};

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
    -- Whose task it is (`Owner::key`): every read and listing is scoped to it in SQL. Tasks
    -- written before callers were told apart are the anonymous owner's ('').
    ALTER TABLE tasks ADD COLUMN caller TEXT NOT NULL DEFAULT '';
    DROP INDEX tasks_listing;
    DROP INDEX tasks_context;
    CREATE INDEX tasks_listing ON tasks (caller, status_ts DESC, id DESC);
    CREATE INDEX tasks_context ON tasks (caller, context_id, status_ts DESC, id DESC);
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
        Ok(Self {
            worker: Worker::start(connection)?,
            limits: Limits::DEFAULT,
            clock: Arc::new(SystemClock),
        })
    }

    /// The most history messages a task keeps (at least 1); the oldest go first. Unbounded
    /// by default: the server's own
    /// [`max_history`](crate::server::ServerBuilder::max_history) bounds the count.
    #[must_use]
    pub fn max_history(mut self, messages: usize) -> Self {
        self.limits.budget.max_history = messages.max(1);
        self
    }

    /// The most bytes of history (as JSON) a task keeps; the oldest messages go first, and
    /// the newest, if larger on its own, keeps its ids but not its parts.
    #[must_use]
    pub fn max_history_bytes(mut self, bytes: usize) -> Self {
        self.limits.budget.max_history_bytes = bytes;
        self
    }

    /// The most bytes of status message and artifacts (as JSON) a task keeps; one that does
    /// not fit keeps its ids but its parts read back as a notice saying they were not kept
    /// (the same rule as [`InMemoryStore`](super::InMemoryStore)'s).
    #[must_use]
    pub fn max_parts_bytes(mut self, bytes: usize) -> Self {
        self.limits.budget.max_parts_bytes = bytes;
        self
    }

    /// How long a terminal task is kept after its last update.
    #[must_use]
    pub fn finished_ttl(mut self, ttl: Duration) -> Self {
        self.limits.finished_ttl = ttl;
        self
    }

    /// How long a task waiting for input (or authorization) is kept after its last update.
    #[must_use]
    pub fn interrupted_ttl(mut self, ttl: Duration) -> Self {
        self.limits.interrupted_ttl = ttl;
        self
    }

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
}

/// One page of `caller`'s tasks: the owner is the first filter of both queries.
fn list(
    connection: &Connection,
    caller: &str,
    query: &TaskListQuery,
    now: i64,
) -> Result<Option<TaskPage>, StoreError> {
    let cursor = match &query.page_token {
        Some(token) => match PageCursor::parse(token) {
            Some(cursor) => Some(cursor),
            None => return Ok(None),
        },
        None => None,
    };
    let page_size = query.page_size.clamp(1, TaskListQuery::MAX_PAGE_SIZE);
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
        values.push((":state", Box::new(state.as_str())));
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
    let wanted = Wanted::listed(query);
    let mut tasks = rows
        .into_iter()
        .map(|row| row.decode_wanted(ENGINE, wanted))
        .collect::<Result<Vec<_>, _>>()?;
    let more = tasks.len() > page_size;
    tasks.truncate(page_size);
    let next_page_token = match (more, tasks.last()) {
        (true, Some(last)) => PageCursor::of(last).token(),
        _ => String::new(),
    };
    Ok(Some(TaskPage {
        tasks,
        next_page_token,
        page_size,
        total_size: usize::try_from(total_size).unwrap_or(0),
    }))
}

#[cfg(test)]
mod tests {
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
            context_id: if id.len() % 2 == 0 { "even" } else { "odd" }.into(),
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
}
