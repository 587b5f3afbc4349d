//! Connector latency benchmark: what `llm::OpenAiChat` adds between a model and a client.
//!
//! A scripted OpenAI-compatible server streams a recorded 200-component v0.9 answer as SSE
//! chat-completion chunks, one token-sized delta (3–8 characters) per event, one event per
//! millisecond, stamping each event as it hands it to HTTP. The A2A server's agent is the
//! connector pointed at it; a client reads `message/stream` over loopback and stamps each SSE
//! frame as it arrives. The baseline, measured in the same run, is the same deltas yielded
//! by an in-process closure agent with the same pacing (no model hop).
//!
//! 1. **Latency**: from the model's event that completes a component to the client's frame
//!    carrying it (p50, p99 over every component of several responses), connector and
//!    baseline, and the difference.
//! 2. **CPU per response**: CPU time of the A2A server's runtime thread (where the connector
//!    runs) per unpaced response, connector and baseline, and the ratio.
//!
//! Figures are printed, never asserted. Without `--bench` (as under `cargo test --benches`)
//! it runs one small round as a smoke check. Knobs: `BENCH_RESPONSES` (default 10).

mod common;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use a2ui_agent::a2a::card::AgentCard;
use a2ui_agent::a2ui::ProtocolVersion;
use a2ui_agent::agent::{Agent, AgentError, Reply};
use a2ui_agent::generator::Generator;
use a2ui_agent::llm::OpenAiChat;
use a2ui_agent::parser::ParsedPart;
use a2ui_agent::processor::RequestProcessor;
use a2ui_agent::request::Request;
use a2ui_agent::server::A2uiServer;
use axum::body::{Body, Bytes};
use futures::StreamExt;
use serde_json::{Value, json};

const COMPONENTS: usize = 200;
const SERVER_THREAD: &str = "llm-bench-srv";
const MOCK_THREAD: &str = "llm-bench-mock";
const PAUSE: Duration = Duration::from_millis(1);

type Stamps = Arc<Mutex<Vec<Option<Instant>>>>;

fn main() {
    let responses = common::knob("BENCH_RESPONSES", 10, 1);
    let text = response_text(COMPONENTS);
    let deltas = token_deltas(&text);
    let processor = Generator::v0_9().negotiate(None).unwrap();
    let completes = completing_deltas(&deltas, &processor);
    assert_eq!(completes.len(), COMPONENTS);

    let paced = Arc::new(AtomicBool::new(true));
    let mock_stamps: Stamps = Arc::default();
    let agent_stamps: Stamps = Arc::default();
    let mock_runtime = runtime(MOCK_THREAD);
    let model_url = mock_runtime.block_on(start_mock(
        deltas.clone(),
        mock_stamps.clone(),
        paced.clone(),
    ));
    let server_runtime = runtime(SERVER_THREAD);
    let connector = OpenAiChat::builder(&model_url, "bench").build().unwrap();
    let via_connector = server_runtime.block_on(start_server(connector));
    let via_closure = server_runtime.block_on(start_server(closure_agent(
        deltas.clone(),
        agent_stamps.clone(),
        paced.clone(),
    )));
    let client = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();

    println!(
        "{COMPONENTS} components, {} bytes in {} deltas, one per {PAUSE:?}",
        text.len(),
        deltas.len()
    );
    // 1. Latency, paced.
    let measure = |url: &str, stamps: &Stamps| {
        let mut latencies = Vec::new();
        for _ in 0..responses.min(5) {
            stamps.lock().unwrap().clear();
            let frames = client.block_on(stream_once(url));
            let stamps = stamps.lock().unwrap().clone();
            for (id, index) in &completes {
                let (Some(Some(sent)), Some(received)) = (stamps.get(*index), frames.get(id))
                else {
                    panic!("component {id} was not streamed");
                };
                latencies.push(received.saturating_duration_since(*sent));
            }
        }
        latencies.sort();
        latencies
    };
    let with_connector = measure(&via_connector, &mock_stamps);
    let baseline = measure(&via_closure, &agent_stamps);
    let pick = |l: &[Duration], q: f64| l[((l.len() - 1) as f64 * q).round() as usize];
    println!(
        "latency model event -> client SSE frame ({} components):",
        with_connector.len()
    );
    for (name, l) in [
        ("connector", &with_connector),
        ("closure (baseline)", &baseline),
    ] {
        println!(
            "  {name:<20} p50 {:>10.3?}  p99 {:>10.3?}",
            pick(l, 0.5),
            pick(l, 0.99)
        );
    }
    println!(
        "  added by the connector p50 {:?}  p99 {:?}",
        pick(&with_connector, 0.5).saturating_sub(pick(&baseline, 0.5)),
        pick(&with_connector, 0.99).saturating_sub(pick(&baseline, 0.99)),
    );

    // 2. CPU per response, unpaced (/proc counts 10 ms ticks: more rounds).
    paced.store(false, Ordering::SeqCst);
    let rounds = responses * 5;
    let cpu = |url: &str| {
        client.block_on(stream_once(url));
        let before = thread_cpu(SERVER_THREAD);
        let mock_before = thread_cpu(MOCK_THREAD);
        for _ in 0..rounds {
            client.block_on(stream_once(url));
        }
        (
            (thread_cpu(SERVER_THREAD) - before) / rounds as u32,
            (thread_cpu(MOCK_THREAD) - mock_before) / rounds as u32,
        )
    };
    let (connector_cpu, mock_cpu) = cpu(&via_connector);
    let (closure_cpu, _) = cpu(&via_closure);
    println!("CPU of the A2A server thread per response ({rounds} responses):");
    println!(
        "  connector           {connector_cpu:?}   ({:.2}x the baseline; the mock model's thread: {mock_cpu:?})",
        connector_cpu.as_secs_f64() / closure_cpu.as_secs_f64().max(1e-9)
    );
    println!("  closure (baseline)  {closure_cpu:?}");
}

