//! Protobuf messages ⇄ their ProtoJSON, the form the JSON bindings' 1.0 codec
//! ([`crate::a2a::v1_0`]) reads and writes.
//!
//! A2A 1.0 defines its JSON as the ProtoJSON mapping of `a2a.proto`, so a request message
//! read as ProtoJSON is exactly what a JSON-RPC or HTTP+JSON client would have sent: the
//! gRPC binding decodes it with the same codec, under the same decoding budget, and the
//! model never meets a protobuf type. prost-reflect does the mapping from the descriptors
//! `build.rs` compiled (well-known types included: `Struct`, `Value`, `Timestamp`).

use prost::Message;
use prost_reflect::{DescriptorPool, DeserializeOptions, DynamicMessage, MessageDescriptor};
use serde::Serialize;
use tonic::Status;

use crate::a2a::jsonrpc::{ErrorCode, RpcError};

/// The compiled `a2a.proto` (a `FileDescriptorSet`), written by `build.rs`.
const DESCRIPTORS: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/a2a_descriptors.bin"));

/// The package of the A2A messages.
const PACKAGE: &str = "lf.a2a.v1";

/// The descriptors of the A2A messages.
#[derive(Debug, Clone)]
pub(super) struct Wire {
    pool: DescriptorPool,
}

impl Wire {
    /// Reads the descriptors compiled into the crate; `None` if they do not decode (a
    /// broken build, never the client).
    pub(super) fn new() -> Option<Self> {
        DescriptorPool::decode(DESCRIPTORS)
            .ok()
            .map(|pool| Self { pool })
    }

    fn descriptor(&self, name: &str) -> Result<MessageDescriptor, Status> {
        self.pool
            .get_message_by_name(&format!("{PACKAGE}.{name}"))
            .ok_or_else(|| {
                tracing::error!(name, "no descriptor for an A2A message");
                Status::internal("Internal error")
            })
    }

    /// `message` (an A2A message named `name`) as ProtoJSON text. A `google.protobuf.Value`
    /// number is a double, which ProtoJSON writes `1.0`: a whole one is written `1`, as a
    /// JSON client would have sent it (a2a.proto has no double field of its own).
    pub(super) fn to_json(&self, message: &impl Message, name: &str) -> Result<String, RpcError> {
        let descriptor = self.descriptor(name).map_err(|_| RpcError::internal())?;
        let dynamic = DynamicMessage::decode(descriptor, message.encode_to_vec().as_slice())
            .map_err(|error| invalid(&error.to_string()))?;
        let mut json =
            serde_json::to_value(&dynamic).map_err(|error| invalid(&error.to_string()))?;
        whole_numbers_as_integers(&mut json);
        serde_json::to_string(&json).map_err(|error| invalid(&error.to_string()))
    }

    /// The A2A message named `name` whose ProtoJSON `json` (the 1.0 codec's output) is.
    /// Members the proto does not define are dropped.
    pub(super) fn message_of<M: Message + Default>(
        &self,
        json: &impl Serialize,
        name: &str,
    ) -> Result<M, Status> {
        let descriptor = self.descriptor(name)?;
        let value = serde_json::to_value(json).map_err(|_| Status::internal("Internal error"))?;
        let options = DeserializeOptions::new().deny_unknown_fields(false);
        let dynamic = DynamicMessage::deserialize_with_options(descriptor, value, &options)
            .map_err(|error| {
                tracing::error!(%error, name, "an answer does not fit its proto message");
                Status::internal("Internal error")
            })?;
        dynamic
            .transcode_to::<M>()
            .map_err(|_| Status::internal("Internal error"))
    }
}

/// Writes every whole double of `json` within ±2^53 as an integer. The depth is bounded by
/// the decoding that made `json` (prost's recursion limit).
fn whole_numbers_as_integers(json: &mut serde_json::Value) {
    use serde_json::Value;
    const EXACT: f64 = 9_007_199_254_740_992.0;
    match json {
        Value::Number(number) => {
            let whole = number
                .as_f64()
                .filter(|float| number.is_f64() && float.fract() == 0.0 && float.abs() <= EXACT);
            if let Some(float) = whole {
                // Exact: a whole double within ±2^53 is an i64.
                #[allow(clippy::cast_possible_truncation)]
                let whole = float as i64;
                *json = Value::from(whole);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(whole_numbers_as_integers),
        Value::Object(members) => members.values_mut().for_each(whole_numbers_as_integers),
        Value::Null | Value::Bool(_) | Value::String(_) => {}
    }
}

fn invalid(detail: &str) -> RpcError {
    RpcError::new(
        ErrorCode::InvalidParams,
        format!("Invalid params: {detail}"),
    )
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::super::proto::{SendMessageRequest, StreamResponse};
    use super::*;

    fn wire() -> Wire {
        Wire::new().expect("the compiled descriptors decode")
    }

    #[test]
    fn an_a2ui_update_survives_the_trip_through_the_proto_unchanged() {
        let update = json!({"statusUpdate": {
            "taskId": "t1",
            "contextId": "c1",
            "status": {
                "state": "TASK_STATE_WORKING",
                "timestamp": "2026-12-04T10:00:00.123Z",
                "message": {
                    "messageId": "m1",
                    "role": "ROLE_AGENT",
                    "parts": [
                        {"text": "Here you go"},
                        {
                            "data": {"version": "v0.9", "createSurface": {
                                "surfaceId": "s", "catalogId": "basic", "nested": [1, 2.5, null, true]
                            }},
                            "mediaType": "application/a2ui+json",
                            "metadata": {"mimeType": "application/a2ui+json"}
                        }
                    ]
                }
            },
            "metadata": {"a2ui": {"surface": "s"}}
        }});
        let wire = wire();
        let message: StreamResponse = wire.message_of(&update, "StreamResponse").unwrap();
        let back: Value =
            serde_json::from_str(&wire.to_json(&message, "StreamResponse").unwrap()).unwrap();
        assert_eq!(back, update);
    }

    #[test]
    fn a_request_reads_as_the_protojson_the_json_bindings_get() {
        let request = SendMessageRequest {
            message: Some(super::super::proto::Message {
                message_id: "m1".into(),
                role: 1,
                parts: vec![super::super::proto::Part {
                    content: Some(super::super::proto::part::Content::Text("hi".into())),
                    ..Default::default()
                }],
                ..Default::default()
            }),
            ..Default::default()
        };
        let json: Value =
            serde_json::from_str(&wire().to_json(&request, "SendMessageRequest").unwrap()).unwrap();
        assert_eq!(
            json,
            json!({"message": {"messageId": "m1", "role": "ROLE_USER", "parts": [{"text": "hi"}]}})
        );
    }
}
