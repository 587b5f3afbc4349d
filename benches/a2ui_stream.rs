//! A2UI streaming benchmark: what the server adds on top of the parser.
//!
//! 1. **Latency**: from the model chunk that completes a component to the SSE frame that
//!    carries it reaching the client over loopback (p50, p99 over every component of several
//!    responses). The agent streams a 200-component v0.9 response in 3–8 character chunks,
//!    one chunk per millisecond (a fast model), and stamps each chunk as the server takes it;
//!    the client stamps each frame as it arrives. Which chunk completes which component is
//!    found by running the parser alone over the same chunks.
//! 2. **CPU per streamed response**: CPU time of the server runtime's one worker thread
//!    (its own CPU clock) per `message/stream` of the same 200-component response (chunks
//!    unpaced, handed over by an agent that is a plain list of them), against the parser alone
//!    on the same chunks — bare (the Direct JSON reader) and as the server runs it (the
//!    negotiated processor's reader, with the catalog validator as readiness check). Each
//!    figure is the best of five rounds.
//!
//! 3. **What observability costs** (issue 44's targets): more servers, each on its own
//!    one-worker runtime with the same agent and chunks: `off` (both features compiled in,
//!    neither turned on, under a log subscriber at `INFO` as `serve` runs by default), and,
//!    as the build has the features, `metrics` (Prometheus metrics, never scraped), `traces`
//!    (the OTLP layer of `OtlpTraces` as the runtime's subscriber, spans batched for an
//!    endpoint that is not listening) and `both`. Each server's CPU is its worker thread's
//!    own CPU clock. The rounds are paired: in each of `BENCH_ROUNDS` rounds (default 15)
//!    every configuration streams the same responses, the order rotating from round to round
//!    so that none is always first; each round gives each configuration's ratio to `plain`
//!    in that round, and the median of those paired ratios is the figure (with the spread
//!    of the middle half), so a noisy machine moves both sides of a pair alike.
//!
//! Then the targets, each with its figure and whether it is met: CPU per streamed response
//! within 3x of the bare parser, chunk-to-frame p99 under 1 ms, metrics and traces on at most
//! 1.05x plain, and off nothing measurable (the median within 1% of plain, or plain inside
//! the middle half of the paired ratios).
//!
//! Figures are printed, never asserted. Without `--bench` (as under `cargo test --benches`)
//! it runs one small round as a smoke check. Knobs: `BENCH_RESPONSES` (default 20),
//! `BENCH_ROUNDS` (default 15).

mod common;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use a2ui_agent::a2a::card::AgentCard;
use a2ui_agent::a2ui::ProtocolVersion;
use a2ui_agent::agent::{AgentError, Reply};
use a2ui_agent::format::{DirectJson, FormatReader, OutputFormat};
use a2ui_agent::generator::Generator;
use a2ui_agent::parser::{ParsedPart, ParserConfig};
use a2ui_agent::processor::RequestProcessor;
use a2ui_agent::request::Request;
use a2ui_agent::server::A2uiServer;
use futures::StreamExt;
use serde_json::{Value, json};

const COMPONENTS: usize = 200;
const SERVER_THREAD: &str = "a2ui-bench-srv";

