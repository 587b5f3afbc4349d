//! The push notification config methods of [`Client`]: register a webhook for a task, read
//! it back, list a task's webhooks, remove one, over whichever interface the client speaks.
//!
//! A client that cannot keep a stream open asks the agent to POST the task's updates to a
//! webhook of its own (see [`WebhookReceiver`](super::WebhookReceiver) for the receiving
//! side). The config goes out through the interface's codec (0.3 `TaskPushNotificationConfig`
//! with `schemes`, 1.0 flat with one `scheme`), credentials included; the agent answers it
//! without them, so the configs read back carry none.

use serde_json::{Value, json};

use super::calls::Client;
use super::error::ClientError;
use super::transport::{Operation, Transport};
use crate::a2a::{PushConfig, PushConfigRequest, PushProtocol, v0_3, v1_0};

/// The most pages [`Client::list_push_configs`] follows, so an agent that always answers a
/// next page token cannot keep the client listing forever.
const MAX_PAGES: usize = 100;

impl Client {
    /// Registers `config` as a webhook of task `task_id` (0.3
    /// `tasks/pushNotificationConfig/set`, 1.0 `CreateTaskPushNotificationConfig`); answers
    /// the config as the agent stored it (its id chosen by the agent when `config.id` is
    /// empty; without the credentials, which the agent does not show). Never retried.
    ///
    /// The config's `protocol` is ignored: the agent sends the payload of the version it was
    /// registered in, the client's interface's.
    ///
    /// # Errors
    ///
    /// The agent's A2A error (push not enabled: -32003, no such task: -32001), or any other
    /// [`ClientError`].
    ///
    /// # Example
    ///
    /// ```no_run
    /// use a2ui_agent::a2a::PushConfig;
    /// use a2ui_agent::client::Client;
    ///
    /// # async fn run(client: Client) -> Result<(), a2ui_agent::client::ClientError> {
    /// let mut hook = PushConfig::new("", "https://me.example/a2a-hook");
    /// hook.token = Some("a long random token".into());
    /// let stored = client.set_push_config("task-1", hook).await?;
    /// println!("registered as {}", stored.id);
    /// # Ok(())
    /// # }
    /// ```
    pub async fn set_push_config(
        &self,
        task_id: &str,
        config: PushConfig,
    ) -> Result<PushConfig, ClientError> {
        let transport = self.transport();
        let request = PushConfigRequest {
            task_id: task_id.to_owned(),
            config,
        };
        let params = if transport.is_1_0() {
            v1_0::encode_push_config_request(&request)
        } else {
            v0_3::encode_push_set_params(&request)
        };
        let result = self.call(Operation::PushSet, params, Some(task_id)).await?;
        decode_config(transport, &result, task_id)
    }

    /// The webhook `config_id` of task `task_id` (0.3 `tasks/pushNotificationConfig/get`, 1.0
    /// `GetTaskPushNotificationConfig`). Retried as an idempotent call.
    ///
    /// # Errors
    ///
    /// The agent's A2A error (no such task or config: -32001), [`ClientError::BadAnswer`] for
    /// another task's config, or any other [`ClientError`].
    pub async fn get_push_config(
        &self,
        task_id: &str,
        config_id: &str,
    ) -> Result<PushConfig, ClientError> {
        let transport = self.transport();
        let params = config_params(transport, task_id, config_id);
        let result = self
            .http()
            .retrying(|| self.call(Operation::PushGet, params.clone(), Some(task_id)))
            .await?;
        decode_config(transport, &result, task_id)
    }

