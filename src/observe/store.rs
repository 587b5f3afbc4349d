//! [`TimedStore`]: any task store, each operation's latency recorded and traced.
//!
//! A wrapper rather than a call in every store: the stores (memory, SQLite, PostgreSQL, a
//! user's own) stay unaware of metrics and traces, and a server with neither never wraps
//! its store.

use std::future::Future;
use std::sync::Arc;
use std::time::Instant;

use futures::future::BoxFuture;
use tracing::Instrument;

use super::{Meter, trace};
use crate::a2a::{PushConfig, Task, TaskListQuery, TaskPage, TaskStatus};
use crate::store::{Cluster, Owner, PushConfigPut, PushOutbox, StoreError, TaskStore};

/// `inner`, every operation timed on `meter` (`store_operation_seconds{operation}`) and
/// traced (a `store` span).
pub(crate) struct TimedStore {
    inner: Arc<dyn TaskStore>,
    meter: Meter,
}

impl TimedStore {
    /// `inner` timed on `meter`.
    pub(crate) fn wrap(inner: Arc<dyn TaskStore>, meter: Meter) -> Arc<dyn TaskStore> {
        Arc::new(Self { inner, meter })
    }

    /// `operation` timed as `name`, in a span of its own.
    fn timed<'a, T: Send + 'a>(
        &'a self,
        name: &'static str,
        operation: impl Future<Output = T> + Send + 'a,
    ) -> BoxFuture<'a, T> {
        Box::pin(async move {
            // Made when first polled: its parent is the span the caller awaits it in.
            let span = trace::store(name);
            let started = Instant::now();
            let result = operation.instrument(span).await;
            self.meter.store_op(name, started);
            result
        })
    }
}

impl TaskStore for TimedStore {
    fn get<'a>(
        &'a self,
        owner: &'a Owner,
        id: &'a str,
    ) -> BoxFuture<'a, Result<Option<Task>, StoreError>> {
        self.timed("get", self.inner.get(owner, id))
    }

    fn put<'a>(&'a self, owner: &'a Owner, task: Task) -> BoxFuture<'a, Result<(), StoreError>> {
        self.timed("put", self.inner.put(owner, task))
    }

    fn list<'a>(
        &'a self,
        owner: &'a Owner,
        query: &'a TaskListQuery,
    ) -> BoxFuture<'a, Result<Option<TaskPage>, StoreError>> {
        self.timed("list", self.inner.list(owner, query))
    }

    fn replace<'a>(
        &'a self,
        owner: &'a Owner,
        expected: &'a TaskStatus,
        task: Task,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        self.timed("replace", self.inner.replace(owner, expected, task))
    }

    fn cluster(&self) -> Option<Arc<dyn Cluster>> {
        self.inner.cluster()
    }

    fn push_outbox(&self) -> Option<Arc<dyn PushOutbox>> {
        self.inner.push_outbox()
    }

    fn has_room(&self) -> BoxFuture<'_, Result<(), StoreError>> {
        self.timed("has_room", self.inner.has_room())
    }

    fn put_push_config<'a>(
        &'a self,
        owner: &'a Owner,
        task_id: &'a str,
        config: PushConfig,
        max: usize,
    ) -> BoxFuture<'a, Result<PushConfigPut, StoreError>> {
        self.timed(
            "put_push_config",
            self.inner.put_push_config(owner, task_id, config, max),
        )
    }

    fn push_configs<'a>(
        &'a self,
        owner: &'a Owner,
        task_id: &'a str,
    ) -> BoxFuture<'a, Result<Option<Vec<PushConfig>>, StoreError>> {
        self.timed("push_configs", self.inner.push_configs(owner, task_id))
    }

    fn delete_push_config<'a>(
        &'a self,
        owner: &'a Owner,
        task_id: &'a str,
        config_id: &'a str,
    ) -> BoxFuture<'a, Result<Option<bool>, StoreError>> {
        self.timed(
            "delete_push_config",
            self.inner.delete_push_config(owner, task_id, config_id),
        )
    }
}