fn main() {
    let responses = common::knob("BENCH_RESPONSES", 20, 1);
    let text = response_text(COMPONENTS);
    let chunks = chunk(&text);
    let completes = completing_chunks(&chunks, None);
    assert_eq!(
        completes.len(),
        COMPONENTS,
        "every component is completed by a chunk"
    );
    let processor = Generator::v0_9().negotiate(None).unwrap();
    let emitted = completing_chunks(&chunks, Some(&processor));
    let held = completes
        .iter()
        .map(|(id, at)| emitted.get(id).map_or(usize::MAX, |e| e - at))
        .max()
        .unwrap_or(0);
    {
        let mut at: Vec<usize> = completes.values().copied().collect();
        at.sort();
        at.dedup();
        println!(
            "distinct completing chunks: {} (first {:?})",
            at.len(),
            &at[..at.len().min(5)]
        );
    }
    println!(
        "chunks a component waits in the server's reader (catalog check) beyond the bare parser: max {held}"
    );

    let server_runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .thread_name(SERVER_THREAD)
        .enable_all()
        .build()
        .unwrap();
    let stamps: Arc<Mutex<Vec<Option<Instant>>>> = Arc::new(Mutex::new(Vec::new()));
    let paced = Arc::new(std::sync::atomic::AtomicBool::new(true));
    let url = server_runtime.block_on(start(
        chunks.clone(),
        stamps.clone(),
        paced.clone(),
        Observe::Nothing,
    ));
    let client = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();

    // 1. Latency, paced chunks.
    let mut latencies = Vec::new();
    let paced_rounds = responses.min(5);
    let mut sent_bytes = 0;
    let paced_before = thread_cpu(SERVER_THREAD);
    for _ in 0..paced_rounds {
        stamps.lock().unwrap().clear();
        let (frames, bytes) = client.block_on(stream_once(&url));
        sent_bytes = bytes;
        let stamps = stamps.lock().unwrap().clone();
        for (id, chunk_index) in &completes {
            let (Some(Some(sent)), Some(received)) = (stamps.get(*chunk_index), frames.get(id))
            else {
                panic!("component {id} was not streamed");
            };
            latencies.push(received.saturating_duration_since(*sent));
        }
    }
    let paced_cpu = (thread_cpu(SERVER_THREAD) - paced_before) / paced_rounds as u32;
    latencies.sort();
    let pick = |q: f64| latencies[((latencies.len() - 1) as f64 * q).round() as usize];
    let p99 = pick(0.99);
    println!(
        "latency chunk->SSE frame at client ({} components): p50 {:?}  p99 {:?}  max {:?}",
        latencies.len(),
        pick(0.5),
        pick(0.99),
        latencies.last().unwrap()
    );
    let json_bytes = text
        .split_once("<a2ui-json>")
        .and_then(|(_, rest)| rest.split_once("</a2ui-json>"))
        .map_or(text.len(), |(json, _)| json.trim().len());
    println!(
        "A2UI bytes sent (compact JSON of the data parts) / block JSON: {sent_bytes} / {json_bytes} = {:.3}",
        sent_bytes as f64 / json_bytes as f64
    );

    // 2. CPU per response, unpaced: the best of five rounds, for the server and the parser
    // alike, so a round slowed by something else on the machine does not decide the ratio.
    paced.store(false, std::sync::atomic::Ordering::SeqCst);
    client.block_on(stream_once(&url)); // warm-up
    let plain_round = || {
        let before = worker_cpu(&server_runtime);
        for _ in 0..responses {
            client.block_on(stream_once(&url));
        }
        worker_cpu(&server_runtime) - before
    };
    let server_cpu = best_of_rounds(responses, plain_round);
    let rounds = common::knob("BENCH_ROUNDS", 15, 2);
    let observed = observed_servers(&chunks);
    for config in &observed {
        client.block_on(stream_once(&config.url)); // warm-up
    }
    let paired = paired_rounds(rounds, observed.len() + 1, |index| {
        let (runtime, url) = match index.checked_sub(1) {
            None => (&server_runtime, &url),
            Some(other) => (&observed[other].runtime, &observed[other].url),
        };
        let before = worker_cpu(runtime);
        for _ in 0..responses {
            client.block_on(stream_once(url));
        }
        (worker_cpu(runtime) - before) / responses as u32
    });
    let bare = best_of_rounds(responses, || {
        time_reader(
            || DirectJson.reader(ParserConfig::default()),
            &chunks,
            responses,
        )
    });
    let validated = best_of_rounds(responses, || {
        time_reader(|| processor.parser(), &chunks, responses)
    });
    let responses = responses * ROUNDS;
    println!(
        "CPU per streamed response of {COMPONENTS} components ({} bytes, {} chunks, best of {ROUNDS} rounds, {responses} responses):",
        text.len(),
        chunks.len()
    );
    println!("  server thread     {server_cpu:?}");
    println!(
        "  server thread, paced 1 chunk/{:?} (as a model streams): {paced_cpu:?} ({paced_rounds} responses, 10 ms ticks)",
        chunk_pause()
    );
    println!(
        "  parser alone      {bare:?}   (server = {:.1}x)",
        ratio(server_cpu, bare)
    );
    println!(
        "  parser+validator  {validated:?}   (server = {:.1}x)",
        ratio(server_cpu, validated)
    );
    let verdict = |met: bool| if met { "met" } else { "NOT met" };
    let cpu_ratio = ratio(server_cpu, bare);
    println!(
        "target server CPU per streamed response <= 3.0x the parser alone: {cpu_ratio:.1}x: {}",
        verdict(cpu_ratio <= 3.0)
    );
    println!(
        "target chunk->SSE frame p99 < 1 ms: {p99:?}: {}",
        verdict(p99 < Duration::from_millis(1))
    );

    println!(
        "observability: server thread CPU per streamed response, {rounds} paired rounds of {} responses (order rotating; ratio = configuration / plain in the same round):",
        responses / ROUNDS
    );
    println!(
        "  plain             {:?} (median)",
        median(paired[0].clone())
    );
    let mut spreads = HashMap::new();
    for (index, config) in observed.iter().enumerate() {
        let own = &paired[index + 1];
        let ratios: Vec<f64> = own
            .iter()
            .zip(&paired[0])
            .map(|(own, plain)| ratio(*own, *plain))
            .collect();
        let (low, middle, high) = quartiles(ratios);
        spreads.insert(config.name, (low, middle, high));
        println!(
            "  {:<17} {:?} (median)   median ratio {middle:.3}x   middle half {low:.3}x..{high:.3}x",
            config.name,
            median(own.clone()),
        );
    }
    if let Some((low, middle, high)) = spreads.get("off") {
        let nothing = *middle <= 1.01 || (*low <= 1.0 && 1.0 <= *high);
        println!(
            "target observability off, nothing measurable: median {middle:.3}x plain: {}",
            verdict(nothing)
        );
    }
    match spreads.get("both") {
        Some((_, middle, _)) => println!(
            "target metrics and traces on <= 1.05x plain: median {middle:.3}x: {}",
            verdict(*middle <= 1.05)
        ),
        None => println!(
            "target metrics and traces on <= 1.05x plain: not measured (build with `--features metrics,otel`)"
        ),
    }
    for config in observed {
        config.shutdown();
    }
}

