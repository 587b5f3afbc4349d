//! Deliveries written down in the store's outbox, so that they outlive this process.
//!
//! A task's lane writes its deliveries down ([`Batched::hold`]) before it queues them; a
//! webhook's worker lets go of them once they are done ([`Batched::release`]). Under load
//! thousands of lanes and webhooks do this at once, and each write is a statement on the
//! store's one connection: so two tasks of this module, one for writing down and one for
//! letting go, take what waits and make one statement of it (a lane waits for its ids, a
//! worker does not wait for its release). `adoption` runs once per server and takes over,
//! every [`PushOutbox::adopt_every`], the deliveries instances that stopped left behind,
//! queueing each webhook's in the order they were held; the final update the store owes
//! for a task it failed because its instance stopped is encoded here.

use std::sync::Arc;

use tokio::sync::{mpsc, oneshot};

use super::queues::Delivery;
use crate::store::{Held, PushOutbox};

/// The most deliveries written down, or let go of, in one statement.
const BATCH: usize = 2048;
/// How many lanes' writes, or workers' releases, may wait for the statement in flight.
const WAITING: usize = 4096;

/// The store's outbox, its writes and releases batched across tasks and webhooks.
pub(super) struct Batched {
    holds: mpsc::Sender<Hold>,
    releases: mpsc::Sender<i64>,
}

/// A lane's deliveries to write down, and where to answer with those kept.
struct Hold {
    task_id: String,
    pending: Vec<Delivery>,
    kept: oneshot::Sender<Vec<Delivery>>,
}

impl Batched {
    /// Starts the tasks that write down and let go for `outbox`; they end with the sender.
    pub(super) fn start(outbox: Arc<dyn PushOutbox>) -> Self {
        let (holds, waiting_holds) = mpsc::channel(WAITING);
        let (releases, waiting_releases) = mpsc::channel(WAITING);
        tokio::spawn(write_down(outbox.clone(), waiting_holds));
        tokio::spawn(let_go(outbox, waiting_releases));
        Batched { holds, releases }
    }

    /// Writes `pending`, the deliveries of task `task_id` in order, down, and answers those
    /// to send: without the ones whose config is gone. When the store cannot be written,
    /// all of them, to be sent from memory only.
    pub(super) async fn hold(&self, task_id: &str, pending: Vec<Delivery>) -> Vec<Delivery> {
        let (kept, answer) = oneshot::channel();
        let hold = Hold {
            task_id: task_id.to_owned(),
            pending,
            kept,
        };
        match self.holds.send(hold).await {
            Ok(()) => answer.await.unwrap_or_default(),
            Err(unsent) => unsent.0.pending,
        }
    }

    /// Lets go of delivery `id` (done: acknowledged, given up on, or dropped). Waits only
    /// while many releases wait already.
    pub(super) async fn release(&self, id: i64) {
        let _ = self.releases.send(id).await;
    }

    /// [`release`](Self::release) without waiting (a delivery dropped from a full queue):
    /// when many wait already, it is forgotten and sent again after this instance stops.
    pub(super) fn release_now(&self, id: i64) {
        let _ = self.releases.try_send(id);
    }
}

/// Writes down what the lanes hand over, a batch per statement, until the senders are gone.
async fn write_down(outbox: Arc<dyn PushOutbox>, mut waiting: mpsc::Receiver<Hold>) {
    let mut batch: Vec<Hold> = Vec::new();
    while let Some(hold) = waiting.recv().await {
        let mut rows = hold.pending.len();
        batch.push(hold);
        while rows < BATCH {
            let Ok(hold) = waiting.try_recv() else {
                break;
            };
            rows += hold.pending.len();
            batch.push(hold);
        }
        let held: Vec<Held<'_>> = batch
            .iter()
            .flat_map(|hold| {
                hold.pending.iter().map(|delivery| Held {
                    task_id: &hold.task_id,
                    config_id: &delivery.config.id,
                    content_type: delivery.payload.content_type,
                    body: &delivery.payload.body,
                })
            })
            .collect();
        let ids = match outbox.hold(&held).await {
            Ok(ids) if ids.len() == held.len() => Some(ids),
            Ok(ids) => {
                tracing::warn!(
                    expected = held.len(),
                    got = ids.len(),
                    "the push outbox answered the wrong number of ids: updates sent from memory only"
                );
                None
            }
            Err(error) => {
                tracing::warn!(%error, count = held.len(),
                    "cannot write push updates to the outbox: they are sent from memory only");
                None
            }
        };
        drop(held);
        let mut ids = ids.map(Vec::into_iter);
        for hold in batch.drain(..) {
            let mut pending = hold.pending;
            if let Some(ids) = ids.as_mut() {
                pending.retain_mut(|delivery| {
                    delivery.held = ids.next().flatten();
                    delivery.held.is_some()
                });
            }
            let _ = hold.kept.send(pending);
        }
    }
}

/// Lets go of what the workers hand over, a batch per statement, until the senders are gone.
async fn let_go(outbox: Arc<dyn PushOutbox>, mut waiting: mpsc::Receiver<i64>) {
    let mut batch = Vec::new();
    while let Some(id) = waiting.recv().await {
        batch.push(id);
        while batch.len() < BATCH {
            let Ok(id) = waiting.try_recv() else {
                break;
            };
            batch.push(id);
        }
        if let Err(error) = outbox.release(&batch).await {
            tracing::warn!(%error, count = batch.len(),
                "cannot forget delivered push updates: they may be sent again \
                 after this instance stops");
        }
        batch.clear();
    }
}
