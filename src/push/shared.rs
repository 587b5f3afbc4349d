//! What the lanes and the webhook workers share: the store, the HTTP client and its policy,
//! the settings, the lanes and webhook queues, and the counters.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use super::guard::Policy;
use super::lane::Lane;
use super::outbox::Batched;
use super::queues::Queues;
use super::settings::{Counters, PushSettings};
use crate::store::{Owner, PushOutbox, TaskStore};

/// What the workers share.
pub(crate) struct Shared {
    pub(crate) store: Arc<dyn TaskStore>,
    /// Where deliveries are written down until done, if the store keeps them.
    pub(crate) outbox: Option<Arc<dyn PushOutbox>>,
    /// The outbox with its writes batched, once started.
    pub(crate) batched: OnceLock<Batched>,
    /// Whether a lane may keep the configs it read until they change: every change is
    /// seen here (one process), or the store says which tasks' configs other instances
    /// changed. Otherwise each batch of updates reads them again.
    pub(crate) keep_configs: AtomicBool,
    pub(crate) client: reqwest::Client,
    pub(crate) policy: Arc<Policy>,
    pub(crate) settings: PushSettings,
    pub(crate) lanes: Mutex<HashMap<(Owner, String), Lane>>,
    pub(crate) next_lane: AtomicU64,
    pub(crate) webhooks: Queues,
    pub(crate) counters: Counters,
}

impl Shared {
    pub(crate) fn lanes(&self) -> MutexGuard<'_, HashMap<(Owner, String), Lane>> {
        self.lanes
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}
