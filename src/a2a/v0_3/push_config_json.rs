//! Push notification configs in 0.3 JSON: `TaskPushNotificationConfig` (`{taskId,
//! pushNotificationConfig: {id, url, token, authentication: {schemes, credentials}}}`) and
//! the params of `tasks/pushNotificationConfig/{get,list,delete}`.

use serde::Serialize;
use serde_json::Value;

use super::object_reader::{Obj, Problem, WireError};
use crate::a2a::wire_value as to_value;
use crate::a2a::{
    PushAuthentication, PushConfig, PushConfigQuery, PushConfigRequest, PushProtocol,
};

/// Decodes a `PushNotificationConfig` found at `path` (its id empty when not given).
///
/// # Errors
///
/// A [`WireError`] naming the first missing or ill-typed member.
pub fn decode_push_config(value: &Value, path: &str) -> Result<PushConfig, WireError> {
    let config = Obj::new(value, path.to_owned())?;
    let url = config.req_str("url")?;
    if url.is_empty() {
        return Err(config.error("url", Problem::Missing));
    }
    let authentication = match config.opt("authentication") {
        None => None,
        Some(value) => {
            let auth = Obj::new(value, config.path_of("authentication"))?;
            Some(PushAuthentication {
                schemes: auth.opt_strings("schemes")?.unwrap_or_default(),
                credentials: auth
                    .opt_str("credentials")?
                    .filter(|c| !c.is_empty())
                    .map(str::to_owned),
            })
        }
    };
    Ok(PushConfig {
        id: config.opt_str("id")?.unwrap_or_default().to_owned(),
        url: url.to_owned(),
        token: config
            .opt_str("token")?
            .filter(|token| !token.is_empty())
            .map(str::to_owned),
        authentication,
        protocol: PushProtocol::V0_3,
    })
}

/// Decodes `tasks/pushNotificationConfig/set` params (a `TaskPushNotificationConfig`).
///
/// # Errors
///
/// A [`WireError`] naming the first missing or ill-typed member.
///
/// # Example
///
/// ```
/// # #[cfg(feature = "unstable-internals")] {
/// use a2ui_agent::a2a::v0_3::decode_push_set_params;
/// use serde_json::json;
///
/// let params = json!({"taskId": "t", "pushNotificationConfig": {"url": ""}});
/// let error = decode_push_set_params(Some(&params)).unwrap_err();
/// assert_eq!(error.to_string(), "params.pushNotificationConfig.url: missing");
/// # }
/// ```
pub fn decode_push_set_params(params: Option<&Value>) -> Result<PushConfigRequest, WireError> {
    let params = Obj::root(params, "params")?;
    Ok(PushConfigRequest {
        task_id: params.req_str("taskId")?.to_owned(),
        config: decode_push_config(
            params.req("pushNotificationConfig")?,
            &params.path_of("pushNotificationConfig"),
        )?,
    })
}

/// Decodes `tasks/pushNotificationConfig/{get,list,delete}` params: the task (`id`) and,
/// for get and delete, the config (`pushNotificationConfigId`; get may leave it out).
///
/// # Errors
///
/// A [`WireError`] naming the first missing or ill-typed member.
pub fn decode_push_query_params(params: Option<&Value>) -> Result<PushConfigQuery, WireError> {
    let params = Obj::root(params, "params")?;
    Ok(PushConfigQuery {
        task_id: params.req_str("id")?.to_owned(),
        config_id: params
            .opt_str("pushNotificationConfigId")?
            .filter(|id| !id.is_empty())
            .map(str::to_owned),
    })
}

/// Encodes `request` as `tasks/pushNotificationConfig/set` params, credentials included: a
/// client sends them for the server to present to the webhook. An empty config id is left
/// out for the server to choose.
#[cfg(any(feature = "client", feature = "unstable-internals"))]
pub fn encode_push_set_params(request: &PushConfigRequest) -> Value {
    let config = &request.config;
    let mut inner = serde_json::json!({"url": config.url});
    if !config.id.is_empty() {
        inner["id"] = Value::from(config.id.as_str());
    }
    if let Some(token) = &config.token {
        inner["token"] = Value::from(token.as_str());
    }
    if let Some(auth) = &config.authentication {
        let mut info = serde_json::json!({"schemes": auth.schemes});
        if let Some(credentials) = &auth.credentials {
            info["credentials"] = Value::from(credentials.as_str());
        }
        inner["authentication"] = info;
    }
    serde_json::json!({"taskId": request.task_id, "pushNotificationConfig": inner})
}

/// Decodes a `TaskPushNotificationConfig` answer found at `path`.
///
/// # Errors
///
/// A [`WireError`] naming the first missing or ill-typed member.
#[cfg(any(feature = "client", feature = "unstable-internals"))]
pub fn decode_task_push_config(value: &Value, path: &str) -> Result<PushConfigRequest, WireError> {
    let answer = Obj::new(value, path.to_owned())?;
    Ok(PushConfigRequest {
        task_id: answer.opt_str("taskId")?.unwrap_or_default().to_owned(),
        config: decode_push_config(
            answer.req("pushNotificationConfig")?,
            &answer.path_of("pushNotificationConfig"),
        )?,
    })
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct WireTaskConfig<'a> {
    task_id: &'a str,
    push_notification_config: WireConfig<'a>,
}

#[derive(Serialize)]
struct WireConfig<'a> {
    id: &'a str,
    url: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    token: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    authentication: Option<WireAuthentication<'a>>,
}

#[derive(Serialize)]
struct WireAuthentication<'a> {
    schemes: &'a [String],
}

/// Encodes `config` of task `task_id` as a `TaskPushNotificationConfig`, without its
/// credentials (optional in 0.3's `PushNotificationAuthenticationInfo`): they are the
/// server's to send to the webhook, not to show.
pub fn encode_push_config(task_id: &str, config: &PushConfig) -> Value {
    to_value(WireTaskConfig {
        task_id,
        push_notification_config: WireConfig {
            id: &config.id,
            url: &config.url,
            token: config.token.as_deref(),
            authentication: config
                .authentication
                .as_ref()
                .map(|auth| WireAuthentication {
                    schemes: &auth.schemes,
                }),
        },
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_set_request_round_trips_without_its_credentials() {
        let params = json!({"taskId": "t", "pushNotificationConfig": {"id": "c",
            "url": "https://h/x", "token": "k",
            "authentication": {"schemes": ["Bearer"], "credentials": "s"}}});
        let request = decode_push_set_params(Some(&params)).unwrap();
        assert_eq!(request.config.protocol, PushProtocol::V0_3);
        let auth = request.config.authentication.as_ref().unwrap();
        assert_eq!(auth.credentials.as_deref(), Some("s"));
        let mut shown = params;
        shown["pushNotificationConfig"]["authentication"]
            .as_object_mut()
            .unwrap()
            .remove("credentials");
        assert_eq!(
            encode_push_config(&request.task_id, &request.config),
            shown
        );
    }

    #[test]
    fn get_may_leave_the_config_id_out() {
        let query = decode_push_query_params(Some(&json!({"id": "t"}))).unwrap();
        assert_eq!((query.task_id.as_str(), query.config_id), ("t", None));
        let error = decode_push_query_params(Some(&json!({"pushNotificationConfigId": "c"})));
        assert_eq!(error.unwrap_err().to_string(), "params.id: missing");
    }
}
