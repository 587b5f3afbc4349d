//! Helpers shared by the server integration tests: a server on a real socket, a JSON-RPC
//! client for A2A 0.3 and 1.0, the HTTP+JSON binding, SSE read to the end or event by event,
//! and the A2UI side (generators, capabilities, extension headers).
#![allow(dead_code)]

use std::time::Duration;

pub mod postgres;
pub mod stores;
pub mod webhook;

use a2ui_agent::a2a::card::AgentCard;
use a2ui_agent::a2ui::ProtocolVersion;
use a2ui_agent::agent::Agent;
use a2ui_agent::generator::Generator;
use a2ui_agent::server::{A2uiServer, ServerBuilder};
use futures::StreamExt;
use serde_json::{Value, json};

/// `a2ui-agent serve --port 0` followed by `args`: the real binary, as a command the caller
/// may add environment to before [`spawn_binary`].
pub fn serve_command(args: &[&str]) -> tokio::process::Command {
    let Some(binary) = option_env!("CARGO_BIN_EXE_a2ui-agent") else {
        panic!("the a2ui-agent binary is built only with the `cli` feature");
    };
    let mut command = tokio::process::Command::new(binary);
    command.args(["serve", "--port", "0"]).args(args);
    command
}

/// Starts `command` (see [`serve_command`]) and reads its log until the line that says where
/// it listens, for at most `within`; the rest of the log is drained in the background. The
/// child is killed when dropped. Returns it and the base URL, `http://ADDRESS/`.
pub async fn spawn_binary(
    mut command: tokio::process::Command,
    within: Duration,
) -> (tokio::process::Child, String) {
    use std::process::Stdio;
    use tokio::io::{AsyncBufReadExt, BufReader};

    let mut child = command
        .env("RUST_LOG", "info")
        .env("NO_COLOR", "1")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let find = async {
        while let Some(line) = lines.next_line().await.unwrap() {
            if let Some(rest) = line.split("card at http://").nth(1) {
                return rest.split('/').next().unwrap().to_owned();
            }
        }
        panic!("the server exited without saying where it listens");
    };
    let address = tokio::time::timeout(within, find)
        .await
        .expect("the server did not say where it listens in time");
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    (child, format!("http://{address}/"))
}

/// `a2ui-agent serve --store STORE` on a free port, the demo model writing a chunk every
/// `delay_ms`, with `extra` arguments after; the child is killed when dropped.
#[allow(dead_code)]
pub async fn serve_store(
    store: &str,
    delay_ms: u64,
    extra: &[&str],
) -> (tokio::process::Child, TestServer) {
    let delay = delay_ms.to_string();
    let mut args = vec![
        "--min-delay-ms",
        &delay,
        "--max-delay-ms",
        &delay,
        "--store",
        store,
    ];
    args.extend_from_slice(extra);
    let (child, url) = spawn_binary(serve_command(&args), Duration::from_secs(30)).await;
    (child, TestServer::external(url))
}

/// A server listening on 127.0.0.1 and a client for it.
pub struct TestServer {
    pub url: String,
    pub client: reqwest::Client,
    task: Option<tokio::task::JoinHandle<()>>,
}

impl Drop for TestServer {
    fn drop(&mut self) {
        if let Some(task) = &self.task {
            task.abort();
        }
    }
}

/// A builder with a card and `agent`, ready for options.
pub fn builder(agent: impl Agent) -> ServerBuilder {
    A2uiServer::builder(
        AgentCard::builder("Test agent")
            .description("For tests")
            .build(),
        agent,
    )
}

/// A builder with a card, `agent`, and the v0.9 then v0.8 built-in generators.
pub fn a2ui_builder(agent: impl Agent) -> ServerBuilder {
    A2uiServer::builder(AgentCard::builder("A2UI test agent").build(), agent)
        .generator(Generator::v0_9())
        .generator(Generator::v0_8())
}

/// Serves `server` on a fresh port.
pub async fn spawn(server: A2uiServer) -> TestServer {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let router = server.router();
    let task = tokio::spawn(async move {
        axum::serve(listener, router).await.unwrap();
    });
    TestServer {
        url: format!("http://{address}/"),
        client: reqwest::Client::new(),
        task: Some(task),
    }
}

/// A 1.0 `SendMessageRequest` for a user message holding `text`.
pub fn text_message_v1(text: &str) -> Value {
    json!({"message": {"role": "ROLE_USER", "messageId": unique_id(),
        "parts": [{"text": text}]}})
}

