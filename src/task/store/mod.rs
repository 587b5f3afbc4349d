//! Where tasks are kept between requests.
//!
//! [`TaskStore`] is the seam for a database; [`InMemoryStore`] is the default. A server that
//! runs for weeks must not grow without bound, so the in-memory store holds at most
//! `capacity` tasks and forgets *settled* tasks (terminal, or waiting for the user) that were
//! not updated for `idle_timeout`, oldest first. Tasks the agent is working on are never
//! evicted; when every slot holds one, new tasks are refused.

mod budget;
mod cluster;
#[cfg(feature = "postgres")]
mod postgres;
#[cfg(any(feature = "sqlite", feature = "postgres"))]
mod row;
#[cfg(feature = "sqlite")]
mod sqlite;

pub use cluster::Cluster;
#[cfg(feature = "postgres")]
pub use postgres::{PostgresBuilder, PostgresStore};
#[cfg(any(feature = "sqlite", feature = "postgres"))]
pub use row::STOPPED_MESSAGE;
#[cfg(feature = "sqlite")]
pub use sqlite::SqliteStore;

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use futures::future::{self, BoxFuture};

use super::page::list_page;
use crate::a2a::{Task, TaskListQuery, TaskPage, TaskStatus};
use crate::task::clock::{Clock, SystemClock};

/// Keeps tasks by id.
///
/// The server is the only writer of a task while its agent runs; it writes on each state
/// change (not on each chunk).
///
/// # Example
///
/// ```
/// use a2ui_agent::a2a::Task;
/// use a2ui_agent::task::{InMemoryStore, StoreError, TaskStore};
/// use futures::future::BoxFuture;
///
/// /// A store that forgets everything (tasks live only while they run).
/// struct Forgetful;
///
/// impl TaskStore for Forgetful {
///     fn get<'a>(&'a self, _id: &'a str) -> BoxFuture<'a, Result<Option<Task>, StoreError>> {
///         Box::pin(async { Ok(None) })
///     }
///     fn put(&self, _task: Task) -> BoxFuture<'_, Result<(), StoreError>> {
///         Box::pin(async { Ok(()) })
///     }
/// }
/// ```
pub trait TaskStore: Send + Sync + 'static {
    /// The task with `id`, if kept.
    ///
    /// # Errors
    ///
    /// [`StoreError`] when the store cannot answer.
    fn get<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<Task>, StoreError>>;

    /// Inserts or replaces a task.
    ///
    /// # Errors
    ///
    /// [`StoreError`] when the store cannot keep it (e.g. [`StoreError::Full`]).
    fn put(&self, task: Task) -> BoxFuture<'_, Result<(), StoreError>>;

    /// One page of the tasks matching `query`, newest status first (A2A 1.0 `ListTasks`);
    /// `Ok(None)` when the page token is not one this store wrote. [`list_page`] does the
    /// filtering and paging over any iterator of tasks.
    ///
    /// The default refuses with [`StoreError::Unsupported`] (clients get
    /// `UnsupportedOperationError`), so a store written before listing existed still works.
    ///
    /// # Errors
    ///
    /// [`StoreError`] when the store cannot answer.
    fn list<'a>(
        &'a self,
        query: &'a TaskListQuery,
    ) -> BoxFuture<'a, Result<Option<TaskPage>, StoreError>> {
        let _ = query;
        Box::pin(future::ready(Err(StoreError::Unsupported("listing tasks"))))
    }

    /// Replaces the kept task with `task` only if the kept one still has the status
    /// `expected` (same state and timestamp); `Ok(false)` when another writer got there
    /// first. This compare-and-set is what serializes continuing and canceling a task
    /// across server instances sharing a store.
    ///
    /// The default reads, compares and writes, which is atomic only for a store that one
    /// process uses (the manager serializes its own writers of a task); a store shared by
    /// several processes must do it in one step.
    ///
    /// # Errors
    ///
    /// [`StoreError`] when the store cannot answer.
    fn replace<'a>(
        &'a self,
        expected: &'a TaskStatus,
        task: Task,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        Box::pin(async move {
            let unchanged = self.get(&task.id).await?.is_some_and(|kept| {
                kept.status.state == expected.state && kept.status.timestamp == expected.timestamp
            });
            if unchanged {
                self.put(task).await?;
            }
            Ok(unchanged)
        })
    }

    /// What the store carries between server instances sharing it, if it is shared
    /// (see [`Cluster`]). `None` by default: one process.
    fn cluster(&self) -> Option<Arc<dyn Cluster>> {
        None
    }
}

