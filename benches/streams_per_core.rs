//! Streams-per-core benchmark: how many live model streams one core carries, against the
//! official Python stack under the same load, in the same run.
//!
//! N concurrent `SendStreamingMessage` requests (`message/stream` with `BENCH_PROTOCOL=0.3`),
//! each answered by a paced model writing a realistic A2UI reply (`BENCH_COMPONENTS`
//! components, default 300, and prose; one token-sized chunk every 20 ms), reached
//!
//! - **connector**: through `llm::OpenAiChat` against a fake OpenAI-compatible server over
//!   real HTTP (this binary with `--model`, a process of its own on the load core);
//! - **closure**: as a closure agent in the server process.
//!
//! The server (this binary with `--serve`, one runtime worker) is pinned to one core
//! (`BENCH_SERVER_CORE`, default 0); the client and the model run on the others. A chunk
//! that completes a component carries the time it was written (CLOCK_MONOTONIC, the same in
//! every process); the client finds it in the SSE frame and subtracts. For each N
//! (`BENCH_STREAMS`, default "100,1000,3000,5000": the levels and the target's) it
//! prints, over a window of `BENCH_SECONDS` (default 10) after the streams are open: model
//! chunks and SSE events per second, server CPU per second (from /proc/PID/stat), per chunk
//! and per event, p50/p99 chunk-to-frame, RSS per open stream, and errors.
//!
//! The official stack (`scripts/streams_reference_server.py`: a2a-sdk 1.3.0's server, an
//! executor feeding the same chunks, paced the same, through a2ui-agent-sdk 0.9.0's
//! streaming parser and sending its parts as working updates) gets the same load at
//! `BENCH_PY_STREAMS` (default "1,10,100"), pinned to the same core. Then: RSS per idle
//! stream (an agent that stays silent, `BENCH_IDLE_STREAMS`, default 1000), the demo agent of
//! `a2ui-agent serve` at `BENCH_DEMO_STREAMS` (default 800), the ratios, and each target of
//! the streams targets with its verdict.
//!
//! Beside ours at each level runs the floor (`streams::floor`: the same streams on tokio,
//! hyper and axum alone, idle ones too), and the bench prints what it shows of each target.
//! The closure agent's streams also run over AG-UI (`closure-agui`: a `RunAgentInput` to
//! `/ag-ui`, the surface as an activity snapshot then deltas), printed against A2A's.
//! `BENCH_AGENTS` (any of `closure`, `closure-agui`, `floor-closure`, `connector`,
//! `floor-connector`; all by default) runs only those at each level: `closure,connector` leaves the floor out,
//! `closure` alone serves a profile or an A/B of two builds.
//!
//! Figures are printed, never asserted. Without `--bench` (as under `cargo test --benches`) it
//! runs a few streams of a short reply as a smoke check. Run it with
//! `scripts/bench-streams.sh`, which raises the open-file limit. `--serve AGENT` and `--model`
//! run one side alone (for a profiler); `--serve AGENT --store URL` keeps the tasks in
//! PostgreSQL (with the `postgres` feature). `--scale-out URL` runs the scale-out check
//! instead (see `streams::scale_out`, and `scripts/bench-scale-out.sh`, which starts a
//! throwaway PostgreSQL for it): `BENCH_SCALE_STREAMS` streams (default 200) on each of two
//! instances, `BENCH_COMPONENTS` default 40 there. `BENCH_COALESCE_MS=0,1,2,5` runs, instead
//! of the levels, the latency/CPU curve of the server's coalescing window
//! (`ServerBuilder::coalesce_window`), closure and connector at `BENCH_COALESCE_STREAMS`
//! (default 1000).

mod common;
#[allow(dead_code, unreachable_pub)]
#[path = "../src/bin/a2ui-agent/demo.rs"]
mod demo;
mod streams;

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use a2ui_agent::a2ui::ProtocolVersion;

use streams::client::{self, Outcome, Plan, Protocol};
use streams::procs::{self, Process};
use streams::reply;
use streams::sides::{self, Options};

