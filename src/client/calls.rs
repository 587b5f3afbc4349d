//! [`Client`]: one agent's interface, and each operation as one call over it.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use reqwest::header::CONTENT_TYPE;
use serde_json::Value;

use super::SendResult;
use super::answer::{Expect, read_nothing, read_result, status_error};
use super::discovery::{CARD_PATH, CardCache};
use super::error::ClientError;
use super::events::{self, EventStream, Reading};
use super::http::{Http, answer_budget, json};
use super::transport::{self, Operation, Transport};
use crate::a2a::card::AgentCard;
use crate::a2a::jsonrpc::{Id, encode_request};
use crate::a2a::{SendRequest, StreamEvent, Task, TaskListQuery, TaskPage, TaskQuery, v1_0};

/// A client of one agent; cheap to clone (clones share the connection pool and the card).
///
/// Build one with [`Client::builder`] (or [`Client::connect`] for the defaults); see the
/// [module](super) docs.
#[derive(Debug, Clone)]
pub struct Client {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    http: Http,
    cards: CardCache,
    transport: Transport,
    url: url::Url,
    extensions: Vec<String>,
    next_id: AtomicU64,
}

impl Client {
    /// The client of the agent whose card is under `base`, talking over the first of
    /// `prefer` the card lists.
    pub(super) async fn connect_with(
        http: Http,
        mut base: url::Url,
        prefer: Vec<Transport>,
        extensions: Vec<String>,
    ) -> Result<Self, ClientError> {
        if !base.path().ends_with('/') {
            let path = format!("{}/", base.path());
            base.set_path(&path);
        }
        let card_url = base
            .join(CARD_PATH)
            .map_err(|error| ClientError::Config(format!("card URL: {error}")))?;
        let cards = CardCache::new(card_url);
        let card = cards.card(&http).await?;
        let (transport, url) = transport::choose(&card, &prefer)?;
        Ok(Self {
            inner: Arc::new(Inner {
                http,
                cards,
                transport,
                url,
                extensions,
                next_id: AtomicU64::new(1),
            }),
        })
    }

    /// The agent's card: the one kept while its `Cache-Control` allows, else fetched again
    /// (`If-None-Match`: a 304 keeps it).
    ///
    /// # Errors
    ///
    /// Those of the fetch: [`ClientError::BadCard`], [`ClientError::TooLarge`], a transport
    /// failure, a timeout or an HTTP status.
    pub async fn card(&self) -> Result<AgentCard, ClientError> {
        self.inner.cards.card(&self.inner.http).await
    }

    /// The interface in use.
    pub fn transport(&self) -> Transport {
        self.inner.transport
    }

    /// The URL of the interface in use.
    pub fn url(&self) -> &str {
        self.inner.url.as_str()
    }

    /// Sends a message and waits for the answer (unless `configuration.blocking` is off).
    /// Never retried.
    ///
    /// # Errors
    ///
    /// The agent's A2A error, or any other [`ClientError`].
    pub async fn send(&self, request: SendRequest) -> Result<SendResult, ClientError> {
        let transport = self.inner.transport;
        let params = transport.send_params(&request);
        let result = self.call(Operation::Send, params, None).await?;
        match transport.send_result(&result)? {
            StreamEvent::Task(task) => Ok(SendResult::Task(task)),
            StreamEvent::Message(message) => Ok(SendResult::Message(message)),
            _ => Err(ClientError::BadAnswer(
                "expected a task or a message".into(),
            )),
        }
    }

    /// Sends a message and streams the answer's events: the task, its updates, up to the
    /// last (a terminal or interrupted state).
    ///
    /// # Errors
    ///
    /// A [`ClientError`] before the stream starts; the stream yields its own.
    pub async fn send_streaming(&self, request: SendRequest) -> Result<EventStream, ClientError> {
        let params = self.inner.transport.send_params(&request);
        self.stream(Operation::Stream, params, None).await
    }

    /// Reads a task (with at most `query.history_length` messages of its history).
    ///
    /// # Errors
    ///
    /// The agent's A2A error (task not found: -32001), [`ClientError::BadAnswer`] for a task
    /// other than the one asked for, or any other [`ClientError`].
    pub async fn get_task(&self, query: TaskQuery) -> Result<Task, ClientError> {
        let transport = self.inner.transport;
        let params = transport.query_params(&query);
        let result = self
            .inner
            .http
            .retrying(|| self.call(Operation::Get, params.clone(), Some(&query.id)))
            .await?;
        same_id(transport.task(&result)?, &query.id)
    }