/// Rounds of the CPU comparison; the best one counts.
const ROUNDS: usize = 5;

/// The least time per response over [`ROUNDS`] rounds of `round` (which runs `responses`
/// responses and returns the time they took).
fn best_of_rounds(responses: usize, mut round: impl FnMut() -> Duration) -> Duration {
    (0..ROUNDS)
        .map(|_| round() / responses as u32)
        .min()
        .unwrap_or_default()
}

/// `rounds` paired rounds over `configurations`: in each, `run(index)` (one configuration's
/// CPU per response) for every configuration, the first to run rotating from round to round.
/// Each configuration's figures, in round order.
fn paired_rounds(
    rounds: usize,
    configurations: usize,
    mut run: impl FnMut(usize) -> Duration,
) -> Vec<Vec<Duration>> {
    let mut figures = vec![Vec::with_capacity(rounds); configurations];
    for round in 0..rounds {
        for turn in 0..configurations {
            let index = (round + turn) % configurations;
            figures[index].push(run(index));
        }
    }
    figures
}

/// The median of `values`.
fn median(mut values: Vec<Duration>) -> Duration {
    values.sort();
    values.get(values.len() / 2).copied().unwrap_or_default()
}

/// The first quartile, median and third quartile of `values`.
fn quartiles(mut values: Vec<f64>) -> (f64, f64, f64) {
    values.sort_by(f64::total_cmp);
    let at = |q: f64| {
        let index = (values.len().saturating_sub(1) as f64 * q).round() as usize;
        values.get(index).copied().unwrap_or(f64::NAN)
    };
    (at(0.25), at(0.5), at(0.75))
}

/// What a server of the bench records beyond its answers.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Observe {
    Nothing,
    /// Prometheus metrics (`ServerBuilder::metrics`), never scraped.
    #[cfg(feature = "metrics")]
    Metrics,
}

/// A server of the observability comparison, on its own one-worker runtime.
struct Observed {
    name: &'static str,
    runtime: tokio::runtime::Runtime,
    url: String,
    /// The traces' provider, flushed (or given up on) at the end.
    #[cfg(feature = "otel")]
    traces: Option<Arc<a2ui_agent::observe::TracesGuard>>,
}

impl Observed {
    /// A server recording `observe`, its runtime's threads under `subscriber` (none: no
    /// subscriber at all).
    fn start(
        name: &'static str,
        chunks: &[String],
        observe: Observe,
        subscriber: Option<tracing::Dispatch>,
    ) -> Self {
        let mut builder = tokio::runtime::Builder::new_multi_thread();
        builder
            .worker_threads(1)
            .thread_name(format!("a2ui-bench-{name}"))
            .enable_all();
        if let Some(subscriber) = subscriber {
            // For the runtime's threads only: the other servers keep theirs.
            builder.on_thread_start(move || {
                std::mem::forget(tracing::dispatcher::set_default(&subscriber));
            });
        }
        let runtime = builder.build().unwrap();
        let paced = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let stamps = Arc::new(Mutex::new(Vec::new()));
        let url = runtime.block_on(start(chunks.to_vec(), stamps, paced, observe));
        Observed {
            name,
            runtime,
            url,
            #[cfg(feature = "otel")]
            traces: None,
        }
    }

