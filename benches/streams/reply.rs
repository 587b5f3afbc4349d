//! The model's reply: a realistic A2UI answer cut into token-sized chunks, some of which
//! carry the time they were written.
//!
//! A chunk that completes a component (and a few chunks of prose) holds the placeholder
//! [`PLACEHOLDER`]; whoever writes the chunk (the closure agent, the fake OpenAI server, the
//! Python executor) replaces it with CLOCK_MONOTONIC in microseconds, which every process on
//! the machine reads alike. The client finds the stamp again in the SSE frame that carries
//! the component and subtracts: that is the chunk-to-frame latency, across processes, with
//! no side channel.

use std::fmt::Write;
use std::sync::Arc;
use std::time::Duration;

use futures::Stream;

/// The most text components of one section of the reply.
const SECTION: usize = 20;

/// What a stamped chunk holds until it is written: `@T` and 16 digits.
pub const PLACEHOLDER: &str = "@T0000000000000000";
/// The digits of a stamp.
pub const STAMP_DIGITS: usize = 16;

/// The reply, chunk by chunk, and which chunks carry a stamp.
pub struct Reply {
    /// The chunks, placeholders unreplaced.
    pub chunks: Vec<String>,
    /// The index of each stamped chunk, in order.
    pub stamped: Vec<usize>,
}

/// Cuts text into 3–8 character chunks (deterministic, about a token each).
#[derive(Default)]
struct Cutter {
    chunks: Vec<String>,
    stamped: Vec<usize>,
    turn: usize,
}

impl Cutter {
    fn plain(&mut self, text: &str) {
        let mut rest = text;
        while !rest.is_empty() {
            let size = (3 + (self.turn * 7 + self.turn / 3) % 6).min(rest.len());
            let (head, tail) = rest.split_at(size);
            self.chunks.push(head.to_owned());
            rest = tail;
            self.turn += 1;
        }
    }

    /// One chunk: a stamp, then `suffix`.
    fn stamp(&mut self, suffix: &str) {
        self.stamped.push(self.chunks.len());
        self.chunks.push(format!("{PLACEHOLDER}{suffix}"));
    }
}

/// Prose, then a block creating a surface of `components` components, a results page: a
/// root column of sections, each a column of up to [`SECTION`] text components, each
/// text component completed by a stamped chunk; then prose again. About 60 bytes and 11 chunks
/// per component, no more than about 60 chunks between two stamps.
pub fn reply(components: usize, catalog_id: &str) -> Reply {
    let mut cut = Cutter::default();
    cut.plain("Here are the results I found for you,");
    cut.stamp(" ");
    cut.plain("in the order you asked for them.\n<a2ui-json>\n[\n  ");
    cut.plain(&format!(
        r#"{{"version": "v0.9", "createSurface": {{"surfaceId": "bench", "catalogId": "{catalog_id}"}}}},"#
    ));
    cut.plain("\n  {\"version\": \"v0.9\", \"updateComponents\": {\"surfaceId\": \"bench\", \"components\": [\n    ");
    // The root and the sections are components too.
    let items = components.saturating_sub(1).max(1);
    let sections: Vec<Vec<String>> = (1..=items)
        .map(|i| format!("item-{i}"))
        .collect::<Vec<_>>()
        .chunks(SECTION)
        .map(<[String]>::to_vec)
        .collect();
    let section_ids: Vec<String> = (1..=sections.len())
        .map(|s| format!("section-{s}"))
        .collect();
    let list = |ids: &[String]| serde_json::to_string(ids).unwrap_or_default();
    cut.plain(&format!(
        r#"{{"id": "root", "component": "Column", "children": {}"#,
        list(&section_ids)
    ));
    cut.plain("},");
    for (s, (section, ids)) in section_ids.iter().zip(&sections).enumerate() {
        cut.plain(&format!(
            "\n    {{\"id\": \"{section}\", \"component\": \"Column\", \"children\": {}",
            list(ids)
        ));
        cut.plain("},");
        for (i, id) in ids.iter().enumerate() {
            cut.plain(&format!(
                "\n    {{\"id\": \"{id}\", \"component\": \"Text\", \"text\": \"Result number {i}: a short line "
            ));
            let last = s + 1 == sections.len() && i + 1 == ids.len();
            cut.stamp(if last { "\"}" } else { "\"}," });
        }
    }
    cut.plain("\n  ]}}\n]\n</a2ui-json>\nThat is all for now,");
    cut.stamp(" anything else?");
    Reply {
        chunks: cut.chunks,
        stamped: cut.stamped,
    }
}

/// CLOCK_MONOTONIC in microseconds: the same clock in every process of the machine.
pub fn now_micros() -> u64 {
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `now` is a valid, writable timespec; the call only writes it.
    let status = unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut now) };
    assert_eq!(status, 0, "clock_gettime(CLOCK_MONOTONIC) failed");
    now.tv_sec as u64 * 1_000_000 + now.tv_nsec as u64 / 1_000
}

/// `chunk` with its placeholder, if any, replaced by `micros`.
fn stamped_at(chunk: &str, micros: u64) -> String {
    // Most chunks hold no `@`: a byte search rules them out, without building the searcher
    // of a string (a cost of the load, not of the server under test).
    if !chunk.contains('@') {
        return chunk.to_owned();
    }
    let Some(at) = chunk.find(PLACEHOLDER) else {
        return chunk.to_owned();
    };
    let mut out = String::with_capacity(chunk.len());
    out.push_str(&chunk[..at]);
    let _ = write!(out, "@T{micros:0width$}", width = STAMP_DIGITS);
    out.push_str(&chunk[at + PLACEHOLDER.len()..]);
    out
}

/// The items one after the other, one every `pause` (the first after one `pause`), each
/// stamped with the time it was due. A late tick neither slows the pace nor hides: the
/// items it held back come at once, stamped when they were due, so a busy process shows as
/// latency rather than as a slower model.
pub fn paced(items: Arc<Vec<String>>, pause: Duration) -> impl Stream<Item = String> + Send {
    let start = tokio::time::Instant::now();
    let start_micros = now_micros();
    let mut ticks = tokio::time::interval_at(start + pause, pause);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Burst);
    futures::stream::unfold((0usize, ticks), move |(i, mut ticks)| {
        let items = items.clone();
        async move {
            let item = items.get(i)?;
            let due = ticks.tick().await;
            let micros = start_micros + (due - start).as_micros() as u64;
            Some((stamped_at(item, micros), (i + 1, ticks)))
        }
    })
}

/// Where the stamps are in `bytes`: each `@T` followed by [`STAMP_DIGITS`] digits, as a time.
pub fn stamps_in(bytes: &[u8]) -> impl Iterator<Item = u64> + '_ {
    let mut at = 0;
    std::iter::from_fn(move || {
        while at + 2 + STAMP_DIGITS <= bytes.len() {
            let Some(found) = bytes[at..].iter().position(|&b| b == b'@') else {
                at = bytes.len();
                return None;
            };
            let start = at + found;
            at = start + 1;
            if bytes.get(start + 1) != Some(&b'T') {
                continue;
            }
            let digits = bytes.get(start + 2..start + 2 + STAMP_DIGITS)?;
            if !digits.iter().all(u8::is_ascii_digit) {
                continue;
            }
            at = start + 2 + STAMP_DIGITS;
            return Some(
                digits
                    .iter()
                    .fold(0u64, |n, d| n * 10 + u64::from(d - b'0')),
            );
        }
        None
    })
}
