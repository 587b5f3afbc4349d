//! A task while its agent runs: the live snapshot and the fan-out of its events.
//!
//! A [`Running`] entry holds the task's current snapshot, its stream subscribers (see
//! [`super::fanout`]: each fed on its own, one that stops reading cut off), a cancel signal
//! and a "done" signal. With a shared store it also knows whether another instance watches
//! the run ([`Watched`]): the run's chunks are published only then, its state changes always.
//!
//! A streamed reply's latest `working` message is parked compact (see [`Running::progress`]):
//! held as `serde_json` values until the next update replaced it, each cost a reply a walk
//! through cold memory to free it, the largest cost of an update that was ours (5.7% of the
//! server's CPU at 3,000 closure streams). Readers of the task get it back whole.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use tokio::sync::{mpsc, oneshot, watch};

use super::fanout::SharedEvent;
use super::fanout::{STALL, Subscribers};
use crate::a2a::{Message, StreamEvent, Task};
use crate::pipeline::KeptParts;
use crate::store::{Owner, Watched};

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
    /// The task as it is now; its status holds the one copy of its state. Its status
    /// message is `None` while one is `parked`.
    task: Task,
    /// The status message of the latest [`Running::progress`], its parts as the reply
    /// keeps them.
    parked: Option<Parked>,
    subscribers: Subscribers,
}

/// A status message without its parts, and its parts kept compact.
struct Parked {
    message: Message,
    parts: KeptParts,
}

impl Parked {
    /// The message whole.
    fn to_message(&self) -> Message {
        Message {
            parts: self.parts.to_parts(),
            ..self.message.clone()
        }
    }
}

impl Shared {
    /// The task as it is now, its status message in place.
    fn task(&self) -> Task {
        let mut task = self.task.clone();
        if let Some(parked) = &self.parked {
            task.status.message = Some(parked.to_message());
        }
        task
    }

    /// Puts a parked status message back in place, for a change that may read it.
    fn unpark(&mut self) {
        if let Some(parked) = self.parked.take() {
            self.task.status.message = Some(parked.to_message());
        }
    }

    /// Parks the task's status message, whose parts are `parts`.
    fn park(&mut self, parts: KeptParts) {
        self.parked = self.task.status.message.take().map(|mut message| {
            // Freed now, while in cache; every event built holds its own share of them.
            message.parts.clear();
            Parked { message, parts }
        });
    }
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
                parked: None,
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
        self.apply(None, change)
    }

    /// [`Running::update`] for a `change` that replaces the status message with one whose
    /// parts are `parts` (a streamed reply's next `working` update): the message is then
    /// parked, and the one it replaces is not read back.
    pub(super) fn progress<E>(
        &self,
        parts: KeptParts,
        change: impl FnOnce(&mut Task) -> Option<E>,
    ) -> Option<Delivery>
    where
        E: FnOnce(&Task) -> StreamEvent,
    {
        self.apply(Some(parts), change)
    }

    fn apply<E>(
        &self,
        park: Option<KeptParts>,
        change: impl FnOnce(&mut Task) -> Option<E>,
    ) -> Option<Delivery>
    where
        E: FnOnce(&Task) -> StreamEvent,
    {
        let mut shared = self.lock();
        if park.is_none() {
            shared.unpark();
        }
        let before = shared.task.status.state;
        let event = change(&mut shared.task)?;
        let state = shared.task.status.state;
        let published = self
            .remote
            .as_ref()
            .is_some_and(|remote| state != before || state.is_settled() || remote.is_watched());
        let delivery =
            (shared.subscribers.live() > 0 || published || self.is_pushed()).then(|| Delivery {
                event: Arc::new(event(&shared.task)),
                upto: shared.subscribers.mark(),
                published,
            });
        if let Some(parts) = park {
            shared.park(parts);
        }
        delivery
    }

    /// Sends an event to its subscribers (see [`super::fanout`]): waits only for full ones
    /// that were reading lately and have not held the run back too long already, all at
    /// once, each at most [`STALL`]; cuts off the others.
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
        let since = tokio::time::Instant::now();
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
            .waited(&waited, since, tokio::time::Instant::now());
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
        self.lock().task()
    }

    /// The task as it is now and a receiver of every later event, unless `max` subscribers
    /// already listen (then `None`).
    pub(crate) fn subscribe(&self, max: usize) -> Option<(Task, mpsc::Receiver<SharedEvent>)> {
        let mut shared = self.lock();
        if shared.subscribers.live() >= max {
            return None;
        }
        let receiver = shared.subscribers.add();
        Some((shared.task(), receiver))
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

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use serde_json::json;

    use super::*;
    use crate::a2a::{Part, TaskState};
    use crate::pipeline::SentParts;
    use crate::task::lifecycle::{archive_reply, transition};
    use crate::task::manager::status_event;

    fn working_task() -> Task {
        Task::new("t", "c", TaskState::Working)
    }

    fn reply_parts(n: i64) -> Vec<Part> {
        let data = json!({"version": "v0.9", "deleteSurface": {"surfaceId": format!("s{n}")}});
        vec![
            Part::text(format!("part {n}")),
            Part::Data {
                data: Arc::new(data.as_object().cloned().unwrap_or_default()),
                metadata: None,
            },
        ]
    }

    /// Sends `parts` as the next `working` update, as a streamed reply does.
    fn progress(running: &Running, sent: &mut SentParts, parts: Vec<Part>) -> Option<Delivery> {
        sent.extend(&parts);
        let kept = sent.last(parts.len());
        running.progress(kept, |task| {
            let message = Message::agent("reply", parts);
            transition(task, TaskState::Working, Some(message), "now".into()).ok()?;
            Some(|task: &Task| status_event(task, false))
        })
    }

    fn parts_of(message: Option<&Message>) -> Vec<Part> {
        message
            .map(|message| message.parts.clone())
            .unwrap_or_default()
    }

    #[test]
    fn readers_see_the_latest_working_message_whole() {
        let (running, _stop) = Running::start(working_task(), Owner::anonymous(), None);
        let (_, _events) = running.subscribe(4).unwrap();
        let mut sent = SentParts::default();
        progress(&running, &mut sent, reply_parts(1));
        let delivery = progress(&running, &mut sent, reply_parts(2)).unwrap();
        let StreamEvent::StatusUpdate(update) = &*delivery.event() else {
            panic!("not a status update");
        };
        assert_eq!(parts_of(update.status.message.as_ref()), reply_parts(2));
        let snapshot = running.snapshot();
        assert_eq!(parts_of(snapshot.status.message.as_ref()), reply_parts(2));
        let (subscribed, _more) = running.subscribe(4).unwrap();
        assert_eq!(subscribed, snapshot);
    }

    #[test]
    fn a_change_after_progress_reads_the_message_it_replaces() {
        let (running, _stop) = Running::start(working_task(), Owner::anonymous(), None);
        let mut sent = SentParts::default();
        progress(&running, &mut sent, reply_parts(1));
        running.update(|task| {
            archive_reply(task);
            transition(task, TaskState::InputRequired, None, "later".into()).ok()?;
            Some(|task: &Task| status_event(task, false))
        });
        let task = running.snapshot();
        assert_eq!(task.status.state, TaskState::InputRequired);
        assert_eq!(task.status.message, None);
        assert_eq!(parts_of(task.history.last()), reply_parts(1));
    }
}
