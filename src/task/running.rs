//! A task while its agent runs: the live snapshot and the fan-out of its events.
//!
//! A [`Running`] entry holds the task's current snapshot, its stream subscribers (see
//! [`super::fanout`]: each fed on its own, one that stops reading cut off), a cancel signal
//! and a "done" signal. With a shared store it also knows whether another instance watches
//! the run ([`Watched`]): the run's chunks are published only then, its state changes always.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use tokio::sync::{mpsc, oneshot, watch};

use super::fanout::{STALL, Subscribers};
use crate::a2a::{StreamEvent, Task};
use crate::store::{Owner, Watched};

/// An event shared by every subscriber (one allocation, however many streams).
pub(crate) type SharedEvent = Arc<StreamEvent>;

/// A task the agent is working on.
pub(crate) struct Running {
    /// Whose task this is: only they find the run.
    pub(crate) owner: Owner,
    /// With a shared store: whether other instances watch the run (its state changes are
    /// published to them regardless).
    remote: Option<Watched>,
    /// Whether events are built for the task's webhooks (it has push configs).
    pushed: AtomicBool,
    shared: Mutex<Shared>,
    cancel: Mutex<Option<oneshot::Sender<Stop>>>,
    done: watch::Sender<Option<Done>>,
    /// What lives as long as the run (an admission permit); `None` once it has ended.
    held: Mutex<Option<Vec<Box<dyn Send>>>>,
}

struct Shared {
    /// The task as it is now; its status holds the one copy of its state.
    task: Task,
    subscribers: Subscribers,
}

/// An event and the subscribers it goes to, taken atomically with the task change.
pub(crate) struct Delivery {
    event: SharedEvent,
    /// The subscribers' mark when the change was made: those added later got it in their
    /// snapshot.
    upto: u64,
    /// Whether the event goes to the other instances too.
    published: bool,
}

impl Delivery {
    /// The event delivered.
    pub(crate) fn event(&self) -> SharedEvent {
        self.event.clone()
    }

    /// The event, if it goes to the other instances too.
    pub(crate) fn published(&self) -> Option<SharedEvent> {
        self.published.then(|| self.event.clone())
    }
}

/// Why the runner is asked to stop the agent before it ends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Stop {
    /// The client canceled the task: it ends `canceled`.
    Cancel,
    /// The server cannot let it run on (it is stopping): it ends `failed` with this reason.
    Fail(String),
}

/// How a run ended.
#[derive(Debug, Clone)]
pub(crate) struct Done {
    /// The task in its final state.
    pub(crate) task: Task,
    /// Set when the agent answered something the protocol cannot carry.
    pub(crate) invalid: Option<String>,
}

