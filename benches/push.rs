//! Push notification delivery: deliveries per second to a local webhook receiver, and the
//! delay from a task update to its delivery (p50, p99, max), at 1,000 webhooks.
//!
//! One process: our server (in memory, push on, 127.0.0.1 allowed) and an axum receiver on
//! 127.0.0.1 that acknowledges every POST. `BENCH_WEBHOOKS` tasks (default 1,000) are each
//! started with one webhook (inline with `SendMessage`, `returnImmediately`), all at once;
//! each task's agent writes `BENCH_UPDATES` artifact chunks (default 20) as fast as it can,
//! each holding the time it was written, so the receiver reads the delay off every artifact
//! update it gets. With `BENCH_PG_URL=postgres://...` (and `--features postgres`) the same
//! load runs again on the PostgreSQL store, whose outbox writes every delivery down and
//! deletes it once acknowledged, and the ratios to the in-memory run are printed. Figures
//! are printed, never asserted. Without `--bench` (as under
//! `cargo test --benches`) it runs a small smoke size. Run it under the heavy lock:
//! `flock /work/wt/heavy.lock cargo bench --bench push`.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use a2ui_agent::a2a::card::AgentCard;
use a2ui_agent::a2a::{Part, TaskState};
use a2ui_agent::agent::{AgentError, Reply, ReplyEvent};
use a2ui_agent::push::PushSettings;
use a2ui_agent::request::Request;
use a2ui_agent::server::{A2uiServer, Limits};
use a2ui_agent::store::{InMemoryStore, TaskStore};
use axum::body::Bytes;
use axum::extract::State;
use axum::routing::post;
use serde_json::{Value, json};

fn epoch() -> Instant {
    static EPOCH: OnceLock<Instant> = OnceLock::new();
    *EPOCH.get_or_init(Instant::now)
}

fn env(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// `updates` artifact chunks, each holding the nanoseconds since [`epoch`] it was made at.
fn agent(updates: usize) -> impl Fn(Request) -> std::future::Ready<Result<Reply, AgentError>> {
    move |_request: Request| {
        let chunks = (0..updates).map(move |n| {
            let at = epoch().elapsed().as_nanos().to_string();
            Ok::<_, AgentError>(ReplyEvent::chunk(vec![Part::text(at)], n + 1 == updates))
        });
        std::future::ready(Ok(
            Reply::events(futures::stream::iter(chunks)).with_final_state(TaskState::Completed)
        ))
    }
}

#[derive(Default)]
struct Seen {
    requests: AtomicU64,
    delays: Mutex<Vec<u64>>,
    last: Mutex<Option<Instant>>,
}

async fn receive(State(seen): State<Arc<Seen>>, body: Bytes) -> &'static str {
    let now = epoch().elapsed().as_nanos() as u64;
    seen.requests.fetch_add(1, Ordering::Relaxed);
    if let Ok(body) = serde_json::from_slice::<Value>(&body)
        && let Some(text) = body["artifactUpdate"]["artifact"]["parts"][0]["text"].as_str()
        && let Ok(at) = text.parse::<u64>()
    {
        seen.delays.lock().unwrap().push(now.saturating_sub(at));
    }
    *seen.last.lock().unwrap() = Some(Instant::now());
    "ok"
}

fn percentile(sorted: &[u64], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let index = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    Duration::from_nanos(sorted[index])
}

/// What one run measured (compared only when PostgreSQL runs too).
#[cfg_attr(not(feature = "postgres"), allow(dead_code))]
struct Figures {
    per_second: f64,
    p50: Duration,
    p99: Duration,
}

#[tokio::main]
async fn main() {
    let bench = std::env::args().any(|arg| arg == "--bench");
    let webhooks = if bench {
        env("BENCH_WEBHOOKS", 1000)
    } else {
        20
    };
    let updates = if bench { env("BENCH_UPDATES", 20) } else { 3 };
    epoch();
    let memory = run("memory", webhooks, updates, None::<InMemoryStore>).await;
    let Some(url) = std::env::var("BENCH_PG_URL").ok() else {
        println!("push: BENCH_PG_URL unset: no PostgreSQL run (outbox)");
        return;
    };
    postgres(&url, webhooks, updates, &memory).await;
}

