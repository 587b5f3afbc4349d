//! The queues of the webhooks: one bounded queue per webhook with updates waiting, and the
//! [`Delivery`] each holds. Its worker ([`super::webhook`]) empties it, and removes it once
//! it stayed empty for [`IDLE`].

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::mpsc;

use super::payload::Payload;
use crate::a2a::PushConfig;
use crate::observe::trace::Carried;

/// How long a webhook's worker waits for more updates before it ends.
pub(crate) const IDLE: Duration = Duration::from_secs(30);

/// A webhook: the owner's task and the config id.
pub(crate) type WebhookKey = (String, String, String);

/// One update for one webhook.
pub(crate) struct Delivery {
    pub(crate) config: Arc<PushConfig>,
    pub(crate) payload: Payload,
    /// Its id in the store's outbox, if it was written down there.
    pub(crate) held: Option<i64>,
    /// The trace of the run that made the update (none for one adopted from the outbox).
    pub(crate) trace: Carried,
}

/// A webhook's queue, as the sender map holds it.
pub(crate) struct Queue {
    pub(crate) sender: mpsc::Sender<Delivery>,
    /// Set while updates are being dropped (one warning per burst, not per update).
    pub(crate) overflowing: bool,
}

/// The queues of every webhook with updates waiting.
#[derive(Default)]
pub(crate) struct Queues {
    map: Mutex<HashMap<WebhookKey, Queue>>,
}

impl Queues {
    pub(crate) fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<WebhookKey, Queue>> {
        self.map
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Removes `key`'s queue if nothing waits in it: `true` when the worker may end.
    pub(crate) fn retire(&self, key: &WebhookKey, receiver: &mpsc::Receiver<Delivery>) -> bool {
        let mut map = self.lock();
        if !receiver.is_empty() {
            return false;
        }
        map.remove(key);
        true
    }
}