    /// Lists one page of the caller's tasks (A2A 1.0 only).
    ///
    /// # Errors
    ///
    /// [`ClientError::Unsupported`] over JSON-RPC 0.3; the agent's A2A error, or any other
    /// [`ClientError`].
    pub async fn list_tasks(&self, query: &TaskListQuery) -> Result<TaskPage, ClientError> {
        let params = v1_0::encode_list_params(query);
        let result = self
            .inner
            .http
            .retrying(|| self.call(Operation::List, params.clone(), None))
            .await?;
        v1_0::decode_page(&result).map_err(|error| ClientError::BadAnswer(error.to_string()))
    }

    /// Cancels a task; answers the task as it is afterwards. Never retried.
    ///
    /// # Errors
    ///
    /// The agent's A2A error (not cancelable: -32002), or any other [`ClientError`].
    pub async fn cancel_task(&self, id: &str) -> Result<Task, ClientError> {
        let params = serde_json::json!({"id": id});
        let result = self.call(Operation::Cancel, params, Some(id)).await?;
        same_id(self.inner.transport.task(&result)?, id)
    }

    /// Streams a running task's events from now on (0.3 `tasks/resubscribe`, 1.0
    /// `SubscribeToTask`); every event must be about that task.
    ///
    /// # Errors
    ///
    /// A [`ClientError`] before the stream starts (the agent's error for a task that has
    /// ended: -32004); the stream yields its own.
    pub async fn subscribe(&self, id: &str) -> Result<EventStream, ClientError> {
        let params = serde_json::json!({"id": id});
        self.stream(Operation::Subscribe, params, Some(id)).await
    }

    /// The extended agent card, which an agent shows to callers that passed its
    /// authentication (0.3 `agent/getAuthenticatedExtendedCard`, 1.0 `GetExtendedAgentCard`).
    /// Retried as an idempotent call.
    ///
    /// # Errors
    ///
    /// The agent's A2A error (none configured: -32007), [`ClientError::BadAnswer`] for an
    /// answer that is not a card, or any other [`ClientError`].
    pub async fn extended_card(&self) -> Result<AgentCard, ClientError> {
        let result = self
            .inner
            .http
            .retrying(|| self.call(Operation::ExtendedCard, serde_json::json!({}), None))
            .await?;
        super::trust::check(&self.inner.http.trusted, &result, "the extended agent card")?;
        v1_0::decode_card(&result).map_err(|error| ClientError::BadAnswer(error.to_string()))
    }

    /// The HTTP side: retries of idempotent calls.
    pub(super) fn http(&self) -> &Http {
        &self.inner.http
    }

    /// The request of `operation`: a JSON-RPC POST, or the HTTP+JSON method and path.
    fn request(
        &self,
        operation: Operation,
        params: Value,
        task_id: Option<&str>,
    ) -> Result<(reqwest::RequestBuilder, Expect), ClientError> {
        let inner = &self.inner;
        let http = &inner.http;
        let transport = inner.transport;
        let mut headers = Vec::new();
        if transport.is_1_0() {
            headers.push(("A2A-Version", "1.0".to_owned()));
        }
        if !inner.extensions.is_empty() {
            let name = if transport.is_1_0() {
                "A2A-Extensions"
            } else {
                "X-A2A-Extensions"
            };
            headers.push((name, inner.extensions.join(", ")));
        }
        let streams = matches!(operation, Operation::Stream | Operation::Subscribe);
        let accept = if streams {
            "text/event-stream"
        } else {
            "application/json"
        };
        headers.push(("accept", accept.to_owned()));
        if transport == Transport::HttpJson1_0 {
            let request = rest_request(&http.client, &inner.url, operation, params, task_id)?;
            return Ok((http.prepare(request, &headers), Expect::Rest));
        }
        let method = transport.method(operation).ok_or_else(|| {
            ClientError::Unsupported(format!("A2A {} has no such operation", transport))
        })?;
        let id = Id::Number(inner.next_id.fetch_add(1, Ordering::Relaxed).into());
        headers.push(("content-type", "application/json".to_owned()));
        let body = encode_request(&id, method, params).to_string();
        let request = http.client.post(inner.url.clone()).body(body);
        Ok((http.prepare(request, &headers), Expect::Rpc(id)))
    }

    /// One call answered with one JSON body: its result.
    pub(super) async fn call(
        &self,
        operation: Operation,
        params: Value,
        task_id: Option<&str>,
    ) -> Result<Value, ClientError> {
        let http = &self.inner.http;
        let (request, expect) = self.request(operation, params, task_id)?;
        let response = http.send(request).await?;
        let status = response.status();
        let limit = http.limits.answer_bytes;
        let body = http.body(response, limit).await?;
        if !status.is_success() {
            return Err(status_error(status.as_u16(), &body, &expect));
        }
        if operation == Operation::PushDelete {
            return read_nothing(&body, limit, &expect).map(|()| Value::Null);
        }
        read_result(json(&body, &answer_budget(limit))?, &expect)
    }

