//! The cap on the stream subscriptions one caller holds at once, across all its tasks.
//!
//! The per-task cap bounds the streams following one task; without a per-caller one, a
//! single caller could still open that many on each of its tasks and hold a connection and
//! a buffer for every one. Each subscription takes a [`Slot`] for its caller's
//! [`Owner`] and gives it back when its stream is dropped.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use crate::a2a::jsonrpc::{ErrorCode, RpcError};
use crate::store::Owner;

/// How many subscriptions each caller holds now, and the most it may.
#[derive(Debug)]
pub(crate) struct CallerSubscribers {
    max: usize,
    held: Mutex<HashMap<Owner, usize>>,
}

impl CallerSubscribers {
    /// At most `max` subscriptions per caller (at least 1).
    pub(crate) fn new(max: usize) -> Self {
        Self {
            max: max.max(1),
            held: Mutex::new(HashMap::new()),
        }
    }

    /// A slot for one more of `owner`'s subscriptions, or the "server busy" error when it
    /// already holds as many as it may. The anonymous owner is every unauthenticated client
    /// at once, so it is not counted: its slot holds no place.
    pub(crate) fn claim(self: &Arc<Self>, owner: &Owner) -> Result<Slot, RpcError> {
        if owner.is_anonymous() {
            return Ok(Slot {
                owner: None,
                from: self.clone(),
            });
        }
        let mut held = self.held.lock().unwrap_or_else(PoisonError::into_inner);
        let count = held.entry(owner.clone()).or_insert(0);
        if *count >= self.max {
            return Err(RpcError::new(
                ErrorCode::ServerBusy,
                format!(
                    "Server busy: you already hold as many stream subscribers as a caller may \
                     ({}); close one or retry later",
                    self.max
                ),
            ));
        }
        *count += 1;
        Ok(Slot {
            owner: Some(owner.clone()),
            from: self.clone(),
        })
    }

    fn release(&self, owner: &Owner) {
        let mut held = self.held.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(count) = held.get_mut(owner) {
            *count -= 1;
            if *count == 0 {
                held.remove(owner);
            }
        }
    }
}

/// One subscription's place in its caller's count, given back on drop.
#[derive(Debug)]
pub(crate) struct Slot {
    /// The caller counted; `None` for the anonymous one, which is not counted.
    owner: Option<Owner>,
    from: Arc<CallerSubscribers>,
}

impl Drop for Slot {
    fn drop(&mut self) {
        if let Some(owner) = &self.owner {
            self.from.release(owner);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_caller_over_its_cap_is_busy_and_a_dropped_slot_is_given_back() {
        let subscribers = Arc::new(CallerSubscribers::new(2));
        let alice = Owner::new("alice");
        let first = subscribers.claim(&alice).unwrap();
        let _second = subscribers.claim(&alice).unwrap();
        let refused = subscribers.claim(&alice).unwrap_err();
        assert_eq!(refused.code, ErrorCode::ServerBusy);
        // Another caller is not held back by alice's streams.
        let _bob = subscribers.claim(&Owner::new("bob")).unwrap();
        drop(first);
        let _third = subscribers.claim(&alice).unwrap();
        assert_eq!(subscribers.held.lock().unwrap().len(), 2);
    }

    #[test]
    fn a_caller_without_subscriptions_leaves_no_entry() {
        let subscribers = Arc::new(CallerSubscribers::new(1));
        drop(subscribers.claim(&Owner::new("carol")).unwrap());
        assert!(subscribers.held.lock().unwrap().is_empty());
    }

    #[test]
    fn unauthenticated_clients_are_not_one_caller_sharing_the_cap() {
        let subscribers = Arc::new(CallerSubscribers::new(1));
        let slots: Vec<_> = (0..3)
            .map(|_| subscribers.claim(&Owner::anonymous()).unwrap())
            .collect();
        assert_eq!(slots.len(), 3);
        assert!(subscribers.held.lock().unwrap().is_empty());
    }
}