    /// Stops the server (and, with the last of them, the traces' provider).
    fn shutdown(self) {
        #[cfg(feature = "otel")]
        if let Some(guard) = self.traces.and_then(Arc::into_inner) {
            let _ = guard.shutdown();
        }
        self.runtime.shutdown_background();
    }
}

/// The servers compared with the plain one: `off`, and `metrics`, `traces` and `both` as the
/// build has the features. Those without traces are built first: a server asks whether
/// anyone wants its spans when it is built, and the traces' subscriber does.
fn observed_servers(chunks: &[String]) -> Vec<Observed> {
    let log = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::INFO)
        .with_writer(std::io::sink)
        .finish();
    #[allow(unused_mut)] // without the features, `off` is the only one
    let mut servers = vec![Observed::start(
        "off",
        chunks,
        Observe::Nothing,
        Some(tracing::Dispatch::new(log)),
    )];
    #[cfg(feature = "metrics")]
    servers.push(Observed::start("metrics", chunks, Observe::Metrics, None));
    #[cfg(feature = "otel")]
    {
        use tracing_subscriber::layer::SubscriberExt as _;
        // Port 9 (discard) on loopback: nothing listens, so every export fails fast on the
        // exporter's own thread, while the server's thread does all it does for a trace.
        let (layer, guard) = a2ui_agent::observe::OtlpTraces::new()
            .endpoint("http://127.0.0.1:9")
            .layer()
            .expect("the OTLP layer");
        let traces = tracing::Dispatch::new(tracing_subscriber::registry().with(layer));
        let guard = Arc::new(guard);
        let mut traced = Observed::start("traces", chunks, Observe::Nothing, Some(traces.clone()));
        traced.traces = Some(guard.clone());
        servers.push(traced);
        #[cfg(feature = "metrics")]
        {
            let mut both = Observed::start("both", chunks, Observe::Metrics, Some(traces));
            both.traces = Some(guard);
            servers.push(both);
        }
    }
    servers
}

/// CPU time of the server runtime's one worker thread, read on that thread (nanosecond
/// precision, unlike the 10 ms ticks of /proc).
fn worker_cpu(runtime: &tokio::runtime::Runtime) -> Duration {
    runtime
        .block_on(async { tokio::spawn(async { own_thread_cpu() }).await })
        .unwrap()
}

/// CPU time of the calling thread.
fn own_thread_cpu() -> Duration {
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `now` is a valid, writable timespec; the call only writes it.
    let status = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut now) };
    assert_eq!(status, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID) failed");
    Duration::new(now.tv_sec as u64, now.tv_nsec as u32)
}

/// Wall time of `responses` runs of a reader from `make` over `chunks` (after one warm-up
/// run); single-threaded, so it is CPU time.
fn time_reader(
    make: impl Fn() -> Box<dyn FormatReader>,
    chunks: &[String],
    responses: usize,
) -> Duration {
    let run = || {
        let mut reader = make();
        let mut n = 0;
        for c in chunks {
            n += reader.feed(c).len();
        }
        n += reader.finish().unwrap().len();
        std::hint::black_box(n);
    };
    run();
    let started = Instant::now();
    for _ in 0..responses {
        run();
    }
    started.elapsed()
}

/// The pause before each paced chunk: `BENCH_CHUNK_MICROS` (default 1000).
fn chunk_pause() -> Duration {
    let micros = std::env::var("BENCH_CHUNK_MICROS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1000);
    Duration::from_micros(micros)
}

fn ratio(a: Duration, b: Duration) -> f64 {
    a.as_secs_f64() / b.as_secs_f64().max(1e-9)
}

/// Text, then a block creating a surface whose root column holds `n - 1` text components,
/// written as a model writes it: `version` and `surfaceId` before the components.
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
        "Here are your results:\n<a2ui-json>\n[\n  {{\"version\": \"v0.9\", \"createSurface\":          {{\"surfaceId\": \"bench\", \"catalogId\": \"{}\"}}}},\n  {{\"version\": \"v0.9\",          \"updateComponents\": {{\"surfaceId\": \"bench\", \"components\": [\n    {}\n  ]}}}}\n]\n         </a2ui-json>\nThat is all.",
        ProtocolVersion::V0_9.basic_catalog_id(),
        components.join(",\n    ")
    )
}