/// The pause before each model chunk.
const PAUSE: Duration = Duration::from_millis(20);
/// The chunk-to-frame p99 a stream may have to count as carried.
const P99_TARGET_MS: f64 = 10.0;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let components = flag(&args, "--components")
        .and_then(|n| n.parse().ok())
        .unwrap_or(300);
    if let Some(agent) = flag(&args, "--serve") {
        let options = Options {
            store: flag(&args, "--store"),
            coalesce: Duration::from_millis(
                flag(&args, "--coalesce-ms")
                    .and_then(|ms| ms.parse().ok())
                    .unwrap_or(0),
            ),
        };
        sides::serve(&agent, components, flag(&args, "--model-url"), options);
        return ExitCode::SUCCESS;
    }
    if let Some(database) = flag(&args, "--scale-out") {
        let (soft, _) = procs::raise_open_files();
        println!("open-file limit: {soft}");
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
            .expect("a runtime");
        let lost = !runtime.block_on(scale_out(database));
        return if lost {
            ExitCode::FAILURE
        } else {
            ExitCode::SUCCESS
        };
    }
    if args.iter().any(|a| a == "--model") {
        sides::model(components);
        return ExitCode::SUCCESS;
    }
    let (soft, hard) = procs::raise_open_files();
    println!(
        "open-file limit: {soft} (hard {hard}): each process holds one socket per stream, so up to about {} streams",
        soft.saturating_sub(64)
    );
    let (server_core, load_cores) = procs::cores();
    procs::pin_to(&load_cores);
    println!("server on core {server_core}; client and model on cores {load_cores:?}");
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(bench(server_core, &load_cores, common::measuring()));
    ExitCode::SUCCESS
}

fn flag(args: &[String], name: &str) -> Option<String> {
    let at = args.iter().position(|a| a == name)?;
    args.get(at + 1).cloned()
}

fn env_list(name: &str, default: &str) -> Vec<usize> {
    std::env::var(name)
        .unwrap_or_else(|_| default.into())
        .split(',')
        .filter_map(|n| n.trim().parse().ok())
        .collect()
}

fn catalog_id() -> &'static str {
    ProtocolVersion::V0_9.basic_catalog_id()
}

// ---- the runs -------------------------------------------------------------------------------

/// One load level on one server: what the table prints.
struct Row {
    server: String,
    streams: usize,
    seconds: f64,
    outcome: Outcome,
    /// Server CPU in the window.
    cpu: Duration,
    /// Client and model CPU in the window.
    load_cpu: Duration,
    /// RSS growth per open stream, KiB.
    kib_per_stream: f64,
}

impl Row {
    fn cpu_per_second(&self) -> f64 {
        self.cpu.as_secs_f64() / self.seconds
    }
    /// Whether the server's core or the load's (client and model) was busy enough that
    /// work waited: per-chunk figures then batch, and latency is the queue's.
    fn saturated(&self) -> bool {
        self.cpu_per_second() >= 0.9 || self.load_cpu.as_secs_f64() / self.seconds >= 0.9
    }
    fn us_per_chunk(&self) -> f64 {
        self.cpu.as_secs_f64() * 1e6 / self.outcome.chunks.max(1) as f64
    }
    fn us_per_event(&self) -> f64 {
        self.cpu.as_secs_f64() * 1e6 / self.outcome.frames.max(1) as f64
    }
    fn errors(&self) -> u64 {
        // An unopened stream is counted broken too.
        self.outcome.broken
    }
    /// Whether the level is carried: no errors, p99 within the target.
    fn carried(&self) -> bool {
        self.errors() == 0 && self.outcome.percentile_ms(0.99) <= P99_TARGET_MS
    }
    /// Streams one core would carry at this CPU per chunk (one chunk per 20 ms each).
    fn streams_per_core(&self) -> f64 {
        1e6 / (self.us_per_chunk() * (1.0 / PAUSE.as_secs_f64()))
    }

    fn print(&self) {
        println!(
            "{:<22} {:>6} {:>6} {:>9.0} {:>9.0} {:>6.2} {:>9.1} {:>9.1} {:>7.2} {:>8.2} {:>10.1} {:>7.2}",
            self.server,
            self.streams,
            self.errors(),
            self.outcome.chunks as f64 / self.seconds,
            self.outcome.frames as f64 / self.seconds,
            self.cpu_per_second(),
            self.us_per_chunk(),
            self.us_per_event(),
            self.outcome.percentile_ms(0.5),
            self.outcome.percentile_ms(0.99),
            self.kib_per_stream,
            self.load_cpu.as_secs_f64() / self.seconds,
        );
        if let Some(why) = &self.outcome.first_break {
            println!("    first error: {why}");
        }
    }
}

