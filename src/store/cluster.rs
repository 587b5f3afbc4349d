//! What a store shared by several server instances adds to keeping tasks.
//!
//! With one process, a task's live events and its cancel signal never leave the process
//! (see the task manager). When several instances share one database, a client may subscribe
//! to, or cancel, a task through an instance that does not run it. A store that can carry
//! those between instances offers a [`Cluster`] through [`TaskStore::cluster`]; the manager
//! asks it only when a task does not run locally, so stores without one (in memory, SQLite)
//! work exactly as before.
//!
//! A running task's chunks (the `working` updates that keep its state) are what most of its
//! events are, and nobody elsewhere needs them unless a client follows the task through
//! another instance. So the runner asks the cluster, for each run, whether another instance
//! watches it ([`Cluster::run`], [`Watched`]) and publishes chunks only while one does;
//! state changes and the final update are always published. A cluster that cannot tell
//! keeps the default, [`Watched::always`]: every event is published.
//!
//! [`TaskStore::cluster`]: super::TaskStore::cluster

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

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
    /// A cluster whose runners publish chunks only while the task is watched (see
    /// [`Cluster::run`]) returns once the instance running the task knows of this watcher
    /// (as far as it can tell: see the store's documentation), so that every chunk made
    /// after the call returns reaches the receiver.
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

    /// Task `id` starts a run on this instance, which lasts until [`Watched::end`] (or the
    /// drop of what this returns): whether other instances watch it, so that its chunks
    /// are published only while one does. Called before the run first stores the task as
    /// running, so that a watcher that finds it running can reach the runner. The default,
    /// [`Watched::always`]: every event is published.
    fn run(&self, id: &str) -> Watched {
        let _ = id;
        Watched::always()
    }

    /// Whether a watcher (on any instance sharing the store, this one included) announced
    /// that it follows task `id` before this instance stored it as running again (a
    /// continuation: watchers may have come while it waited for input). Called after that
    /// write; the default: `true`.
    ///
    /// # Errors
    ///
    /// [`StoreError`] when the store cannot tell (the runner then publishes every event).
    fn announced<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<bool, StoreError>> {
        let _ = id;
        Box::pin(futures::future::ready(Ok(true)))
    }
}

/// Whether instances other than this one watch a task that runs here, for the length of one
/// run (see [`Cluster::run`]). Once watched, a run stays watched until it ends.
pub struct Watched {
    flag: Arc<AtomicBool>,
    /// What the cluster keeps while the run lasts (its entry among the runs it answers for).
    registration: std::sync::Mutex<Option<Box<dyn Send>>>,
}

impl Watched {
    /// Watched for the whole run: every event is published.
    pub fn always() -> Self {
        Watched {
            flag: Arc::new(AtomicBool::new(true)),
            registration: std::sync::Mutex::new(None),
        }
    }

    /// Watched once `flag` is set (by the cluster, when a watcher announces itself);
    /// `registration` is dropped when the run ends.
    pub fn new(flag: Arc<AtomicBool>, registration: impl Send + 'static) -> Self {
        Watched {
            flag,
            registration: std::sync::Mutex::new(Some(Box::new(registration))),
        }
    }

    /// Whether another instance watches the run.
    pub fn is_watched(&self) -> bool {
        self.flag.load(Ordering::Acquire)
    }

    /// Marks the run as watched (by [`Cluster::announced`], say).
    pub fn mark(&self) {
        self.flag.store(true, Ordering::Release);
    }

    /// The run is over: the cluster no longer answers for it.
    pub fn end(&self) {
        let registration = self
            .registration
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .take();
        drop(registration);
    }
}

impl std::fmt::Debug for Watched {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Watched")
            .field("watched", &self.is_watched())
            .finish_non_exhaustive()
    }
}
