//! The default [`TaskStore`]: a bounded map in memory.
//!
//! A server that runs for weeks must not grow without bound, so this store holds at most
//! `capacity` tasks and `max_bytes` of them, forgets *settled* tasks (terminal, or waiting
//! for the user) that were not updated for `idle_timeout`, oldest first, and keeps each task
//! as compact JSON (`task_json`). Tasks the agent is working on are never evicted; when every
//! slot holds one, new tasks are refused.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use futures::future::{self, BoxFuture};

use super::budget::Budget;
use super::projection::Projection;
use super::push_store::{PushConfigPut, upsert};
use super::task_json::TaskJson;
use super::{Owner, StoreError, TaskStore, list_page};
use crate::a2a::{PushConfig, Task, TaskListQuery, TaskPage};
use crate::clock::{Clock, SystemClock};

/// The default store: a bounded map in memory.
///
/// Bounds, each with a builder method:
///
/// - [`capacity`](Self::capacity) tasks and [`max_bytes`](Self::max_bytes) bytes in all
///   (tasks measured as their JSON). To make room, settled tasks are forgotten, least
///   recently updated first; when the tasks that are left all run, a *new* task is refused
///   with [`StoreError::Full`] or [`StoreError::OverBudget`] (clients get "server busy").
///   An update of a task already kept is never refused: a running task that grows while
///   nothing else can be evicted may take the store past `max_bytes`, by at most its own
///   per-task budget.
/// - Per task, [`max_history`](Self::max_history) messages,
///   [`max_history_bytes`](Self::max_history_bytes) of history and
///   [`max_parts_bytes`](Self::max_parts_bytes) of status message and artifacts. The oldest
///   history goes first; a single message or artifact too large for what is left keeps its
///   ids but its parts read back as one text part saying how large they were and that the
///   store did not keep them (stream subscribers got them as they came).
///
/// Tasks are kept as compact JSON and decoded when read, so the store's memory is close to
/// the JSON size of its tasks (an A2UI task as Rust values is several times larger).
///
/// # Example
///
/// ```
/// use std::time::Duration;
/// use a2ui_agent::store::InMemoryStore;
///
/// let store = InMemoryStore::new()
///     .capacity(1_000)
///     .max_bytes(64 << 20)
///     .max_parts_bytes(256 << 10)
///     .idle_timeout(Duration::from_secs(600));
/// ```
pub struct InMemoryStore {
    capacity: usize,
    max_bytes: usize,
    idle_timeout: Duration,
    budget: Budget,
    clock: Arc<dyn Clock>,
    inner: Mutex<Inner>,
}

#[derive(Default)]
struct Inner {
    tasks: HashMap<String, Entry>,
    /// Settled tasks by last update, oldest first: the eviction order.
    settled: BTreeMap<u64, String>,
    next_seq: u64,
    /// The bytes of every task kept.
    bytes: usize,
    /// The bytes of the settled ones (the rest cannot be evicted).
    settled_bytes: usize,
}

struct Entry {
    /// Only this owner finds the task.
    owner: Owner,
    task: TaskJson,
    updated: SystemTime,
    seq: u64,
    /// The task's push notification configs, gone with it.
    push: Vec<PushConfig>,
    /// What they take, counted with the task's bytes.
    push_bytes: usize,
}

/// About what `configs` take in memory, for the store's byte budget.
fn push_bytes(configs: &[PushConfig]) -> usize {
    configs
        .iter()
        .map(|config| {
            let auth = config.authentication.as_ref();
            64 + config.id.len()
                + config.url.len()
                + config.token.as_ref().map_or(0, String::len)
                + auth.map_or(0, |auth| {
                    auth.schemes.iter().map(String::len).sum::<usize>()
                        + auth.credentials.as_ref().map_or(0, String::len)
                })
        })
        .sum()
}

impl Inner {
    /// Forgets task `id`, if kept.
    fn remove(&mut self, id: &str) -> Option<Entry> {
        let entry = self.tasks.remove(id)?;
        let size = entry.task.bytes() + entry.push_bytes;
        self.bytes -= size;
        if self.settled.remove(&entry.seq).is_some() {
            self.settled_bytes -= size;
        }
        Some(entry)
    }

    /// Forgets the least recently updated settled task; false when there is none.
    fn evict_oldest(&mut self) -> bool {
        match self.settled.first_key_value() {
            Some((_, id)) => {
                let id = id.clone();
                self.remove(&id);
                true
            }
            None => false,
        }
    }
}

/// A change of an entry's push config bytes, to apply to the store's totals.
struct Resized {
    before: usize,
    after: usize,
    seq: u64,
}

impl Resized {
    fn apply(self, inner: &mut Inner) {
        let settled = inner.settled.contains_key(&self.seq);
        inner.bytes = (inner.bytes + self.after).saturating_sub(self.before);
        if settled {
            inner.settled_bytes = (inner.settled_bytes + self.after).saturating_sub(self.before);
        }
    }
}

