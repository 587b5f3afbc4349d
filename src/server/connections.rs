//! The open connections: what each has in flight, and the cap on how many are open.
//!
//! At the cap, the connection that has waited longest with no request in flight (a client
//! that connected and sent nothing, or an idle keep-alive) is asked to close to make room,
//! so a crowd of idle sockets cannot keep a real client waiting; a connection with a request
//! or a stream in flight is never chosen. When every connection is busy, new ones wait in
//! the listen backlog. Either way a warning is logged, at most once per second.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::{Notify, OwnedSemaphorePermit, Semaphore, watch};
use tokio::time::Instant;

use super::throttle::Throttle;

/// The connection slots and the connections holding them.
pub(crate) struct Slots {
    free: Arc<Semaphore>,
    max: usize,
    open: Mutex<Open>,
    at_cap: Throttle,
}

#[derive(Default)]
struct Open {
    next_id: u64,
    connections: HashMap<u64, Holder>,
}

/// What the slots know of a connection.
struct Holder {
    activity: Activity,
    evict: Arc<Notify>,
    evicted: bool,
}

/// A free slot, taken before a connection is accepted.
pub(crate) struct Vacancy(OwnedSemaphorePermit);

/// One open connection's slot; dropping it frees the slot.
pub(crate) struct Slot {
    slots: Arc<Slots>,
    id: u64,
    activity: Activity,
    evict: Arc<Notify>,
    _permit: OwnedSemaphorePermit,
}

impl Slots {
    pub(crate) fn new(max: usize) -> Self {
        let max = max.max(1);
        Self {
            free: Arc::new(Semaphore::new(max)),
            max,
            open: Mutex::new(Open::default()),
            at_cap: Throttle::per_second(),
        }
    }

    fn open(&self) -> std::sync::MutexGuard<'_, Open> {
        self.open
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// A slot for a connection just accepted: at once if one is free; at the cap, after the
    /// longest-idle connection closed, or (all busy) after any connection closed.
    pub(crate) async fn take(&self) -> Vacancy {
        let permit = match self.free.clone().try_acquire_owned() {
            Ok(permit) => permit,
            Err(_) => {
                let evicted = self.evict_longest_idle();
                if self.at_cap.allow() {
                    let action = if evicted {
                        "closing the longest-idle connection to make room"
                    } else {
                        "every connection is busy: new ones wait in the listen backlog"
                    };
                    tracing::warn!(
                        max_connections = self.max,
                        "connection cap reached: {action}"
                    );
                }
                match self.free.clone().acquire_owned().await {
                    Ok(permit) => permit,
                    // The semaphore is never closed.
                    Err(_) => std::future::pending().await,
                }
            }
        };
        Vacancy(permit)
    }

    /// The slot of a connection just accepted; its idle time starts now.
    pub(crate) fn occupy(self: &Arc<Self>, vacancy: Vacancy) -> Slot {
        let activity = Activity::new();
        let evict = Arc::new(Notify::new());
        let mut open = self.open();
        let id = open.next_id;
        open.next_id += 1;
        open.connections.insert(
            id,
            Holder {
                activity: activity.clone(),
                evict: evict.clone(),
                evicted: false,
            },
        );
        Slot {
            slots: self.clone(),
            id,
            activity,
            evict,
            _permit: vacancy.0,
        }
    }

    /// Asks the connection idle the longest to close; false when every one is busy.
    fn evict_longest_idle(&self) -> bool {
        let mut open = self.open();
        let longest = open
            .connections
            .values_mut()
            .filter(|holder| !holder.evicted)
            .filter_map(|holder| holder.activity.idle_since().map(|since| (since, holder)))
            .min_by_key(|(since, _)| *since);
        match longest {
            Some((_, holder)) => {
                holder.evicted = true;
                holder.evict.notify_one();
                true
            }
            None => false,
        }
    }
}

impl Slot {
    /// What the connection has in flight.
    pub(crate) fn activity(&self) -> &Activity {
        &self.activity
    }

    /// Notified when the connection should close to make room.
    pub(crate) fn evicted(&self) -> &Arc<Notify> {
        &self.evict
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.slots.open().connections.remove(&self.id);
    }
}

/// How long a connection may wait with nothing in flight: for its first request (a client
/// that connects and sends nothing is as slow as one sending half a header), and later.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Idle {
    pub(crate) first: Duration,
    pub(crate) later: Duration,
}

/// A connection's requests: how many are in flight, since when that count last changed,
/// and whether any has come yet.
#[derive(Clone)]
pub(crate) struct Activity(Arc<watch::Sender<Requests>>);

#[derive(Clone, Copy)]
struct Requests {
    in_flight: usize,
    since: Instant,
    any: bool,
}

/// A request in flight; leaving it (drop) marks the connection active now.
pub(crate) struct InFlight(Activity);

impl Activity {
    fn new() -> Self {
        Self(Arc::new(watch::Sender::new(Requests {
            in_flight: 0,
            since: Instant::now(),
            any: false,
        })))
    }

    pub(crate) fn enter(&self) -> InFlight {
        self.0.send_modify(|requests| {
            requests.in_flight += 1;
            requests.since = Instant::now();
            requests.any = true;
        });
        InFlight(self.clone())
    }

    pub(crate) fn in_flight(&self) -> usize {
        self.0.borrow().in_flight
    }

    /// Since when nothing has been in flight; `None` while something is.
    fn idle_since(&self) -> Option<Instant> {
        let requests = *self.0.borrow();
        (requests.in_flight == 0).then_some(requests.since)
    }

    /// Resolves once no request has been in flight for the `idle` time that applies.
    pub(crate) async fn idle_for(&self, idle: Idle) {
        let mut changes = self.0.subscribe();
        loop {
            let requests = *changes.borrow_and_update();
            if requests.in_flight > 0 {
                if changes.changed().await.is_err() {
                    return;
                }
                continue;
            }
            let timeout = if requests.any { idle.later } else { idle.first };
            tokio::select! {
                () = tokio::time::sleep_until(requests.since + timeout) => return,
                changed = changes.changed() => if changed.is_err() { return },
            }
        }
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.0.send_modify(|requests| {
            requests.in_flight = requests.in_flight.saturating_sub(1);
            requests.since = Instant::now();
        });
    }
}
