//! A log line at most once per second: an overloaded server must not also flood its logs.

use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Lets one event through per interval.
#[derive(Debug)]
pub(crate) struct Throttle {
    interval: Duration,
    last: Mutex<Option<Instant>>,
}

impl Throttle {
    /// One event per second.
    pub(crate) fn per_second() -> Self {
        Self {
            interval: Duration::from_secs(1),
            last: Mutex::new(None),
        }
    }

    /// Whether an event may be logged now (and counts it if so).
    pub(crate) fn allow(&self) -> bool {
        let now = Instant::now();
        let mut last = self
            .last
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        match *last {
            Some(at) if now.duration_since(at) < self.interval => false,
            _ => {
                *last = Some(now);
                true
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lets_one_event_through_per_interval() {
        let throttle = Throttle::per_second();
        assert!(throttle.allow());
        assert!(!throttle.allow());
        assert!(!throttle.allow());
    }
}