fn header() {
    println!(
        "{:<22} {:>6} {:>6} {:>9} {:>9} {:>6} {:>9} {:>9} {:>7} {:>8} {:>10} {:>7}",
        "server/agent",
        "N",
        "errors",
        "chunks/s",
        "events/s",
        "CPU/s",
        "us/chunk",
        "us/event",
        "p50 ms",
        "p99 ms",
        "KiB/stream",
        "load/s"
    );
}

/// The knobs every level shares.
struct Setup {
    protocol: Protocol,
    window: Duration,
    components: usize,
    stamped: Arc<Vec<usize>>,
    model: Option<Process>,
}

/// Runs one level: `streams` against `server`.
async fn level(setup: &Setup, server: &Process, label: &str, streams: usize) -> Row {
    let stamped = setup.stamped.clone();
    level_of(setup, setup.protocol, server, label, streams, stamped).await
}

/// Runs one level whose reply carries the stamps `stamped` (none: an agent of its own).
async fn level_of(
    setup: &Setup,
    protocol: Protocol,
    server: &Process,
    label: &str,
    streams: usize,
    stamped: Arc<Vec<usize>>,
) -> Row {
    // Opening a connection costs the server far more than a chunk: spread the ramp so
    // opening does not decide the latency of the streams already open.
    let ramp = Duration::from_secs_f64((streams as f64 / 500.0).max(1.0));
    let plan = Plan {
        urls: vec![protocol.url(&server.url)],
        streams,
        ramp,
        settle: Duration::from_secs(2),
        window: setup.window,
        protocol,
        extension_uri: ProtocolVersion::V0_9.extension_uri().to_owned(),
        catalog_id: catalog_id().to_owned(),
        stamped,
    };
    tokio::time::sleep(Duration::from_millis(300)).await;
    let idle_kib = server.rss_kib();
    let model_cpu = || setup.model.as_ref().map_or(Duration::ZERO, Process::cpu);
    let mut at_open = (Duration::ZERO, Duration::ZERO, 0u64);
    let mut at_close = (Duration::ZERO, Duration::ZERO, 0u64);
    let outcome = client::run(plan, |closing| {
        let load = procs::own_cpu() + model_cpu();
        if closing {
            at_close = (server.cpu(), load, server.rss_kib());
        } else {
            at_open = (server.cpu(), load, server.rss_kib());
        }
    })
    .await;
    Row {
        server: label.to_owned(),
        streams,
        seconds: setup.window.as_secs_f64(),
        outcome,
        cpu: at_close.0.saturating_sub(at_open.0),
        load_cpu: at_close.1.saturating_sub(at_open.1),
        // The larger of the two: a reply that ended in the window gave memory back.
        kib_per_stream: at_close.2.max(at_open.2).saturating_sub(idle_kib) as f64
            / streams.max(1) as f64,
    }
}

/// The server for `agent` (ours, or the floor's `floor-*`), fresh for each level.
fn server_for(agent: &str, setup: &Setup, core: usize) -> Process {
    server_coalescing(agent, setup, core, 0)
}

/// [`server_for`] with a coalescing window of `coalesce_ms`.
fn server_coalescing(agent: &str, setup: &Setup, core: usize, coalesce_ms: usize) -> Process {
    let mut args = vec![
        "--serve".to_owned(),
        agent.to_owned(),
        "--components".to_owned(),
        setup.components.to_string(),
        "--coalesce-ms".to_owned(),
        coalesce_ms.to_string(),
    ];
    if agent.ends_with("connector")
        && let Some(model) = &setup.model
    {
        args.extend(["--model-url".to_owned(), model.url.clone()]);
    }
    Process::this("a2ui-agent", &args, &[core])
}

