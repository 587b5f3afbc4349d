//! What the `jsonrpc_v1_0` fuzz target checks of one input, shared with the corpus replay test.
//!
//! The input is read two ways, as the server reads a 1.0 request:
//!
//! - a JSON-RPC request: the decoding budget's walk, the envelope, then the params of the 1.0
//!   method it names (`SendMessage`, `GetTask`, ...);
//! - an HTTP+JSON body of `POST /message:send`: the budget's walk, then the same
//!   `SendMessageRequest`, with no envelope around it.
//!
//! No input may panic. Every refusal must answer in the 1.0 error shape: a JSON-RPC error
//! with an integer code, a message and a `google.rpc.ErrorInfo` in `data` whose metadata
//! values are strings; the HTTP+JSON binding a 4xx `google.rpc.Status` body with the same
//! detail. A message that decodes must encode with the 1.0 encoder and decode again to the same
//! message (nothing a client sent is lost or invented on the way through).

use a2ui_agent::a2a::budget::{self, DecodeBudget};
use a2ui_agent::a2a::jsonrpc::{self, RpcError};
use a2ui_agent::a2a::v1_0;
use serde_json::{Value, json};

/// Runs the checks on `data`; panics on a finding.
pub fn check(data: &[u8]) {
    check_rpc(data);
    check_rest_body(data);
}

fn check_rpc(data: &[u8]) {
    if let Err(refusal) = budget::check(data, &DecodeBudget::default()) {
        return check_rpc_refusal(&jsonrpc::peek_id(data), &refusal.to_rpc(true));
    }
    let request = match jsonrpc::decode_request(data) {
        Ok(request) => request,
        Err((id, error)) => return check_rpc_refusal(&id, &error),
    };
    let params = request.params.as_ref();
    let refused: Option<RpcError> = match request.method.as_str() {
        "SendMessage" | "SendStreamingMessage" => send(params).err(),
        "GetTask" => v1_0::decode_query_params(params).err().map(Into::into),
        "ListTasks" => v1_0::decode_list_params(params).err().map(Into::into),
        "CancelTask" | "SubscribeToTask" => v1_0::decode_id_params(params).err().map(Into::into),
        _ => None,
    };
    if let Some(error) = refused {
        check_rpc_refusal(&request.id, &error);
    }
}

fn check_rest_body(data: &[u8]) {
    let refused = match budget::check(data, &DecodeBudget::default()) {
        Err(refusal) => Err(refusal.to_rpc(false)),
        Ok(()) => match serde_json::from_slice::<Value>(data) {
            Ok(body) => send(Some(&body)),
            Err(_) => return,
        },
    };
    if let Err(error) = refused {
        let (status, answer) = v1_0::rest_error_body(&error);
        assert!((400..500).contains(&status), "{status} {answer}");
        assert_eq!(answer["error"]["code"], status, "{answer}");
        assert!(answer["error"]["status"].is_string(), "{answer}");
        assert!(answer["error"]["message"].is_string(), "{answer}");
        check_details(&answer["error"]["details"]);
    }
}

/// Decodes `SendMessage` params and checks the message's round trip.
fn send(params: Option<&Value>) -> Result<(), RpcError> {
    let decoded = v1_0::decode_send_params(params)?;
    let encoded = json!({"message": v1_0::encode_message(&decoded.message)});
    match v1_0::decode_send_params(Some(&encoded)) {
        Ok(again) => assert_eq!(again.message, decoded.message, "changed on a round trip"),
        Err(error) => panic!("an encoded message does not decode: {error}\n{encoded}"),
    }
    Ok(())
}

fn check_rpc_refusal(id: &jsonrpc::Id, error: &RpcError) {
    let answer = json!({"jsonrpc": "2.0", "id": Value::from(id), "error": v1_0::rpc_error(error)});
    let error = &answer["error"];
    assert!(error["code"].is_i64(), "{answer}");
    assert!(error["message"].is_string(), "{answer}");
    check_details(&error["data"]);
    let text = answer.to_string();
    assert!(serde_json::from_str::<Value>(&text).is_ok(), "{text}");
}

/// One `google.rpc.ErrorInfo`: a reason, the A2A domain, string metadata.
fn check_details(details: &Value) {
    let info = &details[0];
    assert_eq!(
        info["@type"], "type.googleapis.com/google.rpc.ErrorInfo",
        "{details}"
    );
    assert!(info["reason"].is_string(), "{details}");
    assert_eq!(info["domain"], "a2a-protocol.org", "{details}");
    if let Some(metadata) = info.get("metadata") {
        let metadata = metadata
            .as_object()
            .expect("ErrorInfo metadata is an object");
        assert!(metadata.values().all(Value::is_string), "{details}");
    }
}