/// 3–8 character chunks, deterministic.
fn chunk(text: &str) -> Vec<String> {
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

/// Component id -> index of the chunk whose feeding makes the parser emit it (the bare
/// parser, or the processor's reader as the server runs it).
fn completing_chunks(
    chunks: &[String],
    processor: Option<&RequestProcessor>,
) -> HashMap<String, usize> {
    let mut parser: Box<dyn FormatReader> = match processor {
        Some(processor) => processor.parser(),
        None => DirectJson.reader(ParserConfig::default()),
    };
    let mut found = HashMap::new();
    for (index, c) in chunks.iter().enumerate() {
        for part in parser.feed(c) {
            for id in component_ids_of_part(&part) {
                found.entry(id).or_insert(index);
            }
        }
    }
    found
}

fn component_ids_of_part(part: &ParsedPart) -> Vec<String> {
    match part {
        ParsedPart::A2ui(messages) => messages.iter().flat_map(component_ids).collect(),
        ParsedPart::Text(_) => Vec::new(),
    }
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

async fn start(
    chunks: Vec<String>,
    stamps: Arc<Mutex<Vec<Option<Instant>>>>,
    paced: Arc<std::sync::atomic::AtomicBool>,
    observe: Observe,
) -> String {
    let chunks = Arc::new(chunks);
    let pause = chunk_pause();
    let agent = move |_request: Request| {
        let chunks = chunks.clone();
        let stamps = stamps.clone();
        let paced = paced.load(std::sync::atomic::Ordering::SeqCst);
        async move {
            if !paced {
                // Unpaced, the model is a plain list of chunks: no stamps, no lock, so the
                // server thread's CPU is the server's own work.
                let chunks: Vec<_> = chunks.iter().cloned().map(Ok::<_, AgentError>).collect();
                return Ok::<_, AgentError>(Reply::stream(futures::stream::iter(chunks)));
            }
            let stream = futures::stream::iter(0..chunks.len()).then(move |i| {
                let chunks = chunks.clone();
                let stamps = stamps.clone();
                async move {
                    tokio::time::sleep(pause).await;
                    let mut stamps = stamps.lock().unwrap();
                    if stamps.len() <= i {
                        stamps.resize(i + 1, None);
                    }
                    stamps[i] = Some(Instant::now());
                    Ok::<_, AgentError>(chunks[i].clone())
                }
            });
            Ok::<_, AgentError>(Reply::stream(stream))
        }
    };
    let builder = A2uiServer::builder(AgentCard::builder("bench").build(), agent)
        .generator(Generator::v0_9());
    let builder = match observe {
        Observe::Nothing => builder,
        #[cfg(feature = "metrics")]
        Observe::Metrics => builder.metrics(&a2ui_agent::observe::Metrics::new()),
    };
    let server = builder.build().unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, server.router()).await });
    url
}

/// One `message/stream` read to the end; when each component's frame arrived, and the bytes
/// of the A2UI messages received (compact JSON).
async fn stream_once(url: &str) -> (HashMap<String, Instant>, usize) {
    let version = ProtocolVersion::V0_9;
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "message/stream", "params": {
        "message": {"kind": "message", "role": "user", "messageId": "m",
            "parts": [{"kind": "text", "text": "go"}],
            "metadata": {"a2uiClientCapabilities": {"v0.9": {
                "supportedCatalogIds": [version.basic_catalog_id()]}}}}}});
    let response = reqwest::Client::new()
        .post(url)
        .header("X-A2A-Extensions", version.extension_uri())
        .header("content-type", "application/json")
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    let mut stream = response.bytes_stream();
    let mut buffer = String::new();
    let mut seen = HashMap::new();
    let mut bytes = 0;
    while let Some(chunk) = stream.next().await {
        let now = Instant::now();
        buffer.push_str(std::str::from_utf8(&chunk.unwrap()).unwrap());
        while let Some(end) = buffer.find("\n\n") {
            let frame: String = buffer.drain(..end + 2).collect();
            let Some(data) = frame.lines().find_map(|l| l.strip_prefix("data: ")) else {
                continue;
            };
            let event: Value = serde_json::from_str(data).unwrap();
            let parts = &event["result"]["status"]["message"]["parts"];
            if event["result"]["final"] == true {
                continue;
            }
            for part in parts.as_array().into_iter().flatten() {
                if part.get("data").is_some() {
                    bytes += part["data"].to_string().len();
                }
                for id in component_ids(&part["data"]) {
                    seen.entry(id).or_insert(now);
                }
            }
        }
    }
    (seen, bytes)
}

/// CPU time (user + system) of this process's threads named `name`, from /proc.
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
        // Fields after the ")" closing the command name: state is field 3, utime 14, stime 15.
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
