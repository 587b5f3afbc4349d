//! Server benchmark: our A2A server against the official Rust server (`a2a-server-lf`) and the
//! Python `a2a-sdk` 1.3.0 reference server, measured in the same run so the ratios mean
//! something on a shared machine.
//!
//! 1. `SendMessage` (A2A 1.0 JSON-RPC; `message/send` with `BENCH_PROTOCOL=0.3`) throughput
//!    and latency over loopback with a trivial agent (it answers "echo: <text>" and leaves the
//!    task `input-required`) at 1, 16 and 64 concurrent clients. Under A2A 1.0, built with the
//!    `grpc` feature, the same `SendMessage` also goes over gRPC (HTTP/2, one multiplexed
//!    connection, as gRPC clients use it) to our server's port and to `a2a-server-lf`'s gRPC
//!    binding (`a2a-grpc`), so each gRPC row stands beside our JSON-RPC row in one run.
//! 2. Resident memory (VmRSS of the server process) with N open `SendStreamingMessage`
//!    (`message/stream`) connections to an agent that stays silent, N = 1,000 and 5,000.
//!
//! Each server runs as its own process: ours is this very binary re-executed with `--serve`;
//! `a2a-server-lf` is the small crate in `benches/a2a-server-lf/` (built in release mode by
//! `scripts/bench-server.sh`; skipped with a message when not built); the Python reference is
//! `scripts/reference_server.py` in `.venv` (installed by `scripts/install-test-deps.sh`;
//! skipped with a message when absent). `a2a-server-lf` speaks only 1.0, so it sits out a
//! `BENCH_PROTOCOL=0.3` run. Figures are printed, never asserted. Run it with
//! `scripts/bench-server.sh`, which raises the open-file limit.
//! Without `--bench` (as under `cargo test --benches`) it only runs a short smoke check.
//! `--serve echo|silent` runs only our server, `--load URL [--clients N] [--grpc]` only the
//! load generator and `--streams URL [--count N]` only the stream opener: together they let a
//! profiler watch one side.
//!
//! Knobs (environment): `BENCH_PROTOCOL` (`1.0`, the default, or `0.3`), `BENCH_SECONDS` per
//! load level (default 5), `BENCH_MAX_REQUESTS` per level (default 200000), `BENCH_STREAMS`
//! (default "1000,5000"), `BENCH_OPEN_SECONDS`, the longest time spent opening streams per
//! server (default 120).

mod common;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, ExitCode, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use a2ui_agent::a2a::card::AgentCard;
use a2ui_agent::agent::{AgentError, Reply};
use a2ui_agent::request::Request;
use a2ui_agent::server::{A2uiServer, Limits};
use axum::serve::ListenerExt;

const CONCURRENCY: [usize; 3] = [1, 16, 64];
const WARM_UP: Duration = Duration::from_secs(1);
/// How many streams are opened at the same time while filling up to N.
const OPEN_BATCH: usize = 100;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let Some(agent) = flag_value(&args, "--serve") {
        return serve(&agent);
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let protocol = Protocol::from_env();
    if let Some(url) = flag_value(&args, "--streams") {
        let count = flag_value(&args, "--count").and_then(|n| n.parse().ok());
        runtime.block_on(streams_only(protocol, &url, count.unwrap_or(1000)));
    } else if let Some(url) = flag_value(&args, "--load") {
        let clients = flag_value(&args, "--clients").and_then(|n| n.parse().ok());
        let wire = if args.iter().any(|arg| arg == "--grpc") {
            Wire::Grpc
        } else {
            Wire::JsonRpc(protocol)
        };
        runtime.block_on(load_only(wire, &url, clients.unwrap_or(16)));
    } else if args.iter().any(|arg| arg == "--bench") {
        runtime.block_on(bench(protocol));
    } else {
        runtime.block_on(smoke(protocol));
    }
    ExitCode::SUCCESS
}

fn flag_value(args: &[String], flag: &str) -> Option<String> {
    let at = args.iter().position(|arg| arg == flag)?;
    args.get(at + 1).cloned()
}

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(default)
}

// ---- the protocol the load speaks -----------------------------------------------------------

