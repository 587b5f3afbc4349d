//! Replays the JSON-RPC fuzz seeds (`fuzz/seeds-jsonrpc/` for 0.3, `fuzz/seeds-jsonrpc-v1_0/`
//! for 1.0) and any local corpus or crash artifacts of the `jsonrpc_v0_3` and `jsonrpc_v1_0`
//! targets through the same checks the targets run.

mod jsonrpc_check;
mod jsonrpc_check_v1_0;

use std::path::{Path, PathBuf};

fn files_in(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .map(|entries| entries.flatten().map(|e| e.path()).collect())
        .unwrap_or_default()
}

/// Every input of `target`: its seeds, then its local corpus and crash artifacts if any.
fn inputs(seeds: &str, target: &str) -> Vec<PathBuf> {
    let fuzz = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz");
    let seeds = files_in(&fuzz.join(seeds));
    assert!(seeds.len() >= 5, "the {target} seed corpus is missing");
    let local = [
        fuzz.join("corpus").join(target),
        fuzz.join("artifacts").join(target),
    ];
    seeds
        .into_iter()
        .chain(local.iter().flat_map(|dir| files_in(dir)))
        .collect()
}

#[test]
fn the_jsonrpc_fuzz_corpus_replays_without_a_finding() {
    for path in inputs("seeds-jsonrpc", "jsonrpc_v0_3") {
        let data = std::fs::read(&path).unwrap();
        jsonrpc_check::check(&data);
    }
}

#[test]
fn the_jsonrpc_v1_0_fuzz_corpus_replays_without_a_finding() {
    for path in inputs("seeds-jsonrpc-v1_0", "jsonrpc_v1_0") {
        let data = std::fs::read(&path).unwrap();
        jsonrpc_check_v1_0::check(&data);
    }
}
