//! The load: N streams opened over a ramp, each read until the end of the measuring
//! window, each SSE frame searched for the model's stamps (see [`super::reply`]).

use std::sync::Arc;
use std::time::Duration;

use tokio::time::Instant;

use super::reply::{now_micros, stamps_in};

/// The protocol the streams speak.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Protocol {
    /// A2A 0.3 JSON-RPC `message/stream`.
    V0_3,
    /// A2A 1.0 JSON-RPC `SendStreamingMessage` (`A2A-Version: 1.0`).
    V1_0,
    /// AG-UI 1.0: a `RunAgentInput` posted to `/ag-ui`.
    AgUi,
}

impl Protocol {
    /// `BENCH_PROTOCOL`: `0.3`, or `1.0` (the default).
    pub fn from_env() -> Protocol {
        match std::env::var("BENCH_PROTOCOL").as_deref() {
            Ok("0.3") => Protocol::V0_3,
            _ => Protocol::V1_0,
        }
    }

    /// The method the streams call.
    pub fn method(self) -> &'static str {
        match self {
            Protocol::V0_3 => "message/stream",
            Protocol::V1_0 => "SendStreamingMessage",
            Protocol::AgUi => "AG-UI run",
        }
    }

    /// Where the streams go on a server at `base` (`http://ADDRESS/`).
    pub fn url(self, base: &str) -> String {
        match self {
            Protocol::AgUi => format!("{base}ag-ui"),
            Protocol::V0_3 | Protocol::V1_0 => base.to_owned(),
        }
    }

    /// The body of stream `id`, asking for A2UI v0.9 with the basic catalog.
    fn body(self, id: usize, catalog_id: &str) -> String {
        let capabilities = format!(
            r#"{{"a2uiClientCapabilities":{{"v0.9":{{"supportedCatalogIds":["{catalog_id}"]}}}}}}"#
        );
        match self {
            Protocol::V0_3 => format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"message/stream","params":{{"message":{{"kind":"message","messageId":"bench-{id}","role":"user","parts":[{{"kind":"text","text":"go"}}],"metadata":{capabilities}}}}}}}"#
            ),
            Protocol::V1_0 => format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"SendStreamingMessage","params":{{"message":{{"messageId":"bench-{id}","role":"ROLE_USER","parts":[{{"text":"go"}}],"metadata":{capabilities}}}}}}}"#
            ),
            Protocol::AgUi => format!(
                r#"{{"threadId":"bench-{id}","runId":"run-{id}","messages":[{{"id":"m-{id}","role":"user","content":"go"}}],"tools":[],"context":[],"forwardedProps":{capabilities}}}"#
            ),
        }
    }
}

/// What the load does.
pub struct Plan {
    /// The servers: stream i goes to `urls[i % urls.len()]`.
    pub urls: Vec<String>,
    pub streams: usize,
    /// Stream i is opened at `ramp * i / streams`.
    pub ramp: Duration,
    /// The wait after the ramp before the window opens.
    pub settle: Duration,
    /// How long the figures are taken.
    pub window: Duration,
    pub protocol: Protocol,
    pub extension_uri: String,
    pub catalog_id: String,
    /// The chunk index of each stamp, in order (see [`super::reply::Reply::stamped`]).
    pub stamped: Arc<Vec<usize>>,
}

/// What the load saw in the window.
#[derive(Debug, Default)]
pub struct Outcome {
    /// Chunk-to-frame latencies of the stamps first seen in the window, µs, sorted.
    pub latencies_us: Vec<u32>,
    /// SSE frames received in the window.
    pub frames: u64,
    /// Model chunks the streams got through in the window (counted by their stamps).
    pub chunks: u64,
    /// Streams that could not be opened.
    pub unopened: u64,
    /// Streams that broke: an error or failed state, an early end, a read error.
    pub broken: u64,
    /// The first reason a stream broke, for the log.
    pub first_break: Option<String>,
    /// Streams that ended after their final event (the task completed, or waits for input).
    pub finished: u64,
}