/// Params of `message/send` for a user message holding `text`.
pub fn text_message(text: &str) -> Value {
    json!({"message": {"kind": "message", "role": "user", "messageId": unique_id(),
        "parts": [{"kind": "text", "text": text}]}})
}

pub fn unique_id() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(1);
    format!("msg-{}", NEXT.fetch_add(1, Ordering::Relaxed))
}

/// What one SSE response carried.
#[derive(Debug, Default)]
pub struct Sse {
    pub content_type: String,
    pub cache_control: String,
    /// Each `data:` payload, parsed.
    pub events: Vec<Value>,
    /// How many comment lines (keep-alives) came.
    pub comments: usize,
    /// Lines that were neither `data:` nor comments.
    pub other_lines: Vec<String>,
}

impl Sse {
    /// The `result` of each event.
    pub fn results(&self) -> Vec<&Value> {
        self.events.iter().map(|event| &event["result"]).collect()
    }
}

impl TestServer {
    /// Posts `body` as is; the status and the body parsed as JSON (Null if it is not JSON).
    pub async fn post_raw(&self, body: impl Into<reqwest::Body>) -> (u16, Value) {
        let response = self
            .client
            .post(&self.url)
            .header("content-type", "application/json")
            .body(body)
            .send()
            .await
            .unwrap();
        let status = response.status().as_u16();
        let bytes = response.bytes().await.unwrap();
        (
            status,
            serde_json::from_slice(&bytes).unwrap_or(Value::Null),
        )
    }

    /// Calls A2A 1.0 `method` with `params` and `A2A-Version: 1.0`; the whole JSON-RPC
    /// response.
    pub async fn call_v1(&self, method: &str, params: Value) -> Value {
        self.post_v1(method, params).await.json().await.unwrap()
    }

    /// Opens an A2A 1.0 streaming call (`SendStreamingMessage`, `SubscribeToTask`).
    #[allow(dead_code)]
    pub async fn open_v1(&self, method: &str, params: Value) -> SseReader {
        SseReader::new(self.post_v1(method, params).await)
    }

    /// Posts A2A 1.0 `method` with `params`; the response, whose status is 200.
    async fn post_v1(&self, method: &str, params: Value) -> reqwest::Response {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
        let response = self
            .client
            .post(&self.url)
            .header("content-type", "application/json")
            .header("A2A-Version", "1.0")
            .body(body.to_string())
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200, "{method}");
        response
    }

    /// An HTTP+JSON request: `method` on `path` (relative to the server's URL, no leading
    /// slash) with an optional JSON body; the status and the body as JSON (Null if not JSON).
    pub async fn rest(&self, method: &str, path: &str, body: Option<Value>) -> (u16, Value) {
        let method = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
        let mut request = self
            .client
            .request(method, format!("{}{path}", self.url))
            .header("A2A-Version", "1.0");
        if let Some(body) = body {
            request = request
                .header("content-type", "application/a2a+json")
                .body(body.to_string());
        }
        let response = request.send().await.unwrap();
        let status = response.status().as_u16();
        let bytes = response.bytes().await.unwrap();
        (
            status,
            serde_json::from_slice(&bytes).unwrap_or(Value::Null),
        )
    }

    /// Calls `method` with `params`; the whole JSON-RPC response.
    pub async fn call(&self, method: &str, params: Value) -> Value {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
        let (status, response) = self.post_raw(body.to_string()).await;
        assert_eq!(status, 200, "{method}: {response}");
        response
    }

    /// Calls `method`; its `result`, panicking on an error response.
    pub async fn result(&self, method: &str, params: Value) -> Value {
        let response = self.call(method, params).await;
        assert!(response.get("error").is_none(), "{method}: {response}");
        response["result"].clone()
    }

    /// Calls `method`; its error code.
    pub async fn error_code(&self, method: &str, params: Value) -> i64 {
        let response = self.call(method, params).await;
        response["error"]["code"]
            .as_i64()
            .unwrap_or_else(|| panic!("{method}: expected an error, got {response}"))
    }

    /// Opens a streaming call and returns the raw response.
    pub async fn open_stream(&self, method: &str, params: Value) -> reqwest::Response {
        let body = json!({"jsonrpc": "2.0", "id": "s-1", "method": method, "params": params});
        self.client
            .post(&self.url)
            .header("content-type", "application/json")
            .body(body.to_string())
            .send()
            .await
            .unwrap()
    }

    /// Calls a streaming method and reads the response to its end (at most 30 s).
    pub async fn stream(&self, method: &str, params: Value) -> Sse {
        let response = self.open_stream(method, params).await;
        tokio::time::timeout(Duration::from_secs(30), read_sse(response))
            .await
            .expect("the stream did not end")
    }

    /// Asks the demo agent "Dinner?" as a new task by `message/send` and returns the task,
    /// checked to wait for input (the demo asks which restaurant).
    pub async fn ask_dinner(&self) -> Value {
        let task = self
            .result(
                "message/send",
                params(json!([{"kind": "text", "text": "Dinner?"}]), None, None),
            )
            .await;
        assert_eq!(task["status"]["state"], "input-required", "{task}");
        task
    }

    /// Opens a `message/stream` of the demo's "Dinner?" as a new task and reads it until the
    /// task works: the open stream and the task's id.
    pub async fn stream_dinner(&self) -> (SseReader, String) {
        let response = self
            .open_stream(
                "message/stream",
                params(json!([{"kind": "text", "text": "Dinner?"}]), None, None),
            )
            .await;
        let mut events = SseReader::new(response);
        loop {
            let event = events.next_event().await.expect("the stream ended early");
            let result = &event["result"];
            if result["status"]["state"] == "working" {
                let id = result["taskId"].as_str().or(result["id"].as_str()).unwrap();
                return (events, id.to_owned());
            }
        }
    }

    pub async fn get_task(&self, id: &str) -> Value {
        self.result("tasks/get", json!({"id": id})).await
    }

    /// Polls `tasks/get` until task `id` is in `state` (for up to about 5 s) and returns the
    /// task as last seen, in that state or not.
    pub async fn wait_for_state(&self, id: &str, state: &str) -> Value {
        let mut task = self.get_task(id).await;
        for _ in 0..500 {
            if task["status"]["state"] == state {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
            task = self.get_task(id).await;
        }
        task
    }
}