/// A store failure. The client sees a generic internal error; the detail is logged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StoreError {
    /// Every slot holds a task that cannot be evicted.
    Full {
        /// The store's capacity.
        capacity: usize,
    },
    /// The store does not do this operation.
    Unsupported(&'static str),
    /// Any other failure.
    Other(String),
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StoreError::Full { capacity } => {
                write!(f, "task store full: {capacity} tasks are all running")
            }
            StoreError::Unsupported(what) => write!(f, "this task store does not support {what}"),
            StoreError::Other(message) => f.write_str(message),
        }
    }
}

impl std::error::Error for StoreError {}

/// The default store: a bounded map in memory.
///
/// # Example
///
/// ```
/// use std::time::Duration;
/// use a2ui_agent::task::InMemoryStore;
///
/// let store = InMemoryStore::new()
///     .capacity(1_000)
///     .idle_timeout(Duration::from_secs(600));
/// ```
pub struct InMemoryStore {
    capacity: usize,
    idle_timeout: Duration,
    max_history: usize,
    max_history_bytes: usize,
    clock: Arc<dyn Clock>,
    inner: Mutex<Inner>,
}

#[derive(Default)]
struct Inner {
    tasks: HashMap<String, Entry>,
    /// Settled tasks by last update, oldest first: the eviction order.
    settled: BTreeMap<u64, String>,
    next_seq: u64,
}

struct Entry {
    task: Task,
    updated: SystemTime,
    seq: u64,
}

impl Default for InMemoryStore {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Debug for InMemoryStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("InMemoryStore")
            .field("capacity", &self.capacity)
            .field("idle_timeout", &self.idle_timeout)
            .field("max_history", &self.max_history)
            .field("max_history_bytes", &self.max_history_bytes)
            .field("len", &self.len())
            .finish()
    }
}

impl InMemoryStore {
    /// Default capacity: 10,000 tasks.
    pub const DEFAULT_CAPACITY: usize = 10_000;
    /// Default idle timeout of settled tasks: one hour.
    pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(3600);

    /// Default: at most 1 MiB of history (as JSON) per task.
    pub const DEFAULT_MAX_HISTORY_BYTES: usize = 1 << 20;

    /// A store with the default capacity and idle timeout, on the system clock.
    pub fn new() -> Self {
        Self {
            capacity: Self::DEFAULT_CAPACITY,
            idle_timeout: Self::DEFAULT_IDLE_TIMEOUT,
            max_history: usize::MAX,
            max_history_bytes: Self::DEFAULT_MAX_HISTORY_BYTES,
            clock: Arc::new(SystemClock),
            inner: Mutex::new(Inner::default()),
        }
    }

    /// The most tasks kept at once (at least 1).
    #[must_use]
    pub fn capacity(mut self, capacity: usize) -> Self {
        self.capacity = capacity.max(1);
        self
    }

    /// How long a settled task is kept after its last update.
    #[must_use]
    pub fn idle_timeout(mut self, timeout: Duration) -> Self {
        self.idle_timeout = timeout;
        self
    }

    /// The most history messages a task keeps (at least 1); the oldest go first. Unbounded
    /// by default: the server's own
    /// [`max_history`](crate::server::ServerBuilder::max_history) bounds the count.
    #[must_use]
    pub fn max_history(mut self, messages: usize) -> Self {
        self.max_history = messages.max(1);
        self
    }

    /// The most bytes of history (as JSON) a task keeps; the oldest messages go first, the
    /// newest is always kept.
    #[must_use]
    pub fn max_history_bytes(mut self, bytes: usize) -> Self {
        self.max_history_bytes = bytes;
        self
    }

