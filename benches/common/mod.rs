//! What more than one benchmark reads: the official example UIs and the `BENCH_*` knobs. Each
//! bench includes this module (`mod common;`) and uses what it needs.
#![allow(dead_code)]

pub mod process;

use std::path::Path;

use serde_json::Value;

/// Whether the bench runs for its figures (`cargo bench` passes `--bench`) rather than as the
/// one small smoke round `cargo test --benches` runs.
pub fn measuring() -> bool {
    std::env::args().any(|a| a == "--bench")
}

/// A count from the environment variable `name`: `default` when measuring and it is unset or
/// unreadable, `smoke` in a smoke round.
pub fn knob(name: &str, default: usize, smoke: usize) -> usize {
    if !measuring() {
        return smoke;
    }
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The messages of each official v0.9 basic-catalog example UI, read from
/// `../shared/reference` at bench time; an empty list (after saying so on stderr, naming
/// `what` is skipped) when the reference is absent.
pub fn v0_9_examples(what: &str) -> Vec<Vec<Value>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/reference/a2ui/v0_9/catalogs/basic/examples");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        eprintln!("skipped {what}: {} is absent", dir.display());
        return Vec::new();
    };
    let mut paths: Vec<_> = entries.filter_map(|e| Some(e.ok()?.path())).collect();
    paths.sort();
    paths
        .iter()
        .filter_map(|p| {
            let value: Value = serde_json::from_str(&std::fs::read_to_string(p).ok()?).ok()?;
            match value {
                Value::Object(mut map) => match map.remove("messages")? {
                    Value::Array(messages) => Some(messages),
                    _ => None,
                },
                Value::Array(messages) => Some(messages),
                _ => None,
            }
        })
        .collect()
}
