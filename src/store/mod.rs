//! Where tasks are kept between requests.
//!
//! [`TaskStore`] is the seam for a database; [`InMemoryStore`] is the default. A server that
//! runs for weeks must not grow without bound, so the in-memory store holds at most
//! `capacity` tasks and forgets *settled* tasks (terminal, or waiting for the user) that were
//! not updated for `idle_timeout`, oldest first. Tasks the agent is working on are never
//! evicted; when every slot holds one, new tasks are refused. Every store bounds what one
//! task keeps by messages and by bytes (`budget`), and the in-memory store also bounds the
//! bytes of all its tasks, keeping each as compact JSON (`task_json`).

#[cfg(test)]
mod arbitrary;
mod budget;
mod cluster;
mod codec;
mod error;
mod memory;
mod outbox;
mod owner;
mod page;
#[cfg(feature = "postgres")]
mod postgres;
mod projection;
mod push_store;
#[cfg(any(feature = "sqlite", feature = "postgres"))]
mod row;
#[cfg(feature = "sqlite")]
mod sqlite;
mod task_json;

pub use cluster::{Cluster, Watched};
pub use error::StoreError;
pub use memory::InMemoryStore;
pub use outbox::{Adopted, Held, PendingUpdate, PushOutbox};
pub use owner::Owner;
#[cfg(any(feature = "sqlite", feature = "postgres"))]
pub(crate) use page::normalized_timestamp;
pub use page::{PageCursor, list_page};
#[cfg(feature = "postgres")]
pub use postgres::{PostgresBuilder, PostgresStore};
pub use push_store::PushConfigPut;
#[cfg(any(feature = "sqlite", feature = "postgres"))]
pub use row::STOPPED_MESSAGE;
#[cfg(feature = "sqlite")]
pub use sqlite::SqliteStore;

use std::sync::Arc;

use futures::future::{self, BoxFuture};

use crate::a2a::{PushConfig, Task, TaskListQuery, TaskPage, TaskStatus};

/// Keeps tasks by id, each for its [`Owner`].
///
/// Every call carries the owner of the caller, and a store must answer as if the tasks of
/// every other owner did not exist: `get` finds only the owner's tasks, `list` pages only
/// through them (in the query itself, never by filtering what was fetched), and `put` and
/// `replace` never overwrite another owner's task. The server answers another caller's task
/// exactly as a missing one.
///
/// The server is the only writer of a task while its agent runs; it writes on each state
/// change (not on each chunk).
///
/// # Example
///
/// ```
/// use a2ui_agent::a2a::Task;
/// use a2ui_agent::store::{Owner, StoreError, TaskStore};
/// use futures::future::BoxFuture;
///
/// /// A store that forgets everything (tasks live only while they run).
/// struct Forgetful;
///
/// impl TaskStore for Forgetful {
///     fn get<'a>(
///         &'a self,
///         _owner: &'a Owner,
///         _id: &'a str,
///     ) -> BoxFuture<'a, Result<Option<Task>, StoreError>> {
///         Box::pin(async { Ok(None) })
///     }
///     fn put<'a>(&'a self, _owner: &'a Owner, _task: Task) -> BoxFuture<'a, Result<(), StoreError>> {
///         Box::pin(async { Ok(()) })
///     }
/// }
/// ```
pub trait TaskStore: Send + Sync + 'static {
    /// The task with `id` of `owner`, if kept (`None` for another owner's task).
    ///
    /// # Errors
    ///
    /// [`StoreError`] when the store cannot answer.
    fn get<'a>(
        &'a self,
        owner: &'a Owner,
        id: &'a str,
    ) -> BoxFuture<'a, Result<Option<Task>, StoreError>>;

    /// Inserts or replaces a task of `owner`.
    ///
    /// # Errors
    ///
    /// [`StoreError`] when the store cannot keep it (e.g. [`StoreError::Full`]), and
    /// [`StoreError::OtherOwner`] when another owner's task has its id.
    fn put<'a>(&'a self, owner: &'a Owner, task: Task) -> BoxFuture<'a, Result<(), StoreError>>;

    /// One page of the tasks of `owner` matching `query`, newest status first (A2A 1.0 `ListTasks`);
    /// `Ok(None)` when the page token is not one this store wrote. [`list_page`] does the
    /// filtering and paging over any iterator of tasks.
    ///
    /// A store may leave out what the query does not ask for, and should when decoding it
    /// costs: the artifacts unless `query.include_artifacts`, and history beyond the newest
    /// `query.history_length` messages. The caller trims the rest.
    ///
    /// The default refuses with [`StoreError::Unsupported`] (clients get
    /// `UnsupportedOperationError`), so a store written before listing existed still works.
    ///
    /// # Errors
    ///
    /// [`StoreError`] when the store cannot answer.
    fn list<'a>(
        &'a self,
        owner: &'a Owner,
        query: &'a TaskListQuery,
    ) -> BoxFuture<'a, Result<Option<TaskPage>, StoreError>> {
        let _ = (owner, query);
        Box::pin(future::ready(Err(StoreError::Unsupported("listing tasks"))))
    }

    /// Replaces the kept task of `owner` with `task` only if the kept one still has the status
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
        owner: &'a Owner,
        expected: &'a TaskStatus,
        task: Task,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        Box::pin(async move {
            let unchanged = self.get(owner, &task.id).await?.is_some_and(|kept| {
                kept.status.state == expected.state && kept.status.timestamp == expected.timestamp
            });
            if unchanged {
                self.put(owner, task).await?;
            }
            Ok(unchanged)
        })
    }

    /// What the store carries between server instances sharing it, if it is shared
    /// (see [`Cluster`]). `None` by default: one process.
    fn cluster(&self) -> Option<Arc<dyn Cluster>> {
        None
    }

    /// Where push deliveries wait until they are done, if the store keeps them (see
    /// [`PushOutbox`]). `None` by default: they wait in the process and die with it.
    fn push_outbox(&self) -> Option<Arc<dyn PushOutbox>> {
        None
    }

    /// Whether a new task would be kept now: `Err` ([`StoreError::Full`], say) when a
    /// [`put`](Self::put) of one would be refused. The server asks before it calls an agent
    /// for a task that does not exist yet (the agent may answer without one), so that a
    /// full store refuses before the agent works; `put` may still refuse later. The
    /// default: `Ok`.
    ///
    /// # Errors
    ///
    /// [`StoreError`] when no new task fits.
    fn has_room(&self) -> BoxFuture<'_, Result<(), StoreError>> {
        Box::pin(future::ready(Ok(())))
    }

    /// Sets a push notification config on task `task_id` of `owner`: in place of the one
    /// with the same id, else added while the task holds fewer than `max`. Configs live as
    /// long as their task and go with it.
    ///
    /// The default refuses with [`StoreError::Unsupported`] (push stays off for a store
    /// written before push existed).
    ///
    /// # Errors
    ///
    /// [`StoreError`] when the store cannot answer.
    fn put_push_config<'a>(
        &'a self,
        owner: &'a Owner,
        task_id: &'a str,
        config: PushConfig,
        max: usize,
    ) -> BoxFuture<'a, Result<PushConfigPut, StoreError>> {
        let _ = (owner, task_id, config, max);
        Box::pin(future::ready(Err(StoreError::Unsupported(
            "push notification configs",
        ))))
    }

    /// The push notification configs of task `task_id` of `owner`, in the order they were
    /// first set; `None` when the owner has no such task.
    ///
    /// # Errors
    ///
    /// [`StoreError`] when the store cannot answer.
    fn push_configs<'a>(
        &'a self,
        owner: &'a Owner,
        task_id: &'a str,
    ) -> BoxFuture<'a, Result<Option<Vec<PushConfig>>, StoreError>> {
        let _ = (owner, task_id);
        Box::pin(future::ready(Err(StoreError::Unsupported(
            "push notification configs",
        ))))
    }

    /// Deletes config `config_id` of task `task_id` of `owner`: `Some(true)` when it was
    /// kept, `Some(false)` when it was not, `None` when the owner has no such task.
    ///
    /// # Errors
    ///
    /// [`StoreError`] when the store cannot answer.
    fn delete_push_config<'a>(
        &'a self,
        owner: &'a Owner,
        task_id: &'a str,
        config_id: &'a str,
    ) -> BoxFuture<'a, Result<Option<bool>, StoreError>> {
        let _ = (owner, task_id, config_id);
        Box::pin(future::ready(Err(StoreError::Unsupported(
            "push notification configs",
        ))))
    }
}