/// Reads an SSE response to its end.
pub async fn read_sse(response: reqwest::Response) -> Sse {
    let header = |name: &str| {
        response
            .headers()
            .get(name)
            .and_then(|value| value.to_str().ok())
            .unwrap_or_default()
            .to_owned()
    };
    let mut sse = Sse {
        content_type: header("content-type"),
        cache_control: header("cache-control"),
        ..Sse::default()
    };
    let mut body = Vec::new();
    let mut stream = response.bytes_stream();
    while let Some(chunk) = stream.next().await {
        body.extend_from_slice(&chunk.unwrap());
    }
    parse_sse(&String::from_utf8(body).unwrap(), &mut sse);
    sse
}

/// Reads SSE events from an open response until `count` events arrived.
pub struct SseReader {
    stream: futures::stream::BoxStream<'static, reqwest::Result<Vec<u8>>>,
    buffer: String,
}

impl SseReader {
    pub fn new(response: reqwest::Response) -> Self {
        Self {
            stream: response
                .bytes_stream()
                .map(|chunk| chunk.map(|bytes| bytes.to_vec()))
                .boxed(),
            buffer: String::new(),
        }
    }

    /// The next `data:` event, or None at the end of the stream.
    pub async fn next_event(&mut self) -> Option<Value> {
        loop {
            while let Some(end) = self.buffer.find("\n\n") {
                let block: String = self.buffer.drain(..end + 2).collect();
                for line in block.lines() {
                    if let Some(data) = line.strip_prefix("data: ") {
                        return Some(serde_json::from_str(data).unwrap());
                    }
                }
            }
            let chunk = tokio::time::timeout(Duration::from_secs(30), self.stream.next())
                .await
                .expect("no event within 30 s")?;
            self.buffer
                .push_str(&String::from_utf8(chunk.unwrap()).unwrap());
        }
    }
}

fn parse_sse(text: &str, sse: &mut Sse) {
    for line in text.lines() {
        if line.is_empty() {
            continue;
        }
        if let Some(data) = line.strip_prefix("data: ") {
            sse.events.push(serde_json::from_str(data).unwrap());
        } else if line.starts_with(':') {
            sse.comments += 1;
        } else {
            sse.other_lines.push(line.to_owned());
        }
    }
}

// ---- A2UI over A2A ----------------------------------------------------------------------

/// The capabilities a renderer of `version` with its basic catalog declares.
pub fn capabilities(version: ProtocolVersion, catalog_ids: &[&str]) -> Value {
    match version {
        ProtocolVersion::V0_8 => json!({"supportedCatalogIds": catalog_ids}),
        other => json!({other.as_str(): {"supportedCatalogIds": catalog_ids}}),
    }
}

