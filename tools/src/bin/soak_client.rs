//! Exists so that scripts/soak.sh can load a server for minutes, then check that nothing leaked.
//!
//! The load client of `scripts/soak.sh`: keeps N `message/stream` streams going against one
//! or more servers running the demo agent, with the things real clients do to a server.
//!
//! Each worker loops until the deadline: it opens a stream (A2UI v0.9 or v0.8, or plain
//! text) on its server and then, at random, reads it to the end, hangs up mid-stream, or
//! cancels the task mid-stream through *another* server (the next in `--urls`, so with two
//! instances the cancel crosses them). A task that ends waiting for input is continued with
//! a second stream now and then, and a waiting task is sometimes canceled. After the
//! deadline it lets the streams in flight finish, waits until no task it created is still
//! running (at most `--drain` seconds), and then reports:
//!
//! - every task id it created, read back with `tasks/get` (settled, still running, or gone
//!   after the store's expiry);
//! - the first server's whole listing, read with `ListTasks` page by page (A2A 1.0);
//! - one line `unsettled=N` (running tasks in either count), which the script checks.
//!
//! It exits 0 whatever it finds (the script decides); only bad arguments exit 2.
//!
//! ```sh
//! cargo run --release -p a2ui-agent-tools --bin soak_client -- --urls http://127.0.0.1:8080/ --duration 20 --streams 8
//! ```

