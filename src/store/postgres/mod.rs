//! A [`TaskStore`] in PostgreSQL, shared by several server instances.
//!
//! SQLite keeps one machine's tasks; this store lets instances behind a load balancer behave
//! as one server. Every instance reads and writes the same `a2ui_tasks` table, so any of them
//! answers `tasks/get` and `ListTasks` (in SQL, with the same paging as the other stores) for
//! any task. What the table cannot carry, live events and cancel requests, goes through
//! LISTEN/NOTIFY (see `notify`), offered to the task manager as a [`Cluster`]. A running
//! task's chunks are sent only while another instance watches it: watchers announce
//! themselves in `a2ui_watchers` and on a channel the runner listens to. Continuing
//! and canceling are serialized across instances by a compare-and-set on the task's status
//! ([`TaskStore::replace`]).
//!
//! A task running on an instance is stored with that instance as its owner. Each instance
//! renews a lease in `a2ui_instances`; whichever instance notices that a lease expired (at
//! start and then every third of the lease) stores the dead instance's running tasks as
//! `failed` with [`STOPPED_MESSAGE`](super::STOPPED_MESSAGE), so a `kill -9` leaves no task
//! `working` forever (see `lease`). Push deliveries not acknowledged yet are kept the same
//! way: held by the instance sending them, taken over by a live one when it dies (see
//! `outbox`, offered to the push sender as a [`PushOutbox`]).
//!
//! The schema is created and upgraded by migrations compiled into the binary, applied under
//! an advisory lock (two instances starting together do not race) and recorded in
//! `a2ui_schema_migrations` (see `schema`).
//!
//! One connection carries the queries (tokio-postgres pipelines concurrent ones on it) and a
//! second one listens. A lost connection (database restart, failover, idle-connection
//! killer) is re-established with backoff (100 ms doubling to 5 s): while the query
//! connection is down, every request fails at once with a [`StoreError`], and succeeds again
//! once it is back (see `conn`); the listening connection re-issues its LISTENs and settles
//! the watchers whose task ended meanwhile (see `notify`); as soon as the database is back
//! the lease is renewed and the tasks this instance settled meanwhile, whose writes failed,
//! are stored and announced (see `lease`). An instance cut off for longer than its lease has
//! its running tasks failed by a peer, as if it had crashed; that stands.
//!
//! TLS is rustls, set as libpq's `sslmode` and `sslrootcert` say (see `tls`):
//! `postgres://...?sslmode=verify-full&sslrootcert=/etc/ssl/db-ca.pem`.

mod conn;
mod lease;
mod notify;
mod outbox;
mod push_configs;
mod schema;
mod tls;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::future::BoxFuture;
use tokio::sync::mpsc;
use tokio_postgres::types::ToSql;

use super::budget::Budget;
use super::codec::state_name;
use super::row::{COLUMNS, Limits, Row, millis};
use super::{Cluster, Owner, PushConfigPut, PushOutbox, StoreError, TaskStore};
use crate::a2a::{PushConfig, StreamEvent, Task, TaskListQuery, TaskPage, TaskState, TaskStatus};
use crate::clock::{Clock, SystemClock};
use crate::store::normalized_timestamp;
use crate::store::page::{sql_page, sql_page_start};

/// How errors name this store.
const ENGINE: &str = "postgres";

/// Sets up a [`PostgresStore`]: limits first, then [`PostgresBuilder::connect`].
///
/// # Example
///
/// ```no_run
/// use std::time::Duration;
/// use a2ui_agent::store::PostgresStore;
///
/// # async fn run() -> Result<(), a2ui_agent::store::StoreError> {
/// let store = PostgresStore::builder("postgres://a2ui@db.internal/a2ui")
///     .lease(Duration::from_secs(15))
///     .finished_ttl(Duration::from_secs(3600))
///     .connect()
///     .await?;
/// # Ok(()) }
/// ```
#[derive(Debug, Clone)]
pub struct PostgresBuilder {
    url: String,
    limits: Limits,
    lease: Duration,
}

impl PostgresBuilder {
    super::row::limit_setters!(limits);

    /// How long an instance that stops renewing its lease (it crashed, or lost the
    /// database) is trusted to still run its tasks; after that they are stored `failed`.
    /// The lease is renewed every third of it. Default 30 s; at least 300 ms.
    #[must_use]
    pub fn lease(mut self, lease: Duration) -> Self {
        self.lease = lease.max(Duration::from_millis(300));
        self
    }

