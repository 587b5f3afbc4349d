//! Push notifications: every status and artifact update of a task, POSTed to each of its
//! webhooks.
//!
//! The task layer hands each update of a task that has webhooks to the `Pusher`, which
//! never makes it wait: the update goes on the task's *lane* (a bounded queue, one worker),
//! which reads the task's configs from the store and puts the update, encoded for each
//! config's protocol version (`payload`), on that webhook's own queue (`webhook`). A
//! webhook's worker sends its updates one at a time, in order, retrying with backoff. So
//! updates reach each webhook in the order the task made them, a slow or dead receiver
//! delays only itself, and every queue is bounded: an update that does not fit is dropped,
//! logged and counted ([`PushStats`]).
//!
//! Where a webhook may be is the [`guard`]'s business: checked when the config is set and
//! at each delivery, with a resolver (`resolver`) that connects only to the addresses it
//! checked. The HTTP client follows no redirect and uses no proxy.
//!
//! What this holds: deliveries are at least once per webhook while this process runs (a
//! retried update may arrive twice when an acknowledgement is lost). With a store that keeps
//! an outbox ([`PushOutbox`](crate::store::PushOutbox), PostgreSQL's), each delivery is
//! written down before it is queued and forgotten once done, and a live instance takes over
//! the deliveries of one that died (`outbox`): updates are then at least once as long as some
//! instance with push on runs. With the other stores, updates waiting when the process stops
//! are lost.

mod adoption;
pub mod guard;
mod lane;
mod outbox;
mod payload;
mod queues;
mod resolver;
mod settings;
mod shared;
mod webhook;

pub use guard::{Forbidden, Policy, Refusal, classify};
pub use settings::{PushSettings, PushStats};

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, Weak};

use tokio::sync::mpsc;

use self::lane::{Lane, NO, Told, UNKNOWN, Update, YES};
use self::outbox::Batched;
use self::payload::Payload;
use self::queues::{Delivery, IDLE, Queues};
use self::settings::Counters;
use self::shared::Shared;
use crate::a2a::{PushConfig, PushProtocol, StreamEvent, Task};
use crate::observe::trace::{self, Carried};
use crate::store::{Owner, TaskStore};
use tracing::Instrument;

/// How many updates may wait on one task's lane before the store is read for them.
const LANE: usize = 1024;

/// Sends the updates of tasks to their webhooks. One per server; cheap to clone.
#[derive(Clone)]
pub(crate) struct Pusher {
    shared: Arc<Shared>,
}

