//! Validation speed: messages checked per second over the official v0.9 example UIs, and the
//! time to compile the basic catalog's validator.
//!
//! The examples are read from `../shared/reference` at bench time; without them only the
//! compile benchmark runs. As a baseline measured in the same run, parsing the same messages
//! from JSON text with serde_json: a check should cost a small multiple of parsing.
//!
//! Run: `cargo bench --bench validate -- --warm-up-time 1 --measurement-time 3`.

use std::hint::black_box;
use std::time::Instant;

use a2ui_agent::a2ui::{Catalog, ProtocolVersion, Validator};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use serde_json::Value;

mod common;

const V: ProtocolVersion = ProtocolVersion::V0_9;

fn compile(c: &mut Criterion) {
    let document = Catalog::basic(V).schema().clone();
    c.bench_function("compile basic v0.9 catalog", |b| {
        b.iter(|| Catalog::from_value(V, black_box(document.clone())).map(|c| c.id().len()))
    });
}

fn check(c: &mut Criterion) {
    let responses = common::v0_9_examples("the example benchmarks");
    if responses.is_empty() {
        return;
    }
    let validator = Validator::basic(V);
    let messages: Vec<&Value> = responses.iter().flatten().collect();
    let texts: Vec<String> = messages.iter().map(|m| m.to_string()).collect();
    let mut group = c.benchmark_group("v0.9 examples");
    group.throughput(Throughput::Elements(messages.len() as u64));
    group.bench_function("parse (baseline)", |b| {
        b.iter(|| {
            texts
                .iter()
                .filter_map(|t| serde_json::from_str::<Value>(black_box(t)).ok())
                .count()
        })
    });
    group.bench_function("check_message", |b| {
        b.iter(|| {
            messages
                .iter()
                .filter(|m| validator.check_message(black_box(m)).is_ok())
                .count()
        })
    });
    group.bench_function("check_response", |b| {
        b.iter(|| {
            responses
                .iter()
                .filter(|r| validator.check_response(black_box(r)).is_ok())
                .count()
        })
    });
    group.finish();
    summary(&validator, &responses, &texts);
}

/// Prints messages per second and the ratio to parsing, measured here in one run.
fn summary(validator: &Validator, responses: &[Vec<Value>], texts: &[String]) {
    const ROUNDS: u32 = 200;
    let messages: Vec<&Value> = responses.iter().flatten().collect();
    let time = |work: &dyn Fn()| {
        let start = Instant::now();
        for _ in 0..ROUNDS {
            work();
        }
        start.elapsed().as_secs_f64()
    };
    let parse = time(&|| {
        for text in texts {
            black_box(serde_json::from_str::<Value>(text).ok());
        }
    });
    let each = time(&|| {
        for message in &messages {
            black_box(validator.check_message(message).is_ok());
        }
    });
    let whole = time(&|| {
        for response in responses {
            black_box(validator.check_response(response).is_ok());
        }
    });
    let count = f64::from(ROUNDS) * messages.len() as f64;
    for (name, seconds) in [("check_message", each), ("check_response", whole)] {
        println!(
            "summary: {name}: {:.0} messages/s ({:.1} µs each), {:.2}x the time of parsing them",
            count / seconds,
            seconds * 1e6 / count,
            seconds / parse
        );
    }
}

criterion_group!(benches, compile, check);
criterion_main!(benches);
