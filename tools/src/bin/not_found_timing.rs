//! Exists to show that "not found" does not tell by its timing whether another's task exists.
//!
//! How long `GetTask` takes to answer "not found" for a task id nobody has and for another
//! caller's task: a measurement, not a test (A2A 1.0 §13.1 asks for the same timing class).
//!
//! Bob asks, through the whole router (authentication, JSON-RPC decoding, the task layer, the
//! store), for (a) an id that does not exist, (b) one of Alice's tasks, and, for reference,
//! (c) a task of his own, interleaved so that drift hits all three alike, with the in-memory
//! store and SQLite (a file in a temporary directory). It prints the median and the 99th
//! percentile of each and the ratio (b)/(a), which should be close to 1.
//!
//! ```text
//! flock /work/wt/heavy.lock cargo run --release -p a2ui-agent-tools --bin not_found_timing [ROUNDS]
//! ```

use std::time::{Duration, Instant};

use a2ui_agent::AgentCard;
use a2ui_agent::a2a::TaskState;
use a2ui_agent::agent::{AgentError, Reply};
use a2ui_agent::request::Request as AgentRequest;
use a2ui_agent::server::{A2uiServer, Principal, ServerBuilder, TokenTable};
use a2ui_agent::store::SqliteStore;
use axum::Router;
use axum::body::{Body, to_bytes};
use axum::http::Request;
use serde_json::{Value, json};
use tower::ServiceExt;

/// Tasks Alice holds before the measurement, so the store is not trivially small.
const ALICE_TASKS: usize = 500;

async fn agent(request: AgentRequest) -> Result<Reply, AgentError> {
    Ok(Reply::text(format!("reply to {}", request.text()))
        .with_final_state(TaskState::InputRequired))
}

/// A JSON-RPC 1.0 call of `method` by the holder of `token`; the response body as JSON.
async fn call(router: &Router, token: &str, method: &str, params: Value) -> Value {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let request = Request::post("/")
        .header("content-type", "application/json")
        .header("a2a-version", "1.0")
        .header("authorization", format!("Bearer {token}"))
        .body(Body::from(body.to_string()))
        .expect("a valid request");
    let response = router
        .clone()
        .oneshot(request)
        .await
        .expect("the router is infallible");
    let bytes = to_bytes(response.into_body(), usize::MAX)
        .await
        .unwrap_or_default();
    serde_json::from_slice(&bytes).unwrap_or(Value::Null)
}

/// A new task of the holder of `token`; its id.
async fn task_of(router: &Router, token: &str, n: usize) -> String {
    let params = json!({"message": {"role": "ROLE_USER", "messageId": format!("m-{token}-{n}"),
                        "parts": [{"text": format!("task {n}")}]}});
    let sent = call(router, token, "SendMessage", params).await;
    sent["result"]["task"]["id"]
        .as_str()
        .unwrap_or_else(|| panic!("no task in {sent}"))
        .to_owned()
}

/// How long one `GetTask` of `id` by Bob takes, and whether it was "not found".
async fn get(router: &Router, id: &str) -> (Duration, bool) {
    let started = Instant::now();
    let answer = call(router, "bob-token", "GetTask", json!({"id": id})).await;
    (started.elapsed(), answer["error"]["code"] == -32001)
}

/// The median and the 99th percentile of `samples`, in microseconds.
fn summary(samples: &mut [Duration]) -> (f64, f64) {
    samples.sort_unstable();
    let at = |q: f64| {
        let index = ((samples.len() as f64 - 1.0) * q).round() as usize;
        samples[index].as_secs_f64() * 1e6
    };
    (at(0.5), at(0.99))
}

async fn measure(name: &str, builder: ServerBuilder, rounds: usize) {
    let table = TokenTable::new()
        .with(Principal::new("alice"), "alice-token")
        .with(Principal::new("bob"), "bob-token");
    let server = builder.auth_tokens(table).build().expect("a server");
    let router = server.router();
    let mut alice = Vec::new();
    for n in 0..ALICE_TASKS {
        alice.push(task_of(&router, "alice-token", n).await);
    }
    let own = task_of(&router, "bob-token", 0).await;
    let missing = "00000000-0000-4000-8000-000000000000";
    let (mut a, mut b, mut c) = (Vec::new(), Vec::new(), Vec::new());
    for round in 0..rounds + rounds / 10 {
        let foreign = &alice[round % alice.len()];
        // The order turns each round, so neither kind always goes first.
        let order: [u8; 3] = match round % 3 {
            0 => [0, 1, 2],
            1 => [1, 2, 0],
            _ => [2, 0, 1],
        };
        for kind in order {
            let (elapsed, not_found) = match kind {
                0 => get(&router, missing).await,
                1 => get(&router, foreign).await,
                _ => get(&router, &own).await,
            };
            assert_eq!(not_found, kind != 2, "a wrong answer for kind {kind}");
            // The first tenth warms up.
            if round >= rounds / 10 {
                [&mut a, &mut b, &mut c][usize::from(kind)].push(elapsed);
            }
        }
    }
    let (a50, a99) = summary(&mut a);
    let (b50, b99) = summary(&mut b);
    let (c50, c99) = summary(&mut c);
    println!(
        "{name:<7} GetTask, {rounds} each, µs   median   p99\n\
         {name:<7} (a) missing id          {a50:7.1} {a99:7.1}\n\
         {name:<7} (b) another's task      {b50:7.1} {b99:7.1}\n\
         {name:<7} (c) own task (found)    {c50:7.1} {c99:7.1}\n\
         {name:<7} (b)/(a)                 {:7.3} {:7.3}",
        b50 / a50,
        b99 / a99
    );
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let rounds: usize = std::env::args()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or(20_000);
    let card = || AgentCard::builder("timing").build();
    measure("memory", A2uiServer::builder(card(), agent), rounds).await;
    let dir = std::env::temp_dir().join(format!("a2ui-timing-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    let store = SqliteStore::open(dir.join("tasks.db")).expect("a SQLite file");
    measure(
        "sqlite",
        A2uiServer::builder(card(), agent).store(store),
        rounds,
    )
    .await;
    std::fs::remove_dir_all(&dir).ok();
}
