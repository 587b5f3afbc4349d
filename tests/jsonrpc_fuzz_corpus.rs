//! Replays the JSON-RPC fuzz seeds (`fuzz/jsonrpc-seeds/`) and any local corpus or crash
//! artifacts of the `jsonrpc_request` target through the request decoders, so a crash the
//! fuzzer found stays fixed without nightly tools.

use std::path::{Path, PathBuf};

use a2ui_agent::a2a::jsonrpc::decode_request;
use a2ui_agent::a2a::v0_3::{decode_id_params, decode_query_params, decode_send_params};

fn files_under(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.is_file())
        .collect()
}

#[test]
fn the_jsonrpc_corpus_decodes_to_answers_without_a_panic() {
    let fuzz = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz");
    let seeds = files_under(&fuzz.join("jsonrpc-seeds"));
    assert!(seeds.len() >= 5, "the JSON-RPC seed corpus is missing");
    let local = [
        files_under(&fuzz.join("corpus/jsonrpc_request")),
        files_under(&fuzz.join("artifacts/jsonrpc_request")),
    ]
    .concat();
    let mut requests = 0;
    for path in seeds.iter().chain(&local) {
        let bytes = std::fs::read(path).unwrap();
        let Ok(request) = decode_request(&bytes) else {
            continue;
        };
        requests += 1;
        let params = request.params.as_ref();
        let _ = decode_send_params(params);
        let _ = decode_query_params(params);
        let _ = decode_id_params(params);
    }
    assert!(requests >= 3, "the seeds should hold valid envelopes");
}