/// Why the push sender could not start.
#[derive(Debug, thiserror::Error)]
#[error("cannot build the push notification client: {0}")]
pub struct PushError(#[from] reqwest::Error);

impl Pusher {
    /// A sender for the tasks of `store`, as `settings` say.
    pub(crate) fn new(
        store: Arc<dyn TaskStore>,
        settings: PushSettings,
    ) -> Result<Self, PushError> {
        let policy = Arc::new(Policy {
            allow_http: settings.allow_http,
            allow_hosts: settings.allow_hosts.clone(),
            max_url_len: settings.max_url_len,
        });
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .no_proxy()
            .timeout(settings.timeout)
            .connect_timeout(settings.timeout)
            .dns_resolver(Arc::new(resolver::GuardedResolver::new(policy.clone())))
            .user_agent(concat!("a2ui-agent/", env!("CARGO_PKG_VERSION"), " push"))
            .build()?;
        let outbox = store.push_outbox();
        let keep_configs = AtomicBool::new(store.cluster().is_none());
        let pusher = Self {
            shared: Arc::new(Shared {
                store,
                outbox,
                batched: OnceLock::new(),
                keep_configs,
                client,
                policy,
                settings,
                lanes: Mutex::new(HashMap::new()),
                next_lane: AtomicU64::new(0),
                webhooks: Queues::default(),
                counters: Counters::default(),
            }),
        };
        if tokio::runtime::Handle::try_current().is_ok() {
            pusher.start();
        }
        Ok(pusher)
    }

    /// Starts taking over the deliveries of instances that stopped, and hearing which
    /// tasks' configs other instances changed, if the store keeps an outbox (once; needs a
    /// runtime, so the server also calls it when it starts serving).
    pub(crate) fn start(&self) {
        let Some(outbox) = &self.shared.outbox else {
            return;
        };
        if self.shared.batched.get().is_some() {
            return;
        }
        // Whoever sets the batched outbox starts the rest: it is set once.
        let mut first = false;
        self.shared.batched.get_or_init(|| {
            first = true;
            Batched::start(outbox.clone())
        });
        if !first {
            return;
        }
        tokio::spawn(adoption::adopt(
            Arc::downgrade(&self.shared),
            outbox.clone(),
        ));
        if let Some(changes) = outbox.config_changes() {
            tokio::spawn(hear_changes(Arc::downgrade(&self.shared), changes));
            self.shared.keep_configs.store(true, Ordering::Release);
        }
    }

    /// The settings.
    pub(crate) fn settings(&self) -> &PushSettings {
        &self.shared.settings
    }

    /// The URL policy.
    pub(crate) fn policy(&self) -> &Policy {
        &self.shared.policy
    }

    /// What was sent so far.
    pub(crate) fn stats(&self) -> PushStats {
        self.shared.counters.snapshot()
    }

    fn lanes(&self) -> MutexGuard<'_, HashMap<(Owner, String), Lane>> {
        self.shared.lanes()
    }

    /// Queues `event` of `owner`'s task for its webhooks; `task` gives the task after it
    /// (called only when a webhook may want it). Never waits.
    pub(crate) fn notify(&self, owner: &Owner, event: &Arc<StreamEvent>, task: &dyn Fn() -> Task) {
        let Some(task_id) = task_id(event) else {
            return;
        };
        self.start();
        let key = (owner.clone(), task_id.to_owned());
        let wants = self
            .lanes()
            .get(&key)
            .map_or(UNKNOWN, |lane| lane.told.wants_task.load(Ordering::Relaxed));
        let update = Update {
            event: event.clone(),
            task: (wants != NO).then(task),
            trace: Carried::current(),
        };
        let mut lanes = self.lanes();
        let lane = lanes.entry(key.clone()).or_insert_with(|| {
            let (sender, receiver) = mpsc::channel(LANE);
            let lane = Lane {
                id: self.shared.next_lane.fetch_add(1, Ordering::Relaxed),
                sender,
                told: Arc::default(),
            };
            tokio::spawn(run_lane(
                self.clone(),
                key.clone(),
                lane.id,
                lane.told.clone(),
                receiver,
            ));
            lane
        });
        if lane.sender.try_send(update).is_err() {
            Counters::add(&self.shared.counters.dropped);
            tracing::warn!(task_id = %key.1, "push notification lane full: update dropped");
        }
    }

    /// A config of `owner`'s task `task_id` was set or deleted here: its lane rereads the
    /// configs, and takes the task along until it has.
    pub(crate) fn configs_changed(&self, owner: &Owner, task_id: &str) {
        if let Some(lane) = self.lanes().get(&(owner.clone(), task_id.to_owned())) {
            lane.told.changed();
        }
    }

    /// Removes lane `id` of `key` if nothing waits on it: `true` when its worker may end.
    fn retire_lane(
        &self,
        key: &(Owner, String),
        id: u64,
        receiver: &mpsc::Receiver<Update>,
    ) -> bool {
        let mut lanes = self.lanes();
        if !receiver.is_empty() {
            return false;
        }
        if lanes.get(key).is_some_and(|lane| lane.id == id) {
            lanes.remove(key);
        }
        true
    }
}

/// The task an event is about.
fn task_id(event: &StreamEvent) -> Option<&str> {
    match event {
        StreamEvent::Task(task) => Some(&task.id),
        StreamEvent::StatusUpdate(update) => Some(&update.task_id),
        StreamEvent::ArtifactUpdate(update) => Some(&update.task_id),
        StreamEvent::Message(message) => message.task_id.as_deref(),
    }
}

