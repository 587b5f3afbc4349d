//! Time, injectable: tests pin the clock so timestamps and idle eviction are reproducible.

use std::sync::Mutex;
use std::time::{Duration, SystemTime};

use time::OffsetDateTime;
use time::macros::format_description;

/// Where the server reads the current time.
pub trait Clock: Send + Sync + 'static {
    /// The current time.
    fn now(&self) -> SystemTime;
}

/// The system's clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> SystemTime {
        SystemTime::now()
    }
}

/// A clock that only moves when told to: for tests.
///
/// # Example
///
/// ```
/// use std::time::{Duration, UNIX_EPOCH};
/// use a2ui_agent::task::{Clock, ManualClock, timestamp};
///
/// let clock = ManualClock::new(UNIX_EPOCH + Duration::from_millis(1_500));
/// assert_eq!(timestamp(clock.now()), "1970-01-01T00:00:01.500Z");
/// clock.advance(Duration::from_secs(60));
/// assert_eq!(timestamp(clock.now()), "1970-01-01T00:01:01.500Z");
/// ```
#[derive(Debug)]
pub struct ManualClock {
    now: Mutex<SystemTime>,
}

impl ManualClock {
    /// A clock showing `start`.
    pub fn new(start: SystemTime) -> Self {
        Self {
            now: Mutex::new(start),
        }
    }

    /// Moves the clock forward by `by`.
    pub fn advance(&self, by: Duration) {
        let mut now = self
            .now
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        *now += by;
    }
}

impl Clock for ManualClock {
    fn now(&self) -> SystemTime {
        *self
            .now
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

impl<C: Clock> Clock for std::sync::Arc<C> {
    fn now(&self) -> SystemTime {
        C::now(self)
    }
}

/// Formats `time` as A2A wants it: RFC 3339, UTC, milliseconds, `Z`.
///
/// Times before 1970 or past year 9999 are clamped to those bounds.
pub fn timestamp(time: SystemTime) -> String {
    let format =
        format_description!("[year]-[month]-[day]T[hour]:[minute]:[second].[subsecond digits:3]Z");
    let time = OffsetDateTime::from(time);
    let time = time.clamp(
        OffsetDateTime::UNIX_EPOCH,
        OffsetDateTime::new_utc(
            time::Date::from_calendar_date(9999, time::Month::December, 31)
                .unwrap_or(time::Date::MAX),
            time::Time::MIDNIGHT,
        ),
    );
    time.format(&format)
        .unwrap_or_else(|_| "1970-01-01T00:00:00.000Z".to_owned())
}
