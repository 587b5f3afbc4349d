//! The fan-out of a running task's events to its stream subscribers.
//!
//! Each subscriber has a bounded buffer of [`EVENT_BUFFER`] events and is fed on its own. A
//! subscriber that keeps reading, if more slowly than the agent writes, holds the run back
//! when its buffer is full (so a fast agent does not outrun a reader that keeps up on
//! average), but by at most [`HOLD`] in all: a reader that never catches up (a trickle) is
//! then cut off rather than setting the pace of the run for everyone. One that took nothing
//! for [`STALL`] is cut off at once when its buffer fills, or after waiting at most [`STALL`]
//! for it, all such waits at the same time. So a client that stops reading costs the run and
//! the other streams at most one [`STALL`], however many of them stop, a slow one at most
//! [`HOLD`], and neither ever holds more than its buffer. A subscriber never misses an event:
//! it gets every one, or its stream ends (with an error the client sees).

use std::time::Duration;

use tokio::sync::mpsc;
use tokio::sync::mpsc::error::TrySendError;
use tokio::time::Instant;

use crate::a2a::StreamEvent;

/// An event shared by every subscriber (one allocation, however many streams).
pub(crate) type SharedEvent = std::sync::Arc<StreamEvent>;

/// How many events may wait for one stream subscriber.
const EVENT_BUFFER: usize = 64;

/// How long a subscriber may take nothing, while events wait for it, before it is cut off.
pub(super) const STALL: Duration = Duration::from_secs(2);

/// The most time the run may spend, in all, waiting for one subscriber's full buffer.
const HOLD: Duration = Duration::from_secs(5);

/// The stream subscribers of one running task.
#[derive(Default)]
pub(super) struct Subscribers {
    list: Vec<Subscriber>,
    /// The id the next subscriber gets; ids only grow.
    next_id: u64,
}

struct Subscriber {
    id: u64,
    sender: mpsc::Sender<SharedEvent>,
    /// How many events waited in its buffer after the last one was offered.
    waiting: usize,
    /// When it was last seen taking an event, or with nothing left to take.
    took_at: Instant,
    /// How long the run has waited for it so far, in all.
    held: Duration,
}

/// A subscriber whose buffer is full though it was reading lately: the run waits for it.
pub(super) struct Full {
    pub(super) id: u64,
    pub(super) sender: mpsc::Sender<SharedEvent>,
}

impl Subscribers {
    /// How many subscribers listen (those that hung up are dropped first).
    pub(super) fn live(&mut self) -> usize {
        self.list
            .retain(|subscriber| !subscriber.sender.is_closed());
        self.list.len()
    }

    /// A new subscriber; it gets the events offered after [`mark`](Self::mark) passes it.
    pub(super) fn add(&mut self) -> mpsc::Receiver<SharedEvent> {
        let (sender, receiver) = mpsc::channel(EVENT_BUFFER);
        self.list.push(Subscriber {
            id: self.next_id,
            sender,
            waiting: 0,
            took_at: Instant::now(),
            held: Duration::ZERO,
        });
        self.next_id += 1;
        receiver
    }

    /// Who listens now: an event taken with this mark goes to the subscribers added before.
    pub(super) fn mark(&self) -> u64 {
        self.next_id
    }

    /// Offers `event` to every subscriber added before `upto`, waiting for none: one that
    /// stalled is cut off; those full but reading lately are returned, to wait for.
    pub(super) fn offer(&mut self, event: &SharedEvent, upto: u64, now: Instant) -> Vec<Full> {
        let mut full = Vec::new();
        self.list.retain_mut(|subscriber| {
            if subscriber.id >= upto {
                return true;
            }
            let waiting = EVENT_BUFFER - subscriber.sender.capacity();
            if waiting == 0 || waiting < subscriber.waiting {
                subscriber.took_at = now;
            }
            match subscriber.sender.try_send(event.clone()) {
                Ok(()) => {
                    subscriber.waiting = waiting + 1;
                    true
                }
                Err(TrySendError::Closed(_)) => false,
                Err(TrySendError::Full(_)) if now - subscriber.took_at >= STALL => {
                    tracing::debug!("cutting off a stream subscriber that stopped reading");
                    false
                }
                Err(TrySendError::Full(_)) if subscriber.held >= HOLD => {
                    tracing::debug!("cutting off a stream subscriber that cannot keep up");
                    false
                }
                Err(TrySendError::Full(_)) => {
                    full.push(Full {
                        id: subscriber.id,
                        sender: subscriber.sender.clone(),
                    });
                    true
                }
            }
        });
        full
    }

