//! A2A protocol 0.3 on the wire: JSON ⇄ the [model](super).
//!
//! Decoding walks `serde_json::Value` by hand instead of deriving `Deserialize`, because a
//! client that sends a bad request deserves to be told *which* field is wrong
//! (`params.message.parts[1].kind: unknown kind "image"`), and serde's derived errors do not
//! carry the path. Unknown members are ignored; `null` counts as absent. Encoding writes the
//! `kind` tags and camelCase names of the 0.3 schema.

use std::sync::Arc;

use serde_json::Value;

#[cfg(any(feature = "client", feature = "unstable-internals"))]
mod answer;
mod encode;
mod object_reader;
mod push_config_json;

#[cfg(any(feature = "client", feature = "unstable-internals"))]
pub use answer::{decode_event, decode_send_result, decode_task};
#[cfg(any(feature = "client", feature = "unstable-internals"))]
pub use encode::{encode_query_params, encode_send_params};

#[cfg(feature = "server")]
pub(crate) use encode::event_result;
pub use encode::{encode_message, encode_task};
#[cfg(feature = "unstable-internals")]
pub use encode::{encode_artifact, encode_event, encode_part, encode_state, encode_status};
#[cfg(feature = "unstable-internals")]
pub use push_config_json::decode_push_config;
#[cfg(any(feature = "client", feature = "unstable-internals"))]
pub use push_config_json::{decode_task_push_config, encode_push_set_params};
pub use push_config_json::{decode_push_query_params, decode_push_set_params, encode_push_config};

use super::{
    FileBody, FileContent, Message, Part, Role, SendConfiguration, SendRequest, TaskQuery,
};
pub use object_reader::WireError;
use object_reader::{Obj, Problem};

/// Decodes `message/send` / `message/stream` params.
///
/// # Errors
///
/// A [`WireError`] naming the first missing or ill-typed member.
///
/// # Example
///
/// ```
/// # #[cfg(feature = "unstable-internals")] {
/// use a2ui_agent::a2a::v0_3::decode_send_params;
/// use serde_json::json;
///
/// let params = json!({"message": {"kind": "message", "role": "user", "parts": []}});
/// let error = decode_send_params(Some(&params)).unwrap_err();
/// assert_eq!(error.to_string(), "params.message.messageId: missing");
/// # }
/// ```
pub fn decode_send_params(params: Option<&Value>) -> Result<SendRequest, WireError> {
    let params = Obj::root(params, "params")?;
    let message = decode_message(params.req("message")?, &params.path_of("message"))?;
    let configuration = match params.opt("configuration") {
        None => SendConfiguration::default(),
        Some(value) => {
            let config = Obj::new(value, params.path_of("configuration"))?;
            SendConfiguration {
                blocking: config.opt_bool("blocking")?.unwrap_or(true),
                history_length: config.opt_count("historyLength")?,
                accepted_output_modes: config.opt_strings("acceptedOutputModes")?,
                push_notification_config: config
                    .opt("pushNotificationConfig")
                    .map(|value| {
                        push_config_json::decode_push_config(
                            value,
                            &config.path_of("pushNotificationConfig"),
                        )
                    })
                    .transpose()?,
            }
        }
    };
    Ok(SendRequest {
        message,
        configuration,
        metadata: params.opt_object("metadata")?.cloned(),
    })
}

/// Decodes `tasks/get` params.
///
/// # Errors
///
/// A [`WireError`] naming the first missing or ill-typed member.
pub fn decode_query_params(params: Option<&Value>) -> Result<TaskQuery, WireError> {
    let params = Obj::root(params, "params")?;
    Ok(TaskQuery {
        id: params.req_str("id")?.to_owned(),
        history_length: params.opt_count("historyLength")?,
    })
}

/// Decodes `tasks/cancel` / `tasks/resubscribe` params: the task's id.
///
/// # Errors
///
/// A [`WireError`] naming the first missing or ill-typed member.
pub fn decode_id_params(params: Option<&Value>) -> Result<String, WireError> {
    let params = Obj::root(params, "params")?;
    Ok(params.req_str("id")?.to_owned())
}

/// Decodes a `Message` found at `path`.
///
/// # Errors
///
/// A [`WireError`] naming the first missing or ill-typed member.
pub fn decode_message(value: &Value, path: &str) -> Result<Message, WireError> {
    let message = Obj::new(value, path.to_owned())?;
    if let Some(kind) = message.opt_str("kind")?
        && kind != "message" {
            return Err(message.error("kind", Problem::Expected("\"message\"")));
        }
    let role = match message.req_str("role")? {
        "user" => Role::User,
        "agent" => Role::Agent,
        _ => return Err(message.error("role", Problem::Expected("\"user\" or \"agent\""))),
    };
    let message_id = message.req_str("messageId")?.to_owned();
    let parts_path = message.path_of("parts");
    let parts = match message.req("parts")? {
        Value::Array(parts) if parts.is_empty() => {
            return Err(message.error("parts", Problem::Expected("at least one part")));
        }
        Value::Array(parts) => parts
            .iter()
            .enumerate()
            .map(|(index, part)| decode_part(part, &format!("{parts_path}[{index}]")))
            .collect::<Result<Vec<_>, _>>()?,
        _ => return Err(message.error("parts", Problem::Expected("an array"))),
    };
    Ok(Message {
        message_id,
        role,
        parts,
        context_id: message.opt_str("contextId")?.map(str::to_owned),
        task_id: message.opt_str("taskId")?.map(str::to_owned),
        reference_task_ids: message.opt_strings("referenceTaskIds")?.unwrap_or_default(),
        extensions: message.opt_strings("extensions")?.unwrap_or_default(),
        metadata: message.opt_object("metadata")?.cloned(),
    })
}

