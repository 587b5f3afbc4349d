//! Parser throughput against `serde_json::from_slice` over the same JSON, in the same run.
//!
//! Fixtures: a Column with n Text children (n = 25 to 3,200) and two realistic UIs (a v0.9
//! contact card with a form and data model, and its v0.8 counterpart), each fed whole and in
//! chunks of 1, 4, 16 and 256 bytes.
//!
//! `cargo bench --bench parser` first prints a summary measured in this process (MB/s, ratio
//! to serde_json, linearity 3,200 vs 100 components, bytes emitted per JSON byte in delta
//! mode), then the cost of a token when thousands of parsers take turns (a server's streams),
//! then runs the criterion groups. Keep it short with
//! `cargo bench --bench parser -- --warm-up-time 1 --measurement-time 2`.

#[path = "../tests/model_order/mod.rs"]
mod model_order;

use std::hint::black_box;
use std::time::{Duration, Instant};

use a2ui_agent::parser::{ParsedPart, ParserConfig, StreamParser};
use criterion::{BenchmarkId, Criterion, Throughput};
use serde_json::{Value, json};

use model_order::model_order_json;

const SIZES: [usize; 6] = [25, 100, 400, 800, 1600, 3200];
const CHUNKS: [usize; 5] = [1, 4, 16, 256, usize::MAX];

/// A response: text, one block holding `messages`, text.
struct Fixture {
    name: String,
    response: String,
    json: String,
}

fn fixture(name: impl Into<String>, messages: &Value) -> Fixture {
    let json = model_order_json(messages);
    let response =
        format!("Here is what you asked for.\n<a2ui-json>{json}</a2ui-json>\nAnything else?");
    Fixture {
        name: name.into(),
        response,
        json,
    }
}

fn column(n: usize) -> Fixture {
    let mut components = vec![json!({
        "id": "root", "component": "Column",
        "children": (0..n).map(|i| format!("item-{i}")).collect::<Vec<_>>(),
    })];
    components.extend((0..n).map(|i| {
        json!({"id": format!("item-{i}"), "component": "Text",
               "text": format!("Item {i}: a short line describing this entry"), "variant": "body"})
    }));
    fixture(
        format!("column/{n}"),
        &json!([
            {"version": "v0.9", "createSurface": {"surfaceId": "list", "catalogId": "https://a2ui.org/specification/v0_9/basic_catalog.json"}},
            {"version": "v0.9", "updateComponents": {"surfaceId": "list", "components": components}},
        ]),
    )
}

fn contact_v09() -> Fixture {
    let bind = |p: &str| json!({"path": p});
    fixture(
        "realistic/contact-form-v0.9",
        &json!([
            {"version": "v0.9", "createSurface": {"surfaceId": "contact", "catalogId": "https://a2ui.org/specification/v0_9/basic_catalog.json", "sendDataModel": true}},
            {"version": "v0.9", "updateComponents": {"surfaceId": "contact", "components": [
                {"id": "root", "component": "Card", "child": "body"},
                {"id": "body", "component": "Column", "children": ["header", "divider", "email-row", "phone-row", "form", "actions"]},
                {"id": "header", "component": "Row", "children": ["avatar", "names"], "align": "center"},
                {"id": "avatar", "component": "Image", "url": bind("/contact/photo"), "variant": "avatar"},
                {"id": "names", "component": "Column", "children": ["name", "title"]},
                {"id": "name", "component": "Text", "text": bind("/contact/name"), "variant": "h3"},
                {"id": "title", "component": "Text", "text": bind("/contact/title"), "variant": "caption"},
                {"id": "divider", "component": "Divider"},
                {"id": "email-row", "component": "Row", "children": ["email-icon", "email"]},
                {"id": "email-icon", "component": "Icon", "name": "mail"},
                {"id": "email", "component": "Text", "text": bind("/contact/email")},
                {"id": "phone-row", "component": "Row", "children": ["phone-icon", "phone"]},
                {"id": "phone-icon", "component": "Icon", "name": "phone"},
                {"id": "phone", "component": "Text", "text": bind("/contact/phone")},
                {"id": "form", "component": "Column", "children": ["note", "when", "urgent"]},
                {"id": "note", "component": "TextField", "label": "Message", "value": bind("/draft/note"), "variant": "longText"},
                {"id": "when", "component": "DateTimeInput", "label": "Call back at", "value": bind("/draft/when"), "enableDate": true, "enableTime": true},
                {"id": "urgent", "component": "CheckBox", "label": "Urgent", "value": bind("/draft/urgent")},
                {"id": "actions", "component": "Row", "children": ["call", "send"], "justify": "end"},
                {"id": "call-label", "component": "Text", "text": "Call"},
                {"id": "call", "component": "Button", "child": "call-label", "action": {"event": {"name": "call", "context": {"phone": bind("/contact/phone")}}}},
                {"id": "send-label", "component": "Text", "text": "Send"},
                {"id": "send", "component": "Button", "child": "send-label", "variant": "primary", "action": {"event": {"name": "send", "context": {"note": bind("/draft/note")}}}}
            ]}},
            {"version": "v0.9", "updateDataModel": {"surfaceId": "contact", "path": "/contact", "value": {
                "name": "Ada Lovelace", "title": "Analyst, Analytical Engines Ltd.", "email": "ada@example.com",
                "phone": "+44 20 7946 0000", "photo": "https://example.com/ada.png"}}},
            {"version": "v0.9", "updateDataModel": {"surfaceId": "contact", "path": "/draft", "value": {"note": "", "when": "2026-12-01T10:00:00Z", "urgent": false}}}
        ]),
    )
}