/// The A2A generation of the requests: both servers under test get the same bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Protocol {
    /// A2A 0.3 JSON-RPC: `message/send`, `message/stream`.
    V0_3,
    /// A2A 1.0 JSON-RPC: `SendMessage`, `SendStreamingMessage`, with `A2A-Version: 1.0`.
    V1_0,
}

impl Protocol {
    /// `BENCH_PROTOCOL`: `0.3`, or `1.0` (the default).
    fn from_env() -> Protocol {
        match std::env::var("BENCH_PROTOCOL").as_deref() {
            Ok("0.3") => Protocol::V0_3,
            _ => Protocol::V1_0,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Protocol::V0_3 => "0.3",
            Protocol::V1_0 => "1.0",
        }
    }

    /// The request body of a send (`streaming: false`) or a stream.
    fn body(self, id: u64, streaming: bool) -> String {
        match self {
            Protocol::V0_3 => {
                let method = if streaming {
                    "message/stream"
                } else {
                    "message/send"
                };
                format!(
                    r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{{"message":{{"kind":"message","messageId":"bench-{id}","role":"user","parts":[{{"kind":"text","text":"hello"}}]}}}}}}"#
                )
            }
            Protocol::V1_0 => {
                let method = if streaming {
                    "SendStreamingMessage"
                } else {
                    "SendMessage"
                };
                format!(
                    r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{{"message":{{"messageId":"bench-{id}","role":"ROLE_USER","parts":[{{"text":"hello"}}]}}}}}}"#
                )
            }
        }
    }

    /// Adds the protocol's headers to a request.
    fn headers(self, request: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
        let request = request.header("content-type", "application/json");
        match self {
            Protocol::V0_3 => request,
            Protocol::V1_0 => request.header("a2a-version", "1.0"),
        }
    }

    /// What a successful answer holds: the task left `input-required` by the echo agent.
    fn answered(self, body: &[u8]) -> bool {
        let marker: &[u8] = match self {
            Protocol::V0_3 => b"input-required",
            Protocol::V1_0 => b"TASK_STATE_INPUT_REQUIRED",
        };
        body.windows(marker.len()).any(|w| w == marker)
    }
}

/// How the load reaches a server: A2A JSON-RPC (HTTP/1.1, one connection per client) or
/// gRPC (HTTP/2 with prior knowledge, every client multiplexed on one connection).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Wire {
    JsonRpc(Protocol),
    /// A2A 1.0 `SendMessage` as `/lf.a2a.v1.A2AService/SendMessage`.
    Grpc,
}

impl Wire {
    fn client(self, clients: usize) -> reqwest::Client {
        let builder = reqwest::Client::builder().pool_max_idle_per_host(clients);
        match self {
            Wire::JsonRpc(_) => builder,
            // No Nagle: a gRPC request is a HEADERS and a DATA frame, two small writes.
            Wire::Grpc => builder.http2_prior_knowledge().tcp_nodelay(true),
        }
        .build()
        .unwrap()
    }

    /// The request of send number `id` to the server at `url`.
    fn send(self, http: &reqwest::Client, url: &str, id: u64) -> reqwest::RequestBuilder {
        match self {
            Wire::JsonRpc(protocol) => protocol
                .headers(http.post(url))
                .body(protocol.body(id, false)),
            Wire::Grpc => http
                .post(format!("{url}lf.a2a.v1.A2AService/SendMessage"))
                .header("content-type", "application/grpc")
                .header("te", "trailers")
                .body(grpc_send_message(id)),
        }
    }

    /// Whether the answer is the echo agent's: for gRPC, an OK status (an error is a
    /// trailers-only answer, its status in the headers) and one uncompressed frame holding
    /// the agent's text.
    fn answered(self, headers: &reqwest::header::HeaderMap, body: &[u8]) -> bool {
        match self {
            Wire::JsonRpc(protocol) => protocol.answered(body),
            Wire::Grpc => {
                let status = headers.get("grpc-status");
                let framed = body.len() > 5
                    && body[0] == 0
                    && u32::from_be_bytes([body[1], body[2], body[3], body[4]]) as usize
                        == body.len() - 5;
                let echo: &[u8] = b"echo: hello";
                status.is_none_or(|s| s == "0")
                    && framed
                    && body.windows(echo.len()).any(|w| w == echo)
            }
        }
    }
}