    /// Connects, applies the migrations the database lacks, takes a lease and fails the
    /// tasks of instances whose lease expired.
    ///
    /// # Errors
    ///
    /// [`StoreError::Connect`], [`StoreError::Timeout`] or [`StoreError::Database`] when the
    /// database cannot be reached, [`StoreError::NewerSchema`] when it was set up by a newer
    /// version of this crate.
    pub async fn connect(self) -> Result<PostgresStore, StoreError> {
        let target = tls::Target::parse(&self.url)?;
        let (mut client, connection) = conn::open(&target).await?;
        let conn = conn::Connection::start(target.clone(), connection);
        schema::migrate(&mut client).await?;
        conn.install(client);
        let (listener, notes) = notify::listen(&target).await?;
        let (cancel_sender, cancel_receiver) = mpsc::channel(notify::CANCEL_BUFFER);
        let inner = Arc::new(Inner {
            conn,
            _listener: listener,
            instance: uuid::Uuid::new_v4().to_string(),
            limits: self.limits,
            lease: self.lease,
            clock: Arc::new(SystemClock),
            watchers: Mutex::new(HashMap::new()),
            interest: notify::Interest::default(),
            cancels: Mutex::new(Some(cancel_receiver)),
            config_feed: outbox::ConfigFeed::default(),
            unsaved: Mutex::new(HashMap::new()),
        });
        lease::renew(&inner).await?;
        lease::sweep(&inner).await?;
        tokio::spawn(notify::dispatch(
            Arc::downgrade(&inner),
            notes,
            cancel_sender,
        ));
        tokio::spawn(lease::keep(Arc::downgrade(&inner)));
        tracing::info!(instance = %inner.instance, lease_ms = inner.lease.as_millis() as u64,
            "tasks are kept in PostgreSQL");
        Ok(PostgresStore { inner })
    }
}

/// A [`TaskStore`] in PostgreSQL that several server instances share (see the module doc).
#[derive(Clone)]
pub struct PostgresStore {
    inner: Arc<Inner>,
}

struct Inner {
    /// The query connection.
    conn: conn::Connection,
    /// The listening connection: it is kept up as long as this lives.
    _listener: notify::Listener,
    /// This instance's id: the owner of the tasks it runs.
    instance: String,
    limits: Limits,
    lease: Duration,
    clock: Arc<dyn Clock>,
    /// Watchers of tasks running elsewhere, by task id.
    watchers: Mutex<HashMap<String, Vec<mpsc::Sender<Arc<StreamEvent>>>>>,
    /// Which runs here other instances watch (see `notify::interest`).
    interest: notify::Interest,
    /// Cancel requests for the manager, until it takes them.
    cancels: Mutex<Option<mpsc::Receiver<String>>>,
    /// The tasks whose push configs changed, for the push sender once it asks.
    config_feed: outbox::ConfigFeed,
    /// Tasks this instance settled while the database was out of reach, by id: written
    /// (and announced) once it is back, so their rows do not stay `working` under a lease
    /// that is renewed again (see `lease::save_unsaved`). At most [`MAX_UNSAVED`].
    unsaved: Mutex<HashMap<String, Task>>,
}

/// The most settled tasks kept for writing once the database is back.
const MAX_UNSAVED: usize = 1_024;

impl std::fmt::Debug for PostgresStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PostgresStore")
            .field("instance", &self.inner.instance)
            .field("limits", &self.inner.limits)
            .field("lease", &self.inner.lease)
            .finish_non_exhaustive()
    }
}

fn pg_error(error: tokio_postgres::Error) -> StoreError {
    match error.as_db_error() {
        Some(db) => StoreError::database(ENGINE, db.clone()),
        None => StoreError::database(ENGINE, error),
    }
}