impl Outcome {
    /// The latency at `fraction` (0.5: the median), ms; NaN without any.
    pub fn percentile_ms(&self, fraction: f64) -> f64 {
        if self.latencies_us.is_empty() {
            return f64::NAN;
        }
        let rank = ((self.latencies_us.len() - 1) as f64 * fraction).round() as usize;
        f64::from(self.latencies_us[rank]) / 1e3
    }
}

/// One stream's share of the [`Outcome`].
#[derive(Default)]
struct One {
    latencies_us: Vec<u32>,
    frames: u64,
    chunks: u64,
    unopened: bool,
    broke: Option<String>,
    finished: bool,
}

/// Runs `plan`; `probe(false)` is called as the window opens, `probe(true)` as it closes.
pub async fn run(plan: Plan, mut probe: impl FnMut(bool)) -> Outcome {
    let http = reqwest::Client::builder()
        .http1_only()
        .pool_max_idle_per_host(0)
        .build()
        .expect("an HTTP client");
    let start = Instant::now();
    let opens = start + plan.ramp + plan.settle;
    let closes = opens + plan.window;
    let plan = Arc::new(plan);
    let tasks: Vec<_> = (0..plan.streams)
        .map(|i| {
            let (http, plan) = (http.clone(), plan.clone());
            let at = start + plan.ramp.mul_f64(i as f64 / plan.streams.max(1) as f64);
            tokio::spawn(async move {
                tokio::time::sleep_until(at).await;
                one(&http, &plan, i, opens, closes).await
            })
        })
        .collect();
    tokio::time::sleep_until(opens).await;
    probe(false);
    tokio::time::sleep_until(closes).await;
    probe(true);
    let mut outcome = Outcome::default();
    for task in tasks {
        let Ok(one) = task.await else {
            outcome.broken += 1;
            continue;
        };
        outcome.latencies_us.extend(one.latencies_us);
        outcome.frames += one.frames;
        outcome.chunks += one.chunks;
        if one.unopened {
            outcome.unopened += 1;
        }
        if let Some(why) = one.broke {
            outcome.broken += 1;
            outcome.first_break.get_or_insert(why);
        }
        outcome.finished += u64::from(one.finished);
    }
    outcome.latencies_us.sort_unstable();
    outcome
}