/// Send params: a user message with `parts` and, if given, capabilities in its metadata.
pub fn params(parts: Value, capabilities: Option<Value>, task_id: Option<&str>) -> Value {
    let mut message = json!({"kind": "message", "role": "user", "messageId": unique_id(),
        "parts": parts});
    if let Some(capabilities) = capabilities {
        message["metadata"] = json!({"a2uiClientCapabilities": capabilities});
    }
    if let Some(task_id) = task_id {
        message["taskId"] = json!(task_id);
    }
    json!({"message": message})
}

/// A response: its headers and its events (one for `message/send`).
#[derive(Debug)]
pub struct Answer {
    pub extensions_header: Option<String>,
    pub events: Vec<Value>,
}

impl Answer {
    /// The `result` of the last event.
    pub fn last(&self) -> &Value {
        &self.events.last().expect("no event")["result"]
    }

    /// Every part of the agent's reply: for a stream, the parts of all status updates in
    /// order (the final update repeats none of them); for `message/send`, the parts of the
    /// finished task's status message.
    pub fn reply_parts(&self) -> Value {
        if let [only] = self.events.as_slice() {
            return only["result"]["status"]["message"]["parts"].clone();
        }
        // The Task that opens a stream shows the state before this reply: skip it.
        let parts: Vec<Value> = self
            .events
            .iter()
            .map(|e| &e["result"])
            .filter(|r| r["kind"] == "status-update")
            .filter_map(|r| r["status"]["message"]["parts"].as_array())
            .flatten()
            .cloned()
            .collect();
        Value::Array(parts)
    }

    /// The status updates with state `working` that carry a message.
    pub fn working_messages(&self) -> Vec<&Value> {
        self.events
            .iter()
            .map(|e| &e["result"])
            .filter(|r| r["kind"] == "status-update" && r["status"]["state"] == "working")
            .filter_map(|r| r["status"].get("message"))
            .collect()
    }
}

impl TestServer {
    /// A client for a server running elsewhere (another process) at `url`.
    pub fn external(url: String) -> Self {
        TestServer {
            url,
            client: reqwest::Client::new(),
            task: None,
        }
    }

    /// Asks in plain words as a renderer of `version` with its basic catalog would: the
    /// A2UI extension activated and the capabilities in the message metadata.
    pub async fn ask(&self, method: &str, version: ProtocolVersion, text: &str) -> Answer {
        let caps = capabilities(version, &[version.basic_catalog_id()]);
        let parts = json!([{"kind": "text", "text": text}]);
        self.exchange(
            method,
            params(parts, Some(caps), None),
            &[version.extension_uri()],
        )
        .await
    }

    /// Calls `method` with `params`, sending `extensions` in the `X-A2A-Extensions` header;
    /// reads the whole answer (SSE or JSON) and the echoed `X-A2A-Extensions`.
    pub async fn exchange(&self, method: &str, params: Value, extensions: &[&str]) -> Answer {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
        let mut request = self
            .client
            .post(&self.url)
            .header("content-type", "application/json");
        if !extensions.is_empty() {
            request = request.header("X-A2A-Extensions", extensions.join(", "));
        }
        let response = request.body(body.to_string()).send().await.unwrap();
        let extensions_header = response
            .headers()
            .get("x-a2a-extensions")
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        let is_sse = response
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("text/event-stream"));
        let read = async {
            let mut body = Vec::new();
            let mut stream = response.bytes_stream();
            while let Some(chunk) = stream.next().await {
                body.extend_from_slice(&chunk.unwrap());
            }
            String::from_utf8(body).unwrap()
        };
        let text = tokio::time::timeout(Duration::from_secs(30), read)
            .await
            .expect("the answer did not end within 30 s");
        let events = if is_sse {
            text.lines()
                .filter_map(|line| line.strip_prefix("data: "))
                .map(|data| serde_json::from_str(data).unwrap())
                .collect()
        } else {
            vec![serde_json::from_str(&text).unwrap()]
        };
        Answer {
            extensions_header,
            events,
        }
    }

    pub async fn card(&self) -> Value {
        let url = format!("{}.well-known/agent-card.json", self.url);
        self.client
            .get(url)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap()
    }
}

/// The A2UI messages among `parts`, checking each DataPart's MIME type is `version`'s.
pub fn a2ui_messages(parts: &Value, version: ProtocolVersion) -> Vec<Value> {
    parts
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["kind"] == "data")
        .map(|p| {
            assert_eq!(p["metadata"]["mimeType"], version.mime_type(), "{p}");
            assert!(p["data"].is_object(), "{p}");
            p["data"].clone()
        })
        .collect()
}

/// The text of the text parts among `parts`, joined.
pub fn text_of(parts: &Value) -> String {
    parts
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|p| p["text"].as_str())
        .collect()
}