fn runtime(name: &str) -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .thread_name(name)
        .enable_all()
        .build()
        .unwrap()
}

/// A closure agent that yields `deltas` with the mock's pacing, stamping each.
fn closure_agent(deltas: Vec<String>, stamps: Stamps, paced: Arc<AtomicBool>) -> impl Agent {
    let deltas = Arc::new(deltas);
    move |_request: Request| {
        let deltas = deltas.clone();
        let stamps = stamps.clone();
        let paced = paced.load(Ordering::SeqCst);
        async move {
            let stream = futures::stream::iter(0..deltas.len()).then(move |i| {
                let deltas = deltas.clone();
                let stamps = stamps.clone();
                async move {
                    if paced {
                        tokio::time::sleep(PAUSE).await;
                    }
                    stamp(&stamps, i);
                    Ok::<_, AgentError>(deltas[i].clone())
                }
            });
            Ok::<_, AgentError>(Reply::stream(stream))
        }
    }
}

fn stamp(stamps: &Stamps, i: usize) {
    let mut stamps = stamps.lock().unwrap();
    if stamps.len() <= i {
        stamps.resize(i + 1, None);
    }
    stamps[i] = Some(Instant::now());
}

/// The scripted model: each delta one chat-completion chunk event, then the finish, usage
/// and `[DONE]` events.
async fn start_mock(deltas: Vec<String>, stamps: Stamps, paced: Arc<AtomicBool>) -> String {
    let events: Arc<Vec<String>> = Arc::new(
        std::iter::once(chunk_event(json!({"role": "assistant", "content": ""}), None))
            .chain(deltas.iter().map(|d| chunk_event(json!({"content": d}), None)))
            .chain([
                chunk_event(json!({}), Some("stop")),
                "data: {\"id\":\"b\",\"object\":\"chat.completion.chunk\",\"choices\":[],\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":1,\"total_tokens\":2}}\n\n".to_owned(),
                "data: [DONE]\n\n".to_owned(),
            ])
            .collect(),
    );
    // The request body is read whole: a server that answers without reading it resets
    // the connection when it closes it, and the client sees its answer cut off.
    let answer = move |_request: Bytes| {
        let events = events.clone();
        let stamps = stamps.clone();
        let paced = paced.load(Ordering::SeqCst);
        async move {
            let stream = async_stream::stream! {
                for (i, event) in events.iter().enumerate() {
                    if paced {
                        tokio::time::sleep(PAUSE).await;
                    }
                    // Event i + 1 carries delta i (event 0 is the role).
                    if i >= 1 {
                        stamp(&stamps, i - 1);
                    }
                    yield Ok::<_, std::convert::Infallible>(Bytes::from(event.clone()));
                }
            };
            axum::response::Response::builder()
                .header("content-type", "text/event-stream")
                .body(Body::from_stream(stream))
                .unwrap()
        }
    };
    let router = axum::Router::new().route("/v1/chat/completions", axum::routing::post(answer));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, router).await });
    url
}

fn chunk_event(delta: Value, finish: Option<&str>) -> String {
    let chunk = json!({"id": "chatcmpl-bench", "object": "chat.completion.chunk",
        "created": 1764500000, "model": "bench",
        "choices": [{"index": 0, "delta": delta, "logprobs": null, "finish_reason": finish}]});
    format!("data: {chunk}\n\n")
}

async fn start_server(agent: impl Agent) -> String {
    let server = A2uiServer::builder(AgentCard::builder("bench").build(), agent)
        .generator(Generator::v0_9())
        .build()
        .unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, server.router()).await });
    url
}

