//! [`WebhookReceiver`]: the caller's side of push notifications, a check and a decoder for
//! what an agent POSTs to a webhook registered with [`Client::set_push_config`].
//!
//! Anyone who learns a webhook's URL can POST to it, so a notification counts only when it
//! carries the config's token (`X-A2A-Notification-Token`, A2A 0.3 §9.5, 1.0 §4.3.3) and,
//! when the config asked for one, its `Authorization`; both are compared in constant time.
//! The body is then read as the crate's client reads an answer: refused past its size limit,
//! walked by the decoding budget (depth, number of values) before a tree is built, and
//! decoded by the version's codec: 1.0 posts a `StreamResponse` (a status or artifact
//! update), 0.3 the task as it is after the update.
//!
//! [`Client::set_push_config`]: super::Client::set_push_config

use std::future::Future;
use std::sync::Arc;

use axum::body::Bytes;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::Value;

use super::error::ClientError;
use super::http::{answer_budget, json};
use crate::a2a::{PushProtocol, StreamEvent, v0_3, v1_0};

/// The header an agent sends a push config's token in.
pub const NOTIFICATION_TOKEN_HEADER: &str = "X-A2A-Notification-Token";

/// Checks and decodes the push notifications an agent POSTs to a webhook.
///
/// Its `Debug` output does not show the token or the authorization.
///
/// # Example
///
/// ```
/// use a2ui_agent::a2a::StreamEvent;
/// use a2ui_agent::client::WebhookReceiver;
/// use axum::http::HeaderMap;
///
/// let receiver = WebhookReceiver::new("a long random token");
/// let mut headers = HeaderMap::new();
/// headers.insert("x-a2a-notification-token", "a long random token".parse().unwrap());
/// let body = br#"{"statusUpdate": {"taskId": "t", "contextId": "c",
///     "status": {"state": "TASK_STATE_COMPLETED"}}}"#;
/// let event = receiver.receive(&headers, body).unwrap();
/// assert!(matches!(event, StreamEvent::StatusUpdate(update) if update.task_id == "t"));
///
/// headers.insert("x-a2a-notification-token", "a guess".parse().unwrap());
/// let refused = receiver.receive(&headers, body).unwrap_err();
/// assert_eq!(refused.status(), 401);
/// ```
#[derive(Clone)]
pub struct WebhookReceiver {
    token: String,
    authorization: Option<String>,
    protocol: Option<PushProtocol>,
    max_body_bytes: usize,
}

impl std::fmt::Debug for WebhookReceiver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WebhookReceiver")
            .field("protocol", &self.protocol)
            .field("max_body_bytes", &self.max_body_bytes)
            .finish_non_exhaustive()
    }
}

/// Why a notification was refused.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WebhookError {
    /// No `X-A2A-Notification-Token`, or not the token (401).
    #[error("the notification does not carry the webhook's token")]
    WrongToken,
    /// The `Authorization` the receiver requires is missing or different (401).
    #[error("the notification does not carry the webhook's authorization")]
    WrongAuthorization,
    /// The body is not JSON by its content type (415).
    #[error("the notification is {0:?}, not JSON")]
    ContentType(String),
    /// The body is larger or deeper than the receiver accepts (413).
    #[error("the notification is too large: {0}")]
    TooLarge(String),
    /// The body is not a notification of the version (400).
    #[error("the notification is not valid A2A: {0}")]
    BadBody(String),
}

impl WebhookError {
    /// The HTTP status a webhook answers this refusal with.
    pub fn status(&self) -> u16 {
        match self {
            WebhookError::WrongToken | WebhookError::WrongAuthorization => 401,
            WebhookError::ContentType(_) => 415,
            WebhookError::TooLarge(_) => 413,
            WebhookError::BadBody(_) => 400,
        }
    }
}

impl IntoResponse for WebhookError {
    fn into_response(self) -> Response {
        let status = StatusCode::from_u16(self.status()).unwrap_or(StatusCode::BAD_REQUEST);
        (status, self.to_string()).into_response()
    }
}

impl WebhookReceiver {
    /// The default of [`WebhookReceiver::max_body_bytes`]: 8 MiB.
    pub const DEFAULT_MAX_BODY_BYTES: usize = 8 * 1024 * 1024;