    /// After the run waited for the full subscribers from `since`: each of `waited` took an
    /// event by `now` (`true`), or took nothing in time and is cut off (`false`).
    pub(super) fn waited(&mut self, waited: &[(u64, bool)], since: Instant, now: Instant) {
        let cut = waited.iter().filter(|(_, took)| !took).count();
        if cut > 0 {
            tracing::debug!(
                count = cut,
                "cutting off stream subscribers that stopped reading"
            );
        }
        self.list.retain_mut(|subscriber| {
            let Some(&(_, took)) = waited.iter().find(|(id, _)| *id == subscriber.id) else {
                return true;
            };
            subscriber.waiting = EVENT_BUFFER - subscriber.sender.capacity();
            subscriber.took_at = now;
            subscriber.held += now - since;
            took
        });
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::a2a::{StreamEvent, Task, TaskState, TaskStatusUpdateEvent};

    fn event() -> SharedEvent {
        let task = Task::new("t", "c", TaskState::Working);
        Arc::new(StreamEvent::StatusUpdate(TaskStatusUpdateEvent::of(
            &task, false,
        )))
    }

    #[test]
    fn a_subscriber_that_stopped_reading_is_cut_off_without_a_wait() {
        let mut subscribers = Subscribers::default();
        let mut stalled = subscribers.add();
        let mut reading = subscribers.add();
        let start = Instant::now();
        // An agent at a model's pace: an event every 100 ms.
        for n in 0..=EVENT_BUFFER as u32 {
            let now = start + Duration::from_millis(100) * n;
            let full = subscribers.offer(&event(), subscribers.mark(), now);
            assert!(full.is_empty(), "the run would wait at event {n}");
            assert!(reading.try_recv().is_ok());
        }
        assert_eq!(subscribers.live(), 1, "the stalled subscriber is still fed");
        // It gets what its buffer held, then the end of its stream.
        for _ in 0..EVENT_BUFFER {
            assert!(stalled.try_recv().is_ok());
        }
        assert!(matches!(
            stalled.try_recv(),
            Err(mpsc::error::TryRecvError::Disconnected)
        ));
    }

    #[test]
    fn a_full_subscriber_that_was_reading_is_waited_for_not_cut() {
        let mut subscribers = Subscribers::default();
        let mut slow = subscribers.add();
        let now = Instant::now();
        for _ in 0..EVENT_BUFFER {
            assert!(
                subscribers
                    .offer(&event(), subscribers.mark(), now)
                    .is_empty()
            );
        }
        // A burst: full at once, but it had nothing to take a moment ago.
        let full = subscribers.offer(&event(), subscribers.mark(), now);
        assert_eq!(full.len(), 1);
        assert!(slow.try_recv().is_ok());
        subscribers.waited(&[(full[0].id, true)], now, now);
        assert_eq!(subscribers.live(), 1);
    }

    #[test]
    fn a_subscriber_that_never_catches_up_holds_the_run_back_for_a_bounded_time() {
        let mut subscribers = Subscribers::default();
        let mut trickle = subscribers.add();
        let mut now = Instant::now();
        for _ in 0..EVENT_BUFFER {
            assert!(
                subscribers
                    .offer(&event(), subscribers.mark(), now)
                    .is_empty()
            );
        }
        // Each event waits a second for the reader to take one: never STALL without taking,
        // but the waits add up.
        let mut waits = 0;
        loop {
            let full = subscribers.offer(&event(), subscribers.mark(), now);
            let Some(full) = full.first() else { break };
            // A second later the reader took one, and the run's event went in its place.
            assert!(trickle.try_recv().is_ok());
            assert!(full.sender.try_send(event()).is_ok());
            let since = now;
            now += Duration::from_secs(1);
            subscribers.waited(&[(full.id, true)], since, now);
            waits += 1;
            assert!(waits < 100, "the run waits for the trickle forever");
        }
        assert_eq!(Duration::from_secs(waits), HOLD);
        assert_eq!(subscribers.live(), 0, "the trickle is cut off");
    }

    #[test]
    fn a_subscriber_added_after_the_change_does_not_get_its_event() {
        let mut subscribers = Subscribers::default();
        let mut early = subscribers.add();
        let mark = subscribers.mark();
        let mut late = subscribers.add();
        subscribers.offer(&event(), mark, Instant::now());
        assert!(early.try_recv().is_ok());
        assert!(late.try_recv().is_err());
    }
}