impl Running {
    /// A running entry for `task` of `owner`, without subscribers, and the receiving end of its cancel
    /// signal.
    /// `remote`: the store is shared, and this says whether other instances watch the run
    /// (see [`crate::store::Cluster::run`]); it ends with the run.
    pub(crate) fn start(
        task: Task,
        owner: Owner,
        remote: Option<Watched>,
    ) -> (Arc<Self>, oneshot::Receiver<Stop>) {
        let (cancel, canceled) = oneshot::channel();
        let running = Arc::new(Running {
            owner,
            remote,
            pushed: AtomicBool::new(false),
            shared: Mutex::new(Shared {
                task,
                subscribers: Subscribers::default(),
            }),
            cancel: Mutex::new(Some(cancel)),
            done: watch::Sender::new(None),
            held: Mutex::new(Some(Vec::new())),
        });
        (running, canceled)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Shared> {
        self.shared
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Changes the task and takes the event with the current subscribers, atomically with
    /// respect to [`Running::subscribe`]: a subscriber's snapshot either includes the change,
    /// or the subscriber receives its event. `change` returns `None` to refuse the change, or
    /// how to build the event from the changed task, which happens only when someone will
    /// receive it: a local subscriber, the task's webhooks, or other instances (`None` then
    /// means there is nothing to deliver). Other instances get every change of the task's
    /// state and its settling, and its chunks (changes that keep the state) only while one
    /// of them watches the run.
    pub(super) fn update<E>(&self, change: impl FnOnce(&mut Task) -> Option<E>) -> Option<Delivery>
    where
        E: FnOnce(&Task) -> StreamEvent,
    {
        let mut shared = self.lock();
        let Shared { task, subscribers } = &mut *shared;
        let before = task.status.state;
        let event = change(task)?;
        let state = task.status.state;
        let published = self
            .remote
            .as_ref()
            .is_some_and(|remote| state != before || state.is_settled() || remote.is_watched());
        if subscribers.live() == 0 && !published && !self.is_pushed() {
            return None;
        }
        Some(Delivery {
            event: Arc::new(event(task)),
            upto: subscribers.mark(),
            published,
        })
    }

    /// Sends an event to its subscribers (see [`super::fanout`]): waits only for full ones
    /// that were reading lately, all at once, each at most [`STALL`]; cuts off the others.
    pub(super) async fn deliver(&self, delivery: Option<Delivery>) {
        let Some(Delivery { event, upto, .. }) = delivery else {
            return;
        };
        let full = self
            .lock()
            .subscribers
            .offer(&event, upto, tokio::time::Instant::now());
        if full.is_empty() {
            return;
        }
        let sends = full
            .iter()
            .map(|full| tokio::time::timeout(STALL, full.sender.send(event.clone())));
        let sent = futures::future::join_all(sends).await;
        let waited: Vec<(u64, bool)> = full
            .iter()
            .zip(sent)
            .map(|(full, sent)| (full.id, sent.is_ok()))
            .collect();
        self.lock()
            .subscribers
            .waited(&waited, tokio::time::Instant::now());
    }

    /// From now on, every event of the run is built for the task's webhooks too.
    pub(crate) fn push_on(&self) {
        self.pushed.store(true, Ordering::Release);
    }

    /// Whether the task has webhooks (see [`Running::push_on`]).
    pub(crate) fn is_pushed(&self) -> bool {
        self.pushed.load(Ordering::Acquire)
    }

    /// The task as it is now.
    pub(crate) fn snapshot(&self) -> Task {
        self.lock().task.clone()
    }

    /// The task as it is now and a receiver of every later event, unless `max` subscribers
    /// already listen (then `None`).
    pub(crate) fn subscribe(&self, max: usize) -> Option<(Task, mpsc::Receiver<SharedEvent>)> {
        let mut shared = self.lock();
        if shared.subscribers.live() >= max {
            return None;
        }
        let receiver = shared.subscribers.add();
        Some((shared.task.clone(), receiver))
    }

    /// Asks the runner to stop the agent and cancel the task (once; later calls do nothing).
    pub(crate) fn request_cancel(&self) {
        self.request_stop(Stop::Cancel);
    }

    /// Asks the runner to stop the agent for `stop` (the first request wins).
    pub(crate) fn request_stop(&self, stop: Stop) {
        let sender = self
            .cancel
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .take();
        if let Some(sender) = sender {
            let _ = sender.send(stop);
        }
    }

    /// Keeps `value` until the run ends, then drops it (at once when it has ended): e.g. the
    /// admission permit of the request that started it, without a task waiting for the end.
    pub(crate) fn hold_until_done(&self, value: Box<dyn Send>) {
        let mut held = self
            .held
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        match held.as_mut() {
            Some(values) => values.push(value),
            None => {
                drop(held);
                drop(value);
            }
        }
    }

    /// Marks the run as ended: drops what it held (so a client that reacts to the end finds
    /// its permit free) and tells the cluster the run is over, then wakes
    /// [`Running::wait_done`].
    pub(super) fn finish(&self, done: Done) {
        let held = self
            .held
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .take();
        drop(held);
        if let Some(remote) = &self.remote {
            remote.end();
        }
        self.done.send_replace(Some(done));
    }

    /// Whether the run has ended.
    pub(crate) fn is_done(&self) -> bool {
        self.done.borrow().is_some()
    }

    /// Waits for the run to end.
    pub(crate) async fn wait_done(&self) -> Done {
        let mut receiver = self.done.subscribe();
        loop {
            if let Some(done) = receiver.borrow_and_update().clone() {
                return done;
            }
            if receiver.changed().await.is_err() {
                // The sender lives in `self`; it cannot be gone while we borrow `self`.
                std::future::pending::<()>().await;
            }
        }
    }
}