async fn bench(server_core: usize, load_cores: &[usize], measuring: bool) {
    let protocol = Protocol::from_env();
    let components = common::knob("BENCH_COMPONENTS", 300, 20);
    let seconds = common::knob("BENCH_SECONDS", 10, 2);
    let reply = reply::reply(components, catalog_id());
    let bytes: usize = reply.chunks.iter().map(String::len).sum();
    println!(
        "{} with A2UI v0.9; reply: {components} components, {bytes} bytes in {} chunks, one per {PAUSE:?} ({:.0} s), {} of them stamped; window {seconds} s",
        protocol.method(),
        reply.chunks.len(),
        (reply.chunks.len() as u32 * PAUSE).as_secs_f64(),
        reply.stamped.len()
    );
    let chunks_file =
        std::env::temp_dir().join(format!("streams-bench-{}.json", std::process::id()));
    std::fs::write(
        &chunks_file,
        serde_json::to_string(&reply.chunks).expect("the chunks as JSON"),
    )
    .expect("the chunks file");
    let model_args = [
        "--model".to_owned(),
        "--components".to_owned(),
        components.to_string(),
    ];
    let setup = Setup {
        protocol,
        window: Duration::from_secs(seconds as u64),
        components,
        stamped: Arc::new(reply.stamped),
        model: Some(Process::this("model", &model_args, load_cores)),
    };
    if let Ok(windows) = std::env::var("BENCH_COALESCE_MS") {
        let windows: Vec<usize> = windows
            .split(',')
            .filter_map(|ms| ms.trim().parse().ok())
            .collect();
        coalescing_curve(&setup, server_core, &windows).await;
        let _ = std::fs::remove_file(&chunks_file);
        return;
    }
    let (levels, py_levels) = if measuring {
        (
            env_list("BENCH_STREAMS", "100,1000,3000,5000"),
            env_list("BENCH_PY_STREAMS", "1,10,100"),
        )
    } else {
        (vec![5], vec![2])
    };
    // Ours and the floor (tokio, hyper and axum alone: `streams::floor`) at each level;
    // `BENCH_AGENTS` names only some (a profile, an A/B of builds, or no floor at all).
    let mut agents = vec![
        "closure",
        "closure-agui",
        "floor-closure",
        "connector",
        "floor-connector",
    ];
    if let Ok(only) = std::env::var("BENCH_AGENTS") {
        agents.retain(|a| only.split(',').any(|o| o.trim() == *a));
    }
    let floor = agents.iter().any(|a| a.starts_with("floor-"));
    header();
    let mut rows: Vec<Row> = Vec::new();
    for &n in &levels {
        for &agent in &agents {
            // `closure-agui`: the closure agent's server, its streams over AG-UI.
            let (serves, protocol) = match agent {
                "closure-agui" => ("closure", Protocol::AgUi),
                agent => (agent, setup.protocol),
            };
            let server = server_for(serves, &setup, server_core);
            let stamped = setup.stamped.clone();
            let row = level_of(&setup, protocol, &server, &label(agent), n, stamped).await;
            row.print();
            rows.push(row);
        }
    }
    let py_model = std::env::var("BENCH_PY_MODEL").is_ok_and(|v| v == "1");
    for &n in &py_levels {
        let model_url = setup
            .model
            .as_ref()
            .filter(|_| py_model)
            .map(|m| m.url.as_str());
        let Some(server) = Process::python(&chunks_file, model_url, &[server_core]) else {
            break;
        };
        let label = if py_model {
            "python connector"
        } else {
            "python closure"
        };
        let row = level(&setup, &server, label, n).await;
        row.print();
        rows.push(row);
    }
    let _ = std::fs::remove_file(&chunks_file);
    let idle_n = common::knob("BENCH_IDLE_STREAMS", 1000, 5);
    let idle = unstamped_level(&setup, server_core, "silent", idle_n).await;
    let idle_floor = if floor {
        Some(unstamped_level(&setup, server_core, "floor-silent", idle_n).await)
    } else {
        None
    };
    let demo_n = common::knob("BENCH_DEMO_STREAMS", 800, 5);
    let demo = unstamped_level(&setup, server_core, "demo", demo_n).await;
    verdicts(&rows, &idle, &demo);
    ag_ui_against_a2a(&rows);
    if floor {
        floor_shares(&rows, &idle, idle_floor.as_ref(), &demo);
    }
    if !measuring {
        let broken: Vec<&Row> = rows.iter().filter(|r| r.errors() > 0).collect();
        assert!(broken.is_empty(), "streams broke in the smoke round");
        assert!(
            rows.iter().all(|r| !r.outcome.latencies_us.is_empty()),
            "no stamp reached a client"
        );
        println!("streams bench smoke check passed (run scripts/bench-streams.sh for figures)");
    }
}