    /// A receiver that accepts notifications carrying `token` (the one given in the push
    /// config), of either protocol version (told apart by the body: 0.3 objects carry a
    /// `kind`). An empty token accepts nothing.
    pub fn new(token: impl Into<String>) -> Self {
        Self {
            token: token.into(),
            authorization: None,
            protocol: None,
            max_body_bytes: Self::DEFAULT_MAX_BODY_BYTES,
        }
    }

    /// Also requires `Authorization: <value>` (e.g. `Bearer s3cret`: the scheme and
    /// credentials given in the push config's authentication).
    #[must_use]
    pub fn authorization(mut self, value: impl Into<String>) -> Self {
        self.authorization = Some(value.into());
        self
    }

    /// Reads bodies as `protocol`'s payload only.
    #[must_use]
    pub fn protocol(mut self, protocol: PushProtocol) -> Self {
        self.protocol = Some(protocol);
        self
    }

    /// The largest body accepted (default [`Self::DEFAULT_MAX_BODY_BYTES`]).
    #[must_use]
    pub fn max_body_bytes(mut self, bytes: usize) -> Self {
        self.max_body_bytes = bytes;
        self
    }

    /// Checks one notification's `headers` and decodes its `body`: a 1.0 status or artifact
    /// update, or a 0.3 task ([`StreamEvent::Task`]).
    ///
    /// # Errors
    ///
    /// A [`WebhookError`]: the token or authorization is wrong (checked first, so a stranger
    /// learns nothing of the body's rules), the content type is not JSON, the body is too
    /// large or deep, or it is not a notification.
    pub fn receive(&self, headers: &HeaderMap, body: &[u8]) -> Result<StreamEvent, WebhookError> {
        let offered = headers
            .get(NOTIFICATION_TOKEN_HEADER)
            .map(|value| value.as_bytes())
            .unwrap_or_default();
        if !same_secret(offered, self.token.as_bytes()) {
            return Err(WebhookError::WrongToken);
        }
        if let Some(wanted) = &self.authorization {
            let offered = headers
                .get(header::AUTHORIZATION)
                .map(|value| value.as_bytes())
                .unwrap_or_default();
            if !same_secret(offered, wanted.as_bytes()) {
                return Err(WebhookError::WrongAuthorization);
            }
        }
        if let Some(content_type) = headers.get(header::CONTENT_TYPE) {
            let content_type = String::from_utf8_lossy(content_type.as_bytes()).to_lowercase();
            let essence = content_type.split(';').next().unwrap_or_default().trim();
            if !(essence == "application/json" || essence.ends_with("+json")) {
                return Err(WebhookError::ContentType(content_type));
            }
        }
        if body.len() > self.max_body_bytes {
            return Err(WebhookError::TooLarge(format!(
                "{} bytes, more than {}",
                body.len(),
                self.max_body_bytes
            )));
        }
        let value =
            json(body, &answer_budget(self.max_body_bytes)).map_err(|error| match error {
                ClientError::TooLarge(why) => WebhookError::TooLarge(why),
                other => WebhookError::BadBody(other.to_string()),
            })?;
        let protocol = self.protocol.unwrap_or_else(|| {
            if value.get("kind").is_some() {
                PushProtocol::V0_3
            } else {
                PushProtocol::V1_0
            }
        });
        decode(&value, protocol).map_err(WebhookError::BadBody)
    }