impl PostgresStore {
    /// Default: at most 1 MiB of history (as JSON) per task.
    pub const DEFAULT_MAX_HISTORY_BYTES: usize = Budget::DEFAULT_MAX_HISTORY_BYTES;
    /// Default: at most 1 MiB of status message and artifacts (as JSON) per task.
    pub const DEFAULT_MAX_PARTS_BYTES: usize = Budget::DEFAULT_MAX_PARTS_BYTES;
    /// Default: terminal tasks are forgotten an hour after their last update.
    pub const DEFAULT_FINISHED_TTL: Duration = Limits::DEFAULT_FINISHED_TTL;
    /// Default: tasks waiting for input are forgotten a week after their last update.
    pub const DEFAULT_INTERRUPTED_TTL: Duration = Limits::DEFAULT_INTERRUPTED_TTL;
    /// Default lease of an instance on the tasks it runs.
    pub const DEFAULT_LEASE: Duration = Duration::from_secs(30);

    /// A builder for the database at `url` (`postgres://user:password@host:port/database`
    /// or `host=... user=...`).
    pub fn builder(url: impl Into<String>) -> PostgresBuilder {
        PostgresBuilder {
            url: url.into(),
            limits: Limits::DEFAULT,
            lease: Self::DEFAULT_LEASE,
        }
    }

    /// This instance's id, the owner of the tasks it runs.
    pub fn instance(&self) -> &str {
        &self.inner.instance
    }
}

impl Inner {
    fn now_ms(&self) -> i64 {
        millis(self.clock.now())
    }

    /// When a task in `state` written now is forgotten (never while it runs).
    fn expiry(&self, state: TaskState) -> Option<i64> {
        self.limits.expires_ms(state, self.now_ms())
    }

    /// The owner a task in `state` written by this instance has.
    fn owner(&self, state: TaskState) -> Option<&str> {
        matches!(state, TaskState::Submitted | TaskState::Working).then_some(&*self.instance)
    }

    async fn get(&self, owner: &Owner, id: &str) -> Result<Option<Task>, StoreError> {
        let db = self.conn.session()?;
        let row = db
            .bounded(db.query_opt(
                &format!(
                    "SELECT {COLUMNS} FROM a2ui_tasks
                     WHERE id = $1 AND caller = $3 AND (expires_ms IS NULL OR expires_ms > $2)"
                ),
                &[&id, &self.now_ms(), &owner.key()],
            ))
            .await?;
        row.map(|row| read_row(&row)?.decode(ENGINE)).transpose()
    }

    async fn put(&self, owner: &Owner, mut task: Task) -> Result<(), StoreError> {
        self.limits.budget.apply(&mut task);
        let written = self.write(owner, &task).await;
        let mut unsaved = self.unsaved();
        match written {
            Ok(()) => {
                unsaved.remove(&task.id);
                Ok(())
            }
            // Another caller's row stays as it is: nothing to write later.
            Err(error @ StoreError::OtherOwner { .. }) => Err(error),
            Err(error) if task.status.state.is_settled() => {
                if unsaved.len() < MAX_UNSAVED || unsaved.contains_key(&task.id) {
                    unsaved.insert(task.id.clone(), task);
                    Err(StoreError::Deferred(Box::new(error)))
                } else {
                    tracing::warn!(task_id = %task.id,
                        "too many tasks wait to be stored: this one will stay as last stored");
                    Err(error)
                }
            }
            Err(error) => Err(error),
        }
    }

    /// The tasks whose settling write failed, by id (see `lease::save_unsaved`).
    fn unsaved(&self) -> std::sync::MutexGuard<'_, HashMap<String, Task>> {
        self.unsaved
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Forgets unsaved `task`, now written (or given up), unless it settled again meanwhile.
    fn saved(&self, task: &Task) {
        let mut unsaved = self.unsaved();
        if unsaved
            .get(&task.id)
            .is_some_and(|kept| kept.status == task.status)
        {
            unsaved.remove(&task.id);
        }
    }