/// Text, then a block creating a surface whose root column holds `n - 1` text components.
fn response_text(n: usize) -> String {
    let ids: Vec<String> = (1..n).map(|i| format!("item-{i}")).collect();
    let mut components = vec![format!(
        r#"{{"id": "root", "component": "Column", "children": {}}}"#,
        serde_json::to_string(&ids).unwrap()
    )];
    components.extend(ids.iter().enumerate().map(|(i, id)| {
        format!(
            r#"{{"id": "{id}", "component": "Text", "text": "Result number {i}: a short line"}}"#
        )
    }));
    format!(
        "Here are your results:\n<a2ui-json>\n[\n  {{\"version\": \"v0.9\", \"createSurface\": {{\"surfaceId\": \"bench\", \"catalogId\": \"{}\"}}}},\n  {{\"version\": \"v0.9\", \"updateComponents\": {{\"surfaceId\": \"bench\", \"components\": [\n    {}\n  ]}}}}\n]\n</a2ui-json>\nThat is all.",
        ProtocolVersion::V0_9.basic_catalog_id(),
        components.join(",\n    ")
    )
}

/// 3–8 character deltas, deterministic (about a token each).
fn token_deltas(text: &str) -> Vec<String> {
    let mut chars = text.chars().peekable();
    let mut out = Vec::new();
    let mut i = 0usize;
    while chars.peek().is_some() {
        let size = 3 + (i * 7 + i / 3) % 6;
        out.push(chars.by_ref().take(size).collect());
        i += 1;
    }
    out
}

/// Component id -> index of the delta whose arrival makes the server's reader emit it.
fn completing_deltas(deltas: &[String], processor: &RequestProcessor) -> HashMap<String, usize> {
    let mut reader = processor.parser();
    let mut found = HashMap::new();
    for (index, delta) in deltas.iter().enumerate() {
        for part in reader.feed(delta) {
            if let ParsedPart::A2ui(messages) = part {
                for id in messages.iter().flat_map(component_ids) {
                    found.entry(id).or_insert(index);
                }
            }
        }
    }
    found
}

fn component_ids(message: &Value) -> Vec<String> {
    message["updateComponents"]["components"]
        .as_array()
        .map(|list| {
            list.iter()
                .filter_map(|c| c["id"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

/// One `message/stream` read to the end; when each component's frame arrived.
async fn stream_once(url: &str) -> HashMap<String, Instant> {
    let version = ProtocolVersion::V0_9;
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "message/stream", "params": {
        "message": {"kind": "message", "role": "user", "messageId": "m",
            "parts": [{"kind": "text", "text": "go"}],
            "metadata": {"a2uiClientCapabilities": {"v0.9": {
                "supportedCatalogIds": [version.basic_catalog_id()]}}}}}});
    let response = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("X-A2A-Extensions", version.extension_uri())
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    let mut stream = response.bytes_stream();
    let mut buffer = String::new();
    let mut seen = HashMap::new();
    while let Some(chunk) = stream.next().await {
        let now = Instant::now();
        buffer.push_str(std::str::from_utf8(&chunk.unwrap()).unwrap());
        while let Some(end) = buffer.find("\n\n") {
            let frame: String = buffer.drain(..end + 2).collect();
            let Some(data) = frame.lines().find_map(|l| l.strip_prefix("data: ")) else {
                continue;
            };
            let event: Value = serde_json::from_str(data).unwrap();
            if event["result"]["final"] == true {
                assert_ne!(event["result"]["status"]["state"], "failed", "{event}");
                continue;
            }
            let parts = &event["result"]["status"]["message"]["parts"];
            for part in parts.as_array().into_iter().flatten() {
                for id in component_ids(&part["data"]) {
                    seen.entry(id).or_insert(now);
                }
            }
        }
    }
    seen
}

/// CPU time (user + system) of this process's threads named `name`, from /proc (Linux).
fn thread_cpu(name: &str) -> Duration {
    let ticks_per_second = 100.0; // USER_HZ on Linux
    let mut ticks = 0u64;
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return Duration::ZERO;
    };
    for task in tasks.flatten() {
        let comm = std::fs::read_to_string(task.path().join("comm")).unwrap_or_default();
        if !comm.trim().starts_with(name) {
            continue;
        }
        let stat = std::fs::read_to_string(task.path().join("stat")).unwrap_or_default();
        let after = stat.rsplit_once(')').map(|(_, rest)| rest).unwrap_or("");
        let fields: Vec<&str> = after.split_whitespace().collect();
        for index in [11, 12] {
            ticks += fields
                .get(index)
                .and_then(|f| f.parse::<u64>().ok())
                .unwrap_or(0);
        }
    }
    Duration::from_secs_f64(ticks as f64 / ticks_per_second)
}
