//! Express speed: compiling the official v0.9 example UIs from their Express spelling, against
//! parsing the same messages from compact JSON with serde_json, measured in one run and
//! printed as a ratio; and the bytes each spelling takes.
//!
//! The examples are read from `../shared/reference` at bench time (written as Express by the
//! decompiler); without them the bench says so and does nothing.
//!
//! Run: `cargo bench --bench express -- --warm-up-time 1 --measurement-time 3`.

use std::hint::black_box;
use std::time::Instant;

use a2ui_agent::a2ui::{Catalog, ProtocolVersion};
use a2ui_agent::format::express::Express;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use serde_json::Value;

mod common;

const V: ProtocolVersion = ProtocolVersion::V0_9;

fn express(c: &mut Criterion) {
    let responses = common::v0_9_examples("the Express benchmarks");
    if responses.is_empty() {
        return;
    }
    let format = Express::bound(V, vec![Catalog::basic(V)]).expect("the basic catalog binds");
    let sources: Vec<String> = responses.iter().map(|r| format.decompile(r)).collect();
    let json: Vec<String> = responses
        .iter()
        .map(|r| serde_json::to_string(r).unwrap_or_default())
        .collect();
    let mut group = c.benchmark_group("v0.9 examples");
    group.throughput(Throughput::Elements(responses.len() as u64));
    group.bench_function("serde_json::from_str (baseline)", |b| {
        b.iter(|| {
            json.iter()
                .filter_map(|t| serde_json::from_str::<Value>(black_box(t)).ok())
                .count()
        })
    });
    group.bench_function("express compile", |b| {
        b.iter(|| {
            sources
                .iter()
                .filter_map(|s| format.compile(black_box(s)).ok())
                .count()
        })
    });
    group.bench_function("express decompile", |b| {
        b.iter(|| {
            responses
                .iter()
                .map(|r| format.decompile(black_box(r)).len())
                .sum::<usize>()
        })
    });
    group.finish();
    summary(&format, &sources, &json, &responses);
}

/// Prints the ratios, measured here in one run.
fn summary(format: &Express, sources: &[String], json: &[String], responses: &[Vec<Value>]) {
    const ROUNDS: u32 = 50;
    let time = |work: &dyn Fn()| {
        let start = Instant::now();
        for _ in 0..ROUNDS {
            work();
        }
        start.elapsed().as_secs_f64()
    };
    let parse = time(&|| {
        for text in json {
            black_box(serde_json::from_str::<Value>(text).ok());
        }
    });
    let compile = time(&|| {
        for source in sources {
            black_box(format.compile(source).ok());
        }
    });
    let validate = {
        let validator = a2ui_agent::a2ui::Validator::basic(V);
        time(&|| {
            for response in responses {
                black_box(validator.check_response(response).is_ok());
            }
        })
    };
    let express_bytes: usize = sources.iter().map(String::len).sum();
    let json_bytes: usize = json.iter().map(String::len).sum();
    println!(
        "summary: {} examples, {express_bytes} bytes of Express for {json_bytes} of compact JSON ({:.2}x)",
        sources.len(),
        express_bytes as f64 / json_bytes as f64
    );
    println!(
        "summary: compile (with the schema check) {:.1} µs per example, {:.2}x serde_json::from_str of the JSON; the schema check alone is {:.2}x",
        compile * 1e6 / f64::from(ROUNDS) / sources.len() as f64,
        compile / parse,
        validate / parse
    );
}

criterion_group!(benches, express);
criterion_main!(benches);
