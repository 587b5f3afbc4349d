//! Push notification configs in ProtoJSON: `TaskPushNotificationConfig` and the requests
//! that name one.
//!
//! A config is flat in 1.0 (`{taskId, id, url, token, authentication: {scheme,
//! credentials}}`); drafts nested it under `pushNotificationConfig`, which is read too. Both
//! the lowerCamelCase names and the proto field names (`task_id`) are read.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::wire_error::{WireError, parse};
use crate::a2a::wire_value as to_value;
use crate::a2a::{
    PushAuthentication, PushConfig, PushConfigQuery, PushConfigRequest, PushProtocol,
};

/// A `TaskPushNotificationConfig` as sent.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct WireConfig {
    id: Option<String>,
    #[serde(alias = "task_id")]
    task_id: Option<String>,
    url: Option<String>,
    token: Option<String>,
    authentication: Option<WireAuthentication>,
    #[serde(alias = "push_notification_config")]
    push_notification_config: Option<Box<WireConfig>>,
}

#[derive(Deserialize)]
struct WireAuthentication {
    scheme: Option<String>,
    /// 0.3's spelling, which transitional clients send.
    schemes: Option<Vec<String>>,
    credentials: Option<String>,
}

/// `config`, found at `path`, as the model; the task id is empty when not given.
pub(super) fn config_request(
    config: WireConfig,
    path: &str,
) -> Result<PushConfigRequest, WireError> {
    let task_id = config.task_id.unwrap_or_default();
    let (inner, path) = match config.push_notification_config {
        Some(inner) => (*inner, format!("{path}.pushNotificationConfig")),
        None => (
            WireConfig {
                push_notification_config: None,
                task_id: None,
                ..config
            },
            path.to_owned(),
        ),
    };
    let url = inner
        .url
        .filter(|url| !url.is_empty())
        .ok_or_else(|| WireError::new(format!("{path}.url"), "missing"))?;
    let authentication = inner.authentication.map(|auth| {
        let mut schemes = auth.schemes.unwrap_or_default();
        if let Some(scheme) = auth.scheme.filter(|scheme| !scheme.is_empty()) {
            schemes.insert(0, scheme);
        }
        PushAuthentication {
            schemes,
            credentials: auth.credentials.filter(|c| !c.is_empty()),
        }
    });
    Ok(PushConfigRequest {
        task_id,
        config: PushConfig {
            id: inner.id.unwrap_or_default(),
            url,
            token: inner.token.filter(|token| !token.is_empty()),
            authentication,
            protocol: PushProtocol::V1_0,
        },
    })
}

