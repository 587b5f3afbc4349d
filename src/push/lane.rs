//! A task's lane: the queue of its updates, in order, with one worker, and what that worker
//! is told when the task's configs change.

use std::sync::Arc;
use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};

use tokio::sync::mpsc;

use crate::a2a::{StreamEvent, Task};
use crate::observe::trace::Carried;

/// A task's lane: its updates in order, and what its worker is told.
pub(crate) struct Lane {
    pub(crate) id: u64,
    pub(crate) sender: mpsc::Sender<Update>,
    pub(crate) told: Arc<Told>,
}

/// What a lane's worker is told, and what it tells.
#[derive(Default)]
pub(crate) struct Told {
    /// Whether its webhooks want the task (0.3).
    pub(crate) wants_task: AtomicU8,
    /// How many times the task's configs changed: the worker rereads them when this moved.
    pub(crate) changes: AtomicU64,
}

impl Told {
    /// The task's configs changed: reread them, and take the task along until then (a 0.3
    /// webhook may have joined).
    pub(crate) fn changed(&self) {
        self.changes.fetch_add(1, Ordering::AcqRel);
        self.wants_task.store(UNKNOWN, Ordering::Relaxed);
    }
}

/// `wants_task`: not known yet (the task is taken along), no, yes.
pub(crate) const UNKNOWN: u8 = 0;
pub(crate) const NO: u8 = 1;
pub(crate) const YES: u8 = 2;

/// One update of a task, with the task after it when a webhook may want it.
pub(crate) struct Update {
    pub(crate) event: Arc<StreamEvent>,
    pub(crate) task: Option<Task>,
    /// The trace of the run that made the update, for its deliveries' spans.
    pub(crate) trace: Carried,
}
