//! One call of the chat-completions endpoint: the request posted, 429 and 5xx answers
//! retried before the first token, a kept-alive connection the server had closed asked
//! again, and an error answer read into words. Apart from the rounds and the stream
//! reading, because it is the only place that talks HTTP to the model server.

use std::time::Duration;

use futures::StreamExt;
use reqwest::header::{HeaderMap, RETRY_AFTER};
use tokio::time::Instant;

use super::chat::ChatMessage;
use super::client::OpenAiChat;
use super::error::LlmError;
use super::required_call;
use super::tools::{Tool, ToolChoice};
use super::wire::{ChatRequest, FunctionSpec, Grammar, StreamOptions, ToolSpec, error_in_body};
use crate::error_chain::chain;
use serde_json::json;

/// The most bytes of an error body read to find its message.
const ERROR_BODY_LIMIT: usize = 16 * 1024;

impl OpenAiChat {
    /// Posts the chat at `temperature` with `tools` as `choice` says (none offered for
    /// [`ToolChoice::None`]; a required call made under a grammar of the calls when the
    /// client constrains answers), under `grammar` when the client
    /// [constrains](super::OpenAiChatBuilder::constrain) answers and no tool is offered,
    /// retrying 429 and 5xx answers; returns the response and when the accepted attempt
    /// was sent.
    pub(super) async fn send(
        &self,
        messages: &[ChatMessage],
        tools: &[Tool],
        choice: &ToolChoice,
        temperature: Option<f32>,
        grammar: Option<&str>,
    ) -> Result<(reqwest::Response, Instant), LlmError> {
        let inner = &self.inner;
        let callable = choice.callable(tools);
        // A call the model must make, on a server that takes a grammar: made under one,
        // with the tools told in a last system turn instead of offered (see `required_call`).
        let forced = choice.requires_call()
            && inner.options.grammar_member.is_some()
            && !callable.is_empty();
        let told: Vec<ChatMessage>;
        let (messages, grammar) = if forced {
            told = messages
                .iter()
                .cloned()
                .chain([ChatMessage::system(required_call::instructions(&callable))])
                .collect();
            (&told[..], Some(required_call::grammar(&callable)))
        } else {
            (messages, grammar.map(str::to_owned))
        };
        let tools = if callable.is_empty() || forced {
            Vec::new()
        } else {
            tool_specs(tools)
        };
        let tool_choice = tool_choice(choice, &tools);
        let body = ChatRequest {
            model: &inner.options.model,
            messages,
            stream: true,
            stream_options: StreamOptions {
                include_usage: true,
            },
            temperature,
            max_tokens: inner.options.max_tokens,
            tools: &tools,
            tool_choice,
            // A grammar and tools are not sent together: llama.cpp's server refuses the
            // pair ("Cannot use custom grammar constraints with tools").
            grammar: match (inner.options.grammar_member.as_deref(), grammar.as_deref()) {
                (Some(member), Some(text)) if tools.is_empty() => Some(Grammar { member, text }),
                _ => None,
            },
        };
        self.post(&body).await
    }

    /// Posts `body`, retrying 429 and 5xx answers and a kept connection the server had
    /// closed; returns the response and when the accepted attempt was sent.
    async fn post(&self, body: &ChatRequest<'_>) -> Result<(reqwest::Response, Instant), LlmError> {
        let inner = &self.inner;
        let mut attempt = 0;
        let mut resent = false;
        loop {
            attempt += 1;
            let mut post = inner.http.post(&inner.endpoint).json(body);
            if let Some(key) = &inner.options.api_key {
                post = post.bearer_auth(key);
            }
            // The model request's span goes on in the model server's trace.
            let mut traced = HeaderMap::new();
            crate::observe::inject(&mut traced);
            if !traced.is_empty() {
                post = post.headers(traced);
            }
            let started = Instant::now();
            // A server may hold its headers back until it has read the prompt.
            let sent = tokio::time::timeout(inner.options.first_token_timeout, post.send()).await;
            let response = match sent {
                Err(_) => return Err(LlmError::FirstToken(inner.options.first_token_timeout)),
                // A connection the server closed while the client kept it for the next
                // request (llama.cpp's server says `Keep-Alive`, then closes after a
                // streamed answer, and a tool round asks again at once): the request never
                // reached the model, so it goes once more, on a new connection.
                Ok(Err(error)) if !resent && closed_unanswered(&error) => {
                    tracing::debug!(error = %chain(&error), "the model server had closed the connection; sending again");
                    resent = true;
                    attempt -= 1;
                    continue;
                }
                Ok(Err(error)) => {
                    return Err(LlmError::Connect {
                        url: inner.endpoint.clone(),
                        reason: inner.scrub(&chain(&error)),
                    });
                }
                Ok(Ok(response)) => response,
            };
            let status = response.status();
            if status.is_success() {
                return Ok((response, started));
            }
            let wait = self.retry_wait(response, attempt).await?;
            tracing::info!(
                status = status.as_u16(),
                attempt,
                wait_ms = wait.as_millis() as u64,
                "retrying the model call"
            );
            tokio::time::sleep(wait).await;
        }
    }