/// A gRPC frame (uncompressed, length-prefixed) of the protobuf `SendMessageRequest` the
/// JSON-RPC load sends: message `bench-ID`, role user, one text part "hello" (`a2a.proto`:
/// request.message = 2; message_id = 1, role = 4, parts = 5; part.text = 1).
fn grpc_send_message(id: u64) -> Vec<u8> {
    fn field(number: u8, bytes: &[u8], out: &mut Vec<u8>) {
        out.push(number << 3 | 2); // length-delimited
        let mut length = bytes.len();
        while length >= 0x80 {
            out.push(length as u8 | 0x80);
            length >>= 7;
        }
        out.push(length as u8);
        out.extend_from_slice(bytes);
    }
    let mut part = Vec::new();
    field(1, b"hello", &mut part);
    let mut message = Vec::new();
    field(1, format!("bench-{id}").as_bytes(), &mut message);
    message.extend_from_slice(&[4 << 3, 1]); // role: ROLE_USER (varint)
    field(5, &part, &mut message);
    let mut request = Vec::new();
    field(2, &message, &mut request);
    let mut frame = vec![0];
    frame.extend_from_slice(&(request.len() as u32).to_be_bytes());
    frame.extend_from_slice(&request);
    frame
}

// ---- the servers under test ----------------------------------------------------------------

/// Runs our server with the `echo` or `silent` agent until stdin closes; prints its URL.
fn serve(agent: &str) -> ExitCode {
    let silent = agent == "silent";
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/", listener.local_addr().unwrap());
        let card = AgentCard::builder("bench").url(&url).build();
        // Measures capacity, not overload control: thousands of open streams from one client.
        let limits = Limits {
            max_running_tasks: usize::MAX,
            max_running_tasks_per_client: usize::MAX,
            ..Limits::default()
        };
        let server = if silent {
            A2uiServer::builder(card, silent_agent)
                .limits(limits)
                .build()
        } else {
            A2uiServer::builder(card, echo_agent).limits(limits).build()
        }
        .unwrap();
        println!("listening on {url}");
        // The benchmark holds our stdin; when it goes away, so do we.
        std::thread::spawn(|| {
            let _ = std::io::copy(&mut std::io::stdin(), &mut std::io::sink());
            std::process::exit(0);
        });
        // Served as `A2uiServer::serve` does: without Nagle (gRPC answers are several writes).
        let listener = listener.tap_io(|tcp| {
            let _ = tcp.set_nodelay(true);
        });
        axum::serve(listener, server.router()).await.unwrap();
    });
    ExitCode::SUCCESS
}

async fn echo_agent(request: Request) -> Result<Reply, AgentError> {
    Ok(Reply::text(format!("echo: {}", request.text())))
}

async fn silent_agent(_: Request) -> Result<Reply, AgentError> {
    Ok(Reply::stream(futures::stream::pending::<String>()))
}

/// A server process, killed when dropped.
struct ServerProcess {
    name: &'static str,
    url: String,
    child: Child,
}

impl ServerProcess {
    /// Ours: this binary with `--serve AGENT`.
    fn ours(agent: &str) -> ServerProcess {
        let exe = std::env::current_exe().unwrap();
        let mut command = Command::new(exe);
        command.args(["--serve", agent]);
        Self::start("a2ui-agent", command)
    }

    /// The official Rust server: `benches/a2a-server-lf`'s release binary, if built, serving
    /// JSON-RPC, or gRPC (`a2a-grpc`) when `grpc`.
    fn rust_sdk(agent: &str, grpc: bool) -> Option<ServerProcess> {
        let binary =
            crate_root().join("benches/a2a-server-lf/target/release/a2a-server-lf-bench-agent");
        if !binary.exists() {
            eprintln!(
                "skipped a2a-server-lf: {} is missing; scripts/bench-server.sh builds it",
                binary.display()
            );
            return None;
        }
        let mut command = Command::new(binary);
        command.arg(agent);
        if grpc {
            command.arg("grpc");
            return Some(Self::start("a2a-server-lf gRPC", command));
        }
        Some(Self::start("a2a-server-lf", command))
    }