use std::collections::{BTreeMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use a2ui_agent::a2ui::ProtocolVersion;
use futures::StreamExt;
use serde_json::{Value, json};

struct Options {
    urls: Vec<String>,
    duration: Duration,
    streams: usize,
    drain: Duration,
    seed: u64,
}

fn options() -> Result<Options, String> {
    let mut options = Options {
        urls: Vec::new(),
        duration: Duration::from_secs(60),
        streams: 16,
        drain: Duration::from_secs(120),
        seed: 1,
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let mut value = || args.next().ok_or(format!("{flag} needs a value"));
        let number = |text: String| {
            text.parse::<u64>()
                .map_err(|_| format!("{flag}: {text:?} is not a number"))
        };
        match flag.as_str() {
            "--urls" => {
                options.urls = value()?.split(',').map(str::to_owned).collect();
            }
            "--duration" => options.duration = Duration::from_secs(number(value()?)?),
            "--streams" => options.streams = number(value()?)?.max(1) as usize,
            "--drain" => options.drain = Duration::from_secs(number(value()?)?),
            "--seed" => options.seed = number(value()?)?,
            other => return Err(format!("unknown option {other}")),
        }
    }
    if options.urls.is_empty() {
        return Err("--urls URL[,URL] is required".into());
    }
    Ok(options)
}

/// What the workers saw, counted.
#[derive(Default)]
struct Counts {
    streams: AtomicU64,
    completed_streams: AtomicU64,
    hang_ups: AtomicU64,
    cancels: AtomicU64,
    cancels_refused: AtomicU64,
    continuations: AtomicU64,
    busy: AtomicU64,
    errors: AtomicU64,
    /// Each kind of error seen (transport error, or JSON-RPC code and message), counted.
    error_kinds: Mutex<BTreeMap<String, u64>>,
}

impl Counts {
    fn error(&self, kind: String) {
        self.errors.fetch_add(1, Ordering::Relaxed);
        if let Ok(mut kinds) = self.error_kinds.lock() {
            *kinds.entry(kind).or_default() += 1;
        }
    }
}

struct Shared {
    client: reqwest::Client,
    urls: Vec<String>,
    counts: Counts,
    tasks: Mutex<HashSet<String>>,
    deadline: Instant,
}

/// A small deterministic generator (xorshift), one per worker.
struct Dice(u64);

impl Dice {
    fn below(&mut self, bound: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % bound.max(1)
    }
}

#[tokio::main]
async fn main() {
    let options = match options() {
        Ok(options) => options,
        Err(error) => {
            eprintln!("soak_client: {error}");
            std::process::exit(2);
        }
    };
    let shared = Arc::new(Shared {
        client: reqwest::Client::builder()
            .timeout(Duration::from_secs(120))
            .build()
            .unwrap_or_default(),
        urls: options.urls.clone(),
        counts: Counts::default(),
        tasks: Mutex::new(HashSet::new()),
        deadline: Instant::now() + options.duration,
    });
    let workers: Vec<_> = (0..options.streams)
        .map(|n| {
            let shared = shared.clone();
            let dice = Dice(options.seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ (n as u64 + 1));
            tokio::spawn(worker(shared, n, dice))
        })
        .collect();
    for worker in workers {
        let _ = worker.await;
    }
    let counts = &shared.counts;
    let load = |c: &AtomicU64| c.load(Ordering::Relaxed);
    println!(
        "soak_client: streams={} read_to_end={} hang_ups={} cancels={} (refused {}) \
         continuations={} busy={} errors={}",
        load(&counts.streams),
        load(&counts.completed_streams),
        load(&counts.hang_ups),
        load(&counts.cancels),
        load(&counts.cancels_refused),
        load(&counts.continuations),
        load(&counts.busy),
        load(&counts.errors),
    );
    if let Ok(kinds) = counts.error_kinds.lock() {
        for (kind, n) in kinds.iter() {
            println!("soak_client: error x{n}: {kind}");
        }
    }
    // The load is over: say when, so the script can read the memory the load left before
    // the checks below (a burst of reads of every task) add their own.
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    println!("load-ended-at={now}");
    tokio::time::sleep(Duration::from_secs(2)).await;
    let ids: Vec<String> = shared
        .tasks
        .lock()
        .map(|t| t.iter().cloned().collect())
        .unwrap_or_default();
    let drained = Instant::now() + options.drain;
    let mut states = read_states(&shared, &ids).await;
    while states.running > 0 && Instant::now() < drained {
        tokio::time::sleep(Duration::from_secs(1)).await;
        states = read_states(&shared, &ids).await;
    }
    println!(
        "soak_client: created={} settled={} running={} gone(expired)={} unreadable={}",
        ids.len(),
        states.settled,
        states.running,
        states.gone,
        states.unreadable
    );
    let listed = list_all(&shared).await;
    match &listed {
        Ok((total, running)) => {
            println!(
                "soak_client: ListTasks on {}: {total} tasks, {running} running",
                shared.urls[0]
            );
        }
        Err(error) => println!("soak_client: ListTasks failed: {error}"),
    }
    let unsettled = states.running + listed.map_or(0, |(_, running)| running);
    println!("unsettled={unsettled}");
}

async fn worker(shared: Arc<Shared>, n: usize, mut dice: Dice) {
    let home = n % shared.urls.len();
    let other = (home + 1) % shared.urls.len();
    while Instant::now() < shared.deadline {
        let version = match dice.below(10) {
            0 => None,
            1..=4 => Some(ProtocolVersion::V0_8),
            _ => Some(ProtocolVersion::V0_9),
        };
        let roll = dice.below(100);
        // Hang up or cancel after this many events (the demo sends a few hundred).
        let after = 1 + dice.below(60) as usize;
        let plan = match roll {
            0..15 => Plan::HangUp(after),
            15..30 => Plan::Cancel(after),
            _ => Plan::ReadAll,
        };
        let end = stream(&shared, home, other, version, None, plan).await;
        let Some((task_id, state)) = end else {
            continue;
        };
        if state != "input-required" {
            continue;
        }
        match dice.below(100) {
            0..30 => {
                shared.counts.continuations.fetch_add(1, Ordering::Relaxed);
                let plan = if dice.below(4) == 0 {
                    Plan::HangUp(after)
                } else {
                    Plan::ReadAll
                };
                stream(&shared, home, other, version, Some(&task_id), plan).await;
            }
            30..40 => cancel(&shared, other, &task_id).await,
            _ => {}
        }
    }
}

#[derive(Clone, Copy)]
enum Plan {
    ReadAll,
    HangUp(usize),
    Cancel(usize),
}

/// One `message/stream`; the task id and its last state when read to the end.
async fn stream(
    shared: &Shared,
    home: usize,
    other: usize,
    version: Option<ProtocolVersion>,
    task_id: Option<&str>,
    plan: Plan,
) -> Option<(String, String)> {
    shared.counts.streams.fetch_add(1, Ordering::Relaxed);
    let mut message = json!({"kind": "message", "role": "user",
        "messageId": format!("soak-{}", uuid_like()),
        "parts": [{"kind": "text", "text": "Dinner for two tonight?"}]});
    let mut request = shared.client.post(&shared.urls[home]);
    if let Some(version) = version {
        let catalogs = json!({"supportedCatalogIds": [version.basic_catalog_id()]});
        let capabilities = match version {
            ProtocolVersion::V0_8 => catalogs,
            other => json!({other.as_str(): catalogs}),
        };
        message["metadata"] = json!({"a2uiClientCapabilities": capabilities});
        request = request.header("X-A2A-Extensions", version.extension_uri());
    }
    if let Some(id) = task_id {
        message["taskId"] = json!(id);
    }
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "message/stream",
        "params": {"message": message}});
    let response = match request.json(&body).send().await {
        Ok(response) => response,
        Err(error) => {
            shared.counts.error(format!("sending the request: {error}"));
            return None;
        }
    };
    let mut bytes = response.bytes_stream();
    let mut buffer = Vec::new();
    let mut events = 0usize;
    let mut id = task_id.map(str::to_owned);
    let mut state = String::new();
    while let Some(chunk) = bytes.next().await {
        let chunk = match chunk {
            Ok(chunk) => chunk,
            Err(error) => {
                shared.counts.error(format!("reading the stream: {error}"));
                return None;
            }
        };
        buffer.extend_from_slice(&chunk);
        while let Some(end) = find(&buffer, b"\n\n") {
            let frame: Vec<u8> = buffer.drain(..end + 2).collect();
            let Some(event) = data_of(&frame) else {
                continue;
            };
            if let Some(error) = event.get("error") {
                if error["code"] == -32000 {
                    shared.counts.busy.fetch_add(1, Ordering::Relaxed);
                } else {
                    let during = if task_id.is_some() {
                        "continuing a task"
                    } else {
                        "a new task"
                    };
                    shared.counts.error(format!(
                        "{during}: JSON-RPC {} {}",
                        error["code"], error["message"]
                    ));
                }
                return None;
            }
            let result = &event["result"];
            if id.is_none() {
                id = result["id"]
                    .as_str()
                    .or(result["taskId"].as_str())
                    .map(str::to_owned);
                if let (Some(id), Ok(mut tasks)) = (&id, shared.tasks.lock()) {
                    tasks.insert(id.clone());
                }
            }
            if let Some(s) = result["status"]["state"].as_str() {
                s.clone_into(&mut state);
            }
            events += 1;
            match plan {
                Plan::HangUp(after) if events >= after => {
                    shared.counts.hang_ups.fetch_add(1, Ordering::Relaxed);
                    return None;
                }
                Plan::Cancel(after) if events == after => {
                    if let Some(id) = &id {
                        cancel(shared, other, id).await;
                    }
                }
                _ => {}
            }
        }
    }
    shared
        .counts
        .completed_streams
        .fetch_add(1, Ordering::Relaxed);
    Some((id?, state))
}