    /// Inserts or overwrites `task`'s row, except a row a peer failed because this
    /// instance's lease lapsed (a settled row still naming this instance as its owner: see
    /// `lease::sweep`): that failure stands, and the run's later writes are dropped.
    /// Another caller's row of the same id is never overwritten
    /// ([`StoreError::OtherOwner`]).
    async fn write(&self, owner: &Owner, task: &Task) -> Result<(), StoreError> {
        let state = task.status.state;
        let row = Row::encode(task);
        let caller = owner.key();
        let db = self.conn.session()?;
        let written = db
            .bounded(db.execute(
                "INSERT INTO a2ui_tasks (id, context_id, state, status_ts, status_message,
                    history, artifacts, metadata, expires_ms, owner, caller)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $12)
                 ON CONFLICT (id) DO UPDATE SET context_id = $2, state = $3, status_ts = $4,
                    status_message = $5, history = $6, artifacts = $7, metadata = $8,
                    expires_ms = $9, owner = $10
                 WHERE a2ui_tasks.caller = $12
                    AND (a2ui_tasks.owner IS DISTINCT FROM $11
                        OR a2ui_tasks.state IN ('submitted', 'working'))",
                &row_args(
                    &row,
                    &[
                        &self.expiry(state),
                        &self.owner(state),
                        &self.instance,
                        &caller,
                    ],
                ),
            ))
            .await?;
        if written == 0 {
            // Rare: tell another caller's row from a row a peer failed.
            let other = db
                .bounded(db.query_opt(
                    "SELECT 1 FROM a2ui_tasks WHERE id = $1 AND caller <> $2",
                    &[&task.id, &caller],
                ))
                .await?;
            if other.is_some() {
                return Err(StoreError::OtherOwner {
                    engine: ENGINE,
                    id: task.id.clone(),
                });
            }
            tracing::warn!(task_id = %task.id, state = %state,
                "not stored: a peer failed the task while this instance's lease had lapsed");
        }
        Ok(())
    }

    async fn replace(
        &self,
        owner: &Owner,
        expected: &TaskStatus,
        mut task: Task,
    ) -> Result<bool, StoreError> {
        self.limits.budget.apply(&mut task);
        let state = task.status.state;
        let row = Row::encode(&task);
        let expected_ts = expected.timestamp.clone().unwrap_or_default();
        let db = self.conn.session()?;
        let changed = db
            .bounded(db.execute(
                "UPDATE a2ui_tasks SET context_id = $2, state = $3, status_ts = $4,
                    status_message = $5, history = $6, artifacts = $7, metadata = $8,
                    expires_ms = $9, owner = $10
                 WHERE id = $1 AND caller = $14 AND state = $11 AND status_ts = $12
                    AND (expires_ms IS NULL OR expires_ms > $13)",
                &row_args(
                    &row,
                    &[
                        &self.expiry(state),
                        &self.owner(state),
                        &state_name(expected.state),
                        &expected_ts,
                        &self.now_ms(),
                        &owner.key(),
                    ],
                ),
            ))
            .await?;
        Ok(changed == 1)
    }

    /// One page of `owner`'s tasks: the owner is the first filter of both queries.
    async fn list(
        &self,
        owner: &Owner,
        query: &TaskListQuery,
    ) -> Result<Option<TaskPage>, StoreError> {
        let Some((cursor, page_size)) = sql_page_start(query) else {
            return Ok(None);
        };
        let mut args = Args::default();
        let mut filters = format!("caller = {}", args.push(owner.key()));
        filters.push_str(&format!(
            " AND (expires_ms IS NULL OR expires_ms > {})",
            args.push(self.now_ms())
        ));
        if let Some(context) = &query.context_id {
            filters.push_str(&format!(" AND context_id = {}", args.push(context.clone())));
        }
        if let Some(state) = query.state {
            filters.push_str(&format!(" AND state = {}", args.push(state_name(state))));
        }
        if let Some(after) = &query.status_timestamp_after {
            let after = normalized_timestamp(after);
            filters.push_str(&format!(" AND status_ts >= {}", args.push(after)));
        }
        let db = self.conn.session()?;
        let total_size: i64 = db
            .bounded(db.query_one(
                &format!("SELECT COUNT(*) FROM a2ui_tasks WHERE {filters}"),
                &args.refs(),
            ))
            .await?
            .try_get(0)
            .map_err(pg_error)?;
        if let Some(cursor) = &cursor {
            let ts = args.push(cursor.timestamp().to_owned());
            let id = args.push(cursor.id().to_owned());
            filters.push_str(&format!(
                " AND (status_ts < {ts} OR (status_ts = {ts} AND id < {id}))"
            ));
        }
        let limit = args.push(
            i64::try_from(page_size)
                .unwrap_or(i64::MAX)
                .saturating_add(1),
        );
        let rows = db
            .bounded(db.query(
                &format!(
                    "SELECT {COLUMNS} FROM a2ui_tasks WHERE {filters}
                     ORDER BY status_ts DESC, id DESC LIMIT {limit}"
                ),
                &args.refs(),
            ))
            .await?;
        let tasks = rows
            .iter()
            .map(|row| {
                read_row(row)?.decode_wanted(ENGINE, super::projection::Projection::listed(query))
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Some(sql_page(tasks, page_size, total_size)))
    }
}