fn contact_v08() -> Fixture {
    let bind = |p: &str| json!({"path": p});
    let lit = |s: &str| json!({"literalString": s});
    fixture(
        "realistic/contact-v0.8",
        &json!([
            {"surfaceUpdate": {"surfaceId": "contact", "components": [
                {"id": "root", "component": {"Card": {"child": "body"}}},
                {"id": "body", "component": {"Column": {"children": {"explicitList": ["header", "email", "phone", "actions"]}}}},
                {"id": "header", "component": {"Row": {"children": {"explicitList": ["avatar", "name"]}}}},
                {"id": "avatar", "component": {"Image": {"url": bind("/contact/photo")}}},
                {"id": "name", "component": {"Text": {"text": bind("/contact/name"), "usageHint": "h3"}}},
                {"id": "email", "component": {"Text": {"text": bind("/contact/email")}}},
                {"id": "phone", "component": {"Text": {"text": bind("/contact/phone")}}},
                {"id": "actions", "component": {"Row": {"children": {"explicitList": ["call"]}}}},
                {"id": "call-label", "component": {"Text": {"text": lit("Call")}}},
                {"id": "call", "component": {"Button": {"child": "call-label", "action": {"name": "call", "context": [{"key": "phone", "value": bind("/contact/phone")}]}}}}
            ]}},
            {"dataModelUpdate": {"surfaceId": "contact", "path": "/contact", "contents": [
                {"key": "name", "valueString": "Ada Lovelace"}, {"key": "email", "valueString": "ada@example.com"},
                {"key": "phone", "valueString": "+44 20 7946 0000"}, {"key": "photo", "valueString": "https://example.com/ada.png"}]}},
            {"beginRendering": {"surfaceId": "contact", "root": "root"}}
        ]),
    )
}

fn fixtures() -> Vec<Fixture> {
    let mut all: Vec<Fixture> = SIZES.iter().map(|&n| column(n)).collect();
    all.push(contact_v09());
    all.push(contact_v08());
    all
}

fn split(text: &str, size: usize) -> Vec<&str> {
    let mut chunks = Vec::new();
    let mut start = 0;
    while start < text.len() {
        let mut end = start.saturating_add(size).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        chunks.push(&text[start..end]);
        start = end;
    }
    chunks
}

fn parse_chunks(chunks: &[&str]) -> Vec<ParsedPart> {
    parse_chunks_with(chunks, ParserConfig::default())
}

fn parse_chunks_with(chunks: &[&str], config: ParserConfig) -> Vec<ParsedPart> {
    let mut parser = StreamParser::new(config);
    let mut parts = Vec::new();
    for chunk in chunks {
        parts.extend(parser.feed(chunk));
    }
    parts.extend(parser.finish().unwrap());
    parts
}

fn chunk_label(size: usize) -> String {
    if size == usize::MAX {
        "whole".into()
    } else {
        format!("{size}B")
    }
}

/// Seconds per call: the best of 5 rounds of at least 30 ms each.
fn seconds_per_call(mut f: impl FnMut()) -> f64 {
    let mut best = f64::MAX;
    for _ in 0..5 {
        let started = Instant::now();
        let mut calls = 0u32;
        while started.elapsed() < Duration::from_millis(30) {
            f();
            calls += 1;
        }
        best = best.min(started.elapsed().as_secs_f64() / f64::from(calls));
    }
    best
}

