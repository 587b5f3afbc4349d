//! Helpers for the A2UI-over-A2A tests: a server on a real socket, requests with extension
//! headers and capabilities, and SSE read to the end with the response headers.
#![allow(dead_code)]

use std::time::Duration;

use a2ui_agent::a2a::card::AgentCard;
use a2ui_agent::a2ui::ProtocolVersion;
use a2ui_agent::agent::Agent;
use a2ui_agent::generator::Generator;
use a2ui_agent::server::{A2uiServer, ServerBuilder};
use futures::StreamExt;
use serde_json::{Value, json};

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

/// A builder with a card, `agent`, and the v0.9 then v0.8 built-in generators.
pub fn builder(agent: impl Agent) -> ServerBuilder {
    A2uiServer::builder()
        .card(AgentCard::builder("A2UI test agent").build())
        .generator(Generator::v0_9())
        .generator(Generator::v0_8())
        .agent(agent)
}

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

pub fn unique_id() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(1);
    format!("a2ui-msg-{}", NEXT.fetch_add(1, Ordering::Relaxed))
}

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

    /// Calls `method` with `params`, sending `extensions` in the `X-A2A-Extensions` header;
    /// reads the whole answer (SSE or JSON).
    pub async fn call(&self, method: &str, params: Value, extensions: &[&str]) -> Answer {
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
