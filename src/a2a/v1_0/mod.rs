//! A2A protocol 1.0 on the wire: the ProtoJSON mapping of `a2a.proto` ⇄ the [model](super).
//!
//! 1.0 drops the `kind` tags of 0.3: a part is one object holding exactly one of `text`,
//! `raw` (base64 bytes), `url` or `data` beside `mediaType`, `filename` and `metadata`; roles
//! and states are enum names (`ROLE_USER`, `TASK_STATE_INPUT_REQUIRED`); stream events are
//! `StreamResponse` objects with exactly one of `task`, `message`, `statusUpdate`,
//! `artifactUpdate`, and no `final`. Names follow `a2a.proto`'s JSON mapping (camelCase).
//!
//! Decoding derives `Deserialize` on private wire structs and runs them through
//! `serde_path_to_error`, so a refusal names the member at fault
//! (`params.message.role: unknown variant ...`). Unknown members are ignored; `null` counts as
//! absent.
//!
//! The model keeps a data part's MIME type where 0.3 and the A2UI extension put it, in
//! `metadata.mimeType`. On the way in, a 1.0 `mediaType` of a data part lands there too (when
//! the metadata does not already name one); on the way out, a data part's
//! `metadata.mimeType` is also written as its `mediaType`. So A2UI parts read
//! `application/a2ui+json` (or the v0.9 type) in both places, whichever a client looks at.

mod card;
mod decode;
mod encode;
mod error;
mod push_config_json;
mod wire_error;

#[cfg(any(feature = "client", feature = "unstable-internals"))]
pub use card::decode_card;
pub use card::encode_card;
#[cfg(feature = "server")]
pub(crate) use decode::decode_send_json;
#[cfg(any(feature = "client", feature = "unstable-internals"))]
pub use decode::{decode_event, decode_page, decode_send_result, decode_task};
pub use decode::{decode_id_params, decode_list_params, decode_query_params, decode_send_params};
#[cfg(any(feature = "client", feature = "unstable-internals"))]
pub use encode::{encode_list_params, encode_query_params, encode_send_params};
pub use encode::encode_task;
#[cfg(feature = "unstable-internals")]
pub use encode::{
    encode_event, encode_message, encode_message_result, encode_page, encode_part,
    encode_send_result, encode_state,
};
#[cfg(feature = "server")]
pub(crate) use encode::{event_result, message_result, page_result, send_result};
#[cfg(feature = "unstable-internals")]
pub use error::error_details;
pub use error::{rest_error_body, rpc_error};
#[cfg(any(feature = "client", feature = "unstable-internals"))]
pub use push_config_json::{decode_push_config, decode_push_list, encode_push_config_request};
pub use push_config_json::{
    PushListQuery, decode_push_config_params, decode_push_config_query, decode_push_list_params,
    encode_push_config, encode_push_list,
};
pub use wire_error::WireError;

#[cfg(feature = "unstable-internals")]
/// The protocol version this module speaks, as the `A2A-Version` header names it.
pub const VERSION: &str = "1.0";