    /// How long to wait before `attempt` is made again after the error `response`, or the
    /// error that ends the call: a status that is not worth retrying (neither 429 nor 5xx),
    /// the retries spent, or a wait longer than the client accepts.
    async fn retry_wait(
        &self,
        response: reqwest::Response,
        attempt: u32,
    ) -> Result<Duration, LlmError> {
        let inner = &self.inner;
        let status = response.status();
        let retryable = status.as_u16() == 429 || status.is_server_error();
        let wait = retry_after(response.headers()).unwrap_or_else(|| {
            inner
                .options
                .backoff
                .saturating_mul(1 << (attempt - 1).min(16))
        });
        let message = inner.scrub(&error_message(response).await);
        if !retryable || attempt > inner.options.max_retries || wait > inner.options.max_retry_wait
        {
            tracing::warn!(status = status.as_u16(), attempt, %message, "the model server refused");
            return Err(LlmError::Status {
                status: status.as_u16(),
                message,
                attempts: attempt,
            });
        }
        Ok(wait)
    }
}

/// Every tool, as the request offers it: offered even when one is chosen, since the API's
/// own choice names it.
fn tool_specs(tools: &[Tool]) -> Vec<ToolSpec<'_>> {
    tools
        .iter()
        .map(|tool| ToolSpec {
            kind: "function",
            function: FunctionSpec {
                name: tool.name(),
                description: tool.description(),
                parameters: tool.parameters(),
            },
        })
        .collect()
}

/// The request's `tool_choice` for `choice` when `tools` are offered.
fn tool_choice(choice: &ToolChoice, tools: &[ToolSpec<'_>]) -> Option<serde_json::Value> {
    match choice {
        _ if tools.is_empty() => None,
        ToolChoice::Required => Some(json!("required")),
        ToolChoice::Tool(name) => Some(json!({"type": "function", "function": {"name": name}})),
        _ => None,
    }
}

/// The delay a `Retry-After: <seconds>` header asks for.
fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let text = headers.get(RETRY_AFTER)?.to_str().ok()?.trim();
    let seconds: f64 = text.parse().ok()?;
    (seconds.is_finite() && seconds >= 0.0).then(|| Duration::from_secs_f64(seconds.min(86_400.0)))
}

/// The error message of an error response: its `error.message`, else the start of its body.
async fn error_message(response: reqwest::Response) -> String {
    let status = response.status();
    let mut body = Vec::new();
    let mut stream = response.bytes_stream();
    while let Some(Ok(bytes)) = stream.next().await {
        body.extend_from_slice(&bytes);
        if body.len() >= ERROR_BODY_LIMIT {
            body.truncate(ERROR_BODY_LIMIT);
            break;
        }
    }
    let body = String::from_utf8_lossy(&body);
    if let Some(error) = error_in_body(&body) {
        return error.describe();
    }
    let start: String = body.trim().chars().take(200).collect();
    if start.is_empty() {
        status.canonical_reason().unwrap_or("no message").to_owned()
    } else {
        start
    }
}

/// Whether `error` is a connection that closed before the server answered at all, as a kept
/// connection the server had already closed does; not a refused or timed-out connect.
fn closed_unanswered(error: &reqwest::Error) -> bool {
    if error.is_connect() || error.is_timeout() || error.is_builder() || error.is_body() {
        return false;
    }
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        if let Some(hyper) = cause.downcast_ref::<hyper::Error>() {
            return hyper.is_incomplete_message() || hyper.is_canceled();
        }
        if let Some(io) = cause.downcast_ref::<std::io::Error>() {
            return matches!(
                io.kind(),
                std::io::ErrorKind::ConnectionReset
                    | std::io::ErrorKind::BrokenPipe
                    | std::io::ErrorKind::UnexpectedEof
            );
        }
        source = cause.source();
    }
    false
}
