//! What a store shared by several server instances adds to keeping tasks.
//!
//! With one process, a task's live events and its cancel signal never leave the process
//! (see the task manager). When several instances share one database, a client may subscribe
//! to, or cancel, a task through an instance that does not run it. A store that can carry
//! those between instances offers a [`Cluster`] through [`TaskStore::cluster`]; the manager
//! asks it only when a task does not run locally, so stores without one (in memory, SQLite)
//! work exactly as before.
//!
//! [`TaskStore::cluster`]: super::TaskStore::cluster

use std::sync::Arc;

use futures::future::BoxFuture;
use tokio::sync::mpsc;

use super::StoreError;
use crate::a2a::StreamEvent;

/// Carries task events and cancel requests between the instances sharing a store.
///
/// # Example
///
/// ```
/// use std::sync::Arc;
/// use a2ui_agent::a2a::StreamEvent;
/// use a2ui_agent::store::{Cluster, StoreError};
/// use futures::future::BoxFuture;
/// use tokio::sync::mpsc;
///
/// /// A cluster of one: nothing to carry.
/// struct Alone;
///
/// impl Cluster for Alone {
///     fn publish<'a>(&'a self, _event: &'a StreamEvent) -> BoxFuture<'a, Result<(), StoreError>> {
///         Box::pin(async { Ok(()) })
///     }
///     fn watch<'a>(
///         &'a self,
///         _id: &'a str,
///     ) -> BoxFuture<'a, Result<mpsc::Receiver<Arc<StreamEvent>>, StoreError>> {
///         Box::pin(async { Ok(mpsc::channel(1).1) })
///     }
///     fn request_cancel<'a>(&'a self, _id: &'a str) -> BoxFuture<'a, Result<(), StoreError>> {
///         Box::pin(async { Ok(()) })
///     }
///     fn cancel_requests(&self) -> Option<mpsc::Receiver<String>> {
///         None
///     }
/// }
/// ```
pub trait Cluster: Send + Sync + 'static {
    /// Sends an event of a task running on this instance to the instances watching it.
    ///
    /// # Errors
    ///
    /// [`StoreError`] when it cannot be sent (the local stream goes on regardless).
    fn publish<'a>(&'a self, event: &'a StreamEvent) -> BoxFuture<'a, Result<(), StoreError>>;

    /// The events of task `id` that any instance publishes from now on. The receiver ends
    /// when the store stops or cuts off a watcher that does not keep up.
    ///
    /// # Errors
    ///
    /// [`StoreError`] when the store cannot watch.
    fn watch<'a>(
        &'a self,
        id: &'a str,
    ) -> BoxFuture<'a, Result<mpsc::Receiver<Arc<StreamEvent>>, StoreError>>;

    /// Asks whichever instance runs task `id` to cancel it. Delivery is not guaranteed (the
    /// caller asks again until the task settles).
    ///
    /// # Errors
    ///
    /// [`StoreError`] when the request cannot be sent.
    fn request_cancel<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<(), StoreError>>;

    /// The ids of tasks other instances asked to cancel (the manager stops those it runs).
    /// The first call takes the receiver; later calls get `None`.
    fn cancel_requests(&self) -> Option<mpsc::Receiver<String>>;
}
