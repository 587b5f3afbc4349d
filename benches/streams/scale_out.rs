//! The scale-out check (`--scale-out URL`, see `scripts/bench-scale-out.sh`): two instances
//! of our server (the closure agent, paced and stamped as in the streams bench) on one
//! PostgreSQL, the streams split across them, each read to its end. It prints the total
//! streams, p50/p99 chunk-to-frame, each instance's CPU, and whether anything was lost:
//! every stream ended after its final event, and every task is stored as the agent left it
//! (waiting for input: the closure's reply ends the turn), none running, failed or canceled
//! (asked of the shared table through one instance's `ListTasks`, before and after, so an
//! old database does not count). With the `postgres` feature it also counts the task
//! events notified between the instances while it runs (a connection of its own listens).

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};

use super::client::{self, Plan, Protocol};
use super::procs::{self, Process};

/// What the check needs.
pub struct Check {
    pub database: String,
    pub per_instance: usize,
    pub components: usize,
    pub chunks: usize,
    pub pause: Duration,
    pub stamped: Arc<Vec<usize>>,
    pub protocol: Protocol,
    pub extension_uri: String,
    pub catalog_id: String,
}

/// The states a task of the check can be stored in.
const STATES: [&str; 6] = [
    "TASK_STATE_SUBMITTED",
    "TASK_STATE_WORKING",
    "TASK_STATE_INPUT_REQUIRED",
    "TASK_STATE_COMPLETED",
    "TASK_STATE_FAILED",
    "TASK_STATE_CANCELED",
];
/// Where [`STATES`] has the states a finished run leaves its task in.
const SETTLED: [usize; 2] = [2, 3];

/// Runs the check and prints what it found; whether nothing was lost.
pub async fn run(check: Check) -> bool {
    let count = std::thread::available_parallelism().map_or(1, |n| n.get());
    let cores = [0, 1 % count];
    let instances: Vec<Process> = cores
        .iter()
        .map(|&core| {
            let args = [
                "--serve",
                "closure",
                "--components",
                &check.components.to_string(),
                "--store",
                &check.database,
            ]
            .map(str::to_owned);
            Process::this("a2ui-agent on PostgreSQL", &args, &[core])
        })
        .collect();
    // The client shares the cores with the instances: this checks scale-out, it does not
    // measure a core.
    procs::pin_to(&(0..count).collect::<Vec<_>>());
    let http = reqwest::Client::new();
    let before = stored(&http, &instances[0].url).await;
    let notes = notes::listen(&check.database).await;
    let total = check.per_instance * instances.len();
    let reply_time = check.pause * check.chunks as u32;
    println!(
        "scale-out: {} instances of a2ui-agent closure on one PostgreSQL (cores {cores:?}), {} streams each, {total} in all; reply {} chunks, {:.0} s",
        instances.len(),
        check.per_instance,
        check.chunks,
        reply_time.as_secs_f64()
    );
    let ramp = Duration::from_secs_f64((total as f64 / 500.0).max(1.0));
    let plan = Plan {
        urls: instances.iter().map(|i| i.url.clone()).collect(),
        streams: total,
        ramp,
        settle: Duration::from_secs(1),
        // Long enough for every stream to end on its own.
        window: reply_time + Duration::from_secs(10),
        protocol: check.protocol,
        extension_uri: check.extension_uri,
        catalog_id: check.catalog_id,
        stamped: check.stamped,
    };
    let window = plan.window;
    let mut at_open = Vec::new();
    let mut at_close = Vec::new();
    let outcome = client::run(plan, |closing| {
        let cpu: Vec<Duration> = instances.iter().map(Process::cpu).collect();
        if closing {
            at_close = cpu;
        } else {
            at_open = cpu;
        }
    })
    .await;
    let after = stored(&http, &instances[0].url).await;
    notes::report(notes);
    // Nearly every chunk of every stream falls in the window (it opens a second after the
    // last stream did); a chunk costs the instance that runs its task.
    let chunks_each = (check.per_instance * check.chunks) as f64;
    for (i, (open, close)) in at_open.iter().zip(&at_close).enumerate() {
        let cpu = close.saturating_sub(*open).as_secs_f64();
        println!(
            "  instance {} (core {}): {cpu:.2} s of CPU in the {:.0} s window, about {:.1} us per model chunk",
            i + 1,
            cores[i],
            window.as_secs_f64(),
            cpu * 1e6 / chunks_each
        );
    }
    println!(
        "  streams: {total}, unopened {}, broken {}, ended after their final event {}; {} SSE events; chunk-to-frame p50 {:.2} ms, p99 {:.2} ms ({} stamps)",
        outcome.unopened,
        outcome.broken,
        outcome.finished,
        outcome.frames,
        outcome.percentile_ms(0.5),
        outcome.percentile_ms(0.99),
        outcome.latencies_us.len()
    );
    if let Some(why) = &outcome.first_break {
        println!("    first error: {why}");
    }
    let added: Vec<i64> = after.iter().zip(&before).map(|(a, b)| a - b).collect();
    let line: Vec<String> = STATES
        .iter()
        .zip(&added)
        .map(|(state, n)| {
            format!(
                "{} {n}",
                state.trim_start_matches("TASK_STATE_").to_lowercase()
            )
        })
        .collect();
    println!("  stored tasks this run: {}", line.join(", "));
    let settled: i64 = SETTLED.iter().map(|&i| added[i]).sum();
    let nothing_lost = outcome.broken == 0
        && outcome.finished == total as u64
        && settled == total as i64
        && added
            .iter()
            .enumerate()
            .all(|(i, n)| SETTLED.contains(&i) || *n == 0);
    println!(
        "scale-out check: {total} streams on 2 instances, p99 {:.2} ms; nothing lost (every stream ended after its final event, every task stored settled, none running, failed or canceled): {}",
        outcome.percentile_ms(0.99),
        if nothing_lost { "yes" } else { "NO" }
    );
    nothing_lost
}