/// `streams` streams on `agent`, whose replies carry no stamps (one that stays silent, or
/// the demo).
async fn unstamped_level(setup: &Setup, core: usize, agent: &str, streams: usize) -> Row {
    let server = server_for(agent, setup, core);
    let row = level_of(
        setup,
        setup.protocol,
        &server,
        &label(agent),
        streams,
        Arc::default(),
    )
    .await;
    row.print();
    row
}

/// `BENCH_COALESCE_MS=0,1,2,5`: instead of the levels, the latency/CPU curve of the server's
/// coalescing window, closure and connector at `BENCH_COALESCE_STREAMS` streams (default
/// 1000).
async fn coalescing_curve(setup: &Setup, core: usize, windows: &[usize]) {
    let streams = common::knob("BENCH_COALESCE_STREAMS", 1000, 5);
    header();
    let mut rows = Vec::new();
    for &ms in windows {
        for agent in ["closure", "connector"] {
            let server = server_coalescing(agent, setup, core, ms);
            let row = level(setup, &server, &format!("{agent} window {ms} ms"), streams).await;
            row.print();
            rows.push(row);
        }
    }
    println!("\ncoalescing window at {streams} streams:");
    for row in &rows {
        println!(
            "  {:<24} p50 {:>6.2} ms, p99 {:>6.2} ms, {:>6.1} us of server CPU per chunk, {:>6.0} SSE events/s, {} errors",
            row.server,
            row.outcome.percentile_ms(0.5),
            row.outcome.percentile_ms(0.99),
            row.us_per_chunk(),
            row.outcome.frames as f64 / row.seconds,
            row.errors()
        );
    }
}

/// `--scale-out URL`: the scale-out check on the PostgreSQL database at `database`.
async fn scale_out(database: String) -> bool {
    let components = common::knob("BENCH_COMPONENTS", 40, 20);
    let reply = reply::reply(components, catalog_id());
    streams::scale_out::run(streams::scale_out::Check {
        database,
        per_instance: common::knob("BENCH_SCALE_STREAMS", 200, 5),
        components,
        chunks: reply.chunks.len(),
        pause: PAUSE,
        stamped: Arc::new(reply.stamped),
        protocol: Protocol::from_env(),
        extension_uri: ProtocolVersion::V0_9.extension_uri().to_owned(),
        catalog_id: catalog_id().to_owned(),
    })
    .await
}

/// A note when the floor beside ours with `agent` (`closure`, `connector`) missed the latency target at a level the target
/// judges (up to 3,000 streams) without saturating its core: nothing on this stack could
/// have met it then, so the machine was not quiet (another guest's load on the host shows
/// as latency). Above 3,000 streams the floor nears its core's limit, and its queue alone
/// may miss.
fn unquiet(rows: &[Row], agent: &str) -> String {
    let missed: Vec<String> = rows_of(rows, &label(&format!("floor-{agent}")))
        .filter(|r| r.streams <= 3000 && !r.saturated() && r.outcome.chunks > 0 && !r.carried())
        .map(|r| {
            format!(
                "{} (p99 {:.1} ms at {:.2} of the core)",
                r.streams,
                r.outcome.percentile_ms(0.99),
                r.cpu_per_second()
            )
        })
        .collect();
    if missed.is_empty() {
        String::new()
    } else {
        format!(
            "; not a quiet run: the floor, unsaturated, missed it at {}",
            missed.join(", ")
        )
    }
}

/// The most streams of `label` a level carried (no errors, p99 within target); 0 if none.
fn carried(rows: &[Row], label: &str) -> usize {
    rows.iter()
        .filter(|r| r.server == label && r.carried())
        .map(|r| r.streams)
        .max()
        .unwrap_or(0)
}

fn rows_of<'a>(rows: &'a [Row], label: &'a str) -> impl Iterator<Item = &'a Row> + 'a {
    rows.iter().filter(move |r| r.server == label)
}

/// The table's label for `agent`: ours, or the floor.
fn label(agent: &str) -> String {
    match agent.strip_prefix("floor-") {
        Some(floor) => format!("floor {floor}"),
        None if agent == "closure-agui" => "a2ui-agent closure ag-ui".to_owned(),
        None => format!("a2ui-agent {agent}"),
    }
}