/// Decodes `CreateTaskPushNotificationConfig` params (a `TaskPushNotificationConfig`), or a
/// REST body, whose task id `path_task` the route gives.
///
/// # Errors
///
/// A [`WireError`] naming the first missing or ill-typed member.
///
/// # Example
///
/// ```
/// # #[cfg(feature = "unstable-internals")] {
/// use a2ui_agent::a2a::v1_0::decode_push_config_params;
/// use serde_json::json;
///
/// let params = json!({"taskId": "t", "url": "https://hook.example/a2a",
///     "authentication": {"scheme": "Bearer", "credentials": "s3cret"}});
/// let request = decode_push_config_params(Some(&params), None).unwrap();
/// assert_eq!(request.config.authorization().as_deref(), Some("Bearer s3cret"));
/// # }
/// ```
pub fn decode_push_config_params(
    params: Option<&Value>,
    path_task: Option<&str>,
) -> Result<PushConfigRequest, WireError> {
    let mut request = config_request(parse(params, "params")?, "params")?;
    if let Some(task) = path_task {
        request.task_id = task.to_owned();
    }
    if request.task_id.is_empty() {
        return Err(WireError::new("params.taskId", "missing"));
    }
    Ok(request)
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ConfigIdRequest {
    #[serde(alias = "task_id")]
    task_id: Option<String>,
    id: Option<String>,
    /// Drafts: `tasks/{task}/pushNotificationConfigs/{id}`.
    name: Option<String>,
}

/// Decodes `GetTaskPushNotificationConfig` / `DeleteTaskPushNotificationConfig` params.
///
/// # Errors
///
/// A [`WireError`] naming the first missing or ill-typed member.
pub fn decode_push_config_query(params: Option<&Value>) -> Result<PushConfigQuery, WireError> {
    let request: ConfigIdRequest = parse(params, "params")?;
    if let (None, Some(name)) = (&request.task_id, &request.name) {
        let parts: Vec<&str> = name.split('/').collect();
        return match parts.as_slice() {
            ["tasks", task, "pushNotificationConfigs", id]
                if !task.is_empty() && !id.is_empty() =>
            {
                Ok(PushConfigQuery {
                    task_id: (*task).to_owned(),
                    config_id: Some((*id).to_owned()),
                })
            }
            _ => Err(WireError::new(
                "params.name",
                "expected tasks/{taskId}/pushNotificationConfigs/{id}",
            )),
        };
    }
    let task_id = request
        .task_id
        .filter(|id| !id.is_empty())
        .ok_or_else(|| WireError::new("params.taskId", "missing"))?;
    let config_id = request
        .id
        .filter(|id| !id.is_empty())
        .ok_or_else(|| WireError::new("params.id", "missing"))?;
    Ok(PushConfigQuery {
        task_id,
        config_id: Some(config_id),
    })
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ListRequest {
    #[serde(alias = "task_id")]
    task_id: Option<String>,
    #[serde(alias = "page_size")]
    page_size: Option<i64>,
    #[serde(alias = "page_token")]
    page_token: Option<String>,
}

/// A `ListTaskPushNotificationConfigs` request: the task and the page asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PushListQuery {
    /// The task.
    pub task_id: String,
    /// The most configs on the page (`None`: all).
    pub page_size: Option<usize>,
    /// Where the page starts: the `nextPageToken` of the previous page.
    pub page_token: Option<String>,
}

/// Decodes `ListTaskPushNotificationConfigs` params; `path_task` is the REST route's task.
///
/// # Errors
///
/// A [`WireError`] naming the first missing or ill-typed member.
pub fn decode_push_list_params(
    params: Option<&Value>,
    path_task: Option<&str>,
) -> Result<PushListQuery, WireError> {
    let empty = Value::Object(serde_json::Map::new());
    let params = params.filter(|params| !params.is_null()).unwrap_or(&empty);
    let request: ListRequest = parse(Some(params), "params")?;
    let task_id = path_task
        .map(str::to_owned)
        .or(request.task_id)
        .filter(|id| !id.is_empty())
        .ok_or_else(|| WireError::new("params.taskId", "missing"))?;
    let page_size =
        match request.page_size {
            None | Some(0) => None,
            Some(size) => Some(usize::try_from(size).map_err(|_| {
                WireError::new("params.pageSize", "expected a non-negative integer")
            })?),
        };
    Ok(PushListQuery {
        task_id,
        page_size,
        page_token: request.page_token.filter(|token| !token.is_empty()),
    })
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct WireConfigOut<'a> {
    id: &'a str,
    task_id: &'a str,
    url: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    token: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    authentication: Option<WireAuthenticationOut<'a>>,
}

#[derive(Serialize)]
struct WireAuthenticationOut<'a> {
    scheme: &'a str,
}

fn config_out<'a>(task_id: &'a str, config: &'a PushConfig) -> WireConfigOut<'a> {
    WireConfigOut {
        id: &config.id,
        task_id,
        url: &config.url,
        token: config.token.as_deref(),
        authentication: config
            .authentication
            .as_ref()
            .map(|auth| WireAuthenticationOut {
                scheme: auth.schemes.first().map_or("", String::as_str),
            }),
    }
}

/// Encodes `config` of task `task_id` as a `TaskPushNotificationConfig`, without its
/// credentials (optional in 1.0's `AuthenticationInfo`): they are the server's to send to
/// the webhook, not to show.
pub fn encode_push_config(task_id: &str, config: &PushConfig) -> Value {
    to_value(config_out(task_id, config))
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct WireList<'a> {
    configs: Vec<WireConfigOut<'a>>,
    next_page_token: &'a str,
}

/// Encodes one page of task `task_id`'s configs as a `ListTaskPushNotificationConfigsResponse`.
pub fn encode_push_list(task_id: &str, configs: &[PushConfig], next_page_token: &str) -> Value {
    to_value(WireList {
        configs: configs
            .iter()
            .map(|config| config_out(task_id, config))
            .collect(),
        next_page_token,
    })
}