fn emitted_bytes(parts: &[ParsedPart]) -> usize {
    parts
        .iter()
        .map(|p| match p {
            ParsedPart::A2ui(messages) => messages
                .iter()
                .map(|m| serde_json::to_string(m).unwrap().len())
                .sum(),
            ParsedPart::Text(_) => 0,
        })
        .sum()
}

/// The figures the targets are stated in, measured in this process.
fn summary() {
    println!("fixture                       chunk   MB/s   x serde  emitted/JSON  (batch 10)");
    let serde_time = |n: usize| {
        let fx = column(n);
        seconds_per_call(|| {
            black_box(serde_json::from_slice::<Value>(black_box(fx.json.as_bytes())).unwrap());
        })
    };
    let serde_linearity = serde_time(3200) / serde_time(100);
    let mut whole_times = std::collections::BTreeMap::new();
    let mut emitted_at = std::collections::BTreeMap::new();
    for fx in fixtures() {
        let serde = seconds_per_call(|| {
            black_box(serde_json::from_slice::<Value>(black_box(fx.json.as_bytes())).unwrap());
        });
        for size in CHUNKS {
            let chunks = split(&fx.response, size);
            let t = seconds_per_call(|| {
                black_box(parse_chunks(black_box(&chunks)));
            });
            let emitted = emitted_bytes(&parse_chunks(&chunks)) as f64 / fx.json.len() as f64;
            let batched = ParserConfig::default().delta_batch(10);
            let emitted_batched =
                emitted_bytes(&parse_chunks_with(&chunks, batched)) as f64 / fx.json.len() as f64;
            println!(
                "{:<29} {:>5} {:>7.1} {:>8.2} {:>12.3} {:>11.3}",
                fx.name,
                chunk_label(size),
                fx.response.len() as f64 / t / 1e6,
                t / serde,
                emitted,
                emitted_batched
            );
            whole_times.insert((fx.name.clone(), size), (t, serde));
            emitted_at.insert((fx.name.clone(), size), emitted);
        }
    }
    for size in CHUNKS {
        let (Some((t100, _)), Some((t3200, _))) = (
            whole_times.get(&("column/100".to_owned(), size)),
            whole_times.get(&("column/3200".to_owned(), size)),
        ) else {
            continue;
        };
        println!(
            "linearity at {:>5}: time(3200) / time(100) = {:.1} (32 x {:.3})",
            chunk_label(size),
            t3200 / t100,
            t3200 / t100 / 32.0
        );
    }
    println!(
        "serde_json alone: time(3200) / time(100) = {serde_linearity:.1} (32 x {:.3})",
        serde_linearity / 32.0
    );
    targets(&whole_times, &emitted_at);
    interleaved_summary();
}

/// Nanoseconds per feed when `streams` parsers take turns, each fed the next of `chunks`
/// (the first `per_stream` of them), as a server feeds the streams it holds open: with
/// thousands, every feed finds its parser out of the cache. The parsers are boxed one by one
/// and visited in a shuffled order, as a server's are scattered over its heap.
fn interleaved(chunks: &[&str], streams: usize, per_stream: usize) -> f64 {
    let mut parsers: Vec<Box<StreamParser>> = (0..streams)
        .map(|_| Box::new(StreamParser::new(ParserConfig::default())))
        .collect();
    // A fixed shuffle (Fisher-Yates with an LCG), the same in every build compared.
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
    for i in (1..parsers.len()).rev() {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        parsers.swap(i, (seed >> 33) as usize % (i + 1));
    }
    let chunks = &chunks[..per_stream.min(chunks.len())];
    let started = Instant::now();
    for chunk in chunks {
        for parser in &mut parsers {
            black_box(parser.feed(black_box(chunk)));
        }
    }
    started.elapsed().as_secs_f64() * 1e9 / (chunks.len() * parsers.len()) as f64
}

/// The cost of a token-sized feed (5 bytes, column/400) with one parser against 3,000 taking
/// turns: the best of 3 runs each.
fn interleaved_summary() {
    let fx = column(400);
    let chunks = split(&fx.response, 5);
    let best = |streams: usize, per_stream: usize| {
        (0..3)
            .map(|_| interleaved(&chunks, streams, per_stream))
            .fold(f64::MAX, f64::min)
    };
    let alone = best(1, chunks.len());
    let many = best(3000, 1000);
    println!(
        "5B feeds, column/400: {alone:.0} ns per feed alone, {many:.0} ns with 3000 parsers taking turns ({:.1}x)",
        many / alone
    );
}

