//! The push options an operator sets ([`PushSettings`]), and what the server counts
//! ([`PushStats`]).

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// How the server sends push notifications: what it lets through, how long it waits, how
/// often it tries again, and how much it holds. Give it to
/// [`ServerBuilder::push`](crate::server::ServerBuilder::push).
///
/// # Example
///
/// ```
/// use std::time::Duration;
/// use a2ui_agent::push::PushSettings;
///
/// // Development: a receiver on this machine, over plain http.
/// let settings = PushSettings::default()
///     .allow_http(true)
///     .allow_host("127.0.0.1")
///     .timeout(Duration::from_secs(5))
///     .max_attempts(3);
/// assert_eq!(settings.max_configs_per_task, PushSettings::DEFAULT_MAX_CONFIGS_PER_TASK);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct PushSettings {
    /// Whether `http` webhook URLs are taken (default no: `https` only).
    pub allow_http: bool,
    /// Hosts that skip the address check (lowercase names or addresses; IPv6 without
    /// brackets). Default none.
    pub allow_hosts: Vec<String>,
    /// How long one delivery attempt may take, connecting included.
    pub timeout: Duration,
    /// How many times one update is tried (at least 1).
    pub max_attempts: u32,
    /// The wait before the first retry; it doubles for each later one, with jitter.
    pub first_retry: Duration,
    /// The longest wait between two attempts.
    pub max_retry: Duration,
    /// How many updates may wait for one webhook; more are dropped (logged and counted).
    pub queue: usize,
    /// How many configs one task may hold.
    pub max_configs_per_task: usize,
    /// The longest webhook URL taken, in bytes.
    pub max_url_len: usize,
}

impl PushSettings {
    /// Default timeout of one attempt: 10 s (the spec recommends 10 to 30).
    pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);
    /// Default attempts per update: 5.
    pub const DEFAULT_MAX_ATTEMPTS: u32 = 5;
    /// Default first retry wait: 500 ms.
    pub const DEFAULT_FIRST_RETRY: Duration = Duration::from_millis(500);
    /// Default longest wait between attempts: 30 s.
    pub const DEFAULT_MAX_RETRY: Duration = Duration::from_secs(30);
    /// Default updates waiting per webhook: 256.
    pub const DEFAULT_QUEUE: usize = 256;
    /// Default configs per task: 10.
    pub const DEFAULT_MAX_CONFIGS_PER_TASK: usize = 10;
    /// Default longest URL: 2048 bytes.
    pub const DEFAULT_MAX_URL_LEN: usize = 2048;

    /// Takes `http` URLs too (development and tests only).
    #[must_use]
    pub fn allow_http(mut self, allow: bool) -> Self {
        self.allow_http = allow;
        self
    }

    /// Lets `host` skip the address check (say a receiver on this machine).
    #[must_use]
    pub fn allow_host(mut self, host: impl Into<String>) -> Self {
        let host = host.into();
        let host = host.trim_start_matches('[').trim_end_matches(']');
        self.allow_hosts.push(host.to_ascii_lowercase());
        self
    }

    /// How long one attempt may take.
    #[must_use]
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// How many times an update is tried (at least 1).
    #[must_use]
    pub fn max_attempts(mut self, attempts: u32) -> Self {
        self.max_attempts = attempts.max(1);
        self
    }

    /// The first retry wait and the longest one.
    #[must_use]
    pub fn retry_waits(mut self, first: Duration, max: Duration) -> Self {
        self.first_retry = first;
        self.max_retry = max.max(first);
        self
    }

    /// How many updates may wait for one webhook (at least 1).
    #[must_use]
    pub fn queue(mut self, updates: usize) -> Self {
        self.queue = updates.max(1);
        self
    }

    /// How many configs a task may hold (at least 1).
    #[must_use]
    pub fn max_configs_per_task(mut self, configs: usize) -> Self {
        self.max_configs_per_task = configs.max(1);
        self
    }

    /// The longest URL taken.
    #[must_use]
    pub fn max_url_len(mut self, bytes: usize) -> Self {
        self.max_url_len = bytes;
        self
    }

    /// The wait before attempt `attempt + 1` after `attempt` failed: `first_retry` doubled
    /// per earlier retry, at most `max_retry`, then a random point in its upper half
    /// (`jitter` in `0..=1`), so receivers that failed together are not retried together.
    pub(crate) fn backoff(&self, attempt: u32, jitter: f64) -> Duration {
        let doubled = self
            .first_retry
            .saturating_mul(1u32 << attempt.saturating_sub(1).min(20));
        let wait = doubled.min(self.max_retry);
        wait.mul_f64(0.5 + 0.5 * jitter.clamp(0.0, 1.0))
    }
}

impl Default for PushSettings {
    fn default() -> Self {
        Self {
            allow_http: false,
            allow_hosts: Vec::new(),
            timeout: Self::DEFAULT_TIMEOUT,
            max_attempts: Self::DEFAULT_MAX_ATTEMPTS,
            first_retry: Self::DEFAULT_FIRST_RETRY,
            max_retry: Self::DEFAULT_MAX_RETRY,
            queue: Self::DEFAULT_QUEUE,
            max_configs_per_task: Self::DEFAULT_MAX_CONFIGS_PER_TASK,
            max_url_len: Self::DEFAULT_MAX_URL_LEN,
        }
    }
}

/// What the push sender did since the server started.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct PushStats {
    /// Updates a webhook acknowledged (2xx).
    pub delivered: u64,
    /// Attempts that failed and were tried again.
    pub retried: u64,
    /// Updates given up on: every attempt failed, a redirect, or a refused address.
    pub failed: u64,
    /// Updates dropped because a webhook's queue was full.
    pub dropped: u64,
    /// Updates taken over from the store's outbox, left there by an instance that stopped.
    pub adopted: u64,
}

/// The live counters behind [`PushStats`].
#[derive(Debug, Default)]
pub(crate) struct Counters {
    pub(crate) delivered: AtomicU64,
    pub(crate) retried: AtomicU64,
    pub(crate) failed: AtomicU64,
    pub(crate) dropped: AtomicU64,
    pub(crate) adopted: AtomicU64,
}

impl Counters {
    pub(crate) fn add(counter: &AtomicU64) {
        counter.fetch_add(1, Ordering::Relaxed);
    }

    pub(crate) fn snapshot(&self) -> PushStats {
        PushStats {
            delivered: self.delivered.load(Ordering::Relaxed),
            retried: self.retried.load(Ordering::Relaxed),
            failed: self.failed.load(Ordering::Relaxed),
            dropped: self.dropped.load(Ordering::Relaxed),
            adopted: self.adopted.load(Ordering::Relaxed),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_up_to_the_cap_within_its_upper_half() {
        let settings = PushSettings::default()
            .retry_waits(Duration::from_millis(100), Duration::from_millis(1000));
        assert_eq!(settings.backoff(1, 1.0), Duration::from_millis(100));
        assert_eq!(settings.backoff(2, 1.0), Duration::from_millis(200));
        assert_eq!(settings.backoff(3, 0.0), Duration::from_millis(200));
        assert_eq!(settings.backoff(10, 1.0), Duration::from_millis(1000));
        assert_eq!(settings.backoff(u32::MAX, 0.0), Duration::from_millis(500));
    }
}
