//! Push deliveries kept in a shared store until their webhook acknowledges them.
//!
//! Without one, the updates a server has queued for webhooks live in its memory and die
//! with it. A store shared by several instances can keep them instead: the instance that
//! queues an update for a webhook first writes it down as *held* by itself
//! ([`PushOutbox::hold`]), and lets go of it once the webhook acknowledged it or it was
//! given up on ([`PushOutbox::release`]). When an instance dies, its held deliveries stay
//! behind; once its lease has expired, whichever live instance with push on asks first
//! takes over all of a webhook's deliveries at once ([`PushOutbox::adopt`]) and sends them
//! in the order they were held. A store offers one through
//! [`TaskStore::push_outbox`](super::TaskStore::push_outbox); stores without one (in
//! memory, SQLite) keep deliveries in the process as before.
//!
//! The store keeps the payload as the push layer encoded it (bytes and their content type),
//! so it knows no wire format. One update is written by the store itself: when a peer fails
//! the running task of an instance that stopped, the task's webhooks are owed that final
//! update, which the instance taking it encodes ([`PendingUpdate::Stopped`]).

use std::time::Duration;

use futures::future::BoxFuture;
use tokio::sync::mpsc;

use super::StoreError;
use crate::a2a::{PushConfig, Task};

/// One delivery to write down: the update for config `config_id` of task `task_id`, encoded.
#[derive(Debug, Clone, Copy)]
pub struct Held<'a> {
    /// The task.
    pub task_id: &'a str,
    /// The config (the webhook) it is for.
    pub config_id: &'a str,
    /// The payload's content type.
    pub content_type: &'a str,
    /// The payload.
    pub body: &'a [u8],
}

/// A delivery taken over from an instance that stopped: what to send, and to whom.
#[derive(Debug, Clone, PartialEq)]
pub struct Adopted {
    /// Its id in the outbox; release it once it is done.
    pub id: i64,
    /// The owner of the task ([`Owner::key`](super::Owner::key)).
    pub owner_key: String,
    /// The task.
    pub task_id: String,
    /// The config as it is now (a config replaced since keeps its pending deliveries).
    pub config: PushConfig,
    /// What to send.
    pub update: PendingUpdate,
}

/// What an adopted delivery sends.
#[derive(Debug, Clone, PartialEq)]
pub enum PendingUpdate {
    /// A payload the instance that held it encoded.
    Encoded {
        /// Its content type.
        content_type: String,
        /// The payload.
        body: Vec<u8>,
    },
    /// The final update of a task the store failed because the instance running it
    /// stopped: the task as stored, to be sent as its final status update.
    Stopped(Box<Task>),
}

/// Keeps push deliveries until they are done, for instances sharing a store (see the
/// module doc).
///
/// # Example
///
/// ```
/// use std::time::Duration;
/// use a2ui_agent::store::{Adopted, Held, PushOutbox, StoreError};
/// use futures::future::BoxFuture;
///
/// /// An outbox that keeps nothing: every delivery lives only in the process.
/// struct Forgetful;
///
/// impl PushOutbox for Forgetful {
///     fn hold<'a>(
///         &'a self,
///         held: &'a [Held<'a>],
///     ) -> BoxFuture<'a, Result<Vec<Option<i64>>, StoreError>> {
///         Box::pin(async move { Ok(vec![None; held.len()]) })
///     }
///     fn release<'a>(&'a self, _ids: &'a [i64]) -> BoxFuture<'a, Result<(), StoreError>> {
///         Box::pin(async { Ok(()) })
///     }
///     fn adopt(&self) -> BoxFuture<'_, Result<Vec<Adopted>, StoreError>> {
///         Box::pin(async { Ok(Vec::new()) })
///     }
///     fn adopt_every(&self) -> Duration {
///         Duration::from_secs(10)
///     }
/// }
/// ```
pub trait PushOutbox: Send + Sync + 'static {
    /// Writes down `held`, deliveries of one or more tasks, each webhook's in the order they
    /// are to be sent, as held by this instance. Answers an id per delivery, in the same
    /// order: `None` for one whose config no longer exists (it is not to be sent).
    ///
    /// # Errors
    ///
    /// [`StoreError`] when nothing could be written (the caller may still send them).
    fn hold<'a>(
        &'a self,
        held: &'a [Held<'a>],
    ) -> BoxFuture<'a, Result<Vec<Option<i64>>, StoreError>>;

    /// Forgets deliveries `ids`: acknowledged, given up on, or dropped.
    ///
    /// # Errors
    ///
    /// [`StoreError`] when they could not be forgotten (they may be sent again after this
    /// instance stops).
    fn release<'a>(&'a self, ids: &'a [i64]) -> BoxFuture<'a, Result<(), StoreError>>;

    /// Takes over the deliveries held by instances whose lease expired: every delivery of
    /// a webhook or none of them, oldest first, for a bounded number of webhooks per call
    /// (call again until it answers none). Instances asking at the same time never take
    /// the same webhook.
    ///
    /// # Errors
    ///
    /// [`StoreError`] when the store cannot answer.
    fn adopt(&self) -> BoxFuture<'_, Result<Vec<Adopted>, StoreError>>;

    /// How often an instance should [`adopt`](Self::adopt).
    fn adopt_every(&self) -> Duration;

    /// The ids of tasks whose push configs an instance changed (this one included), or
    /// `None` when the store may have missed some (any task's may have changed): the push
    /// sender then keeps each running task's configs until told, rather than reading them
    /// for every update. The first call takes the receiver; later calls, and the default,
    /// get `None` (the configs are read for every batch of updates).
    fn config_changes(&self) -> Option<mpsc::Receiver<Option<String>>> {
        None
    }
}