/// The same closure agent's streams over AG-UI against A2A, at each level both ran.
fn ag_ui_against_a2a(rows: &[Row]) {
    let a2a = label("closure");
    for ag_ui in rows_of(rows, &label("closure-agui")) {
        let Some(a2a) = rows_of(rows, &a2a).find(|r| r.streams == ag_ui.streams) else {
            continue;
        };
        println!(
            "  AG-UI against A2A, closure at {} streams: {:.1} us per chunk ({:.2}x A2A's {:.1}), p99 {:.1} ms (A2A {:.1} ms)",
            ag_ui.streams,
            ag_ui.us_per_chunk(),
            ag_ui.us_per_chunk() / a2a.us_per_chunk(),
            a2a.us_per_chunk(),
            ag_ui.outcome.percentile_ms(0.99),
            a2a.outcome.percentile_ms(0.99),
        );
    }
}

/// What the floor alone costs beside ours at each level it ran unsaturated, and what that
/// leaves of each target on this machine.
fn floor_shares(rows: &[Row], idle: &Row, idle_floor: Option<&Row>, demo: &Row) {
    println!("\nthe floor (tokio, hyper and axum alone, no A2A or A2UI) against ours:");
    for kind in ["closure", "connector"] {
        let (floor_label, ours_label) = (label(&format!("floor-{kind}")), label(kind));
        for floor in rows_of(rows, &floor_label) {
            let Some(ours) = rows_of(rows, &ours_label).find(|r| r.streams == floor.streams) else {
                continue;
            };
            let saturated = if floor.saturated() || ours.saturated() {
                " (a core saturated: per-chunk figures batch, latency is the queue's)"
            } else {
                ""
            };
            println!(
                "  {kind} at {} streams: floor {:.1} us per chunk, p99 {:.1} ms; ours {:.1} us ({:.1}x the floor), p99 {:.1} ms{saturated}",
                floor.streams,
                floor.us_per_chunk(),
                floor.outcome.percentile_ms(0.99),
                ours.us_per_chunk(),
                ours.us_per_chunk() / floor.us_per_chunk(),
                ours.outcome.percentile_ms(0.99),
            );
        }
    }
    for closure in rows_of(rows, "floor closure").filter(|r| !r.saturated()) {
        if let Some(connector) = rows_of(rows, "floor connector")
            .find(|r| r.streams == closure.streams && !r.saturated())
        {
            println!(
                "  the floor's own connector / closure per chunk at {} streams: {:.2}x (the 1.2x target with no pipeline at all)",
                closure.streams,
                connector.us_per_chunk() / closure.us_per_chunk()
            );
        }
    }
    // The demo's chunks carry no stamps; its pace is its configuration's mean pause.
    let pace = demo::DemoConfig::default();
    let chunks_per_second = 2.0 / (pace.min_delay + pace.max_delay).as_secs_f64();
    let events_per_second = demo.outcome.frames as f64 / demo.seconds / demo.streams.max(1) as f64;
    if let Some(floor) = rows_of(rows, "floor closure")
        .filter(|r| !r.saturated())
        .max_by_key(|r| r.streams)
    {
        let chunks_per_event = chunks_per_second / events_per_second;
        println!(
            "  demo: {events_per_second:.2} SSE events per stream per second at {chunks_per_second:.0} chunks per second: {chunks_per_event:.0} chunks per event; at the closure floor's {:.1} us per chunk the floor alone spends {:.0} us per event (the 50 us target with no pipeline at all: {})",
            floor.us_per_chunk(),
            floor.us_per_chunk() * chunks_per_event,
            verdict(floor.us_per_chunk() * chunks_per_event <= 50.0)
        );
    }
    if let Some(floor) = idle_floor {
        println!(
            "  idle stream: floor {:.1} KiB, ours {:.1} KiB (the 16 KiB target with no pipeline at all: {})",
            floor.kib_per_stream,
            idle.kib_per_stream,
            verdict(floor.kib_per_stream <= 16.0)
        );
    }
}

fn verdict(met: bool) -> &'static str {
    if met { "met" } else { "MISSED" }
}