/// Decodes a `Part` found at `path`.
///
/// # Errors
///
/// A [`WireError`] naming the first missing or ill-typed member, or an unknown `kind`.
pub fn decode_part(value: &Value, path: &str) -> Result<Part, WireError> {
    let part = Obj::new(value, path.to_owned())?;
    let metadata = part.opt_object("metadata")?.cloned().map(Arc::new);
    match part.req_str("kind")? {
        "text" => Ok(Part::Text {
            text: part.req_str("text")?.to_owned(),
            metadata,
        }),
        "data" => Ok(Part::Data {
            data: part
                .opt_object("data")?
                .cloned()
                .map(Arc::new)
                .ok_or_else(|| part.error("data", Problem::Missing))?,
            metadata,
        }),
        "file" => {
            let file = Obj::new(part.req("file")?, part.path_of("file"))?;
            let body = match (file.opt_str("bytes")?, file.opt_str("uri")?) {
                (Some(bytes), _) => FileBody::Bytes(bytes.to_owned()),
                (None, Some(uri)) => FileBody::Uri(uri.to_owned()),
                (None, None) => return Err(file.error("bytes", Problem::Missing)),
            };
            Ok(Part::File {
                file: FileContent {
                    body,
                    mime_type: file.opt_str("mimeType")?.map(str::to_owned),
                    name: file.opt_str("name")?.map(str::to_owned),
                },
                metadata,
            })
        }
        other => Err(part.error("kind", Problem::UnknownKind(other.to_owned()))),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn send_error(params: Value) -> String {
        decode_send_params(Some(&params)).unwrap_err().to_string()
    }

    fn user_message(parts: Value) -> Value {
        json!({"message": {"kind": "message", "messageId": "m", "role": "user", "parts": parts}})
    }

    #[test]
    fn each_bad_member_is_named_by_its_path() {
        assert_eq!(
            decode_send_params(None).unwrap_err().to_string(),
            "params: missing"
        );
        assert_eq!(send_error(json!({})), "params.message: missing");
        assert_eq!(
            send_error(json!({"message": {"role": "user", "parts": []}})),
            "params.message.messageId: missing"
        );
        assert_eq!(
            send_error(json!({"message": {"messageId": 1, "role": "user", "parts": []}})),
            "params.message.messageId: expected a string"
        );
        assert_eq!(
            send_error(user_message(json!({"kind": "text"}))),
            "params.message.parts: expected an array"
        );
        assert_eq!(
            send_error(user_message(
                json!([{"kind": "text", "text": "a"}, {"kind": "image"}])
            )),
            "params.message.parts[1].kind: unknown kind \"image\""
        );
        assert_eq!(
            send_error(user_message(json!([{"kind": "data", "data": [1]}]))),
            "params.message.parts[0].data: expected an object"
        );
        assert_eq!(
            send_error(json!({"message": {"messageId": "m", "role": "robot", "parts": []}})),
            "params.message.role: expected \"user\" or \"agent\""
        );
    }

    #[test]
    fn a_decoded_message_encodes_back_to_the_same_json() {
        let message = json!({
            "kind": "message", "messageId": "m", "role": "user", "contextId": "c",
            "taskId": "t", "extensions": ["urn:x"], "metadata": {"a": 1},
            "parts": [
                {"kind": "text", "text": "hi", "metadata": {"b": 2}},
                {"kind": "data", "data": {"x": [1, 2]}},
                {"kind": "file", "file": {"uri": "https://e/x.png", "mimeType": "image/png"}},
                {"kind": "file", "file": {"bytes": "aGk=", "name": "hi.txt"}}
            ]
        });
        let decoded = decode_message(&message, "message").unwrap();
        assert_eq!(encode_message(&decoded), message);
    }

    fn any_json() -> impl proptest::strategy::Strategy<Value = Value> {
        crate::a2a::any_json(
            "(kind|text|data|file|message|user|agent|m|[a-z]{0,4})",
            "(message|messageId|role|parts|kind|text|data|file|bytes|uri|blocking|x)",
        )
    }

    proptest::proptest! {
        /// Hostile params never panic, and every refusal names a path under `params`.
        #[test]
        fn any_params_are_decoded_or_refused_with_a_path(params in any_json()) {
            if let Err(error) = decode_send_params(Some(&params)) {
                proptest::prop_assert!(error.path().starts_with("params"), "{}", error);
            }
            let _ = decode_query_params(Some(&params));
            let _ = decode_id_params(Some(&params));
        }
    }

    #[test]
    fn unknown_members_are_ignored_and_null_is_absent() {
        let params = json!({"message": {"messageId": "m", "role": "user",
            "parts": [{"kind": "text", "text": "x"}],
            "taskId": null, "surprise": {"deep": true}}, "other": 1});
        let decoded = decode_send_params(Some(&params)).unwrap();
        assert_eq!(decoded.message.task_id, None);
    }
}
