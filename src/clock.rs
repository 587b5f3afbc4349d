//! Time, injectable: tests pin the clock so timestamps and idle eviction are reproducible.

use std::sync::Mutex;
use std::time::{Duration, SystemTime};

use time::OffsetDateTime;

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
/// use a2ui_agent::clock::{Clock, ManualClock, timestamp};
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
/// Times before 1970 or past the year 9999 are clamped to those bounds.
pub fn timestamp(time: SystemTime) -> String {
    /// 9999-12-31T23:59:59.999Z, in milliseconds since the epoch.
    const MAX_MILLIS: u128 = 253_402_300_799_999;
    let millis = time
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |since| since.as_millis())
        .min(MAX_MILLIS);
    // Within the clamp, seconds fit an i64 and the date a four-digit year.
    let seconds = i64::try_from(millis / 1000).unwrap_or(0);
    let Ok(time) = OffsetDateTime::from_unix_timestamp(seconds) else {
        return "1970-01-01T00:00:00.000Z".to_owned();
    };
    // Written digit by digit: a format description costs more than the rest of a send.
    let mut out = String::with_capacity(24);
    let mut push = |value: u32, digits: u32, after: char| {
        for place in (0..digits).rev() {
            let digit = value / 10u32.pow(place) % 10;
            out.push(char::from(b'0' + digit as u8));
        }
        out.push(after);
    };
    push(time.year().unsigned_abs(), 4, '-');
    push(u32::from(u8::from(time.month())), 2, '-');
    push(u32::from(time.day()), 2, 'T');
    push(u32::from(time.hour()), 2, ':');
    push(u32::from(time.minute()), 2, ':');
    push(u32::from(time.second()), 2, '.');
    push((millis % 1000) as u32, 3, 'Z');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_are_utc_with_milliseconds_and_clamped_at_the_ends() {
        let at = |millis: u64| timestamp(SystemTime::UNIX_EPOCH + Duration::from_millis(millis));
        assert_eq!(at(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(at(1_767_323_045_678), "2026-01-02T03:04:05.678Z");
        assert_eq!(at(1_767_323_045_678_999), "9999-12-31T23:59:59.999Z");
        let before = SystemTime::UNIX_EPOCH - Duration::from_secs(10);
        assert_eq!(timestamp(before), "1970-01-01T00:00:00.000Z");
    }

    proptest::proptest! {
        /// The hand-written digits say what `time`'s RFC 3339 formatter says, at any instant
        /// from 1970 to 9999.
        #[test]
        fn timestamps_match_the_time_crates_formatting(millis in 0u64..253_402_300_799_999) {
            use time::macros::format_description;
            let format = format_description!(
                "[year]-[month]-[day]T[hour]:[minute]:[second].[subsecond digits:3]Z"
            );
            let expected = OffsetDateTime::from_unix_timestamp_nanos(i128::from(millis) * 1_000_000)
                .unwrap()
                .format(&format)
                .unwrap();
            let at = SystemTime::UNIX_EPOCH + Duration::from_millis(millis);
            proptest::prop_assert_eq!(timestamp(at), expected);
        }
    }
}