fn verdicts(rows: &[Row], idle: &Row, demo: &Row) {
    println!();
    // The estimate comes from the largest level whose server core was not saturated.
    let estimate = |label: &str| {
        rows_of(rows, label)
            .filter(|r| r.cpu_per_second() < 0.9 && r.errors() == 0 && r.outcome.chunks > 0)
            .max_by_key(|r| r.streams)
            .map(Row::streams_per_core)
    };
    for agent in ["closure", "connector"] {
        let label = label(agent);
        let most = carried(rows, &label);
        let est = estimate(&label).unwrap_or(f64::NAN);
        println!(
            "target one core carries >= 3000 streams at p99 <= {P99_TARGET_MS} ms ({label}): carried {most} measured, {est:.0} by CPU per chunk: {}{}{}",
            verdict(most >= 3000),
            if most >= 3000 {
                String::new()
            } else {
                format!(" (by {:.1}x)", 3000.0 / est.max(1.0))
            },
            unquiet(rows, agent)
        );
    }
    let py_label = rows
        .iter()
        .map(|r| r.server.as_str())
        .find(|s| s.starts_with("python"))
        .unwrap_or("python closure")
        .to_owned();
    let ours_most = carried(rows, "a2ui-agent closure").max(carried(rows, "a2ui-agent connector"));
    let py_most = carried(rows, &py_label);
    let py_est = estimate(&py_label);
    match py_est {
        Some(py_est) => {
            let ours_est = estimate("a2ui-agent closure").unwrap_or(f64::NAN);
            let ratio = ours_est / py_est;
            println!(
                "target >= 20x the streams per core of the Python stack at p99 <= {P99_TARGET_MS} ms: carried {ours_most} vs {py_most} measured; by CPU per chunk {ours_est:.0} vs {py_est:.1} = {ratio:.0}x: {}",
                verdict(ratio >= 20.0 && (py_most == 0 || ours_most >= 20 * py_most))
            );
        }
        None if rows_of(rows, &py_label).next().is_some() => println!(
            "target >= 20x the streams per core of the Python stack: the Python stack carried {py_most} streams at p99 <= {P99_TARGET_MS} ms and saturated its core at every level; ours carried {ours_most}: {}",
            verdict(ours_most >= 20 * py_most.max(1))
        ),
        None => println!("target >= 20x the Python stack: skipped (no Python stack)"),
    }
    // CPU per chunk only means something where chunks got through.
    let measured = |label: &str| -> Vec<&Row> {
        rows.iter()
            .filter(|r| r.server == label && r.outcome.chunks > 0)
            .collect()
    };
    for theirs in measured(&py_label) {
        if let Some(mine) = measured("a2ui-agent closure")
            .into_iter()
            .find(|r| r.streams >= theirs.streams)
        {
            println!(
                "  Python at {} streams {:.0} us of server CPU per chunk (p99 {:.1} ms), ours at {} streams {:.1} us (p99 {:.1} ms): {:.0}x less",
                theirs.streams,
                theirs.us_per_chunk(),
                theirs.outcome.percentile_ms(0.99),
                mine.streams,
                mine.us_per_chunk(),
                mine.outcome.percentile_ms(0.99),
                theirs.us_per_chunk() / mine.us_per_chunk()
            );
        }
    }
    println!(
        "target <= 16 KiB RSS per open idle stream ({} streams): {:.1} KiB: {}",
        idle.streams,
        idle.kib_per_stream,
        verdict(idle.kib_per_stream <= 16.0)
    );
    println!(
        "target demo agent at {} streams: <= 64 KiB per stream: {:.1} KiB: {}; <= 50 us of server CPU per SSE event: {:.1} us: {}",
        demo.streams,
        demo.kib_per_stream,
        verdict(demo.kib_per_stream <= 64.0),
        demo.us_per_event(),
        verdict(demo.us_per_event() <= 50.0)
    );
    // Where either side's core was saturated the per-chunk figures batch and compare nothing.
    for closure in rows_of(rows, "a2ui-agent closure").filter(|r| !r.saturated()) {
        if let Some(connector) = rows_of(rows, "a2ui-agent connector")
            .find(|r| r.streams == closure.streams && !r.saturated())
        {
            let ratio = connector.us_per_chunk() / closure.us_per_chunk();
            println!(
                "target connector <= 1.2x closure per chunk at {} streams: {:.1} / {:.1} us = {ratio:.2}x: {}",
                closure.streams,
                connector.us_per_chunk(),
                closure.us_per_chunk(),
                verdict(ratio <= 1.2)
            );
        }
    }
}
