//! The agent calls made before any task exists, so that a shutdown stops them too.
//!
//! A message that starts a task while its client waits calls the agent before the task is
//! stored (a bare message may answer it: see [`super::reply_kinds`]). Until the agent
//! answers there is no task in the running map, so this module keeps count of those calls
//! and stops them when the server stops its tasks: the call's future is dropped and its
//! client is answered [`TaskError::Stopping`].

use std::future::Future;
use std::sync::atomic::{AtomicUsize, Ordering};

use tokio::sync::{Notify, watch};

use super::TaskError;

/// The agent calls under way before their task exists.
pub(super) struct Deciding {
    /// How many there are.
    count: AtomicUsize,
    /// Wakes those waiting for the count to reach zero.
    emptied: Notify,
    /// Whether the server stopped them (and every later one).
    stopped: watch::Sender<bool>,
}

impl Default for Deciding {
    fn default() -> Self {
        Deciding {
            count: AtomicUsize::new(0),
            emptied: Notify::new(),
            stopped: watch::Sender::new(false),
        }
    }
}

/// Counts one call while it lives.
struct Counted<'a>(&'a Deciding);

impl Drop for Counted<'_> {
    fn drop(&mut self) {
        if self.0.count.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.0.emptied.notify_waiters();
        }
    }
}

impl Deciding {
    /// Runs `call` counted, unless (or until) the calls are stopped.
    ///
    /// # Errors
    ///
    /// [`TaskError::Stopping`] when the calls were stopped before `call` ended (it is
    /// dropped then).
    pub(super) async fn run<F: Future>(&self, call: F) -> Result<F::Output, TaskError> {
        self.count.fetch_add(1, Ordering::AcqRel);
        let _counted = Counted(self);
        let mut stopped = self.stopped.subscribe();
        tokio::select! {
            biased;
            _ = stopped.wait_for(|stopped| *stopped) => Err(TaskError::Stopping),
            output = call => Ok(output),
        }
    }

    /// Stops every call under way and every later one.
    pub(super) fn stop(&self) {
        self.stopped.send_replace(true);
    }

    /// Waits until no call is under way.
    pub(super) async fn wait_idle(&self) {
        loop {
            // Registered before looking, so an emptying between the two is not missed.
            let emptied = self.emptied.notified();
            if self.count.load(Ordering::Acquire) == 0 {
                return;
            }
            emptied.await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_call_under_way_ends_stopped_and_a_later_one_does_not_start() {
        let deciding = Deciding::default();
        let pending = deciding.run(std::future::pending::<()>());
        let stop = async {
            tokio::task::yield_now().await;
            assert_eq!(deciding.count.load(Ordering::Acquire), 1);
            deciding.stop();
        };
        let (ended, ()) = tokio::join!(pending, stop);
        assert!(matches!(ended, Err(TaskError::Stopping)));
        deciding.wait_idle().await;
        let later = deciding.run(async { 1 }).await;
        assert!(matches!(later, Err(TaskError::Stopping)));
    }

    #[tokio::test]
    async fn a_call_that_ends_gives_its_output() {
        let deciding = Deciding::default();
        assert_eq!(deciding.run(async { 7 }).await.unwrap(), 7);
        deciding.wait_idle().await;
    }
}