/// The targets (default per-component mode), each with its worst ratio and whether
/// it is met: 16-byte chunks within 2x of serde_json on the whole JSON, 4-byte chunks within
/// 2x of the whole-input parse, bytes emitted within 1.2x of the JSON on the realistic v0.9
/// form (16-byte chunks).
fn targets(
    times: &std::collections::BTreeMap<(String, usize), (f64, f64)>,
    emitted: &std::collections::BTreeMap<(String, usize), f64>,
) {
    let worst = |ratio: &dyn Fn(&str) -> Option<f64>| {
        times
            .keys()
            .map(|(name, _)| name.as_str())
            .filter_map(|name| ratio(name).map(|r| (r, name.to_owned())))
            .fold(
                (0.0f64, String::new()),
                |a, b| if b.0 > a.0 { b } else { a },
            )
    };
    let at = |name: &str, size: usize| times.get(&(name.to_owned(), size)).copied();
    let verdict = |ratio: f64, limit: f64| if ratio <= limit { "met" } else { "NOT met" };
    let (r16, n16) = worst(&|name| at(name, 16).map(|(t, serde)| t / serde));
    println!(
        "target 16B chunks <= 2.0x serde_json whole: worst {r16:.2}x ({n16}): {}",
        verdict(r16, 2.0)
    );
    let (r4, n4) = worst(&|name| Some(at(name, 4)?.0 / at(name, usize::MAX)?.0));
    println!(
        "target 4B chunks <= 2.0x whole-input parse: worst {r4:.2}x ({n4}): {}",
        verdict(r4, 2.0)
    );
    let form = "realistic/contact-form-v0.9";
    if let Some(&bytes) = emitted.get(&(form.to_owned(), 16)) {
        println!(
            "target bytes sent <= 1.2x input ({form}, 16B chunks): {bytes:.3}x: {}",
            verdict(bytes, 1.2)
        );
    }
}

fn benches(c: &mut Criterion) {
    for fx in fixtures() {
        let mut group = c.benchmark_group(format!("parser/{}", fx.name));
        group.throughput(Throughput::Bytes(fx.response.len() as u64));
        group.bench_function("serde_json::from_slice", |b| {
            b.iter(|| serde_json::from_slice::<Value>(black_box(fx.json.as_bytes())).unwrap());
        });
        for size in CHUNKS {
            let chunks = split(&fx.response, size);
            group.bench_with_input(
                BenchmarkId::new("chunk", chunk_label(size)),
                &chunks,
                |b, chunks| b.iter(|| parse_chunks(black_box(chunks))),
            );
        }
        group.finish();
    }
}

/// `A2UI_PROFILE=<chunk bytes>`: parse column/3200 (or `A2UI_PROFILE_FIXTURE`) in that
/// chunking for 5 s, for `perf` (or `A2UI_PROFILE_CALLS` times).
fn profile(size: usize) {
    let mut calls = 0u32;
    let name = std::env::var("A2UI_PROFILE_FIXTURE").unwrap_or_else(|_| "column/3200".into());
    let Some(fx) = fixtures().into_iter().find(|fx| fx.name == name) else {
        println!("no fixture {name}");
        return;
    };
    let chunks = split(&fx.response, size);
    // `A2UI_PROFILE_CALLS=<n>`: exactly n parses, for an instruction count (`valgrind
    // --tool=callgrind`) that does not depend on the machine's load.
    let fixed: Option<u32> = std::env::var("A2UI_PROFILE_CALLS")
        .ok()
        .and_then(|s| s.parse().ok());
    let started = Instant::now();
    while fixed.map_or(started.elapsed() < Duration::from_secs(5), |n| calls < n) {
        black_box(parse_chunks(black_box(&chunks)));
        calls += 1;
    }
    let per_call = started.elapsed().as_secs_f64() / f64::from(calls);
    println!(
        "{:.3} ms per parse, {:.1} MB/s",
        per_call * 1e3,
        fx.response.len() as f64 / per_call / 1e6
    );
}

fn main() {
    if let Some(size) = std::env::var("A2UI_PROFILE")
        .ok()
        .and_then(|s| s.parse().ok())
    {
        profile(size);
        return;
    }
    if std::env::var_os("A2UI_INTERLEAVED").is_some() {
        interleaved_summary();
        return;
    }
    if std::env::args().any(|a| a == "--bench") {
        summary();
    }
    let mut c = Criterion::default().configure_from_args();
    benches(&mut c);
    c.final_summary();
}