/// The same load with the PostgreSQL store at `url` (every delivery written to the outbox
/// and deleted once acknowledged), and its ratios to the in-memory run.
#[cfg(feature = "postgres")]
async fn postgres(url: &str, webhooks: usize, updates: usize, memory: &Figures) {
    let store = a2ui_agent::store::PostgresStore::builder(url)
        .connect()
        .await
        .unwrap();
    let pg = run("postgres", webhooks, updates, Some(store)).await;
    println!(
        "push: postgres/memory: deliveries/s {:.2}x, p50 delay {:.2}x, p99 delay {:.2}x",
        pg.per_second / memory.per_second,
        pg.p50.as_secs_f64() / memory.p50.as_secs_f64(),
        pg.p99.as_secs_f64() / memory.p99.as_secs_f64()
    );
}

#[cfg(not(feature = "postgres"))]
async fn postgres(_url: &str, _webhooks: usize, _updates: usize, _memory: &Figures) {
    println!("push: built without the postgres feature: no PostgreSQL run");
}

/// One run: `webhooks` tasks with a webhook each, on `store` (in memory when `None`).
async fn run(
    name: &str,
    webhooks: usize,
    updates: usize,
    store: Option<impl TaskStore>,
) -> Figures {
    let seen = Arc::new(Seen::default());
    let receiver = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let hook = format!("http://{}/hook", receiver.local_addr().unwrap());
    let app = axum::Router::new()
        .route("/hook", post(receive))
        .with_state(seen.clone());
    tokio::spawn(async move { axum::serve(receiver, app).await.unwrap() });

    let limits = Limits {
        max_running_tasks: webhooks * 2,
        max_running_tasks_per_client: webhooks * 2,
        ..Limits::default()
    };
    let builder = A2uiServer::builder(AgentCard::builder("push bench").build(), agent(updates));
    let builder = match store {
        Some(store) => builder.store(store),
        None => builder,
    };
    let server = builder
        .limits(limits)
        .push(
            PushSettings::default()
                .allow_http(true)
                .allow_host("127.0.0.1"),
        )
        .build()
        .unwrap();
    let stats = server.clone();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/", listener.local_addr().unwrap());
    let router = server.router();
    tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });

    let client = reqwest::Client::new();
    let started = Instant::now();
    let sends = (0..webhooks).map(|n| {
        let body = json!({"jsonrpc": "2.0", "id": n, "method": "SendMessage", "params": {
            "message": {"role": "ROLE_USER", "messageId": format!("m-{n}"),
                "parts": [{"text": "go"}]},
            "configuration": {"returnImmediately": true,
                "taskPushNotificationConfig": {"url": hook}}}});
        let client = client.clone();
        let url = url.clone();
        async move {
            let response = client
                .post(&url)
                .header("A2A-Version", "1.0")
                .header("content-type", "application/json")
                .body(body.to_string())
                .send()
                .await
                .unwrap();
            let answer: Value = response.json().await.unwrap();
            assert!(answer.get("result").is_some(), "{answer}");
        }
    });
    futures::future::join_all(sends).await;
    let sent = started.elapsed();
    // Each task: submitted, working, `updates` chunks, completed (at least).
    let expected = (webhooks * (updates + 3)) as u64;
    let deadline = Instant::now() + Duration::from_secs(300);
    loop {
        let stats = stats.push_stats().unwrap();
        let settled = stats.delivered + stats.failed + stats.dropped;
        if settled >= expected || Instant::now() > deadline {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // Let stragglers (extra working updates) land.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let last = seen.last.lock().unwrap().unwrap_or_else(Instant::now);
    let elapsed = last.duration_since(started);
    let stats = stats.push_stats().unwrap();
    let requests = seen.requests.load(Ordering::Relaxed);
    let mut delays = seen.delays.lock().unwrap().clone();
    delays.sort_unstable();
    println!(
        "push ({name}): {webhooks} webhooks x {updates} artifact updates (+ status updates); \
         sends took {:.2?}",
        sent
    );
    println!(
        "push ({name}): {requests} deliveries in {:.2?} = {:.0} deliveries/s; delivered {}, retried {}, \
         failed {}, dropped {}",
        elapsed,
        requests as f64 / elapsed.as_secs_f64(),
        stats.delivered,
        stats.retried,
        stats.failed,
        stats.dropped
    );
    let per_second = requests as f64 / elapsed.as_secs_f64();
    println!(
        "push ({name}): delay from artifact update to delivery over {} updates: p50 {:.2?}, p99 {:.2?}, \
         max {:.2?}",
        delays.len(),
        percentile(&delays, 0.50),
        percentile(&delays, 0.99),
        percentile(&delays, 1.0)
    );
    Figures {
        per_second,
        p50: percentile(&delays, 0.50),
        p99: percentile(&delays, 0.99),
    }
}
