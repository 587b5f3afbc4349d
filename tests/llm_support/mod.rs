//! A scripted OpenAI-compatible model server on a real socket, for the connector's tests, the
//! end-to-end test of `a2ui-agent serve --model-url` and the latency benchmark.
//!
//! It answers `POST /v1/chat/completions` with the next scripted [`Answer`] (the last one
//! again once the script is spent): an SSE body replayed event by event from a fixture file in
//! the exact wire format (`tests/llm_fixtures/`), an error status, or a stream that never
//! ends. It records every request body and header, and counts the answers whose body was
//! dropped before it was sent whole (the client closed the connection).
#![allow(dead_code)]

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Body;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use serde_json::Value;

/// One scripted answer.
#[derive(Debug, Clone)]
pub enum Answer {
    /// An SSE body, sent one event (`data: ...\n\n`) at a time with `pause` before each.
    Sse { body: String, pause: Duration },
    /// An error status with optional `Retry-After` and a body.
    Status {
        status: u16,
        retry_after: Option<&'static str>,
        body: String,
    },
    /// The SSE events of `prefix`, then silence until the client goes away.
    Hang { prefix: String },
    /// An SSE body whose first event comes after `first` (a model reading its prompt),
    /// the others without pause.
    SlowStart { body: String, first: Duration },
    /// An SSE body's bytes, each chunk written as it is (cut anywhere, inside a UTF-8
    /// character too).
    Raw { chunks: Vec<Vec<u8>> },
}

/// An SSE body of chat-completion chunks as OpenAI sends them: `data: {chunk}` events with
/// the given deltas (`finish_reason` in the last), then `[DONE]`.
pub fn sse(deltas: &[Value], finish_reason: &str) -> String {
    let mut body = String::new();
    let chunk = |delta: &Value, finish: Option<&str>| {
        serde_json::json!({"id": "chatcmpl-mock", "object": "chat.completion.chunk",
            "created": 1764500000, "model": "mock-model",
            "choices": [{"index": 0, "delta": delta, "logprobs": null, "finish_reason": finish}]})
    };
    body.push_str(&format!(
        "data: {}\n\n",
        chunk(
            &serde_json::json!({"role": "assistant", "content": null}),
            None
        )
    ));
    for delta in deltas {
        body.push_str(&format!("data: {}\n\n", chunk(delta, None)));
    }
    body.push_str(&format!(
        "data: {}\n\n",
        chunk(&serde_json::json!({}), Some(finish_reason))
    ));
    body.push_str("data: [DONE]\n\n");
    body
}

/// A content delta.
pub fn text(content: &str) -> Value {
    serde_json::json!({"content": content})
}

/// A tool-call delta: the piece of call `index` (its id and name only in its first piece).
pub fn call(index: usize, id: Option<&str>, name: Option<&str>, arguments: &str) -> Value {
    let mut function = serde_json::json!({"arguments": arguments});
    if let Some(name) = name {
        function["name"] = name.into();
    }
    let mut piece = serde_json::json!({"index": index, "function": function});
    if let Some(id) = id {
        piece["id"] = id.into();
        piece["type"] = "function".into();
    }
    serde_json::json!({"tool_calls": [piece]})
}

impl Answer {
    /// A fixture replayed without pauses.
    pub fn fixture(name: &str) -> Self {
        Answer::Sse {
            body: fixture(name),
            pause: Duration::ZERO,
        }
    }
}

