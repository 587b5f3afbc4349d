//! Push notification configs, whatever the protocol version: where a task's updates are
//! POSTed and how the request authenticates.
//!
//! A client that cannot hold a stream open registers a webhook per task (0.3
//! `tasks/pushNotificationConfig/set`, 1.0 `CreateTaskPushNotificationConfig`, or inline with
//! a send). 0.3 names several authentication schemes, 1.0 one; the model keeps the list.
//! The config also remembers the protocol version it was registered in, because the
//! webhook receives that version's payload (0.3: the task; 1.0: a `StreamResponse`).
//!
//! The credentials are a secret the server presents to the webhook: no answer shows them
//! (both versions make them optional in every answer), and a config's `Debug` (what a log
//! line would print) shows neither them nor the token.

/// The protocol version a push config was registered in: its webhook gets that version's
/// payload.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PushProtocol {
    /// A2A 0.3: the webhook receives the task as a 0.3 `Task` object.
    V0_3,
    /// A2A 1.0: the webhook receives the update as a `StreamResponse` object.
    V1_0,
}

impl PushProtocol {
    /// The version as `A2A-Version` names it.
    pub fn as_str(self) -> &'static str {
        match self {
            PushProtocol::V0_3 => "0.3",
            PushProtocol::V1_0 => "1.0",
        }
    }

    /// The version named `name` (`0.3`, `1.0`).
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "0.3" => Some(PushProtocol::V0_3),
            "1.0" => Some(PushProtocol::V1_0),
            _ => None,
        }
    }
}

/// How the agent authenticates to a webhook (0.3 `PushNotificationAuthenticationInfo`, 1.0
/// `AuthenticationInfo`). Its `Debug` does not show the credentials.
#[derive(Clone, PartialEq, Eq)]
pub struct PushAuthentication {
    /// HTTP authentication schemes (`Bearer`, `Basic`); the first is used. 1.0 names one.
    pub schemes: Vec<String>,
    /// The credentials sent with the scheme: `Authorization: {scheme} {credentials}`.
    pub credentials: Option<String>,
}

/// One webhook of a task. Its `Debug` shows neither the token nor the credentials.
#[derive(Clone, PartialEq, Eq)]
pub struct PushConfig {
    /// The config's id, unique within its task.
    pub id: String,
    /// The webhook URL.
    pub url: String,
    /// A token the webhook can check, sent as `X-A2A-Notification-Token`.
    pub token: Option<String>,
    /// How to authenticate to the webhook.
    pub authentication: Option<PushAuthentication>,
    /// The version whose payload the webhook receives.
    pub protocol: PushProtocol,
}

/// What a `Debug` shows of a secret: whether there is one.
fn redacted(secret: Option<&String>) -> Option<&'static str> {
    secret.map(|_| "<redacted>")
}

impl std::fmt::Debug for PushAuthentication {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PushAuthentication")
            .field("schemes", &self.schemes)
            .field("credentials", &redacted(self.credentials.as_ref()))
            .finish()
    }
}

impl std::fmt::Debug for PushConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PushConfig")
            .field("id", &self.id)
            .field("url", &self.url)
            .field("token", &redacted(self.token.as_ref()))
            .field("authentication", &self.authentication)
            .field("protocol", &self.protocol)
            .finish()
    }
}

impl PushConfig {
    /// A config for `url` with id `id`, no token or authentication, receiving 1.0 payloads.
    ///
    /// # Example
    ///
    /// ```
    /// use a2ui_agent::a2a::{PushConfig, PushProtocol};
    ///
    /// let config = PushConfig::new("c1", "https://client.example/hook");
    /// assert_eq!(config.protocol, PushProtocol::V1_0);
    /// ```
    pub fn new(id: impl Into<String>, url: impl Into<String>) -> Self {
        Self {
            id: id.into(),
            url: url.into(),
            token: None,
            authentication: None,
            protocol: PushProtocol::V1_0,
        }
    }

    /// The `Authorization` header value the config asks for: `{scheme} {credentials}`.
    pub fn authorization(&self) -> Option<String> {
        let auth = self.authentication.as_ref()?;
        let scheme = auth.schemes.first()?.trim();
        match auth.credentials.as_deref() {
            Some(credentials) if !scheme.is_empty() => Some(format!("{scheme} {credentials}")),
            _ => None,
        }
    }
}

/// A config as sent with a request: its id may be left for the server to choose.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PushConfigRequest {
    /// The task (empty when given inline with a send: the task is the one created).
    pub task_id: String,
    /// The config; an empty `id` is chosen by the server.
    pub config: PushConfig,
}

/// Which config of which task (get, delete); `config_id` `None`: 0.3's "the task's config".
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PushConfigQuery {
    /// The task.
    pub task_id: String,
    /// The config, if named.
    pub config_id: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn authorization_uses_the_first_scheme_and_needs_credentials() {
        let mut config = PushConfig::new("c", "https://x");
        assert_eq!(config.authorization(), None);
        config.authentication = Some(PushAuthentication {
            schemes: vec!["Bearer".into(), "Basic".into()],
            credentials: Some("tok".into()),
        });
        assert_eq!(config.authorization().as_deref(), Some("Bearer tok"));
        config.authentication = Some(PushAuthentication {
            schemes: vec!["Bearer".into()],
            credentials: None,
        });
        assert_eq!(config.authorization(), None);
    }

    #[test]
    fn a_config_as_a_log_line_prints_it_shows_no_secret() {
        let mut config = PushConfig::new("c", "https://x");
        config.token = Some("the-token".into());
        config.authentication = Some(PushAuthentication {
            schemes: vec!["Bearer".into()],
            credentials: Some("the-credentials".into()),
        });
        for shown in [format!("{config:?}"), format!("{config:#?}")] {
            assert!(!shown.contains("the-token"), "{shown}");
            assert!(!shown.contains("the-credentials"), "{shown}");
            assert!(
                shown.contains("Bearer") && shown.contains("https://x"),
                "{shown}"
            );
        }
        let request = PushConfigRequest {
            task_id: "t".into(),
            config,
        };
        assert!(!format!("{request:?}").contains("the-credentials"));
    }
}
