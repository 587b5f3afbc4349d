//! One HTTP exchange with the agent: the credentials on every request, the answer read within
//! its size limit and timeout, read as JSON within the decoding budget, and the retries of an
//! idempotent call.
//!
//! Answers are walked by the server's own decoding budget ([`crate::a2a::budget`]) before a
//! `Value` is built, so an agent cannot make the client hold a tree deeper than the budget's
//! depth or larger than its value count, whatever the body's size.

use std::time::Duration;

use bytes::Bytes;
use futures::StreamExt;
use reqwest::header::{CONTENT_LENGTH, HeaderName, HeaderValue};
use serde_json::Value;

use super::error::ClientError;
use crate::a2a::budget::{self, DecodeBudget, RefusalKind};

/// The size limits of answers.
#[derive(Debug, Clone, Copy)]
pub(super) struct Limits {
    /// The largest body or stream event.
    pub(super) answer_bytes: usize,
    /// The largest card.
    pub(super) card_bytes: usize,
}

/// How idempotent calls are retried.
#[derive(Debug, Clone, Copy)]
pub(super) struct Retry {
    /// How many times after the first attempt.
    pub(super) times: u32,
    /// The wait before the first retry; doubled before each next one.
    pub(super) backoff: Duration,
}

/// The budget an answer is walked with: the server's per-part and per-message measures, and
/// room for a page of tasks with their histories.
pub(super) fn answer_budget(bytes: usize) -> DecodeBudget {
    DecodeBudget {
        max_parts: 10_000,
        max_part_bytes: bytes,
        max_message_bytes: bytes,
        // A JSON value costs tens of bytes as a tree: this bounds the tree of one answer to
        // tens of megabytes whatever the body's size.
        max_values: 500_000,
    }
}

/// The agent's HTTP side: a reqwest client and what every request carries.
#[derive(Debug, Clone)]
pub(super) struct Http {
    pub(super) client: reqwest::Client,
    /// Credentials, sent with every request.
    pub(super) headers: Vec<(HeaderName, HeaderValue)>,
    pub(super) request_timeout: Duration,
    pub(super) stream_idle_timeout: Duration,
    pub(super) stream_timeout: Duration,
    pub(super) retry: Retry,
    pub(super) limits: Limits,
    /// The keys a card must be signed by; none: cards are not checked.
    pub(super) trusted: std::sync::Arc<[crate::a2a::card_signing::TrustedKey]>,
}

impl Http {
    /// `request` with the credentials and `extra` headers, its timeout set.
    pub(super) fn prepare(
        &self,
        request: reqwest::RequestBuilder,
        extra: &[(&'static str, String)],
    ) -> reqwest::RequestBuilder {
        let mut request = request;
        for (name, value) in &self.headers {
            request = request.header(name, value);
        }
        for (name, value) in extra {
            request = request.header(*name, value);
        }
        request
    }

    /// Sends `request`, waiting at most the request timeout for its headers.
    pub(super) async fn send(
        &self,
        request: reqwest::RequestBuilder,
    ) -> Result<reqwest::Response, ClientError> {
        let timeout = self.request_timeout;
        match tokio::time::timeout(timeout, request.send()).await {
            Err(_) => Err(ClientError::Timeout {
                what: "answer",
                after: timeout,
            }),
            Ok(Err(error)) => Err(ClientError::from_reqwest(&error, timeout)),
            Ok(Ok(response)) => Ok(response),
        }
    }

    /// The body of `response`, refused past `limit` bytes, read before the request timeout
    /// (counted again from here: the headers came in time).
    pub(super) async fn body(
        &self,
        response: reqwest::Response,
        limit: usize,
    ) -> Result<Bytes, ClientError> {
        let too_large = || ClientError::TooLarge(format!("the body is longer than {limit} bytes"));
        let declared = response
            .headers()
            .get(CONTENT_LENGTH)
            .and_then(|value| value.to_str().ok())
            .and_then(|value| value.parse::<u64>().ok());
        if declared.is_some_and(|length| length > limit as u64) {
            return Err(too_large());
        }
        let timeout = self.request_timeout;
        let read = async {
            let mut body = Vec::new();
            let mut chunks = response.bytes_stream();
            while let Some(chunk) = chunks.next().await {
                let chunk = chunk.map_err(|error| ClientError::from_reqwest(&error, timeout))?;
                if body.len() + chunk.len() > limit {
                    return Err(too_large());
                }
                body.extend_from_slice(&chunk);
            }
            Ok(Bytes::from(body))
        };
        tokio::time::timeout(timeout, read)
            .await
            .map_err(|_| ClientError::Timeout {
                what: "answer",
                after: timeout,
            })?
    }

    /// Runs `call` once, and again after a retryable failure, up to the retry budget.
    pub(super) async fn retrying<T, F, Fut>(&self, mut call: F) -> Result<T, ClientError>
    where
        F: FnMut() -> Fut,
        Fut: std::future::Future<Output = Result<T, ClientError>>,
    {
        let mut wait = self.retry.backoff;
        let mut attempt = 0;
        loop {
            match call().await {
                Err(error) if error.is_retryable() && attempt < self.retry.times => {
                    attempt += 1;
                    tracing::debug!(%error, attempt, "retrying an idempotent call to an agent");
                    tokio::time::sleep(wait).await;
                    wait = wait.saturating_mul(2);
                }
                result => return result,
            }
        }
    }
}

/// `bytes` as JSON, once the decoding budget has walked it.
///
/// # Errors
///
/// [`ClientError::TooLarge`] past the budget, [`ClientError::BadAnswer`] for anything that
/// is not one JSON value (or repeats a key).
pub(super) fn json(bytes: &[u8], budget: &DecodeBudget) -> Result<Value, ClientError> {
    if let Err(refusal) = budget::check(bytes, budget) {
        return Err(match refusal.kind {
            RefusalKind::OverBudget => ClientError::TooLarge(refusal.message),
            RefusalKind::Syntax | RefusalKind::DuplicateKey => {
                ClientError::BadAnswer(format!("not JSON: {}", refusal.message))
            }
        });
    }
    serde_json::from_slice(bytes)
        .map_err(|error| ClientError::BadAnswer(format!("not JSON: {error}")))
}

/// The start of `body` as text, for an error message.
pub(super) fn excerpt(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(body);
    let mut excerpt: String = text.chars().take(200).collect();
    if text.chars().nth(200).is_some() {
        excerpt.push('…');
    }
    excerpt
}
