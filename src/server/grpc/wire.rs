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

    /// `message` (an A2A message named `name`) as ProtoJSON text.
    pub(super) fn to_json(&self, message: &impl Message, name: &str) -> Result<String, RpcError> {
        let descriptor = self.descriptor(name).map_err(|_| RpcError::internal())?;
        let dynamic = DynamicMessage::decode(descriptor, message.encode_to_vec().as_slice())
            .map_err(|error| invalid(&error.to_string()))?;
        serde_json::to_string(&dynamic).map_err(|error| invalid(&error.to_string()))
    }

    /// The A2A message named `name` whose ProtoJSON `json` (the 1.0 codec's output) is.
    /// Members the proto does not define are dropped.
    pub(super) fn from_json<M: Message + Default>(
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

fn invalid(detail: &str) -> RpcError {
    RpcError::new(
        ErrorCode::InvalidParams,
        format!("Invalid params: {detail}"),
    )
}