    /// Every webhook of task `task_id` (0.3 `tasks/pushNotificationConfig/list`, 1.0
    /// `ListTaskPushNotificationConfigs`, following its pages, at most 100). Retried as an
    /// idempotent call.
    ///
    /// # Errors
    ///
    /// The agent's A2A error (no such task: -32001), [`ClientError::BadAnswer`] for an agent
    /// that pages on past the bound, or any other [`ClientError`].
    pub async fn list_push_configs(&self, task_id: &str) -> Result<Vec<PushConfig>, ClientError> {
        let transport = self.transport();
        if !transport.is_1_0() {
            let params = json!({"id": task_id});
            let result = self
                .http()
                .retrying(|| self.call(Operation::PushList, params.clone(), Some(task_id)))
                .await?;
            let Value::Array(configs) = result else {
                return Err(ClientError::BadAnswer(
                    "result: expected an array of push configs".into(),
                ));
            };
            return configs
                .iter()
                .enumerate()
                .map(|(index, config)| {
                    v0_3::decode_task_push_config(config, &format!("result[{index}]"))
                        .map_err(|error| ClientError::BadAnswer(error.to_string()))
                        .and_then(|answer| checked(answer, task_id))
                })
                .collect();
        }
        let mut configs = Vec::new();
        let mut token = String::new();
        for _ in 0..MAX_PAGES {
            let mut params = json!({"taskId": task_id});
            if !token.is_empty() {
                params["pageToken"] = Value::from(token.as_str());
            }
            let result = self
                .http()
                .retrying(|| self.call(Operation::PushList, params.clone(), Some(task_id)))
                .await?;
            let (page, next) = v1_0::decode_push_list(&result)
                .map_err(|error| ClientError::BadAnswer(error.to_string()))?;
            configs.extend(page);
            if next.is_empty() {
                return Ok(configs);
            }
            if next == token {
                return Err(ClientError::BadAnswer(
                    "the agent answered the same page token twice".into(),
                ));
            }
            token = next;
        }
        Err(ClientError::BadAnswer(format!(
            "the agent's list of push configs runs past {MAX_PAGES} pages"
        )))
    }

    /// Removes the webhook `config_id` of task `task_id` (0.3
    /// `tasks/pushNotificationConfig/delete`, 1.0 `DeleteTaskPushNotificationConfig`). Never
    /// retried: a second delete would find nothing.
    ///
    /// # Errors
    ///
    /// The agent's A2A error (no such task or config: -32001), or any other [`ClientError`].
    pub async fn delete_push_config(
        &self,
        task_id: &str,
        config_id: &str,
    ) -> Result<(), ClientError> {
        let params = config_params(self.transport(), task_id, config_id);
        self.call(Operation::PushDelete, params, Some(task_id))
            .await
            .map(drop)
    }
}

/// The params naming config `config_id` of task `task_id` (get, delete).
fn config_params(transport: Transport, task_id: &str, config_id: &str) -> Value {
    if transport.is_1_0() {
        json!({"taskId": task_id, "id": config_id})
    } else {
        json!({"id": task_id, "pushNotificationConfigId": config_id})
    }
}

/// The config an answer carries, checked to belong to `task_id`.
fn decode_config(
    transport: Transport,
    result: &Value,
    task_id: &str,
) -> Result<PushConfig, ClientError> {
    let answer = if transport.is_1_0() {
        v1_0::decode_push_config(result, "result")
            .map_err(|e| ClientError::BadAnswer(e.to_string()))
    } else {
        v0_3::decode_task_push_config(result, "result")
            .map_err(|e| ClientError::BadAnswer(e.to_string()))
    }?;
    let mut config = checked(answer, task_id)?;
    config.protocol = if transport.is_1_0() {
        PushProtocol::V1_0
    } else {
        PushProtocol::V0_3
    };
    Ok(config)
}

/// `answer`'s config, when the answer names `task_id` or no task.
fn checked(answer: PushConfigRequest, task_id: &str) -> Result<PushConfig, ClientError> {
    if answer.task_id.is_empty() || answer.task_id == task_id {
        Ok(answer.config)
    } else {
        Err(ClientError::BadAnswer(format!(
            "asked for the push configs of task {task_id:?}, the agent answered one of task {:?}",
            answer.task_id
        )))
    }
}
