//! Memory per task: what one settled A2UI task costs the server, against its JSON size.
//!
//! The demo agent (no delays) answers N `message/send` requests over a real socket, each a
//! new task that ends `input-required` holding a list of restaurants as A2UI (v0.9 and v0.8,
//! alternately). The process's resident memory (`VmRSS` of `/proc/self/status`) is read
//! before and after; the growth per task is printed next to the task's JSON size (as
//! `message/send` returned it). As a baseline measured in the same run, the same tasks are
//! then read back from the store and held as Rust values (`Vec<Task>`), the way the
//! in-memory store kept them before it packed them as JSON.
//!
//! Figures are printed, never asserted. Without `--bench` (as under `cargo test --benches`)
//! it runs a small round as a smoke check. Knob: `BENCH_TASKS` (default 3000).
//!
//! ```sh
//! cargo bench --bench task_memory -- --bench
//! ```

mod common;
#[path = "../src/bin/a2ui-agent/demo.rs"]
#[allow(dead_code)]
mod demo;

use std::sync::Arc;

use a2ui_agent::a2a::card::AgentCard;
use a2ui_agent::a2a::{Task, TaskListQuery};
use a2ui_agent::a2ui::ProtocolVersion;
use a2ui_agent::generator::Generator;
use a2ui_agent::server::A2uiServer;
use a2ui_agent::store::{InMemoryStore, TaskStore};
use demo::{DemoConfig, RestaurantFinder};
use serde_json::{Value, json};

fn main() {
    let tasks = common::knob("BENCH_TASKS", 3000, 50);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(measure(tasks));
}

async fn measure(tasks: usize) {
    let store = Arc::new(InMemoryStore::new().capacity(tasks + 100));
    let server = A2uiServer::builder(
        AgentCard::builder("memory bench").build(),
        RestaurantFinder::new(DemoConfig::default().without_delays()),
    )
    .generator(Generator::v0_9())
    .generator(Generator::v0_8())
    .store(store.clone())
    .build()
    .expect("a server");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a port");
    let url = format!("http://{}/", listener.local_addr().expect("an address"));
    let router = server.router();
    tokio::spawn(async move { axum::serve(listener, router).await });
    let client = reqwest::Client::new();

    // Warm up allocator arenas, connection and caches before the first reading.
    for n in 0..50 {
        send(&client, &url, n).await;
    }
    let before = rss();
    let mut json_bytes = 0;
    for n in 0..tasks {
        json_bytes += send(&client, &url, n).await;
    }
    let after = rss();
    let kept = store.len() - 50;
    assert_eq!(kept, tasks, "every task is kept");

    // The baseline: the same tasks as Rust values.
    let mut values: Vec<Task> = Vec::with_capacity(store.len());
    let mut query = TaskListQuery {
        page_size: TaskListQuery::MAX_PAGE_SIZE,
        ..TaskListQuery::default()
    };
    loop {
        let page = store
            .list(&a2ui_agent::store::Owner::anonymous(), &query)
            .await
            .expect("a listing")
            .expect("a page");
        values.extend(page.tasks);
        if page.next_page_token.is_empty() {
            break;
        }
        query.page_token = Some(page.next_page_token);
    }
    let as_values = rss();

    let per_task = |bytes: u64| bytes as f64 / tasks as f64;
    let json = json_bytes as f64 / tasks as f64;
    let packed = per_task(after.saturating_sub(before));
    let unpacked = as_values.saturating_sub(after) as f64 / values.len().max(1) as f64;
    println!("task_memory: {tasks} settled A2UI tasks (demo restaurant list, v0.9 and v0.8)");
    println!("  JSON per task (message/send result):      {json:>9.0} bytes");
    println!(
        "  server RSS per task (packed store):       {packed:>9.0} bytes  ({:.1}x JSON)",
        packed / json
    );
    println!(
        "  baseline: the same task as Rust values:   {unpacked:>9.0} bytes  ({:.1}x JSON)",
        unpacked / json
    );
    println!(
        "  store's own count: {} bytes in {} tasks",
        store.bytes(),
        store.len()
    );
}

/// Sends the `n`th request; the size of its result's JSON.
async fn send(client: &reqwest::Client, url: &str, n: usize) -> usize {
    let version = if n.is_multiple_of(2) {
        ProtocolVersion::V0_9
    } else {
        ProtocolVersion::V0_8
    };
    let capabilities = match version {
        ProtocolVersion::V0_8 => json!({"supportedCatalogIds": [version.basic_catalog_id()]}),
        other => json!({other.as_str(): {"supportedCatalogIds": [version.basic_catalog_id()]}}),
    };
    let body = json!({"jsonrpc": "2.0", "id": n, "method": "message/send", "params": {
        "message": {"kind": "message", "role": "user", "messageId": format!("m{n}"),
            "parts": [{"kind": "text", "text": "Dinner for two tonight?"}],
            "metadata": {"a2uiClientCapabilities": capabilities}}}});
    let response: Value = client
        .post(url)
        .header("X-A2A-Extensions", version.extension_uri())
        .json(&body)
        .send()
        .await
        .expect("an answer")
        .json()
        .await
        .expect("JSON");
    let result = &response["result"];
    assert_eq!(
        result["status"]["state"], "input-required",
        "unexpected answer: {response}"
    );
    result.to_string().len()
}

/// The process's resident set size, in bytes.
fn rss() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|rest| {
            rest.trim()
                .trim_end_matches("kB")
                .trim()
                .parse::<u64>()
                .ok()
        })
        .map_or(0, |kb| kb * 1024)
}