/// Encodes `request` as `CreateTaskPushNotificationConfig` params (a
/// `TaskPushNotificationConfig`), credentials included: a client sends them for the server to
/// present to the webhook. An empty config id is left out for the server to choose.
#[cfg(any(feature = "client", feature = "unstable-internals"))]
pub fn encode_push_config_request(request: &PushConfigRequest) -> Value {
    let config = &request.config;
    let mut value = serde_json::json!({"taskId": request.task_id, "url": config.url});
    if !config.id.is_empty() {
        value["id"] = Value::from(config.id.as_str());
    }
    if let Some(token) = &config.token {
        value["token"] = Value::from(token.as_str());
    }
    if let Some(auth) = &config.authentication {
        let mut info = serde_json::json!({
            "scheme": auth.schemes.first().map_or("", String::as_str)
        });
        if let Some(credentials) = &auth.credentials {
            info["credentials"] = Value::from(credentials.as_str());
        }
        value["authentication"] = info;
    }
    value
}

/// Decodes a `TaskPushNotificationConfig` answer (`path` names it in errors): the task it
/// belongs to (empty when not given) and the config.
///
/// # Errors
///
/// A [`WireError`] naming the first missing or ill-typed member.
#[cfg(any(feature = "client", feature = "unstable-internals"))]
pub fn decode_push_config(value: &Value, path: &str) -> Result<PushConfigRequest, WireError> {
    config_request(parse(Some(value), path)?, path)
}

#[cfg(any(feature = "client", feature = "unstable-internals"))]
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct WireListAnswer {
    #[serde(default)]
    configs: Vec<Value>,
    #[serde(default, alias = "next_page_token")]
    next_page_token: Option<String>,
}

/// Decodes a `ListTaskPushNotificationConfigsResponse`: one page of configs and the token of
/// the next (empty on the last page).
///
/// # Errors
///
/// A [`WireError`] naming the first missing or ill-typed member.
#[cfg(any(feature = "client", feature = "unstable-internals"))]
pub fn decode_push_list(value: &Value) -> Result<(Vec<PushConfig>, String), WireError> {
    let page: WireListAnswer = parse(Some(value), "result")?;
    let configs = page
        .configs
        .iter()
        .enumerate()
        .map(|(index, config)| {
            decode_push_config(config, &format!("result.configs[{index}]"))
                .map(|request| request.config)
        })
        .collect::<Result<_, _>>()?;
    Ok((configs, page.next_page_token.unwrap_or_default()))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_config_round_trips_without_its_credentials_and_the_proto_names_are_read() {
        let params = json!({"task_id": "t", "id": "c", "url": "https://h/x", "token": "k",
            "authentication": {"scheme": "Bearer", "credentials": "s"}});
        let request = decode_push_config_params(Some(&params), None).unwrap();
        let auth = request.config.authentication.as_ref().unwrap();
        assert_eq!(auth.credentials.as_deref(), Some("s"));
        assert_eq!(
            encode_push_config(&request.task_id, &request.config),
            json!({"id": "c", "taskId": "t", "url": "https://h/x", "token": "k",
                "authentication": {"scheme": "Bearer"}})
        );
    }

    #[test]
    fn a_nested_draft_config_is_read_and_a_missing_url_is_named() {
        let params = json!({"taskId": "t", "pushNotificationConfig": {"url": "https://h"}});
        let request = decode_push_config_params(Some(&params), None).unwrap();
        assert_eq!(request.config.url, "https://h");
        let error = decode_push_config_params(Some(&json!({"taskId": "t"})), None).unwrap_err();
        assert_eq!(error.to_string(), "params.url: missing");
        let error =
            decode_push_config_params(Some(&json!({"url": "https://h"})), None).unwrap_err();
        assert_eq!(error.to_string(), "params.taskId: missing");
    }

    #[test]
    fn get_and_delete_name_the_task_and_config() {
        let query = decode_push_config_query(Some(&json!({"task_id": "t", "id": "c"}))).unwrap();
        assert_eq!(
            (query.task_id.as_str(), query.config_id.as_deref()),
            ("t", Some("c"))
        );
        let query =
            decode_push_config_query(Some(&json!({"name": "tasks/t/pushNotificationConfigs/c"})))
                .unwrap();
        assert_eq!(query.config_id.as_deref(), Some("c"));
        assert!(decode_push_config_query(Some(&json!({"taskId": "t"}))).is_err());
    }
}
