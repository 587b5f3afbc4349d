//! [`ClientBuilder`]: where the agent is, which interfaces to prefer, the credentials, the
//! timeouts, the retries and the size limits; [`ClientBuilder::connect`] reads the card and
//! picks the interface.

use std::time::Duration;

use reqwest::header::{AUTHORIZATION, HeaderName, HeaderValue};

use super::error::ClientError;
use super::http::{Http, Limits, Retry};
use super::{Client, Transport};
use crate::a2a::card_signing::TrustedKey;

impl Client {
    /// Starts a client of the agent at `base_url` (its card is at
    /// `<base_url>/.well-known/agent-card.json`).
    pub fn builder(base_url: impl Into<String>) -> ClientBuilder {
        ClientBuilder::new(base_url.into())
    }

    /// A client of the agent at `base_url` with the default settings.
    ///
    /// # Errors
    ///
    /// Those of [`ClientBuilder::connect`].
    pub async fn connect(base_url: impl Into<String>) -> Result<Self, ClientError> {
        Self::builder(base_url).connect().await
    }
}

/// Builds a [`Client`]; see [`Client::builder`].
///
/// Its `Debug` output names the credential headers but never shows their values.
#[must_use]
#[derive(Clone)]
pub struct ClientBuilder {
    base_url: String,
    prefer: Vec<Transport>,
    headers: Vec<(String, String)>,
    extensions: Vec<String>,
    connect_timeout: Duration,
    request_timeout: Duration,
    stream_idle_timeout: Duration,
    stream_timeout: Duration,
    retries: u32,
    retry_backoff: Duration,
    limits: Limits,
    trusted: Vec<TrustedKey>,
}

impl std::fmt::Debug for ClientBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let headers: Vec<&str> = self.headers.iter().map(|(name, _)| name.as_str()).collect();
        f.debug_struct("ClientBuilder")
            .field("base_url", &self.base_url)
            .field("prefer", &self.prefer)
            .field("headers", &headers)
            .field("extensions", &self.extensions)
            .field("connect_timeout", &self.connect_timeout)
            .field("request_timeout", &self.request_timeout)
            .field("stream_idle_timeout", &self.stream_idle_timeout)
            .field("stream_timeout", &self.stream_timeout)
            .field("retries", &self.retries)
            .field("trusted", &self.trusted)
            .finish_non_exhaustive()
    }
}

impl ClientBuilder {
    /// The default of [`ClientBuilder::connect_timeout`]: 10 s.
    pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
    /// The default of [`ClientBuilder::request_timeout`]: 120 s (a blocking send waits for
    /// the agent to finish).
    pub const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_secs(120);
    /// The default of [`ClientBuilder::stream_idle_timeout`]: 60 s.
    pub const DEFAULT_STREAM_IDLE_TIMEOUT: Duration = Duration::from_secs(60);
    /// The default of [`ClientBuilder::stream_timeout`]: one hour.
    pub const DEFAULT_STREAM_TIMEOUT: Duration = Duration::from_secs(3600);
    /// The default of [`ClientBuilder::max_answer_bytes`]: 16 MiB.
    pub const DEFAULT_MAX_ANSWER_BYTES: usize = 16 * 1024 * 1024;
    /// The default of [`ClientBuilder::max_card_bytes`]: 1 MiB.
    pub const DEFAULT_MAX_CARD_BYTES: usize = 1024 * 1024;

    fn new(base_url: String) -> Self {
        Self {
            base_url,
            prefer: Transport::ALL.to_vec(),
            headers: Vec::new(),
            extensions: Vec::new(),
            connect_timeout: Self::DEFAULT_CONNECT_TIMEOUT,
            request_timeout: Self::DEFAULT_REQUEST_TIMEOUT,
            stream_idle_timeout: Self::DEFAULT_STREAM_IDLE_TIMEOUT,
            stream_timeout: Self::DEFAULT_STREAM_TIMEOUT,
            retries: 2,
            retry_backoff: Duration::from_millis(200),
            limits: Limits {
                answer_bytes: Self::DEFAULT_MAX_ANSWER_BYTES,
                card_bytes: Self::DEFAULT_MAX_CARD_BYTES,
            },
            trusted: Vec::new(),
        }
    }

    /// The base URL the client was started with.
    pub(crate) fn base_url(&self) -> &str {
        &self.base_url
    }

    /// The interfaces to use, most wanted first (default: JSON-RPC 1.0, HTTP+JSON 1.0,
    /// JSON-RPC 0.3). The first one the card offers is used; one not listed never is.
    pub fn prefer(mut self, transports: impl IntoIterator<Item = Transport>) -> Self {
        self.prefer = transports.into_iter().collect();
        self
    }

    /// Sends `Authorization: Bearer <token>` with every request (the card's `http` /
    /// `bearer` security scheme).
    pub fn bearer_token(self, token: impl Into<String>) -> Self {
        let value = format!("Bearer {}", token.into());
        self.header(AUTHORIZATION.as_str(), value)
    }

    /// Sends the API key `key` in the header `name` with every request (the card's `apiKey`
    /// security scheme with `in: header`).
    pub fn api_key(self, name: impl Into<String>, key: impl Into<String>) -> Self {
        self.header(name, key)
    }

    fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// Asks the agent to activate the extension `uri` (the `A2A-Extensions` header; for
    /// A2A 0.3 `X-A2A-Extensions`), e.g. A2UI's.
    pub fn extension(mut self, uri: impl Into<String>) -> Self {
        self.extensions.push(uri.into());
        self
    }