    /// The reference: `scripts/reference_server.py --agent AGENT` in `.venv`, if installed.
    fn python(agent: &str) -> Option<ServerProcess> {
        let python = crate_root().join(".venv/bin/python");
        if !python.exists() {
            eprintln!(
                "skipped the Python reference server: {} is missing; run scripts/install-test-deps.sh",
                python.display()
            );
            return None;
        }
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let mut command = Command::new(python);
        command
            .arg(crate_root().join("scripts/reference_server.py"))
            .args(["--port", &port.to_string(), "--agent", agent]);
        Some(Self::start("a2a-sdk 1.3.0", command))
    }

    fn start(name: &'static str, mut command: Command) -> ServerProcess {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap_or_else(|error| panic!("cannot start the {name} server: {error}"));
        let stdout = child.stdout.take().unwrap();
        let (sender, receiver) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut lines = BufReader::new(stdout).lines();
            for line in lines.by_ref() {
                let Ok(line) = line else { break };
                if let Some(url) = line.strip_prefix("listening on ") {
                    let _ = sender.send(url.to_owned());
                    break;
                }
            }
            lines.for_each(drop); // keep the pipe drained
        });
        let url = receiver
            .recv_timeout(Duration::from_secs(60))
            .unwrap_or_else(|_| panic!("the {name} server did not start within 60 s"));
        ServerProcess { name, url, child }
    }

    /// CPU time the server process has used so far (user + system), from /proc/PID/stat.
    fn cpu_time(&self) -> Duration {
        common::process::cpu(Some(self.child.id()))
    }

    /// Resident memory of the server process, in KiB.
    fn rss_kib(&self) -> u64 {
        common::process::rss_kib(self.child.id())
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn crate_root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

// ---- load ------------------------------------------------------------------------------------

/// What one load level measured.
struct Load {
    latencies: Vec<Duration>,
    elapsed: Duration,
    errors: u64,
}

impl Load {
    fn per_second(&self) -> f64 {
        self.latencies.len() as f64 / self.elapsed.as_secs_f64()
    }

    fn percentile_ms(&self, fraction: f64) -> f64 {
        if self.latencies.is_empty() {
            return f64::NAN;
        }
        let rank = ((self.latencies.len() - 1) as f64 * fraction).round() as usize;
        self.latencies[rank.min(self.latencies.len() - 1)].as_secs_f64() * 1e3
    }
}

/// `clients` loops, each sending a send request over `wire` and waiting for the answer, for
/// `duration` or `max_requests` requests in all, whichever comes first.
async fn load(
    wire: Wire,
    url: &str,
    clients: usize,
    duration: Duration,
    max_requests: u64,
) -> Load {
    let http = wire.client(clients);
    let issued = Arc::new(AtomicU64::new(0));
    let errors = Arc::new(AtomicU64::new(0));
    let started = Instant::now();
    let deadline = started + duration;
    let loops: Vec<_> = (0..clients)
        .map(|_| {
            let (http, url) = (http.clone(), url.to_owned());
            let (issued, errors) = (issued.clone(), errors.clone());
            tokio::spawn(async move {
                let mut latencies = Vec::new();
                loop {
                    let id = issued.fetch_add(1, Ordering::Relaxed);
                    if id >= max_requests || Instant::now() >= deadline {
                        return latencies;
                    }
                    let sent = Instant::now();
                    let answered = async {
                        let response = wire.send(&http, &url, id).send().await.ok()?;
                        let headers = response.headers().clone();
                        let body = response.bytes().await.ok()?;
                        // The agent answered and the task ended as it should.
                        wire.answered(&headers, &body).then_some(())
                    };
                    match answered.await {
                        Some(()) => latencies.push(sent.elapsed()),
                        None => {
                            errors.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                }
            })
        })
        .collect();
    let mut latencies = Vec::new();
    for one in loops {
        latencies.extend(one.await.unwrap());
    }
    let elapsed = started.elapsed();
    latencies.sort_unstable();
    Load {
        latencies,
        elapsed,
        errors: errors.load(Ordering::Relaxed),
    }
}

// ---- open streams ----------------------------------------------------------------------------

/// Opens stream requests until `streams` holds `target` of them (each has received its first
/// event), `OPEN_BATCH` at a time, giving up at `deadline`. Returns the failures.
async fn open_streams(
    protocol: Protocol,
    url: &str,
    target: usize,
    streams: &mut Vec<reqwest::Response>,
    deadline: Instant,
) -> u64 {
    // No pooling: every stream holds its own connection, as separate clients would.
    let http = reqwest::Client::builder()
        .pool_max_idle_per_host(0)
        .build()
        .unwrap();
    let mut failures = 0;
    let mut next_id = 1_000_000 + streams.len() as u64;
    while streams.len() < target && Instant::now() < deadline {
        let batch = OPEN_BATCH.min(target - streams.len());
        let opening: Vec<_> = (0..batch)
            .map(|i| {
                let (http, url) = (http.clone(), url.to_owned());
                let body = protocol.body(next_id + i as u64, true);
                tokio::spawn(async move { open_one(protocol, &http, &url, body).await })
            })
            .collect();
        next_id += batch as u64;
        for one in opening {
            match one.await.unwrap() {
                Some(response) => streams.push(response),
                None => failures += 1,
            }
        }
    }
    failures
}

/// One stream request, once its first `data:` event (the Task) has arrived.
async fn open_one(
    protocol: Protocol,
    http: &reqwest::Client,
    url: &str,
    body: String,
) -> Option<reqwest::Response> {
    let mut response = protocol
        .headers(http.post(url))
        .header("accept", "text/event-stream")
        .body(body)
        .send()
        .await
        .ok()?;
    let first = tokio::time::timeout(Duration::from_secs(30), async {
        loop {
            let chunk = response.chunk().await.ok()??;
            if chunk.windows(5).any(|w| w == b"data:") {
                return Some(());
            }
        }
    });
    first.await.ok()??;
    Some(response)
}

// ---- the runs --------------------------------------------------------------------------------

/// `--load URL [--clients N] [--grpc]`: only the load generator, against any server (for profiling
/// a server started by hand, e.g. `server --serve echo` under `perf record`).
async fn load_only(wire: Wire, url: &str, clients: usize) {
    let seconds = env_number("BENCH_SECONDS", 5);
    let max_requests = env_number("BENCH_MAX_REQUESTS", 200_000);
    let result = load(
        wire,
        url,
        clients,
        Duration::from_secs(seconds),
        max_requests,
    )
    .await;
    println!(
        "{url}: {clients} clients, {} requests, {:.0} req/s, p50 {:.2} ms, p99 {:.2} ms, {} errors",
        result.latencies.len(),
        result.per_second(),
        result.percentile_ms(0.50),
        result.percentile_ms(0.99),
        result.errors
    );
}

/// `--streams URL [--count N]`: opens N `message/stream` connections to any server and
/// holds them for `BENCH_SECONDS` (for watching a server's memory with a profiler).
async fn streams_only(protocol: Protocol, url: &str, count: usize) {
    let mut streams = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(env_number("BENCH_OPEN_SECONDS", 120));
    let failures = open_streams(protocol, url, count, &mut streams, deadline).await;
    println!("{url}: {} streams open, {failures} failures", streams.len());
    tokio::time::sleep(Duration::from_secs(env_number("BENCH_SECONDS", 5))).await;
}

async fn smoke(protocol: Protocol) {
    let server = ServerProcess::ours("echo");
    let mut wires = vec![Wire::JsonRpc(protocol)];
    if GRPC && protocol == Protocol::V1_0 {
        wires.push(Wire::Grpc);
    }
    for wire in wires {
        let result = load(wire, &server.url, 1, Duration::from_secs(2), 20).await;
        println!(
            "server bench smoke check ({wire:?}): {} answers, {} errors (run `scripts/bench-server.sh` for figures)",
            result.latencies.len(),
            result.errors
        );
        assert_eq!(result.errors, 0, "our server failed requests over {wire:?}");
    }
}

/// Whether our server (this build) serves gRPC, and so whether the gRPC rows run.
const GRPC: bool = cfg!(feature = "grpc");

/// Our rows' names: JSON-RPC, and gRPC on the same process.
const OURS: &str = "a2ui-agent";
const OURS_GRPC: &str = "a2ui-agent gRPC";

async fn bench(protocol: Protocol) {
    let seconds = env_number("BENCH_SECONDS", 5);
    let max_requests = env_number("BENCH_MAX_REQUESTS", 200_000);
    let duration = Duration::from_secs(seconds);
    let method = match protocol {
        Protocol::V0_3 => "message/send",
        Protocol::V1_0 => "SendMessage",
    };
    println!(
        "A2A {} {method}, trivial agent, loopback; {seconds} s or {max_requests} requests per level after {WARM_UP:?} of warm-up",
        protocol.name()
    );
    let servers: Vec<ServerProcess> = [
        Some(ServerProcess::ours("echo")),
        rust_sdk_for(protocol, "echo", false),
        ServerProcess::python("echo"),
    ]
    .into_iter()
    .flatten()
    .collect();
    // (row name, server, wire): every server over JSON-RPC, then the gRPC rows.
    let mut targets: Vec<(&'static str, &ServerProcess, Wire)> = servers
        .iter()
        .map(|server| (server.name, server, Wire::JsonRpc(protocol)))
        .collect();
    let grpc_reference = if GRPC && protocol == Protocol::V1_0 {
        ServerProcess::rust_sdk("echo", true)
    } else {
        if protocol == Protocol::V1_0 {
            eprintln!(
                "skipped the gRPC rows: build with --features grpc (scripts/bench-server.sh does)"
            );
        }
        None
    };
    if GRPC && protocol == Protocol::V1_0 {
        targets.push((OURS_GRPC, &servers[0], Wire::Grpc));
    }
    if let Some(server) = &grpc_reference {
        targets.push((server.name, server, Wire::Grpc));
    }
    println!(
        "{:<18} {:>7} {:>9} {:>10} {:>8} {:>8} {:>11} {:>7}",
        "server", "clients", "requests", "req/s", "p50 ms", "p99 ms", "CPU us/req", "errors"
    );
    let mut rows: Vec<Row> = Vec::new();
    for clients in CONCURRENCY {
        for &(name, server, wire) in &targets {
            load(wire, &server.url, clients, WARM_UP, max_requests).await;
            let cpu_before = server.cpu_time();
            let result = load(wire, &server.url, clients, duration, max_requests).await;
            let cpu = server.cpu_time().saturating_sub(cpu_before);
            let cpu_per_request = cpu.as_secs_f64() * 1e6 / result.latencies.len().max(1) as f64;
            println!(
                "{:<18} {:>7} {:>9} {:>10.0} {:>8.2} {:>8.2} {:>11.0} {:>7}",
                name,
                clients,
                result.latencies.len(),
                result.per_second(),
                result.percentile_ms(0.50),
                result.percentile_ms(0.99),
                cpu_per_request,
                result.errors
            );
            rows.push(Row {
                server: name,
                clients,
                per_second: result.per_second(),
                p99_ms: result.percentile_ms(0.99),
                cpu_per_request,
            });
        }
    }
    drop(targets);
    drop((servers, grpc_reference));
    // Ours over JSON-RPC against every other JSON-RPC server; ours over gRPC against ours
    // over JSON-RPC (what the binding costs) and against the official server's gRPC.
    let mut pairs: Vec<(&str, &str)> = Vec::new();
    for row in &rows {
        let reference = row.server;
        if ![OURS, OURS_GRPC].contains(&reference)
            && !reference.ends_with("gRPC")
            && !pairs.contains(&(OURS, reference))
        {
            pairs.push((OURS, reference));
        }
    }
    pairs.push((OURS_GRPC, OURS));
    pairs.push((OURS_GRPC, "a2a-server-lf gRPC"));
    print_ratios(&rows, &pairs);
    memory(protocol).await;
}

/// `a2a-server-lf` speaks only A2A 1.0.
fn rust_sdk_for(protocol: Protocol, agent: &str, grpc: bool) -> Option<ServerProcess> {
    match protocol {
        Protocol::V1_0 => ServerProcess::rust_sdk(agent, grpc),
        Protocol::V0_3 => None,
    }
}

/// One load level's figures, for the ratios.
struct Row {
    server: &'static str,
    clients: usize,
    per_second: f64,
    p99_ms: f64,
    cpu_per_request: f64,
}

/// Prints `ours` against `reference` at each load level, for each pair both have rows of.
fn print_ratios(rows: &[Row], pairs: &[(&str, &str)]) {
    for &(ours, reference) in pairs {
        let find = |name: &str, clients: usize| {
            rows.iter()
                .find(|row| row.server == name && row.clients == clients)
        };
        if find(ours, CONCURRENCY[0]).is_none() || find(reference, CONCURRENCY[0]).is_none() {
            continue;
        }
        println!("{ours} against {reference}, same run:");
        for clients in CONCURRENCY {
            if let (Some(ours), Some(theirs)) = (find(ours, clients), find(reference, clients)) {
                println!(
                    "  {clients:>2} clients: {:.2}x the requests per second, {:.2}x lower p99, {:.2}x less server CPU per request",
                    ours.per_second / theirs.per_second,
                    theirs.p99_ms / ours.p99_ms,
                    theirs.cpu_per_request / ours.cpu_per_request
                );
            }
        }
    }
}

async fn memory(protocol: Protocol) {
    let targets: Vec<usize> = std::env::var("BENCH_STREAMS")
        .unwrap_or_else(|_| "1000,5000".into())
        .split(',')
        .filter_map(|n| n.trim().parse().ok())
        .collect();
    let open_seconds = env_number("BENCH_OPEN_SECONDS", 120);
    println!();
    let method = match protocol {
        Protocol::V0_3 => "message/stream",
        Protocol::V1_0 => "SendStreamingMessage",
    };
    println!("resident memory with open {method} connections (agent silent; VmRSS of the server)");
    println!(
        "{:<14} {:>8} {:>10} {:>10} {:>12} {:>9}",
        "server", "streams", "RSS MiB", "idle MiB", "KiB/stream", "failures"
    );
    let makers: [fn(Protocol) -> Option<ServerProcess>; 3] = [
        |_| Some(ServerProcess::ours("silent")),
        |protocol| rust_sdk_for(protocol, "silent", false),
        |_| ServerProcess::python("silent"),
    ];
    // (server, streams open, KiB per stream), for the ratios.
    let mut per_stream_rows: Vec<(&'static str, usize, f64)> = Vec::new();
    for make in makers {
        let Some(server) = make(protocol) else {
            continue;
        };
        tokio::time::sleep(Duration::from_millis(500)).await;
        let idle = server.rss_kib();
        let mut streams = Vec::new();
        let deadline = Instant::now() + Duration::from_secs(open_seconds);
        let mut failures = 0;
        for &target in &targets {
            failures += open_streams(protocol, &server.url, target, &mut streams, deadline).await;
            tokio::time::sleep(Duration::from_millis(500)).await;
            let rss = server.rss_kib();
            let per_stream = rss.saturating_sub(idle) as f64 / streams.len().max(1) as f64;
            println!(
                "{:<14} {:>8} {:>10.1} {:>10.1} {:>12.1} {:>9}",
                server.name,
                streams.len(),
                rss as f64 / 1024.0,
                idle as f64 / 1024.0,
                per_stream,
                failures
            );
            per_stream_rows.push((server.name, streams.len(), per_stream));
        }
        drop(streams);
    }
    for &target in &targets {
        let at = |name: &str| {
            per_stream_rows
                .iter()
                .find(|(server, open, _)| *server == name && *open == target)
                .map(|(_, _, kib)| *kib)
        };
        let Some(ours) = at("a2ui-agent") else {
            continue;
        };
        for (reference, open, theirs) in &per_stream_rows {
            if *reference != "a2ui-agent" && *open == target {
                println!(
                    "  {target} streams: {reference} holds {:.2}x the memory per stream of a2ui-agent",
                    theirs / ours
                );
            }
        }
    }
}