/// One stream, read until `closes`.
async fn one(
    http: &reqwest::Client,
    plan: &Plan,
    id: usize,
    opens: Instant,
    closes: Instant,
) -> One {
    let mut result = One::default();
    let request = http
        .post(&plan.urls[id % plan.urls.len()])
        .header("content-type", "application/json")
        .header("accept", "text/event-stream")
        .header("a2a-extensions", &plan.extension_uri)
        .header("x-a2a-extensions", &plan.extension_uri)
        .body(plan.protocol.body(id, &plan.catalog_id));
    let request = match plan.protocol {
        Protocol::V1_0 => request.header("a2a-version", "1.0"),
        Protocol::V0_3 | Protocol::AgUi => request,
    };
    let sent = tokio::time::timeout(Duration::from_secs(30), request.send()).await;
    let mut response = match sent {
        Ok(Ok(response)) if response.status().is_success() => response,
        Ok(Ok(response)) => {
            result.unopened = true;
            result.broke = Some(format!("status {}", response.status()));
            return result;
        }
        Ok(Err(error)) => {
            result.unopened = true;
            result.broke = Some(format!("send: {error}"));
            return result;
        }
        Err(_) => {
            result.unopened = true;
            result.broke = Some("no answer within 30 s".into());
            return result;
        }
    };
    let mut buffer: Vec<u8> = Vec::new();
    // Stamps grow within a stream: one not above the last seen is a repeat (a stack that
    // resends what it sent before).
    let mut last_stamp = 0u64;
    let mut seen = 0usize;
    // The first and the last stamp seen in the window: (ordinal, time written).
    let mut first_in_window: Option<(usize, u64)> = None;
    let mut last_in_window: Option<(usize, u64)> = None;
    let (opens_us, closes_us) = window_micros(opens, closes);
    let mut ended = false;
    let mut finished = false;
    loop {
        let chunk = match tokio::time::timeout_at(closes, response.chunk()).await {
            Err(_) => break,
            Ok(Ok(Some(chunk))) => chunk,
            Ok(Ok(None)) => {
                ended = true;
                break;
            }
            Ok(Err(error)) => {
                result.broke = Some(format!("read: {error}"));
                break;
            }
        };
        let now = now_micros();
        let in_window = now >= opens_us && now < closes_us;
        buffer.extend_from_slice(&chunk);
        let Some(end) = frames_end(&buffer) else {
            continue;
        };
        let frames = &buffer[..end];
        if result.broke.is_none() {
            if contains(frames, b"\"error\"") || contains(frames, b"RUN_ERROR") {
                result.broke = Some("an error".into());
            } else if contains(frames, b"TASK_STATE_FAILED") || contains(frames, b"\"failed\"") {
                result.broke = Some("the task failed".into());
            }
        }
        finished = finished
            || [
                b"TASK_STATE_COMPLETED".as_slice(),
                b"TASK_STATE_INPUT_REQUIRED",
                b"\"completed\"",
                b"\"input-required\"",
                b"RUN_FINISHED",
            ]
            .iter()
            .any(|state| contains(frames, state));
        if in_window {
            result.frames += (count(frames, b"\n\n") + count(frames, b"\n\r\n")) as u64;
        }
        for stamp in stamps_in(frames) {
            if stamp <= last_stamp {
                continue;
            }
            last_stamp = stamp;
            seen += 1;
            if in_window {
                first_in_window.get_or_insert((seen, stamp));
                last_in_window = Some((seen, stamp));
                result
                    .latencies_us
                    .push(now.saturating_sub(stamp).min(u64::from(u32::MAX)) as u32);
            }
        }
        buffer.drain(..end);
    }
    if ended && seen < plan.stamped.len() && result.broke.is_none() {
        result.broke = Some("the stream ended before the reply".into());
    }
    result.finished = ended && finished;
    let chunk_at = |ordinal: usize| match ordinal {
        0 => 0,
        k => plan.stamped.get(k - 1).copied().unwrap_or(0),
    };
    // The chunks the stream got through in the window: its pace between its first and last
    // stamp there, over the whole window (every stream is open before it opens).
    if let (Some((a, ta)), Some((b, tb))) = (first_in_window, last_in_window)
        && tb > ta
    {
        let per_us = (chunk_at(b) - chunk_at(a)) as f64 / (tb - ta) as f64;
        result.chunks = (per_us * (closes_us - opens_us) as f64).round() as u64;
    }
    result
}

/// The window's edges on the stamps' clock.
fn window_micros(opens: Instant, closes: Instant) -> (u64, u64) {
    let now = Instant::now();
    let now_us = now_micros();
    let to_us = |at: Instant| {
        if at >= now {
            now_us + (at - now).as_micros() as u64
        } else {
            now_us.saturating_sub((now - at).as_micros() as u64)
        }
    };
    (to_us(opens), to_us(closes))
}

/// Where the last complete SSE frame in `buffer` ends (its blank line, `\n\n` or
/// `\r\n\r\n`, included).
fn frames_end(buffer: &[u8]) -> Option<usize> {
    let lf = find_last(buffer, b"\n\n").map(|at| at + 2);
    let crlf = find_last(buffer, b"\n\r\n").map(|at| at + 3);
    lf.max(crlf)
}

fn find_last(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).rposition(|w| w == needle)
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

fn count(haystack: &[u8], needle: &[u8]) -> usize {
    haystack
        .windows(needle.len())
        .filter(|w| *w == needle)
        .count()
}