/// The text of `tests/llm_fixtures/NAME`.
pub fn fixture(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/llm_fixtures")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The content a fixture streams, concatenated (what the model "wrote").
pub fn fixture_content(name: &str) -> String {
    fixture(name)
        .split("\n\n")
        .filter_map(|event| event.strip_prefix("data: "))
        .filter_map(|data| serde_json::from_str::<Value>(data).ok())
        .filter_map(|chunk| {
            chunk["choices"][0]["delta"]["content"]
                .as_str()
                .map(str::to_owned)
        })
        .collect()
}

#[derive(Default)]
struct Shared {
    script: Vec<Answer>,
    next: AtomicUsize,
    requests: Mutex<Vec<(HeaderMap, Value)>>,
    dropped: AtomicUsize,
}

/// The running mock; stops when dropped.
pub struct MockModel {
    /// The API root to give the connector (`http://127.0.0.1:PORT/v1`).
    pub base_url: String,
    shared: Arc<Shared>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for MockModel {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl MockModel {
    /// Serves `script` on a fresh port.
    pub async fn start(script: Vec<Answer>) -> MockModel {
        assert!(!script.is_empty());
        let shared = Arc::new(Shared {
            script,
            ..Shared::default()
        });
        let router = axum::Router::new()
            .route("/v1/chat/completions", post(answer))
            .with_state(shared.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let task = tokio::spawn(async move {
            axum::serve(listener, router).await.unwrap();
        });
        MockModel {
            base_url: format!("http://{address}/v1"),
            shared,
            task,
        }
    }

    /// The request bodies received so far.
    pub fn requests(&self) -> Vec<Value> {
        let requests = self.shared.requests.lock().unwrap();
        requests.iter().map(|(_, body)| body.clone()).collect()
    }

    /// The headers of the request bodies received so far.
    pub fn headers(&self) -> Vec<HeaderMap> {
        let requests = self.shared.requests.lock().unwrap();
        requests
            .iter()
            .map(|(headers, _)| headers.clone())
            .collect()
    }

    /// How many answers were abandoned by the client before their end.
    pub fn dropped(&self) -> usize {
        self.shared.dropped.load(Ordering::SeqCst)
    }

    /// Waits (up to 10 s) until at least `count` answers were abandoned.
    pub async fn wait_dropped(&self, count: usize) -> bool {
        for _ in 0..1000 {
            if self.dropped() >= count {
                return true;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        false
    }
}

/// Counts the answer as abandoned if dropped before `done` is set.
struct Watch {
    shared: Arc<Shared>,
    done: bool,
}

impl Drop for Watch {
    fn drop(&mut self) {
        if !self.done {
            self.shared.dropped.fetch_add(1, Ordering::SeqCst);
        }
    }
}

async fn answer(State(shared): State<Arc<Shared>>, headers: HeaderMap, body: Bytes) -> Response {
    let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    shared.requests.lock().unwrap().push((headers, body));
    let index = shared.next.fetch_add(1, Ordering::SeqCst);
    let answer = shared.script[index.min(shared.script.len() - 1)].clone();
    match answer {
        Answer::Status {
            status,
            retry_after,
            body,
        } => {
            let mut response = (StatusCode::from_u16(status).unwrap(), body).into_response();
            response
                .headers_mut()
                .insert("content-type", "application/json".parse().unwrap());
            if let Some(after) = retry_after {
                response
                    .headers_mut()
                    .insert("retry-after", after.parse().unwrap());
            }
            response
        }
        Answer::Sse { body, pause } => sse_body(shared, body, pause, Duration::ZERO, false),
        Answer::Hang { prefix } => sse_body(shared, prefix, Duration::ZERO, Duration::ZERO, true),
        Answer::SlowStart { body, first } => sse_body(shared, body, Duration::ZERO, first, false),
        Answer::Raw { chunks } => raw_body(shared, chunks),
    }
}

fn raw_body(shared: Arc<Shared>, chunks: Vec<Vec<u8>>) -> Response {
    let stream = async_stream::stream! {
        let mut watch = Watch { shared, done: false };
        for chunk in chunks {
            // A pause between writes, so each chunk goes out on its own.
            tokio::task::yield_now().await;
            yield Ok::<_, std::convert::Infallible>(Bytes::from(chunk));
        }
        watch.done = true;
    };
    Response::builder()
        .header("content-type", "text/event-stream")
        .body(Body::from_stream(stream))
        .unwrap()
}

fn sse_body(
    shared: Arc<Shared>,
    body: String,
    pause: Duration,
    first: Duration,
    hang: bool,
) -> Response {
    let events: Vec<String> = body.split_inclusive("\n\n").map(str::to_owned).collect();
    let stream = async_stream::stream! {
        let mut watch = Watch { shared, done: false };
        if !first.is_zero() {
            tokio::time::sleep(first).await;
        }
        for event in events {
            if !pause.is_zero() {
                tokio::time::sleep(pause).await;
            }
            yield Ok::<_, std::convert::Infallible>(Bytes::from(event));
        }
        if hang {
            std::future::pending::<()>().await;
        }
        watch.done = true;
    };
    Response::builder()
        .header("content-type", "text/event-stream")
        .header("cache-control", "no-cache")
        .body(Body::from_stream(stream))
        .unwrap()
}