    /// How long to wait for a connection (default [`Self::DEFAULT_CONNECT_TIMEOUT`]).
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }

    /// How long a call may take, from sending to the last byte of the answer; for a stream,
    /// until its headers (default [`Self::DEFAULT_REQUEST_TIMEOUT`]).
    pub fn request_timeout(mut self, timeout: Duration) -> Self {
        self.request_timeout = timeout;
        self
    }

    /// How long a stream may stay silent (a keep-alive comment counts as a sign of life;
    /// default [`Self::DEFAULT_STREAM_IDLE_TIMEOUT`]).
    pub fn stream_idle_timeout(mut self, timeout: Duration) -> Self {
        self.stream_idle_timeout = timeout;
        self
    }

    /// How long one stream may last in all, however lively (default
    /// [`Self::DEFAULT_STREAM_TIMEOUT`]): an agent that streams keep-alives or updates
    /// forever ends in [`ClientError::Timeout`] here. A followed stream
    /// ([`Client::follow`]) has this bound per connection.
    pub fn stream_timeout(mut self, timeout: Duration) -> Self {
        self.stream_timeout = timeout;
        self
    }

    /// How often an idempotent call (the card, get, list) is tried again after a transport
    /// failure, a timeout or a 429/502/503/504 (default 2), waiting `backoff`, then twice
    /// that, and so on. A send is never retried: the agent may have received it. A followed
    /// stream ([`Client::follow`]) re-subscribes as often after a connection that failed
    /// without giving anything new.
    pub fn retries(mut self, retries: u32, backoff: Duration) -> Self {
        self.retries = retries;
        self.retry_backoff = backoff;
        self
    }

    /// The largest answer body or stream event accepted (default
    /// [`Self::DEFAULT_MAX_ANSWER_BYTES`]); a larger one is [`ClientError::TooLarge`].
    pub fn max_answer_bytes(mut self, bytes: usize) -> Self {
        self.limits.answer_bytes = bytes;
        self
    }

    /// The largest agent card accepted (default [`Self::DEFAULT_MAX_CARD_BYTES`]).
    pub fn max_card_bytes(mut self, bytes: usize) -> Self {
        self.limits.card_bytes = bytes;
        self
    }

    /// Accepts only cards `key` signed (A2A 1.0 §8.4; repeatable: a card one of the trusted
    /// keys signed passes, which lets an agent roll its key over). The card and the
    /// extended card are checked as they arrive: an unsigned card, one signed by no trusted
    /// key, or one changed after signing is [`ClientError::BadCard`]. Default: no key, and
    /// every card is taken as it comes. Read keys with [`TrustedKey::from_pem`],
    /// [`TrustedKey::from_jwk`] or [`TrustedKey::from_jwks`].
    ///
    /// Only keys given here count: a card's `jku` is never fetched, since whoever changed a
    /// card could point it at their own keys.
    pub fn trust_key(mut self, key: TrustedKey) -> Self {
        self.trusted.push(key);
        self
    }

    /// Fetches the agent card and picks the interface: the first of
    /// [`prefer`](Self::prefer) the card lists.
    ///
    /// # Errors
    ///
    /// [`ClientError::Config`] for a base URL or header that cannot be used;
    /// [`ClientError::BadCard`] when the card cannot be read or offers none of the preferred
    /// interfaces; the card fetch's own errors.
    pub async fn connect(self) -> Result<Client, ClientError> {
        let base = url::Url::parse(&self.base_url).map_err(|error| {
            ClientError::Config(format!("base URL {:?}: {error}", self.base_url))
        })?;
        if !matches!(base.scheme(), "http" | "https") {
            return Err(ClientError::Config(format!(
                "base URL {:?}: expected http or https",
                self.base_url
            )));
        }
        let mut headers = Vec::with_capacity(self.headers.len());
        for (name, value) in &self.headers {
            let name = HeaderName::try_from(name.as_str())
                .map_err(|_| ClientError::Config(format!("header name {name:?}")))?;
            let mut value = HeaderValue::try_from(value.as_str())
                .map_err(|_| ClientError::Config(format!("the value of header {name}")))?;
            value.set_sensitive(true);
            headers.push((name, value));
        }
        let client = reqwest::Client::builder()
            .connect_timeout(self.connect_timeout)
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|error| ClientError::Config(crate::error_chain::chain(&error)))?;
        let http = Http {
            client,
            headers,
            request_timeout: self.request_timeout,
            stream_idle_timeout: self.stream_idle_timeout,
            stream_timeout: self.stream_timeout,
            retry: Retry {
                times: self.retries,
                backoff: self.retry_backoff,
            },
            limits: self.limits,
            trusted: self.trusted.into(),
        };
        Client::connect_with(http, base, self.prefer, self.extensions).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_output_names_credential_headers_but_hides_their_values() {
        let builder = Client::builder("http://h/")
            .bearer_token("s3cret")
            .api_key("X-API-Key", "k3y");
        let shown = format!("{builder:?}");
        assert!(
            shown.contains("authorization") && shown.contains("X-API-Key"),
            "{shown}"
        );
        assert!(
            !shown.contains("s3cret") && !shown.contains("k3y"),
            "{shown}"
        );
    }

    #[tokio::test]
    async fn a_base_url_that_is_not_http_is_a_configuration_error() {
        for url in ["ftp://h/", "not a url"] {
            let error = Client::builder(url).connect().await.unwrap_err();
            assert!(matches!(error, ClientError::Config(_)), "{url}: {error}");
        }
    }
}
