//! Decodes arbitrary bytes as a JSON-RPC request body, then its params as every A2A 0.3
//! method would: hostile input must get an error, never a panic.
#![no_main]

use a2ui_agent::a2a::jsonrpc::decode_request;
use a2ui_agent::a2a::v0_3::{decode_id_params, decode_query_params, decode_send_params};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(request) = decode_request(data) else {
        return;
    };
    let params = request.params.as_ref();
    let _ = decode_send_params(params);
    let _ = decode_query_params(params);
    let _ = decode_id_params(params);
});