/// How many tasks the shared table holds in each of [`STATES`], asked of the instance at
/// `url`.
async fn stored(http: &reqwest::Client, url: &str) -> Vec<i64> {
    let mut counts = Vec::new();
    for state in STATES {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "ListTasks",
                          "params": {"status": state, "pageSize": 1}});
        let answer: Value = match http
            .post(url)
            .header("content-type", "application/json")
            .header("a2a-version", "1.0")
            .body(body.to_string())
            .send()
            .await
        {
            Ok(response) => response.json().await.unwrap_or(Value::Null),
            Err(error) => {
                eprintln!("scale-out: ListTasks failed: {error}");
                Value::Null
            }
        };
        counts.push(answer["result"]["totalSize"].as_i64().unwrap_or(-1));
    }
    counts
}

/// Counting the task events the instances notify each other of.
#[cfg(feature = "postgres")]
mod notes {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicU64, Ordering};

    use futures::StreamExt;
    use tokio_postgres::AsyncMessage;

    /// Events notified, and how many of them were chunks (`working` with a message).
    #[derive(Default)]
    pub struct Counts {
        all: AtomicU64,
        chunks: AtomicU64,
    }

    /// A connection listening on the events channel, and what it counted.
    pub struct Listening {
        counts: Arc<Counts>,
        _client: tokio_postgres::Client,
    }

    /// Listens on the events channel of the database at `url`; `None` when it cannot.
    pub async fn listen(url: &str) -> Option<Listening> {
        let (client, mut connection) = tokio_postgres::connect(url, tokio_postgres::NoTls)
            .await
            .map_err(|error| eprintln!("scale-out: cannot listen for events: {error}"))
            .ok()?;
        let counts = Arc::new(Counts::default());
        let counting = counts.clone();
        tokio::spawn(async move {
            let mut messages = futures::stream::poll_fn(move |cx| connection.poll_message(cx));
            while let Some(Ok(message)) = messages.next().await {
                if let AsyncMessage::Notification(note) = message {
                    counting.all.fetch_add(1, Ordering::Relaxed);
                    let payload = note.payload();
                    if payload.contains("\"state\":\"working\"") && payload.contains("\"parts\"") {
                        counting.chunks.fetch_add(1, Ordering::Relaxed);
                    }
                }
            }
        });
        client
            .batch_execute("LISTEN a2ui_events")
            .await
            .map_err(|error| eprintln!("scale-out: cannot listen for events: {error}"))
            .ok()?;
        Some(Listening {
            counts,
            _client: client,
        })
    }

    /// Prints what was counted.
    pub fn report(listening: Option<Listening>) {
        if let Some(Listening { counts, .. }) = listening {
            println!(
                "  task events notified between the instances: {}, of which chunks {}",
                counts.all.load(Ordering::Relaxed),
                counts.chunks.load(Ordering::Relaxed)
            );
        }
    }
}

/// Without the `postgres` feature nothing is counted.
#[cfg(not(feature = "postgres"))]
mod notes {
    pub async fn listen(_url: &str) -> Option<()> {
        None
    }

    pub fn report(_counts: Option<()>) {}
}
