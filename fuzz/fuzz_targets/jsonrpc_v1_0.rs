//! Decodes arbitrary bytes as an A2A 1.0 request, both as a JSON-RPC request and as an
//! HTTP+JSON `message:send` body; the checks are in `tests/jsonrpc_check_v1_0`, which
//! `cargo test --test jsonrpc_fuzz_corpus` replays over the seeds.
#![no_main]

#[path = "../../tests/jsonrpc_check_v1_0/mod.rs"]
mod jsonrpc_check_v1_0;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| jsonrpc_check_v1_0::check(data));