/// Recounts `entry`'s push config bytes; the change, if any.
fn resize(entry: &mut Entry) -> Option<Resized> {
    let after = push_bytes(&entry.push);
    let before = std::mem::replace(&mut entry.push_bytes, after);
    (before != after).then_some(Resized {
        before,
        after,
        seq: entry.seq,
    })
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
            .field("max_bytes", &self.max_bytes)
            .field("idle_timeout", &self.idle_timeout)
            .field("budget", &self.budget)
            .field("len", &self.len())
            .finish()
    }
}

impl InMemoryStore {
    /// Default capacity: 10,000 tasks.
    pub const DEFAULT_CAPACITY: usize = 10_000;
    /// Default byte budget of all tasks together (as JSON): 256 MiB.
    pub const DEFAULT_MAX_BYTES: usize = 256 << 20;
    /// Default idle timeout of settled tasks: one hour.
    pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(3600);
    /// Default: at most 1 MiB of history (as JSON) per task.
    pub const DEFAULT_MAX_HISTORY_BYTES: usize = Budget::DEFAULT_MAX_HISTORY_BYTES;
    /// Default: at most 1 MiB of status message and artifacts (as JSON) per task.
    pub const DEFAULT_MAX_PARTS_BYTES: usize = Budget::DEFAULT_MAX_PARTS_BYTES;

