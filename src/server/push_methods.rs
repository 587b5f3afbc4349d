//! The push notification config operations both bindings and both versions share: set
//! (create), get, list, delete, and the config given inline with a send.
//!
//! Each is scoped to the caller like every task operation: another caller's task answers
//! exactly as a missing one (the store never finds it). A config is checked before it is
//! kept: its URL by the SSRF guard ([`crate::push::guard`]), resolved now, with a reason the
//! caller can act on; its id, token and credentials for length and for what an HTTP header
//! may hold. With push off every operation answers `PushNotificationNotSupportedError`.

use std::time::Duration;

use super::ServerState;
use super::error::ApiError;
use crate::a2a::jsonrpc::{ErrorCode, RpcError};
use crate::a2a::v1_0::PushListQuery;
use crate::a2a::{PushConfig, PushConfigQuery, PushConfigRequest, PushProtocol, SendRequest};
use crate::push::Pusher;
use crate::store::{Owner, PushConfigPut};
use crate::task::TaskError;

/// How long setting a config waits for its host's DNS answer.
const RESOLVE_TIMEOUT: Duration = Duration::from_secs(3);
/// The longest config id taken.
const MAX_ID_LEN: usize = 256;
/// The longest token or credentials taken.
const MAX_SECRET_LEN: usize = 4096;

fn pusher(state: &ServerState) -> Result<&Pusher, ApiError> {
    state.push.as_ref().ok_or_else(push_not_supported)
}

/// `PushNotificationNotSupportedError` unless push is on: checked before a request is
/// decoded, as spec §3.3.4 asks of every push operation.
pub(crate) fn enabled(state: &ServerState) -> Result<(), ApiError> {
    pusher(state).map(drop)
}

fn invalid(message: String) -> ApiError {
    RpcError::new(
        ErrorCode::InvalidParams,
        format!("Invalid params: {message}"),
    )
    .into()
}

/// Checks `config` and gives it an id when it has none: a new one in 1.0; in 0.3 the id of
/// its task (`task_id`; when not known yet, the task's start gives it), the config a get
/// without a config id reads, as the 0.3 SDKs do.
async fn check(
    state: &ServerState,
    config: &mut PushConfig,
    task_id: Option<&str>,
) -> Result<(), ApiError> {
    let pusher = pusher(state)?;
    if config.id.is_empty() {
        match (config.protocol, task_id) {
            (PushProtocol::V0_3, Some(task_id)) => config.id = task_id.to_owned(),
            (PushProtocol::V0_3, None) => {}
            (PushProtocol::V1_0, _) => config.id = state.tasks.ids.new_id(),
        }
    }
    if config.id.len() > MAX_ID_LEN || config.id.contains('/') {
        return Err(invalid(format!(
            "a push notification config id is at most {MAX_ID_LEN} bytes, without '/'"
        )));
    }
    let header_safe = |text: &str| {
        text.len() <= MAX_SECRET_LEN && text.bytes().all(|byte| (0x20..0x7f).contains(&byte))
    };
    if let Some(token) = &config.token
        && !header_safe(token)
    {
        return Err(invalid(format!(
            "the push notification token must be at most {MAX_SECRET_LEN} printable \
                 ASCII characters (it is sent as an HTTP header)"
        )));
    }
    if let Some(auth) = &config.authentication {
        let scheme_ok = auth.schemes.first().is_some_and(|scheme| {
            !scheme.is_empty()
                && scheme
                    .bytes()
                    .all(|byte| byte.is_ascii_alphanumeric() || b"-._~+/".contains(&byte))
        });
        let credentials_ok = auth.credentials.as_deref().is_none_or(header_safe);
        if !scheme_ok || !credentials_ok {
            return Err(invalid(format!(
                "push notification authentication needs a scheme (Bearer, Basic, ...) and \
                 credentials of at most {MAX_SECRET_LEN} printable ASCII characters"
            )));
        }
    }
    pusher
        .policy()
        .check_now(&config.url, RESOLVE_TIMEOUT)
        .await
        .map_err(|refusal| invalid(format!("push notification config refused: {refusal}")))
}

/// Takes the config given inline with `send`, checked, to set on the task when it starts.
pub(crate) async fn inline(
    state: &ServerState,
    send: &mut SendRequest,
) -> Result<Option<PushConfig>, ApiError> {
    let Some(mut config) = send.configuration.push_notification_config.take() else {
        return Ok(None);
    };
    check(state, &mut config, None).await?;
    Ok(Some(config))
}

