//! Replays the JSON-RPC 0.3 fuzz seeds (`fuzz/seeds-jsonrpc/`) and any local corpus or crash
//! artifacts of the `jsonrpc_v0_3` target through the same checks the target runs.

mod jsonrpc_check;

use std::path::{Path, PathBuf};

fn files_in(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .map(|entries| entries.flatten().map(|e| e.path()).collect())
        .unwrap_or_default()
}

#[test]
fn the_jsonrpc_fuzz_corpus_replays_without_a_finding() {
    let fuzz = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz");
    let seeds = files_in(&fuzz.join("seeds-jsonrpc"));
    assert!(seeds.len() >= 5, "the JSON-RPC seed corpus is missing");
    let local = [
        fuzz.join("corpus/jsonrpc_v0_3"),
        fuzz.join("artifacts/jsonrpc_v0_3"),
    ];
    for path in seeds.iter().chain(
        local
            .iter()
            .flat_map(|d| files_in(d))
            .collect::<Vec<_>>()
            .iter(),
    ) {
        let data = std::fs::read(path).unwrap();
        jsonrpc_check::check(&data);
    }
}
