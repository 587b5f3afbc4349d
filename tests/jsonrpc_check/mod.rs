//! What the `jsonrpc_v0_3` fuzz target checks of one input, shared with the corpus replay test:
//! decoded the way the server does (the decoding budget's walk, the envelope, then the params of
//! the method it names), no input may panic; the walk calls a body malformed only when
//! serde_json does, and passes only bodies serde_json reads; every refusal must answer as a
//! JSON-RPC error object; and a message that
//! decodes must encode and decode again to the same message (nothing a client sent is lost or
//! invented on the way through).

use a2ui_agent::a2a::budget::{self, DecodeBudget, RefusalKind};
use a2ui_agent::a2a::jsonrpc::{self, ErrorCode, RpcError};
use a2ui_agent::a2a::v0_3;

/// Runs the checks on `data`; panics on a finding.
pub fn check(data: &[u8]) {
    let decoded = jsonrpc::decode_request(data);
    let is_json = !matches!(&decoded, Err((_, error)) if error.code == ErrorCode::ParseError);
    if let Err(refusal) = budget::check(data, &DecodeBudget::default()) {
        // Too deep for serde_json is over the walk's own depth budget first.
        if refusal.kind == RefusalKind::Syntax {
            assert!(
                !is_json,
                "the budget walk calls JSON malformed: {refusal:?}"
            );
        }
        let answer = jsonrpc::failure(&jsonrpc::peek_id(data), &refusal.to_rpc(true));
        assert!(answer["error"]["code"].is_i64(), "{answer}");
        return;
    }
    assert!(
        is_json,
        "the budget walk passed a body serde_json cannot read"
    );
    let request = match decoded {
        Ok(request) => request,
        Err((id, error)) => {
            let answer = jsonrpc::failure(&id, &error);
            assert!(answer["error"]["code"].is_i64(), "{answer}");
            return;
        }
    };
    let params = request.params.as_ref();
    let refused: Option<RpcError> = match request.method.as_str() {
        "message/send" | "message/stream" => match v0_3::decode_send_params(params) {
            Ok(decoded) => {
                let encoded = v0_3::encode_message(&decoded.message);
                match v0_3::decode_message(&encoded, "message") {
                    Ok(again) => assert_eq!(again, decoded.message, "changed on a round trip"),
                    Err(error) => panic!("an encoded message does not decode: {error}"),
                }
                None
            }
            Err(error) => Some(error.into()),
        },
        "tasks/get" => v0_3::decode_query_params(params).err().map(Into::into),
        _ => v0_3::decode_id_params(params).err().map(Into::into),
    };
    if let Some(error) = refused {
        let answer = jsonrpc::failure(&request.id, &error);
        assert!(answer["error"]["message"].is_string(), "{answer}");
    }
}