    /// The clock that measures idleness.
    #[must_use]
    pub fn clock(mut self, clock: impl Clock) -> Self {
        self.clock = Arc::new(clock);
        self
    }

    pub(crate) fn clock_arc(mut self, clock: Arc<dyn Clock>) -> Self {
        self.clock = clock;
        self
    }

    /// How many tasks are kept now.
    pub fn len(&self) -> usize {
        self.lock().tasks.len()
    }

    /// Whether no task is kept.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn is_expired(&self, updated: SystemTime, now: SystemTime) -> bool {
        now.duration_since(updated)
            .is_ok_and(|idle| idle >= self.idle_timeout)
    }

    fn get_now(&self, id: &str) -> Option<Task> {
        let now = self.clock.now();
        let mut inner = self.lock();
        let entry = inner.tasks.get(id)?;
        if is_settled(&entry.task) && self.is_expired(entry.updated, now) {
            let seq = entry.seq;
            inner.settled.remove(&seq);
            inner.tasks.remove(id);
            return None;
        }
        Some(entry.task.clone())
    }

    fn put_now(&self, mut task: Task) -> Result<(), StoreError> {
        budget::trim_history(&mut task.history, self.max_history, self.max_history_bytes);
        let now = self.clock.now();
        let mut inner = self.lock();
        self.evict_idle(&mut inner, now);
        if let Some(old) = inner.tasks.get(&task.id) {
            let seq = old.seq;
            inner.settled.remove(&seq);
        } else if inner.tasks.len() >= self.capacity {
            let Some((_, oldest)) = inner.settled.pop_first() else {
                return Err(StoreError::Full {
                    capacity: self.capacity,
                });
            };
            inner.tasks.remove(&oldest);
        }
        let seq = inner.next_seq;
        inner.next_seq += 1;
        if is_settled(&task) {
            inner.settled.insert(seq, task.id.clone());
        }
        inner.tasks.insert(
            task.id.clone(),
            Entry {
                task,
                updated: now,
                seq,
            },
        );
        Ok(())
    }

    fn evict_idle(&self, inner: &mut Inner, now: SystemTime) {
        while let Some((&seq, id)) = inner.settled.first_key_value() {
            let expired = inner
                .tasks
                .get(id)
                .is_none_or(|entry| self.is_expired(entry.updated, now));
            if !expired {
                break;
            }
            if let Some(id) = inner.settled.remove(&seq) {
                inner.tasks.remove(&id);
            }
        }
    }
}

/// Whether the agent is done with the task for now (it may be evicted).
fn is_settled(task: &Task) -> bool {
    let state = task.status.state;
    state.is_terminal() || state.is_interrupted()
}

impl TaskStore for InMemoryStore {
    fn get<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<Task>, StoreError>> {
        Box::pin(future::ready(Ok(self.get_now(id))))
    }

    fn put(&self, task: Task) -> BoxFuture<'_, Result<(), StoreError>> {
        Box::pin(future::ready(self.put_now(task)))
    }

    fn list<'a>(
        &'a self,
        query: &'a TaskListQuery,
    ) -> BoxFuture<'a, Result<Option<TaskPage>, StoreError>> {
        let now = self.clock.now();
        let inner = self.lock();
        let live = inner
            .tasks
            .values()
            .filter(|entry| !(is_settled(&entry.task) && self.is_expired(entry.updated, now)));
        let page = list_page(live.map(|entry| &entry.task), query);
        drop(inner);
        Box::pin(future::ready(Ok(page)))
    }
}

impl<S: TaskStore> TaskStore for Arc<S> {
    fn get<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<Task>, StoreError>> {
        S::get(self, id)
    }

    fn put(&self, task: Task) -> BoxFuture<'_, Result<(), StoreError>> {
        S::put(self, task)
    }

    fn list<'a>(
        &'a self,
        query: &'a TaskListQuery,
    ) -> BoxFuture<'a, Result<Option<TaskPage>, StoreError>> {
        S::list(self, query)
    }

    fn replace<'a>(
        &'a self,
        expected: &'a TaskStatus,
        task: Task,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        S::replace(self, expected, task)
    }

    fn cluster(&self) -> Option<Arc<dyn Cluster>> {
        S::cluster(self)
    }
}