    /// An axum router that answers `POST path` with [`WebhookReceiver::receive`]: each
    /// notification that passes goes to `on_event` (awaited before the answer, 200), each
    /// refusal is answered with its status and reason.
    ///
    /// # Panics
    ///
    /// When `path` is not a valid axum route (it must start with `/`).
    ///
    /// # Example
    ///
    /// ```no_run
    /// use a2ui_agent::client::WebhookReceiver;
    ///
    /// # async fn run() -> std::io::Result<()> {
    /// let app = WebhookReceiver::new("a long random token").router("/a2a-hook", |event| async move {
    ///     println!("the agent says {event:?}");
    /// });
    /// let listener = tokio::net::TcpListener::bind("127.0.0.1:9000").await?;
    /// axum::serve(listener, app).await
    /// # }
    /// ```
    pub fn router<F, Fut>(self, path: &str, on_event: F) -> axum::Router
    where
        F: Fn(StreamEvent) -> Fut + Clone + Send + Sync + 'static,
        Fut: Future<Output = ()> + Send + 'static,
    {
        let receiver = Arc::new(self);
        let limit = receiver.max_body_bytes;
        let handler = move |headers: HeaderMap, body: Bytes| {
            let receiver = receiver.clone();
            let on_event = on_event.clone();
            async move {
                match receiver.receive(&headers, &body) {
                    Ok(event) => {
                        on_event(event).await;
                        (StatusCode::OK, "{}").into_response()
                    }
                    Err(error) => {
                        tracing::debug!(%error, "a push notification was refused");
                        error.into_response()
                    }
                }
            }
        };
        axum::Router::new()
            .route(path, axum::routing::post(handler))
            .layer(axum::extract::DefaultBodyLimit::max(limit))
    }
}

/// The event a payload of `protocol` carries.
fn decode(value: &Value, protocol: PushProtocol) -> Result<StreamEvent, String> {
    match protocol {
        PushProtocol::V1_0 => v1_0::decode_event(value).map_err(|error| error.to_string()),
        PushProtocol::V0_3 => v0_3::decode_event(value).map_err(|error| error.to_string()),
    }
}

/// Whether `offered` is `secret`, in time that depends only on `offered`'s length (neither
/// where the first difference is, nor the secret's length). An empty secret matches nothing.
fn same_secret(offered: &[u8], secret: &[u8]) -> bool {
    if secret.is_empty() {
        return false;
    }
    let mut diff = offered.len() ^ secret.len();
    for (byte, wanted) in offered.iter().zip(secret.iter().cycle()) {
        diff |= usize::from(byte ^ wanted);
    }
    diff == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(token: &str, content_type: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(NOTIFICATION_TOKEN_HEADER, token.parse().unwrap());
        headers.insert(header::CONTENT_TYPE, content_type.parse().unwrap());
        headers
    }

    #[test]
    fn secrets_match_only_when_equal() {
        assert!(same_secret(b"s3cret", b"s3cret"));
        for offered in [&b"s3creT"[..], b"s3cre", b"s3crets3cret", b""] {
            assert!(!same_secret(offered, b"s3cret"), "{offered:?}");
        }
        assert!(!same_secret(b"", b""));
    }

    #[test]
    fn a_0_3_task_is_read_by_its_kind_and_hostile_bodies_get_their_status() {
        let receiver = WebhookReceiver::new("k").max_body_bytes(1024);
        let task = br#"{"kind": "task", "id": "t", "contextId": "c",
            "status": {"state": "completed"}}"#;
        let event = receiver
            .receive(&headers("k", "application/json"), task)
            .unwrap();
        assert!(matches!(event, StreamEvent::Task(task) if task.id == "t"));
        let cases: [(&[u8], &str, u16); 4] = [
            (task, "text/html", 415),
            (&[b' '; 2048], "application/json", 413),
            (&[b'['; 1000], "application/json", 413),
            (b"{\"kind\": \"nonsense\"}", "application/a2a+json", 400),
        ];
        for (body, content_type, status) in cases {
            let error = receiver
                .receive(&headers("k", content_type), body)
                .unwrap_err();
            assert_eq!(error.status(), status, "{error}");
        }
    }

    #[test]
    fn a_required_authorization_is_checked_after_the_token() {
        let receiver = WebhookReceiver::new("k").authorization("Bearer s");
        let body = br#"{"statusUpdate": {"taskId": "t", "contextId": "c",
            "status": {"state": "TASK_STATE_WORKING"}}}"#;
        let mut headers = headers("k", "application/a2a+json");
        let error = receiver.receive(&headers, body).unwrap_err();
        assert!(matches!(error, WebhookError::WrongAuthorization), "{error}");
        headers.insert(header::AUTHORIZATION, "Bearer s".parse().unwrap());
        assert!(receiver.receive(&headers, body).is_ok());
    }
}
