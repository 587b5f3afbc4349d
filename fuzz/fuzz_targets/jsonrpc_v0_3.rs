//! Decodes arbitrary bytes as an A2A 0.3 JSON-RPC request; the checks are in
//! `tests/jsonrpc_check`, which `cargo test --test jsonrpc_fuzz_corpus` replays over the seeds.
#![no_main]

#[path = "../../tests/jsonrpc_check/mod.rs"]
mod jsonrpc_check;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| jsonrpc_check::check(data));