    /// One call answered with an event stream.
    async fn stream(
        &self,
        operation: Operation,
        params: Value,
        task_id: Option<&str>,
    ) -> Result<EventStream, ClientError> {
        let http = &self.inner.http;
        let transport = self.inner.transport;
        let (request, expect) = self.request(operation, params, task_id)?;
        let response = http.send(request).await?;
        let status = response.status();
        let limit = http.limits.answer_bytes;
        let content_type = response
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|value| value.to_str().ok())
            .unwrap_or("")
            .to_ascii_lowercase();
        if !status.is_success() {
            let body = http.body(response, limit).await?;
            return Err(status_error(status.as_u16(), &body, &expect));
        }
        if content_type.starts_with("text/event-stream") {
            return Ok(EventStream::read(
                response,
                Reading {
                    transport,
                    expect,
                    event_bytes: limit,
                    idle: http.stream_idle_timeout,
                    total: http.stream_timeout,
                    task_id: task_id.map(str::to_owned),
                },
            ));
        }
        if content_type.contains("json") {
            // An agent may answer a stream request with one JSON body (an error, most
            // often): read it as the stream's one event.
            let body = http.body(response, limit).await?;
            let value = json(&body, &answer_budget(limit))?;
            return Ok(events::single(value, &expect, transport));
        }
        Err(ClientError::BadAnswer(format!(
            "a stream answered as {content_type:?}, not text/event-stream"
        )))
    }
}

/// `task`, checked to be the one asked for.
fn same_id(task: Task, id: &str) -> Result<Task, ClientError> {
    if task.id == id {
        Ok(task)
    } else {
        Err(ClientError::BadAnswer(format!(
            "asked for task {id:?}, the agent answered task {:?}",
            task.id
        )))
    }
}

/// The HTTP+JSON request of `operation` under `base` (no `/v1` prefix, A2A 1.0 §11).
fn rest_request(
    client: &reqwest::Client,
    base: &url::Url,
    operation: Operation,
    params: Value,
    task_id: Option<&str>,
) -> Result<reqwest::RequestBuilder, ClientError> {
    let mut url = base.clone();
    let task = task_id.unwrap_or_default();
    {
        let mut segments = url
            .path_segments_mut()
            .map_err(|()| ClientError::Config(format!("interface URL {base} has no path")))?;
        segments.pop_if_empty();
        match operation {
            Operation::Send => segments.push("message:send"),
            Operation::Stream => segments.push("message:stream"),
            Operation::Get => segments.push("tasks").push(task),
            Operation::List => segments.push("tasks"),
            Operation::Cancel => segments.push("tasks").push(&format!("{task}:cancel")),
            Operation::Subscribe => segments.push("tasks").push(&format!("{task}:subscribe")),
            Operation::ExtendedCard => segments.push("extendedAgentCard"),
            Operation::PushSet | Operation::PushList => segments
                .push("tasks")
                .push(task)
                .push("pushNotificationConfigs"),
            Operation::PushGet | Operation::PushDelete => {
                let config = params.get("id").and_then(Value::as_str).unwrap_or_default();
                segments
                    .push("tasks")
                    .push(task)
                    .push("pushNotificationConfigs")
                    .push(config)
            }
        };
    }
    let request = match operation {
        Operation::ExtendedCard => client.get(url),
        Operation::PushGet => client.get(url),
        Operation::PushDelete => client.delete(url),
        Operation::Get | Operation::List | Operation::PushList => {
            let query: Vec<(String, String)> = match &params {
                Value::Object(members) => members
                    .iter()
                    .filter(|(name, _)| !matches!(name.as_str(), "id" | "taskId"))
                    .map(|(name, value)| {
                        let text = match value {
                            Value::String(text) => text.clone(),
                            other => other.to_string(),
                        };
                        (name.clone(), text)
                    })
                    .collect(),
                _ => Vec::new(),
            };
            client.get(url).query(&query)
        }
        Operation::Send | Operation::Stream | Operation::PushSet => client
            .post(url)
            .header(CONTENT_TYPE, "application/json")
            .body(params.to_string()),
        Operation::Cancel | Operation::Subscribe => client
            .post(url)
            .header(CONTENT_TYPE, "application/json")
            .body("{}"),
    };
    Ok(request)
}