/// The push configs of `owner`'s task `task_id`, read for `batch` (in the trace of its
/// first update).
async fn read_configs(
    pusher: &Pusher,
    task_id: &str,
    owner: &Owner,
    batch: &[Update],
) -> Result<Option<Vec<PushConfig>>, crate::store::StoreError> {
    let read = pusher.shared.store.push_configs(owner, task_id);
    match batch.first() {
        Some(update) => {
            read.instrument(trace::push_configs(&update.trace, task_id))
                .await
        }
        None => read.await,
    }
}

/// Tells the lanes of the tasks whose configs another instance changed (`None`: any task's
/// may have), until the store or the server is gone.
async fn hear_changes(shared: Weak<Shared>, mut changes: mpsc::Receiver<Option<String>>) {
    while let Some(change) = changes.recv().await {
        let Some(shared) = shared.upgrade() else {
            return;
        };
        for ((_, task_id), lane) in shared.lanes().iter() {
            if change.as_deref().is_none_or(|changed| changed == task_id) {
                lane.told.changed();
            }
        }
    }
}

/// The worker of a task's lane: queues each update for each webhook of the task, reading
/// the task's configs for a batch of waiting updates when they may have changed since it
/// last read them (for every batch when it cannot tell).
async fn run_lane(
    pusher: Pusher,
    key: (Owner, String),
    id: u64,
    told: Arc<Told>,
    mut receiver: mpsc::Receiver<Update>,
) {
    let (owner, task_id) = &key;
    let mut batch = Vec::new();
    let mut kept: Option<(u64, Vec<Arc<PushConfig>>)> = None;
    loop {
        match tokio::time::timeout(IDLE, receiver.recv()).await {
            Ok(Some(update)) => batch.push(update),
            Ok(None) => return,
            Err(_idle) => {
                if pusher.retire_lane(&key, id, &receiver) {
                    return;
                }
                continue;
            }
        }
        while let Ok(update) = receiver.try_recv() {
            batch.push(update);
        }
        // Read before the configs: a change while they are read makes the next batch
        // read them again.
        let changes = told.changes.load(Ordering::Acquire);
        let keep = pusher.shared.keep_configs.load(Ordering::Acquire);
        let configs = match kept.take() {
            Some((seen, configs)) if keep && seen == changes => configs,
            _ => match read_configs(&pusher, task_id, owner, &batch).await {
                Ok(configs) => {
                    let configs = configs.unwrap_or_default();
                    let v0_3 = configs.iter().any(|c| c.protocol == PushProtocol::V0_3);
                    told.wants_task
                        .store(if v0_3 { YES } else { NO }, Ordering::Relaxed);
                    configs.into_iter().map(Arc::new).collect()
                }
                Err(error) => {
                    tracing::warn!(%task_id, %error, count = batch.len(),
                        "cannot read the task's push configs: its updates are not sent");
                    batch.clear();
                    continue;
                }
            },
        };
        let mut pending = Vec::with_capacity(batch.len() * configs.len());
        for update in batch.drain(..) {
            let mut encoded: [Option<Payload>; 2] = [None, None];
            for config in &configs {
                let slot = usize::from(config.protocol == PushProtocol::V0_3);
                let payload = encoded[slot]
                    .get_or_insert_with(|| {
                        payload::payload(config.protocol, &update.event, update.task.as_ref())
                    })
                    .clone();
                pending.push(Delivery {
                    config: config.clone(),
                    payload,
                    held: None,
                    trace: update.trace.clone(),
                });
            }
        }
        kept = Some((changes, configs));
        if let Some(batched) = pusher.shared.batched.get() {
            pending = batched.hold(task_id, pending).await;
        }
        for delivery in pending {
            webhook::enqueue(
                &pusher.shared,
                (owner.key(), task_id.clone(), delivery.config.id.clone()),
                delivery,
            );
        }
    }
}