async fn cancel(shared: &Shared, url: usize, id: &str) {
    shared.counts.cancels.fetch_add(1, Ordering::Relaxed);
    let answer = rpc(shared, url, "tasks/cancel", json!({"id": id}), false).await;
    if answer.is_none_or(|a| a.get("error").is_some()) {
        shared
            .counts
            .cancels_refused
            .fetch_add(1, Ordering::Relaxed);
    }
}

async fn rpc(shared: &Shared, url: usize, method: &str, params: Value, v1: bool) -> Option<Value> {
    let mut request = shared.client.post(&shared.urls[url]);
    if v1 {
        request = request.header("A2A-Version", "1.0");
    }
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    request.json(&body).send().await.ok()?.json().await.ok()
}

#[derive(Default)]
struct States {
    settled: usize,
    running: usize,
    gone: usize,
    unreadable: usize,
}

/// The states of `ids`, read with `tasks/get` from the first server, a few at a time.
async fn read_states(shared: &Shared, ids: &[String]) -> States {
    let answers: Vec<Option<Value>> = futures::stream::iter(ids)
        .map(|id| {
            rpc(
                shared,
                0,
                "tasks/get",
                json!({"id": id, "historyLength": 0}),
                false,
            )
        })
        .buffer_unordered(16)
        .collect()
        .await;
    let mut states = States::default();
    for answer in answers {
        match answer {
            Some(answer) if answer["error"]["code"] == -32001 => states.gone += 1,
            Some(answer) => match answer["result"]["status"]["state"].as_str() {
                Some(state) if is_settled(state) => states.settled += 1,
                Some(_) => states.running += 1,
                None => states.unreadable += 1,
            },
            None => states.unreadable += 1,
        }
    }
    states
}

/// Every task of the first server, by `ListTasks` pages: (total, running).
async fn list_all(shared: &Shared) -> Result<(usize, usize), String> {
    let (mut total, mut running) = (0, 0);
    let mut token = String::new();
    for _ in 0..100_000 {
        let mut params = json!({"pageSize": 100, "historyLength": 0});
        if !token.is_empty() {
            params["pageToken"] = json!(token);
        }
        let answer = rpc(shared, 0, "ListTasks", params, true)
            .await
            .ok_or("no answer")?;
        let result = answer
            .get("result")
            .ok_or_else(|| format!("error: {}", answer["error"]))?;
        for task in result["tasks"].as_array().map(Vec::as_slice).unwrap_or(&[]) {
            total += 1;
            let state = task["status"]["state"].as_str().unwrap_or("");
            if !is_settled(state) {
                running += 1;
            }
        }
        token = result["nextPageToken"].as_str().unwrap_or("").to_owned();
        if token.is_empty() {
            return Ok((total, running));
        }
    }
    Err("more than 100,000 pages".into())
}

/// Whether a state (0.3 `input-required` or 1.0 `TASK_STATE_INPUT_REQUIRED`) is settled.
fn is_settled(state: &str) -> bool {
    let name = state
        .trim_start_matches("TASK_STATE_")
        .to_ascii_lowercase()
        .replace('_', "-");
    matches!(
        name.as_str(),
        "completed"
            | "canceled"
            | "cancelled"
            | "failed"
            | "rejected"
            | "input-required"
            | "auth-required"
    )
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// The JSON of an SSE frame's `data:` lines.
fn data_of(frame: &[u8]) -> Option<Value> {
    let text = std::str::from_utf8(frame).ok()?;
    let data: String = text
        .lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .map(str::trim_start)
        .collect();
    serde_json::from_str(&data).ok()
}

fn uuid_like() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    (u64::from(nanos) << 32) | NEXT.fetch_add(1, Ordering::Relaxed)
}
