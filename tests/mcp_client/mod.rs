//! A bare MCP client over Streamable HTTP, for the tests that need to send what the SDK
//! clients never would (another caller's session id, a cancellation at a chosen moment,
//! hostile bodies): JSON-RPC posted with `reqwest`, answers read as JSON or as the SSE
//! stream `rmcp` replies with.
#![allow(dead_code)] // each test binary uses its own part

use serde_json::{Value, json};

/// The header naming a request's session.
pub const SESSION: &str = "mcp-session-id";

/// One client: the endpoint, its bearer token and, once initialized, its session.
#[derive(Clone)]
pub struct Mcp {
    pub url: String,
    pub token: Option<String>,
    pub session: Option<String>,
    pub client: reqwest::Client,
}

/// An answer: the HTTP status and the JSON-RPC message answering the request (or the
/// body, when it is not one).
#[derive(Debug)]
pub struct Answer {
    pub status: u16,
    pub body: Value,
    pub text: String,
}

impl Mcp {
    pub fn new(url: impl Into<String>, token: Option<&str>) -> Self {
        Self {
            url: url.into(),
            token: token.map(str::to_owned),
            session: None,
            client: reqwest::Client::new(),
        }
    }

    /// A POST of `body` with the client's token and session and the headers MCP asks for.
    pub fn post(&self, body: impl Into<reqwest::Body>) -> reqwest::RequestBuilder {
        let mut request = self
            .client
            .post(&self.url)
            .header("accept", "application/json, text/event-stream")
            .header("content-type", "application/json")
            .header("mcp-protocol-version", "2025-11-25")
            .body(body);
        if let Some(token) = &self.token {
            request = request.bearer_auth(token);
        }
        if let Some(session) = &self.session {
            request = request.header(SESSION, session);
        }
        request
    }

    /// Sends `message` and reads the whole answer.
    pub async fn send(&self, message: &Value) -> Answer {
        read(self.post(message.to_string()).send().await.unwrap()).await
    }

    /// `initialize` and `notifications/initialized`: the session is open.
    pub async fn initialize(&mut self) -> Value {
        let response = self
            .post(
                json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                    "protocolVersion": "2025-11-25", "capabilities": {},
                    "clientInfo": {"name": "bare-test-client", "version": "1"}}})
                .to_string(),
            )
            .send()
            .await
            .unwrap();
        let session = response
            .headers()
            .get(SESSION)
            .map(|id| id.to_str().unwrap().to_owned());
        let answer = read(response).await;
        assert_eq!(answer.status, 200, "{answer:?}");
        self.session = session;
        let done = self
            .send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        assert_eq!(done.status, 202, "{done:?}");
        answer.body["result"].clone()
    }

    /// `method` with `params` as request `id`: its answer.
    pub async fn request(&self, id: u64, method: &str, params: Value) -> Answer {
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await
    }

    /// The agent's tool's name (the first tool listed).
    pub async fn tool_name(&self) -> String {
        let listed = self.request(1, "tools/list", json!({})).await;
        listed.body["result"]["tools"][0]["name"]
            .as_str()
            .unwrap_or_else(|| panic!("{listed:?}"))
            .to_owned()
    }

    /// Calls the agent's tool `tool` with `message`: the tool result.
    pub async fn ask(&self, tool: &str, message: &str) -> Value {
        let answer = self
            .request(
                2,
                "tools/call",
                json!({"name": tool, "arguments": {"message": message}}),
            )
            .await;
        assert_eq!(answer.status, 200, "{answer:?}");
        answer.body["result"].clone()
    }
}

/// The JSON-RPC answer a response carries: its JSON body, or the first SSE event holding
/// a response (an `id` with a `result` or `error`).
pub async fn read(response: reqwest::Response) -> Answer {
    let status = response.status().as_u16();
    let sse = response
        .headers()
        .get("content-type")
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| value.starts_with("text/event-stream"));
    let text = response.text().await.unwrap_or_default();
    let body = if sse {
        text.lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .filter_map(|data| serde_json::from_str::<Value>(data.trim()).ok())
            .find(|message| message.get("result").is_some() || message.get("error").is_some())
            .unwrap_or(Value::Null)
    } else {
        serde_json::from_str(&text).unwrap_or(Value::Null)
    };
    Answer { status, body, text }
}