/// Sets (creates or replaces) a config on `owner`'s task: the config as kept.
pub(crate) async fn set(
    state: &ServerState,
    owner: &Owner,
    request: PushConfigRequest,
) -> Result<PushConfig, ApiError> {
    let PushConfigRequest {
        task_id,
        mut config,
    } = request;
    check(state, &mut config, Some(&task_id)).await?;
    let max = pusher(state)?.settings().max_configs_per_task;
    let put = state
        .tasks
        .store
        .put_push_config(owner, &task_id, config.clone(), max)
        .await
        .map_err(TaskError::from)?;
    match put {
        PushConfigPut::Kept => {
            state.tasks.push_on(owner, &task_id);
            pusher(state)?.configs_changed(owner, &task_id);
            Ok(config)
        }
        PushConfigPut::Full => Err(TaskError::TooManyPushConfigs { id: task_id, max }.into()),
        PushConfigPut::NoTask => Err(TaskError::NotFound { id: task_id }.into()),
    }
}

/// The configs of `owner`'s task `task_id`, in the order set.
pub(crate) async fn list(
    state: &ServerState,
    owner: &Owner,
    task_id: &str,
) -> Result<Vec<PushConfig>, ApiError> {
    pusher(state)?;
    state
        .tasks
        .store
        .push_configs(owner, task_id)
        .await
        .map_err(TaskError::from)?
        .ok_or_else(|| {
            TaskError::NotFound {
                id: task_id.to_owned(),
            }
            .into()
        })
}

/// One page of the configs of the task `query` names (1.0 `ListTaskPushNotificationConfigs`),
/// and the next page's token (empty on the last). A token is the index the page starts at.
pub(crate) async fn page(
    state: &ServerState,
    owner: &Owner,
    query: &PushListQuery,
) -> Result<(Vec<PushConfig>, String), ApiError> {
    let configs = list(state, owner, &query.task_id).await?;
    let start = match &query.page_token {
        None => 0,
        Some(token) => token
            .parse::<usize>()
            .ok()
            .filter(|start| *start <= configs.len())
            .ok_or_else(|| invalid("params.pageToken: not a token this server wrote".into()))?,
    };
    let size = query.page_size.unwrap_or(usize::MAX).max(1);
    let end = start.saturating_add(size).min(configs.len());
    let next = if end < configs.len() {
        end.to_string()
    } else {
        String::new()
    };
    let page = configs.into_iter().skip(start).take(end - start).collect();
    Ok((page, next))
}

/// The config `query` names; with no config id (0.3), the one whose id is the task's, else
/// the first set.
pub(crate) async fn get(
    state: &ServerState,
    owner: &Owner,
    query: &PushConfigQuery,
) -> Result<PushConfig, ApiError> {
    let configs = list(state, owner, &query.task_id).await?;
    let wanted = query.config_id.as_deref().unwrap_or(&query.task_id);
    let found = match configs.iter().position(|config| config.id == wanted) {
        Some(index) => Some(index),
        None if query.config_id.is_none() => (!configs.is_empty()).then_some(0),
        None => None,
    };
    found
        .and_then(|index| configs.into_iter().nth(index))
        .ok_or_else(|| config_not_found(&query.task_id, wanted))
}

/// Deletes the config `query` names; deleting one that is not there is no error (the
/// operation is idempotent), but the task must be the caller's.
pub(crate) async fn delete(
    state: &ServerState,
    owner: &Owner,
    query: &PushConfigQuery,
) -> Result<(), ApiError> {
    let pusher = pusher(state)?;
    let config_id = query.config_id.as_deref().unwrap_or(&query.task_id);
    let deleted = state
        .tasks
        .store
        .delete_push_config(owner, &query.task_id, config_id)
        .await
        .map_err(TaskError::from)?;
    if deleted == Some(true) {
        pusher.configs_changed(owner, &query.task_id);
    }
    deleted.map(drop).ok_or_else(|| {
        TaskError::NotFound {
            id: query.task_id.clone(),
        }
        .into()
    })
}

/// A config the task does not have: `TaskNotFoundError`, as spec §3.1.8 says.
fn config_not_found(task_id: &str, config_id: &str) -> ApiError {
    let shown: String = config_id.chars().take(64).collect();
    RpcError::new(
        ErrorCode::TaskNotFound,
        format!("Task not found: task {task_id} has no push notification config {shown:?}"),
    )
    .with_data(serde_json::json!({"taskId": task_id}))
    .into()
}

/// `PushNotificationNotSupportedError`: push is off.
pub(crate) fn push_not_supported() -> ApiError {
    RpcError::new(
        ErrorCode::PushNotificationNotSupported,
        "Push notifications are not supported",
    )
    .into()
}