impl<S: TaskStore> TaskStore for Arc<S> {
    fn get<'a>(
        &'a self,
        owner: &'a Owner,
        id: &'a str,
    ) -> BoxFuture<'a, Result<Option<Task>, StoreError>> {
        S::get(self, owner, id)
    }

    fn put<'a>(&'a self, owner: &'a Owner, task: Task) -> BoxFuture<'a, Result<(), StoreError>> {
        S::put(self, owner, task)
    }

    fn list<'a>(
        &'a self,
        owner: &'a Owner,
        query: &'a TaskListQuery,
    ) -> BoxFuture<'a, Result<Option<TaskPage>, StoreError>> {
        S::list(self, owner, query)
    }

    fn replace<'a>(
        &'a self,
        owner: &'a Owner,
        expected: &'a TaskStatus,
        task: Task,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        S::replace(self, owner, expected, task)
    }

    fn cluster(&self) -> Option<Arc<dyn Cluster>> {
        S::cluster(self)
    }

    fn push_outbox(&self) -> Option<Arc<dyn PushOutbox>> {
        S::push_outbox(self)
    }

    fn has_room(&self) -> BoxFuture<'_, Result<(), StoreError>> {
        S::has_room(self)
    }

    fn put_push_config<'a>(
        &'a self,
        owner: &'a Owner,
        task_id: &'a str,
        config: PushConfig,
        max: usize,
    ) -> BoxFuture<'a, Result<PushConfigPut, StoreError>> {
        S::put_push_config(self, owner, task_id, config, max)
    }

    fn push_configs<'a>(
        &'a self,
        owner: &'a Owner,
        task_id: &'a str,
    ) -> BoxFuture<'a, Result<Option<Vec<PushConfig>>, StoreError>> {
        S::push_configs(self, owner, task_id)
    }

    fn delete_push_config<'a>(
        &'a self,
        owner: &'a Owner,
        task_id: &'a str,
        config_id: &'a str,
    ) -> BoxFuture<'a, Result<Option<bool>, StoreError>> {
        S::delete_push_config(self, owner, task_id, config_id)
    }
}