    /// A store with the default bounds, on the system clock.
    pub fn new() -> Self {
        Self {
            capacity: Self::DEFAULT_CAPACITY,
            max_bytes: Self::DEFAULT_MAX_BYTES,
            idle_timeout: Self::DEFAULT_IDLE_TIMEOUT,
            budget: Budget::DEFAULT,
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

    /// The most bytes (tasks as JSON) kept at once; see the type's documentation for what
    /// happens when they are reached.
    #[must_use]
    pub fn max_bytes(mut self, bytes: usize) -> Self {
        self.max_bytes = bytes;
        self
    }

    /// How long a settled task is kept after its last update.
    #[must_use]
    pub fn idle_timeout(mut self, timeout: Duration) -> Self {
        self.idle_timeout = timeout;
        self
    }

    super::budget::budget_setters!(budget);

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

    /// How many bytes (tasks as JSON) are kept now.
    pub fn bytes(&self) -> usize {
        self.lock().bytes
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

    fn get_now(&self, owner: &Owner, id: &str) -> Result<Option<Task>, StoreError> {
        let now = self.clock.now();
        let mut inner = self.lock();
        let Some(entry) = inner.tasks.get(id).filter(|entry| entry.owner == *owner) else {
            return Ok(None);
        };
        if entry.task.header().status.state.is_settled() && self.is_expired(entry.updated, now) {
            inner.remove(id);
            return Ok(None);
        }
        let packed = entry.task.clone();
        drop(inner);
        packed.unpack().map(Some)
    }

    fn put_now(&self, owner: &Owner, mut task: Task) -> Result<(), StoreError> {
        self.budget.apply(&mut task);
        let task = TaskJson::pack(task);
        let size = task.bytes();
        let settled = task.header().status.state.is_settled();
        let now = self.clock.now();
        let mut inner = self.lock();
        self.evict_idle(&mut inner, now);
        let id = task.header().id.clone();
        if inner
            .tasks
            .get(&id)
            .is_some_and(|kept| kept.owner != *owner)
        {
            return Err(StoreError::OtherOwner {
                engine: "memory",
                id,
            });
        }
        let (push, kept_push_bytes) = match inner.remove(&id) {
            // An update keeps the task's push configs.
            Some(kept) => (kept.push, kept.push_bytes),
            None => {
                // A new task: refused, before anything is evicted, if the running ones
                // leave no room for it.
                if inner.tasks.len() - inner.settled.len() >= self.capacity {
                    return Err(StoreError::Full {
                        capacity: self.capacity,
                    });
                }
                if (inner.bytes - inner.settled_bytes).saturating_add(size) > self.max_bytes {
                    return Err(StoreError::OverBudget {
                        max_bytes: self.max_bytes,
                    });
                }
                (Vec::new(), 0)
            }
        };
        let size = size + kept_push_bytes;
        while (inner.tasks.len() >= self.capacity
            || inner.bytes.saturating_add(size) > self.max_bytes)
            && inner.evict_oldest()
        {}
        let seq = inner.next_seq;
        inner.next_seq += 1;
        inner.bytes += size;
        if settled {
            inner.settled.insert(seq, id.clone());
            inner.settled_bytes += size;
        }
        inner.tasks.insert(
            id,
            Entry {
                owner: owner.clone(),
                task,
                updated: now,
                seq,
                push,
                push_bytes: kept_push_bytes,
            },
        );
        Ok(())
    }

    /// The live entry of task `id` of `owner` (an expired one is forgotten first).
    fn live_entry<'i>(
        &self,
        inner: &'i mut Inner,
        owner: &Owner,
        id: &str,
    ) -> Option<&'i mut Entry> {
        let now = self.clock.now();
        let expired = {
            let entry = inner.tasks.get(id).filter(|entry| entry.owner == *owner)?;
            entry.task.header().status.state.is_settled() && self.is_expired(entry.updated, now)
        };
        if expired {
            inner.remove(id);
            return None;
        }
        inner.tasks.get_mut(id)
    }

    fn evict_idle(&self, inner: &mut Inner, now: SystemTime) {
        while let Some((_, id)) = inner.settled.first_key_value() {
            let expired = inner
                .tasks
                .get(id)
                .is_none_or(|entry| self.is_expired(entry.updated, now));
            if !expired || !inner.evict_oldest() {
                break;
            }
        }
    }
}

impl TaskStore for InMemoryStore {
    fn get<'a>(
        &'a self,
        owner: &'a Owner,
        id: &'a str,
    ) -> BoxFuture<'a, Result<Option<Task>, StoreError>> {
        Box::pin(future::ready(self.get_now(owner, id)))
    }

    fn put<'a>(&'a self, owner: &'a Owner, task: Task) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(future::ready(self.put_now(owner, task)))
    }

    fn put_push_config<'a>(
        &'a self,
        owner: &'a Owner,
        task_id: &'a str,
        config: PushConfig,
        max: usize,
    ) -> BoxFuture<'a, Result<PushConfigPut, StoreError>> {
        let mut inner = self.lock();
        let (put, grown) = match self.live_entry(&mut inner, owner, task_id) {
            Some(entry) => {
                let put = upsert(&mut entry.push, config, max);
                (put, resize(entry))
            }
            None => (PushConfigPut::NoTask, None),
        };
        if let Some(change) = grown {
            change.apply(&mut inner);
        }
        Box::pin(future::ready(Ok(put)))
    }

    fn push_configs<'a>(
        &'a self,
        owner: &'a Owner,
        task_id: &'a str,
    ) -> BoxFuture<'a, Result<Option<Vec<PushConfig>>, StoreError>> {
        let mut inner = self.lock();
        let configs = self
            .live_entry(&mut inner, owner, task_id)
            .map(|entry| entry.push.clone());
        Box::pin(future::ready(Ok(configs)))
    }

    fn delete_push_config<'a>(
        &'a self,
        owner: &'a Owner,
        task_id: &'a str,
        config_id: &'a str,
    ) -> BoxFuture<'a, Result<Option<bool>, StoreError>> {
        let mut inner = self.lock();
        let mut change = None;
        let deleted = self.live_entry(&mut inner, owner, task_id).map(|entry| {
            let before = entry.push.len();
            entry.push.retain(|config| config.id != config_id);
            change = resize(entry);
            entry.push.len() < before
        });
        if let Some(change) = change {
            change.apply(&mut inner);
        }
        Box::pin(future::ready(Ok(deleted)))
    }

    fn has_room(&self) -> BoxFuture<'_, Result<(), StoreError>> {
        let inner = self.lock();
        // What `put_now` refuses a new task for, but for its size.
        let room = if inner.tasks.len() - inner.settled.len() >= self.capacity {
            Err(StoreError::Full {
                capacity: self.capacity,
            })
        } else if inner.bytes - inner.settled_bytes >= self.max_bytes {
            Err(StoreError::OverBudget {
                max_bytes: self.max_bytes,
            })
        } else {
            Ok(())
        };
        Box::pin(future::ready(room))
    }

    fn list<'a>(
        &'a self,
        owner: &'a Owner,
        query: &'a TaskListQuery,
    ) -> BoxFuture<'a, Result<Option<TaskPage>, StoreError>> {
        let now = self.clock.now();
        let inner = self.lock();
        // Only the owner's tasks are looked at, under the lock.
        let live = inner.tasks.values().filter(|entry| {
            entry.owner == *owner
                && !(entry.task.header().status.state.is_settled()
                    && self.is_expired(entry.updated, now))
        });
        // The page is chosen by the headers; only its tasks are decoded, out of the lock.
        let page = list_page(live.map(|entry| entry.task.header()), query).map(|page| {
            let packed: Vec<Option<TaskJson>> = page
                .tasks
                .iter()
                .map(|header| inner.tasks.get(&header.id).map(|e| e.task.clone()))
                .collect();
            (page, packed)
        });
        drop(inner);
        let wanted = Projection::listed(query);
        let page = page
            .map(|(mut page, packed)| {
                page.tasks = packed
                    .iter()
                    .flatten()
                    .map(|task| task.unpack_wanted(wanted))
                    .collect::<Result<_, _>>()?;
                Ok(page)
            })
            .transpose();
        Box::pin(future::ready(page))
    }
}

#[cfg(test)]
mod tests;
