//! ProtoJSON requests → the model: derived wire structs, paths from `serde_path_to_error`.

use std::sync::Arc;

use serde::Deserialize;
use serde_json::{Map, Value};

#[cfg(any(feature = "client", feature = "unstable-internals"))]
mod answer;

#[cfg(any(feature = "client", feature = "unstable-internals"))]
pub use answer::{decode_event, decode_page, decode_send_result, decode_task};

use super::wire_error::{WireError, parse};
use crate::a2a::{
    FileBody, FileContent, Message, Part, Role, SendConfiguration, SendRequest, TaskListQuery,
    TaskQuery, TaskState,
};

/// Members are read by their ProtoJSON (lowerCamelCase) names and, as ProtoJSON parsers
/// must accept, by their proto field names (`history_length`), which the A2A TCK sends.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct SendMessageRequest {
    message: Option<WireMessage>,
    configuration: Option<Configuration>,
    metadata: Option<Map<String, Value>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Configuration {
    #[serde(alias = "accepted_output_modes")]
    accepted_output_modes: Option<Vec<String>>,
    #[serde(alias = "task_push_notification_config")]
    task_push_notification_config: Option<super::push_config_json::WireConfig>,
    #[serde(alias = "history_length")]
    history_length: Option<i64>,
    #[serde(alias = "return_immediately")]
    return_immediately: Option<bool>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct WireMessage {
    #[serde(alias = "message_id")]
    message_id: Option<String>,
    #[serde(alias = "context_id")]
    context_id: Option<String>,
    #[serde(alias = "task_id")]
    task_id: Option<String>,
    role: Option<WireRole>,
    parts: Option<Vec<WirePart>>,
    metadata: Option<Map<String, Value>>,
    extensions: Option<Vec<String>>,
    #[serde(alias = "reference_task_ids")]
    reference_task_ids: Option<Vec<String>>,
}

/// A message's role as sent. The proto JSON mapping names it (`ROLE_USER`) and lets parsers
/// take the enum's number too (`1`); the 0.3 spellings (`user`, `agent`) are taken as well,
/// because 1.0-draft clients (the A2A TCK's transitional suites among them) still send them.
enum WireRole {
    User,
    Agent,
    Unspecified,
}

impl<'de> Deserialize<'de> for WireRole {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct RoleVisitor;

        impl serde::de::Visitor<'_> for RoleVisitor {
            type Value = WireRole;

            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("ROLE_USER or ROLE_AGENT")
            }

            fn visit_str<E: serde::de::Error>(self, name: &str) -> Result<WireRole, E> {
                match name {
                    "ROLE_USER" | "user" => Ok(WireRole::User),
                    "ROLE_AGENT" | "agent" => Ok(WireRole::Agent),
                    "ROLE_UNSPECIFIED" => Ok(WireRole::Unspecified),
                    other => Err(E::invalid_value(serde::de::Unexpected::Str(other), &self)),
                }
            }

            fn visit_u64<E: serde::de::Error>(self, number: u64) -> Result<WireRole, E> {
                match number {
                    0 => Ok(WireRole::Unspecified),
                    1 => Ok(WireRole::User),
                    2 => Ok(WireRole::Agent),
                    other => Err(E::invalid_value(
                        serde::de::Unexpected::Unsigned(other),
                        &self,
                    )),
                }
            }

            fn visit_i64<E: serde::de::Error>(self, number: i64) -> Result<WireRole, E> {
                u64::try_from(number)
                    .map_err(|_| E::invalid_value(serde::de::Unexpected::Signed(number), &self))
                    .and_then(|number| self.visit_u64(number))
            }
        }

        deserializer.deserialize_any(RoleVisitor)
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct WirePart {
    text: Option<String>,
    raw: Option<String>,
    url: Option<String>,
    data: Option<Value>,
    metadata: Option<Map<String, Value>>,
    filename: Option<String>,
    #[serde(alias = "media_type")]
    media_type: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct GetTaskRequest {
    id: Option<String>,
    name: Option<String>,
    #[serde(alias = "history_length")]
    history_length: Option<i64>,
}

#[derive(Deserialize)]
struct IdRequest {
    id: Option<String>,
    name: Option<String>,
}

/// The task a request names: its `id`, or else, as drafts of 1.0 wrote it (and the A2A TCK
/// still sends it), a resource `name` of the form `tasks/{id}`.
fn task_id(id: Option<String>, name: Option<String>) -> Result<String, WireError> {
    if let Some(id) = id {
        return Ok(id);
    }
    match name {
        None => Err(WireError::new("params.id", "missing")),
        Some(name) => match name.strip_prefix("tasks/") {
            Some(id) if !id.is_empty() && !id.contains('/') => Ok(id.to_owned()),
            _ => Err(WireError::new(
                "params.name",
                "expected tasks/{id} (or give params.id)",
            )),
        },
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ListTasksRequest {
    #[serde(alias = "context_id")]
    context_id: Option<String>,
    status: Option<String>,
    #[serde(alias = "page_size")]
    page_size: Option<i64>,
    #[serde(alias = "page_token")]
    page_token: Option<String>,
    #[serde(alias = "history_length")]
    history_length: Option<i64>,
    #[serde(alias = "status_timestamp_after")]
    status_timestamp_after: Option<String>,
    #[serde(alias = "include_artifacts")]
    include_artifacts: Option<bool>,
}

/// Decodes `SendMessage` / `SendStreamingMessage` params (a `SendMessageRequest`).
///
/// # Errors
///
/// A [`WireError`] naming the first missing, ill-typed or malformed member.
///
/// # Example
///
/// ```
/// # #[cfg(feature = "unstable-internals")] {
/// use a2ui_agent::a2a::v1_0::decode_send_params;
/// use serde_json::json;
///
/// let params = json!({"message": {"messageId": "m", "role": "ROLE_USER",
///     "parts": [{"text": "hi"}, {"mediaType": "text/plain"}]}});
/// let error = decode_send_params(Some(&params)).unwrap_err();
/// assert_eq!(
///     error.to_string(),
///     "params.message.parts[1]: expected exactly one of text, raw, url, data"
/// );
/// # }
/// ```
pub fn decode_send_params(params: Option<&Value>) -> Result<SendRequest, WireError> {
    send_request(parse(params, "params")?)
}

/// Decodes `SendMessage` params given as JSON text straight into the wire structs, without a
/// `Value` tree: `None` when the text does not read that way (the caller then decodes it with
/// [`decode_send_params`], which names the member at fault); else what
/// [`decode_send_params`] gives for the same params.
#[cfg(feature = "server")]
pub(crate) fn decode_send_json(json: &str) -> Option<Result<SendRequest, WireError>> {
    let request = serde_json::from_str::<Option<SendMessageRequest>>(json).ok()??;
    Some(send_request(request))
}

fn send_request(request: SendMessageRequest) -> Result<SendRequest, WireError> {
    let message = request
        .message
        .ok_or_else(|| WireError::new("params.message", "missing"))?;
    let message = decode_message(message, "params.message")?;
    let configuration = match request.configuration {
        None => SendConfiguration::default(),
        Some(config) => SendConfiguration {
            blocking: !config.return_immediately.unwrap_or(false),
            history_length: count(config.history_length, "params.configuration.historyLength")?,
            accepted_output_modes: config.accepted_output_modes,
            push_notification_config: config
                .task_push_notification_config
                .map(|config| {
                    super::push_config_json::config_request(
                        config,
                        "params.configuration.taskPushNotificationConfig",
                    )
                })
                .transpose()?
                .map(|request| request.config),
        },
    };
    Ok(SendRequest {
        message,
        configuration,
        metadata: request.metadata,
    })
}

/// Decodes `GetTask` params.
///
/// # Errors
///
/// A [`WireError`] naming the first missing or ill-typed member.
pub fn decode_query_params(params: Option<&Value>) -> Result<TaskQuery, WireError> {
    let request: GetTaskRequest = parse(params, "params")?;
    Ok(TaskQuery {
        id: task_id(request.id, request.name)?,
        history_length: count(request.history_length, "params.historyLength")?,
    })
}

/// Decodes `CancelTask` / `SubscribeToTask` params: the task's id.
///
/// # Errors
///
/// A [`WireError`] naming the first missing or ill-typed member.
pub fn decode_id_params(params: Option<&Value>) -> Result<String, WireError> {
    let request: IdRequest = parse(params, "params")?;
    task_id(request.id, request.name)
}

/// Decodes `ListTasks` params; absent params list everything. A page size over
/// [`TaskListQuery::MAX_PAGE_SIZE`] is lowered to it; 0 means the default.
///
/// # Errors
///
/// A [`WireError`] naming the first ill-typed member, a negative count or an unknown state.
pub fn decode_list_params(params: Option<&Value>) -> Result<TaskListQuery, WireError> {
    let empty = Value::Object(Map::new());
    let params = match params {
        None | Some(Value::Null) => &empty,
        Some(params) => params,
    };
    let request: ListTasksRequest = parse(Some(params), "params")?;
    // `@a2a-js/sdk` 1.3 (ts-proto) writes an unset state filter as "UNRECOGNIZED".
    let state =
        match request.status.as_deref() {
            None | Some("" | "TASK_STATE_UNSPECIFIED" | "UNRECOGNIZED") => None,
            Some(name) => Some(state_from_name(name).ok_or_else(|| {
                WireError::new("params.status", format!("unknown state {name:?}"))
            })?),
        };
    let page_size = match count(request.page_size, "params.pageSize")? {
        None | Some(0) => TaskListQuery::DEFAULT_PAGE_SIZE,
        Some(size) => size.min(TaskListQuery::MAX_PAGE_SIZE),
    };
    Ok(TaskListQuery {
        context_id: request.context_id.filter(|id| !id.is_empty()),
        state,
        status_timestamp_after: request.status_timestamp_after.filter(|t| !t.is_empty()),
        page_size,
        page_token: request.page_token.filter(|token| !token.is_empty()),
        history_length: count(request.history_length, "params.historyLength")?,
        include_artifacts: request.include_artifacts.unwrap_or(false),
    })
}

/// The state named `name` in 1.0 (`TASK_STATE_WORKING`, ...).
pub(super) fn state_from_name(name: &str) -> Option<TaskState> {
    TaskState::ALL
        .into_iter()
        .find(|state| super::encode::state_name(*state) == name)
        .filter(|state| *state != TaskState::Unknown)
}

fn count(value: Option<i64>, path: &str) -> Result<Option<usize>, WireError> {
    match value {
        None => Ok(None),
        Some(count) => usize::try_from(count)
            .map(Some)
            .map_err(|_| WireError::new(path, "expected a non-negative integer")),
    }
}

fn decode_message(message: WireMessage, path: &str) -> Result<Message, WireError> {
    let missing = |member: &str| WireError::new(format!("{path}.{member}"), "missing");
    let role = match message.role.ok_or_else(|| missing("role"))? {
        WireRole::User => Role::User,
        WireRole::Agent => Role::Agent,
        WireRole::Unspecified => {
            return Err(WireError::new(
                format!("{path}.role"),
                "expected ROLE_USER or ROLE_AGENT",
            ));
        }
    };
    let message_id = message
        .message_id
        .filter(|id| !id.is_empty())
        .ok_or_else(|| missing("messageId"))?;
    let parts = message.parts.ok_or_else(|| missing("parts"))?;
    if parts.is_empty() {
        return Err(WireError::new(
            format!("{path}.parts"),
            "expected at least one part",
        ));
    }
    let parts = parts
        .into_iter()
        .enumerate()
        .map(|(index, part)| decode_part(part, &format!("{path}.parts[{index}]")))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Message {
        message_id,
        role,
        parts,
        context_id: message.context_id.filter(|id| !id.is_empty()),
        task_id: message.task_id.filter(|id| !id.is_empty()),
        reference_task_ids: message.reference_task_ids.unwrap_or_default(),
        extensions: message.extensions.unwrap_or_default(),
        metadata: message.metadata,
    })
}

fn decode_part(part: WirePart, path: &str) -> Result<Part, WireError> {
    let WirePart {
        text,
        raw,
        url,
        data,
        mut metadata,
        filename,
        media_type,
    } = part;
    let file = |body| Part::File {
        file: FileContent {
            body,
            mime_type: media_type.clone(),
            name: filename.clone(),
        },
        metadata: metadata.clone().map(Arc::new),
    };
    match (text, raw, url, data) {
        (Some(text), None, None, None) => Ok(Part::Text {
            text,
            metadata: metadata.map(Arc::new),
        }),
        (None, Some(raw), None, None) => Ok(file(FileBody::Bytes(raw))),
        (None, None, Some(url), None) => Ok(file(FileBody::Uri(url))),
        (None, None, None, Some(data)) => {
            let data = match data {
                Value::Object(data) => data,
                // The A2UI extension specifications (v0.9 on) write a DataPart's `data` as
                // an array of messages; the model keeps objects, so the list is held as
                // `{"messages": [...]}`, an envelope the readers of A2UI parts accept.
                Value::Array(items) if items.iter().all(Value::is_object) => {
                    let mut data = Map::new();
                    data.insert("messages".into(), Value::Array(items));
                    data
                }
                _ => {
                    return Err(WireError::new(
                        format!("{path}.data"),
                        "expected an object, or an array of objects (A2UI messages)",
                    ));
                }
            };
            if let Some(media_type) = media_type {
                let metadata = metadata.get_or_insert_with(Map::new);
                if !metadata.contains_key("mimeType") {
                    metadata.insert("mimeType".into(), Value::String(media_type));
                }
            }
            Ok(Part::Data {
                data: Arc::new(data),
                metadata: metadata.map(Arc::new),
            })
        }
        _ => Err(WireError::new(
            path,
            "expected exactly one of text, raw, url, data",
        )),
    }
}

#[cfg(test)]
mod tests;