/// Positional query arguments, numbered as they are pushed.
#[derive(Default)]
struct Args(Vec<Box<dyn ToSql + Sync + Send>>);

impl Args {
    /// Adds `value`; returns its placeholder (`$n`).
    fn push(&mut self, value: impl ToSql + Sync + Send + 'static) -> String {
        self.0.push(Box::new(value));
        format!("${}", self.0.len())
    }

    fn refs(&self) -> Vec<&(dyn ToSql + Sync)> {
        self.0
            .iter()
            .map(|value| value.as_ref() as &(dyn ToSql + Sync))
            .collect()
    }
}

/// The arguments of a write of `row`: its columns as `$1` (id) to `$8` (metadata), then
/// `rest` from `$9` on.
fn row_args<'a>(row: &'a Row, rest: &[&'a (dyn ToSql + Sync)]) -> Vec<&'a (dyn ToSql + Sync)> {
    let mut args: Vec<&(dyn ToSql + Sync)> = vec![
        &row.id,
        &row.context_id,
        &row.state,
        &row.status_ts,
        &row.status_message,
        &row.history,
        &row.artifacts,
        &row.metadata,
    ];
    args.extend_from_slice(rest);
    args
}

fn read_row(row: &tokio_postgres::Row) -> Result<Row, StoreError> {
    Ok(Row {
        id: row.try_get(0).map_err(pg_error)?,
        context_id: row.try_get(1).map_err(pg_error)?,
        state: row.try_get(2).map_err(pg_error)?,
        status_ts: row.try_get(3).map_err(pg_error)?,
        status_message: row.try_get(4).map_err(pg_error)?,
        history: row.try_get(5).map_err(pg_error)?,
        artifacts: row.try_get(6).map_err(pg_error)?,
        metadata: row.try_get(7).map_err(pg_error)?,
    })
}

impl TaskStore for PostgresStore {
    fn get<'a>(
        &'a self,
        owner: &'a Owner,
        id: &'a str,
    ) -> BoxFuture<'a, Result<Option<Task>, StoreError>> {
        Box::pin(self.inner.get(owner, id))
    }

    fn put<'a>(&'a self, owner: &'a Owner, task: Task) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(self.inner.put(owner, task))
    }

    fn list<'a>(
        &'a self,
        owner: &'a Owner,
        query: &'a TaskListQuery,
    ) -> BoxFuture<'a, Result<Option<TaskPage>, StoreError>> {
        Box::pin(self.inner.list(owner, query))
    }

    fn replace<'a>(
        &'a self,
        owner: &'a Owner,
        expected: &'a TaskStatus,
        task: Task,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        Box::pin(self.inner.replace(owner, expected, task))
    }

    fn cluster(&self) -> Option<Arc<dyn Cluster>> {
        Some(Arc::new(self.clone()))
    }

    fn push_outbox(&self) -> Option<Arc<dyn PushOutbox>> {
        Some(Arc::new(self.clone()))
    }

    fn put_push_config<'a>(
        &'a self,
        owner: &'a Owner,
        task_id: &'a str,
        config: PushConfig,
        max: usize,
    ) -> BoxFuture<'a, Result<PushConfigPut, StoreError>> {
        Box::pin(async move {
            self.inner
                .put_push_config(owner, task_id, &config, max)
                .await
        })
    }

    fn push_configs<'a>(
        &'a self,
        owner: &'a Owner,
        task_id: &'a str,
    ) -> BoxFuture<'a, Result<Option<Vec<PushConfig>>, StoreError>> {
        Box::pin(self.inner.push_configs(owner, task_id))
    }

    fn delete_push_config<'a>(
        &'a self,
        owner: &'a Owner,
        task_id: &'a str,
        config_id: &'a str,
    ) -> BoxFuture<'a, Result<Option<bool>, StoreError>> {
        Box::pin(self.inner.delete_push_config(owner, task_id, config_id))
    }
}