#[cfg(test)]
mod tests {
    use std::time::UNIX_EPOCH;

    use super::*;
    use crate::a2a::{TaskState, TaskStatus};
    use crate::task::ManualClock;

    fn task(id: &str, state: TaskState) -> Task {
        Task {
            id: id.into(),
            context_id: "c".into(),
            status: TaskStatus {
                state,
                message: None,
                timestamp: None,
            },
            artifacts: Vec::new(),
            history: Vec::new(),
            metadata: None,
        }
    }

    fn store(capacity: usize, idle: u64) -> (InMemoryStore, Arc<ManualClock>) {
        let clock = Arc::new(ManualClock::new(UNIX_EPOCH));
        let store = InMemoryStore::new()
            .capacity(capacity)
            .idle_timeout(Duration::from_secs(idle))
            .clock(clock.clone());
        (store, clock)
    }

    #[test]
    fn a_full_store_evicts_the_least_recently_updated_settled_task() {
        let (store, _) = store(2, 3600);
        store.put_now(task("a", TaskState::Completed)).unwrap();
        store.put_now(task("b", TaskState::InputRequired)).unwrap();
        store.put_now(task("a", TaskState::Completed)).unwrap();
        store.put_now(task("c", TaskState::Working)).unwrap();
        assert!(store.get_now("b").is_none());
        assert!(store.get_now("a").is_some());
        assert_eq!(store.len(), 2);
    }

    #[test]
    fn running_tasks_are_never_evicted_and_a_store_full_of_them_refuses_more() {
        let (store, clock) = store(2, 1);
        store.put_now(task("a", TaskState::Working)).unwrap();
        store.put_now(task("b", TaskState::Submitted)).unwrap();
        clock.advance(Duration::from_secs(10));
        assert_eq!(
            store.put_now(task("c", TaskState::Working)),
            Err(StoreError::Full { capacity: 2 })
        );
        assert!(store.get_now("a").is_some());
        assert!(store.get_now("b").is_some());
    }

    #[test]
    fn settled_tasks_are_forgotten_after_the_idle_timeout() {
        let (store, clock) = store(10, 60);
        store.put_now(task("done", TaskState::Completed)).unwrap();
        store.put_now(task("running", TaskState::Working)).unwrap();
        clock.advance(Duration::from_secs(59));
        assert!(store.get_now("done").is_some());
        clock.advance(Duration::from_secs(1));
        assert!(store.get_now("done").is_none());
        assert!(store.get_now("running").is_some());
    }

    #[test]
    fn history_is_bounded_by_messages_and_by_bytes_keeping_the_newest() {
        use crate::a2a::{Message, Part};
        let store = InMemoryStore::new().max_history(3).max_history_bytes(2_000);
        let mut long = task("t", TaskState::InputRequired);
        let messages = |size: usize| -> Vec<Message> {
            (0..10)
                .map(|n| Message::agent(format!("m{n}"), vec![Part::text("x".repeat(size))]))
                .collect()
        };
        let ids = |store: &InMemoryStore| -> Vec<String> {
            let task = store.get_now("t").unwrap();
            task.history.into_iter().map(|m| m.message_id).collect()
        };
        long.history = messages(100);
        store.put_now(long.clone()).unwrap();
        assert_eq!(ids(&store), ["m7", "m8", "m9"]);
        long.history = messages(900);
        store.put_now(long).unwrap();
        assert_eq!(ids(&store), ["m8", "m9"]);
    }

    #[test]
    fn idle_settled_tasks_are_swept_when_others_are_stored() {
        let (store, clock) = store(100, 60);
        for n in 0..50 {
            store
                .put_now(task(&format!("t{n}"), TaskState::Failed))
                .unwrap();
        }
        clock.advance(Duration::from_secs(61));
        store.put_now(task("new", TaskState::Working)).unwrap();
        assert_eq!(store.len(), 1);
    }
}
