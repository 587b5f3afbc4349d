//! The server under attack and under load, over real TCP with `A2uiServer::serve`: slow and
//! silent sockets are closed, shutdown ends within its deadline, browsers cannot forge
//! requests, overload gets a clear answer, and auth and CORS guard the endpoint.
//!
//! Bounds on waiting (`within`) are generous liveness limits, many times the configured
//! timeouts, so a loaded machine does not fail them; they fail only when nothing happens.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use a2ui_agent::a2a::card::AgentCard;
use a2ui_agent::agent::{Agent, AgentError, Reply};
use a2ui_agent::request::Request;
use a2ui_agent::server::{A2uiServer, Limits, Principal, ServerBuilder, TokenTable};
use futures::StreamExt;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::oneshot;

/// How long anything that should happen may take before the test calls it a hang.
const WITHIN: Duration = Duration::from_secs(10);

/// A builder with a card and `agent`, ready for options.
fn builder(agent: impl Agent) -> ServerBuilder {
    A2uiServer::builder(AgentCard::builder("Hardened").build(), agent)
}

/// Params of `message/send` for a user message holding `text`.
fn text_message(text: &str) -> Value {
    static NEXT: AtomicUsize = AtomicUsize::new(1);
    let id = NEXT.fetch_add(1, Ordering::Relaxed);
    json!({"message": {"kind": "message", "role": "user", "messageId": format!("m-{id}"),
        "parts": [{"kind": "text", "text": text}]}})
}

/// Reads the `data:` events of an SSE response one by one.
struct SseReader {
    body: futures::stream::BoxStream<'static, reqwest::Result<axum::body::Bytes>>,
    buffer: String,
}

impl SseReader {
    fn new(response: reqwest::Response) -> Self {
        Self {
            body: response.bytes_stream().boxed(),
            buffer: String::new(),
        }
    }

    /// The next event, or `None` when the response ends (or breaks).
    async fn next_event(&mut self) -> Option<Value> {
        loop {
            while let Some(end) = self.buffer.find("\n\n") {
                let block: String = self.buffer.drain(..end + 2).collect();
                if let Some(data) = block.lines().find_map(|line| line.strip_prefix("data: ")) {
                    return Some(serde_json::from_str(data).unwrap());
                }
            }
            let chunk = tokio::time::timeout(WITHIN, self.body.next())
                .await
                .expect("no event within the bound")?
                .ok()?;
            self.buffer.push_str(&String::from_utf8_lossy(&chunk));
        }
    }
}

/// A server run by `A2uiServer::serve` on 127.0.0.1, and the means to stop it.
struct Served {
    address: std::net::SocketAddr,
    url: String,
    client: reqwest::Client,
    stop: Option<oneshot::Sender<()>>,
    done: Option<tokio::task::JoinHandle<std::io::Result<()>>>,
}

impl Served {
    async fn start(server: A2uiServer) -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let (stop, stopped) = oneshot::channel::<()>();
        let done = tokio::spawn(async move {
            server
                .serve(listener)
                .with_graceful_shutdown(async move {
                    let _ = stopped.await;
                })
                .await
        });
        Self {
            address,
            url: format!("http://{address}/"),
            client: reqwest::Client::new(),
            stop: Some(stop),
            done: Some(done),
        }
    }

    /// Sends the shutdown signal and waits (at most [`WITHIN`]) for `serve` to return.
    async fn shut_down(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        let done = self.done.take().expect("shut down once");
        tokio::time::timeout(WITHIN, done)
            .await
            .expect("serve did not return within the bound")
            .unwrap()
            .unwrap();
    }

    fn post(&self) -> reqwest::RequestBuilder {
        self.client
            .post(&self.url)
            .header("content-type", "application/json")
    }

    async fn call(&self, method: &str, params: Value) -> Value {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
        let response = self.post().body(body.to_string()).send().await.unwrap();
        assert_eq!(response.status(), 200);
        response.json().await.unwrap()
    }

    async fn raw(&self) -> TcpStream {
        TcpStream::connect(self.address).await.unwrap()
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        if let Some(done) = &self.done {
            done.abort();
        }
    }
}

fn short_limits() -> Limits {
    Limits {
        header_read_timeout: Duration::from_millis(300),
        body_timeout: Duration::from_millis(300),
        idle_timeout: Duration::from_millis(300),
        ..Limits::default()
    }
}

/// An agent that answers "ok".
fn ok_agent() -> ServerBuilder {
    builder(|_: Request| async { Ok::<_, AgentError>(Reply::text("ok")) })
}

/// An agent whose reply streams nothing and never ends (until canceled or stopped).
fn endless_agent() -> ServerBuilder {
    builder(|_: Request| async {
        Ok::<_, AgentError>(Reply::stream(futures::stream::pending::<
            Result<String, AgentError>,
        >()))
    })
}

/// Reads `stream` until the peer closes it; what was read, or `None` if it stayed open for
/// [`WITHIN`].
async fn read_until_closed(stream: &mut TcpStream) -> Option<Vec<u8>> {
    let mut all = Vec::new();
    let read = async {
        let mut buffer = [0u8; 4096];
        loop {
            match stream.read(&mut buffer).await {
                Ok(0) | Err(_) => break,
                Ok(n) => all.extend_from_slice(&buffer[..n]),
            }
        }
    };
    tokio::time::timeout(WITHIN, read).await.ok()?;
    Some(all)
}

fn status_of(response: &[u8]) -> String {
    String::from_utf8_lossy(response)
        .lines()
        .next()
        .unwrap_or("")
        .to_owned()
}

// --- Connection hygiene -------------------------------------------------------------------

#[tokio::test]
async fn half_sent_headers_silent_sockets_and_trickled_bodies_are_closed() {
    // The idle timeout is long: the header and body timeouts must close these sockets.
    let limits = Limits {
        idle_timeout: Duration::from_secs(3600),
        ..short_limits()
    };
    let served = Served::start(ok_agent().limits(limits).build().unwrap()).await;

    let mut half_header = served.raw().await;
    half_header
        .write_all(b"POST / HTTP/1.1\r\nHost: localhost\r\n")
        .await
        .unwrap();
    let mut silent = served.raw().await;
    let mut trickle = served.raw().await;
    trickle
        .write_all(
            b"POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n\
              Content-Length: 100\r\n\r\n{\"jsonrpc\"",
        )
        .await
        .unwrap();

    assert!(
        read_until_closed(&mut half_header).await.is_some(),
        "a half-sent header kept its socket open"
    );
    assert!(
        read_until_closed(&mut silent).await.is_some(),
        "a socket that sent nothing stayed open"
    );
    let answer = read_until_closed(&mut trickle)
        .await
        .expect("a body that never finished kept its socket open");
    assert_eq!(status_of(&answer), "HTTP/1.1 408 Request Timeout");
}

#[tokio::test]
async fn an_idle_keep_alive_connection_is_closed_but_a_long_stream_is_not() {
    let agent = builder(|_: Request| async {
        // Silent for several idle timeouts, then answers.
        tokio::time::sleep(Duration::from_millis(1500)).await;
        Ok::<_, AgentError>(Reply::text("late"))
    });
    let served = Served::start(
        agent
            .keep_alive(Duration::from_millis(100))
            .limits(short_limits())
            .build()
            .unwrap(),
    )
    .await;

    let mut idle = served.raw().await;
    idle.write_all(b"GET /.well-known/agent-card.json HTTP/1.1\r\nHost: localhost\r\n\r\n")
        .await
        .unwrap();
    let answer = read_until_closed(&mut idle)
        .await
        .expect("an idle keep-alive connection stayed open");
    assert_eq!(status_of(&answer), "HTTP/1.1 200 OK");

    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "message/stream",
                      "params": text_message("hi")});
    let response = served.post().body(body.to_string()).send().await.unwrap();
    let mut reader = SseReader::new(response);
    let mut last = Value::Null;
    while let Some(event) = reader.next_event().await {
        last = event;
    }
    assert_eq!(last["result"]["final"], true, "{last}");
    assert_eq!(
        last["result"]["status"]["state"], "input-required",
        "{last}"
    );
}

fn get_card(url: &str) -> tokio::task::JoinHandle<reqwest::Result<u16>> {
    let card = format!("{url}.well-known/agent-card.json");
    tokio::spawn(async move {
        let response = reqwest::Client::new().get(card).send().await?;
        Ok(response.status().as_u16())
    })
}

#[tokio::test]
async fn at_the_connection_cap_an_idle_connection_gives_way_to_a_new_client() {
    // Long timeouts: only the cap can close the silent sockets.
    let limits = Limits {
        max_connections: 2,
        header_read_timeout: Duration::from_secs(3600),
        idle_timeout: Duration::from_secs(3600),
        ..Limits::default()
    };
    let served = Served::start(ok_agent().limits(limits).build().unwrap()).await;
    let mut first = served.raw().await;
    let mut second = served.raw().await;
    tokio::time::sleep(Duration::from_millis(200)).await;

    let status = tokio::time::timeout(WITHIN, get_card(&served.url))
        .await
        .expect("a new client was kept out by idle sockets")
        .unwrap()
        .unwrap();
    assert_eq!(status, 200);
    let mut byte = [0u8; 1];
    let closed = |read: Result<std::io::Result<usize>, _>| matches!(read, Ok(Ok(0) | Err(_)));
    let first_closed =
        closed(tokio::time::timeout(Duration::from_millis(100), first.read(&mut byte)).await);
    let second_closed =
        closed(tokio::time::timeout(Duration::from_millis(100), second.read(&mut byte)).await);
    assert!(
        first_closed && !second_closed,
        "the longest-idle socket (the first) should have made room, and only it"
    );
}

#[tokio::test]
async fn at_the_connection_cap_with_every_connection_busy_new_clients_wait() {
    let limits = Limits {
        max_connections: 2,
        ..Limits::default()
    };
    let served = Served::start(endless_agent().limits(limits).build().unwrap()).await;
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "message/stream",
                      "params": text_message("hi")})
    .to_string();
    let mut streams = Vec::new();
    for _ in 0..2 {
        let response = reqwest::Client::new()
            .post(&served.url)
            .header("content-type", "application/json")
            .body(body.clone())
            .send()
            .await
            .unwrap();
        let mut reader = SseReader::new(response);
        reader.next_event().await.unwrap();
        streams.push(reader);
    }

    let waiting = get_card(&served.url);
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(
        !waiting.is_finished(),
        "a connection carrying a stream was closed to make room"
    );
    drop(streams.pop());
    let status = tokio::time::timeout(WITHIN, waiting)
        .await
        .expect("the waiting client was not served after a connection closed")
        .unwrap()
        .unwrap();
    assert_eq!(status, 200);
}

// --- Shutdown with a deadline -------------------------------------------------------------

#[tokio::test]
async fn shutdown_ends_running_streams_as_failed_and_ignores_half_open_connections() {
    let limits = Limits {
        drain_deadline: Duration::from_millis(500),
        ..Limits::default()
    };
    let mut served = Served::start(
        endless_agent()
            .keep_alive(Duration::from_millis(100))
            .limits(limits)
            .build()
            .unwrap(),
    )
    .await;
    let mut half_open = served.raw().await;
    half_open
        .write_all(b"POST / HTTP/1.1\r\nHost: localhost\r\n")
        .await
        .unwrap();
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "message/stream",
                      "params": text_message("hi")});
    let response = served.post().body(body.to_string()).send().await.unwrap();
    let mut reader = SseReader::new(response);
    let first = reader.next_event().await.unwrap();
    assert_eq!(first["result"]["status"]["state"], "submitted");

    served.shut_down().await;

    let mut last = Value::Null;
    while let Some(event) = reader.next_event().await {
        last = event;
    }
    let status = &last["result"]["status"];
    assert_eq!(last["result"]["final"], true, "{last}");
    assert_eq!(status["state"], "failed", "{last}");
    let text = status["message"]["parts"][0]["text"].as_str().unwrap_or("");
    assert!(text.contains("server is stopping"), "{last}");
    assert!(
        read_until_closed(&mut half_open).await.is_some(),
        "the half-open connection outlived the server"
    );
    assert!(
        TcpStream::connect(served.address).await.is_err(),
        "the server still accepts after shutting down"
    );
}

#[tokio::test]
async fn shutdown_lets_a_stream_that_ends_before_the_deadline_finish() {
    let agent = builder(|_: Request| async {
        tokio::time::sleep(Duration::from_millis(300)).await;
        Ok::<_, AgentError>(Reply::text("finished"))
    });
    let limits = Limits {
        drain_deadline: Duration::from_secs(20),
        ..Limits::default()
    };
    let mut served = Served::start(agent.limits(limits).build().unwrap()).await;
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "message/stream",
                      "params": text_message("hi")});
    let response = served.post().body(body.to_string()).send().await.unwrap();
    let mut reader = SseReader::new(response);
    reader.next_event().await.unwrap();
    served.shut_down().await;
    let mut events = Vec::new();
    while let Some(event) = reader.next_event().await {
        events.push(event);
    }
    let last = events.last().unwrap();
    assert_eq!(
        last["result"]["status"]["state"], "input-required",
        "{last}"
    );
    assert!(
        events
            .iter()
            .any(|event| event.to_string().contains("finished"))
    );
}

// --- Requests a browser cannot forge ------------------------------------------------------

#[tokio::test]
async fn a_text_plain_post_is_refused_before_the_method_runs() {
    let calls = Arc::new(AtomicUsize::new(0));
    let counted = calls.clone();
    let agent = builder(move |_: Request| {
        counted.fetch_add(1, Ordering::SeqCst);
        async { Ok::<_, AgentError>(Reply::text("ran")) }
    });
    let served = Served::start(agent.build().unwrap()).await;
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "message/send",
                      "params": text_message("hi")});
    for content_type in [
        "text/plain",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
    ] {
        let response = served
            .client
            .post(&served.url)
            .header("content-type", content_type)
            .body(body.to_string())
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 415, "{content_type}");
    }
    let without = served
        .client
        .post(&served.url)
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(without.status(), 415);
    let a2a_json = served
        .client
        .post(&served.url)
        .header("content-type", "application/a2a+json; charset=utf-8")
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(a2a_json.status(), 200);
    assert_eq!(calls.load(Ordering::SeqCst), 1, "only the JSON request ran");
    // A REST cancel changes a task: a text/plain one is refused too. A bodiless subscribe
    // (read-only) passes the gate and is answered (here: no such task).
    let cancel = served
        .client
        .post(format!("{}tasks/t-1:cancel", served.url))
        .header("content-type", "text/plain")
        .body("{}")
        .send()
        .await
        .unwrap();
    assert_eq!(cancel.status(), 415);
    let subscribe = served
        .client
        .post(format!("{}tasks/t-1:subscribe", served.url))
        .send()
        .await
        .unwrap();
    assert_ne!(subscribe.status(), 415);
}

#[tokio::test]
async fn on_loopback_a_foreign_host_is_refused_and_loopback_names_pass() {
    let served = Served::start(ok_agent().build().unwrap()).await;
    let port = served.address.port();
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "message/send",
                      "params": text_message("hi")});
    for (host, status) in [
        ("rebind.attacker.example".to_owned(), 403),
        (format!("rebind.attacker.example:{port}"), 403),
        (format!("localhost:{port}"), 200),
        (format!("127.0.0.1:{port}"), 200),
        (format!("[::1]:{port}"), 200),
    ] {
        let response = served
            .post()
            .header("host", &host)
            .body(body.to_string())
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), status, "{host}");
        let card = served
            .client
            .get(format!("{}.well-known/agent-card.json", served.url))
            .header("host", &host)
            .send()
            .await
            .unwrap();
        assert_eq!(card.status(), status, "card for {host}");
    }
}

#[tokio::test]
async fn configured_allowed_hosts_replace_the_loopback_rule() {
    let server = ok_agent().allowed_hosts(["agent.example"]).build().unwrap();
    let served = Served::start(server).await;
    let card = |host: &'static str| {
        served
            .client
            .get(format!("{}.well-known/agent-card.json", served.url))
            .header("host", host)
            .send()
    };
    assert_eq!(card("agent.example:443").await.unwrap().status(), 200);
    assert_eq!(card("localhost").await.unwrap().status(), 403);
}

#[tokio::test]
async fn an_oversize_body_gets_its_413_even_while_the_client_is_still_sending() {
    let served = Served::start(ok_agent().body_limit(64 * 1024).build().unwrap()).await;
    // A body many times the limit and larger than socket buffers, written whole before the
    // answer is read, as Python's client does: a server that closed without reading it would
    // break the client's pipe instead of giving it the status.
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"message/send","params":{{"pad":"{}"}}}}"#,
        "x".repeat(12 * 1024 * 1024)
    );
    for _ in 0..5 {
        let mut socket = served.raw().await;
        let head = format!(
            "POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n\
             Content-Length: {}\r\n\r\n",
            body.len()
        );
        socket.write_all(head.as_bytes()).await.unwrap();
        socket
            .write_all(body.as_bytes())
            .await
            .expect("the server closed while the body was being sent");
        let mut answer = vec![0u8; 1024];
        let n = tokio::time::timeout(WITHIN, socket.read(&mut answer))
            .await
            .expect("no answer")
            .expect("the connection broke instead of answering");
        assert_eq!(status_of(&answer[..n]), "HTTP/1.1 413 Payload Too Large");
    }
}

#[tokio::test]
async fn a_request_head_over_the_limit_gets_431_and_a_larger_limit_lets_it_in() {
    let send = |served: &Served, header: usize, body: usize| {
        let request = served.post().header("x-padding", "h".repeat(header)).body(
            json!({"jsonrpc": "2.0", "id": 1, "method": "message/send",
                       "params": {"message": {"role": "user", "messageId": "m1",
                                  "parts": [{"kind": "text", "text": "b".repeat(body)}]}}})
            .to_string(),
        );
        async move { request.send().await.unwrap().status().as_u16() }
    };
    let served = Served::start(ok_agent().build().unwrap()).await;
    assert_eq!(send(&served, 6 * 1024, 0).await, 200, "a 6 KiB header fits");
    assert_eq!(
        send(&served, 0, 200 * 1024).await,
        200,
        "a body larger than the read buffer is read in pieces"
    );
    assert_eq!(
        send(&served, 12 * 1024, 0).await,
        431,
        "a 12 KiB header is over the default 8 KiB"
    );
    let roomy = Limits {
        max_request_head_bytes: 32 * 1024,
        ..Limits::default()
    };
    let served = Served::start(ok_agent().limits(roomy).build().unwrap()).await;
    assert_eq!(send(&served, 12 * 1024, 0).await, 200, "32 KiB lets it in");
    let floor = Limits {
        max_request_head_bytes: 100,
        ..Limits::default()
    };
    let served = Served::start(ok_agent().limits(floor).build().unwrap()).await;
    assert_eq!(
        send(&served, 6 * 1024, 0).await,
        200,
        "a limit below the floor counts as 8 KiB"
    );
}

// --- Overload control ---------------------------------------------------------------------

async fn send_non_blocking(served: &Served, client: &str) -> Value {
    send_non_blocking_with(served, "x-client", client).await
}

/// A non-blocking `message/send` with `header: value`.
async fn send_non_blocking_with(served: &Served, header: &str, value: &str) -> Value {
    let mut params = text_message("hi");
    params["configuration"] = json!({"blocking": false});
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": params});
    served
        .post()
        .header(header, value)
        .body(body.to_string())
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

#[tokio::test]
async fn beyond_the_running_task_cap_the_answer_says_the_server_is_busy() {
    let limits = Limits {
        max_running_tasks: 2,
        ..Limits::default()
    };
    let served = Served::start(endless_agent().limits(limits).build().unwrap()).await;
    let first = send_non_blocking(&served, "a").await;
    send_non_blocking(&served, "a").await["result"]["id"]
        .as_str()
        .expect("the second task started");
    let refused = send_non_blocking(&served, "a").await;
    assert_eq!(refused["error"]["code"], -32000, "{refused}");
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(message.starts_with("Server busy"), "{message}");

    // A task that ends frees its place.
    let id = first["result"]["id"].as_str().unwrap();
    let canceled = served.call("tasks/cancel", json!({"id": id})).await;
    assert_eq!(canceled["result"]["status"]["state"], "canceled");
    let mut admitted = Value::Null;
    for _ in 0..100 {
        admitted = send_non_blocking(&served, "a").await;
        if admitted.get("result").is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(admitted["result"]["id"].is_string(), "{admitted}");
}

#[tokio::test]
async fn one_client_over_its_share_is_busy_while_another_still_gets_in() {
    let limits = Limits {
        max_running_tasks_per_client: 1,
        client_key_header: Some("X-Client".to_owned()),
        ..Limits::default()
    };
    let served = Served::start(endless_agent().limits(limits).build().unwrap()).await;
    assert!(send_non_blocking(&served, "a").await["result"].is_object());
    let refused = send_non_blocking(&served, "a").await;
    assert_eq!(refused["error"]["code"], -32000, "{refused}");
    let other = send_non_blocking(&served, "b").await;
    assert!(other["result"].is_object(), "{other}");
}

/// With callers authenticated, each caller has its share, whatever address it comes from:
/// two callers on one address both get in, and one caller is held to one share.
#[tokio::test]
async fn an_authenticated_callers_share_is_its_own_on_a_shared_address() {
    let limits = Limits {
        max_running_tasks_per_client: 1,
        ..Limits::default()
    };
    let table = TokenTable::new()
        .with(Principal::new("ada"), "ada-token")
        .with(Principal::new("bob"), "bob-token");
    let server = endless_agent().limits(limits).auth_tokens(table);
    let served = Served::start(server.build().unwrap()).await;
    let ada = send_non_blocking_with(&served, "authorization", "Bearer ada-token").await;
    assert!(ada["result"].is_object(), "{ada}");
    let bob = send_non_blocking_with(&served, "authorization", "Bearer bob-token").await;
    assert!(bob["result"].is_object(), "bob shares ada's address: {bob}");
    let again = send_non_blocking_with(&served, "authorization", "Bearer ada-token").await;
    assert_eq!(again["error"]["code"], -32000, "{again}");
}

/// Behind a proxy, what the client writes into `X-Forwarded-For` (the entries left of the
/// one the proxy appended) must not buy it a fresh share of the per-client cap.
#[tokio::test]
async fn a_client_cannot_dodge_its_share_by_writing_x_forwarded_for() {
    for limits in [
        Limits {
            max_running_tasks_per_client: 1,
            trusted_proxies: 1,
            ..Limits::default()
        },
        Limits {
            max_running_tasks_per_client: 1,
            client_key_header: Some("X-Forwarded-For".to_owned()),
            ..Limits::default()
        },
    ] {
        let served = Served::start(endless_agent().limits(limits).build().unwrap()).await;
        let xff = "X-Forwarded-For";
        let first = send_non_blocking_with(&served, xff, "10.9.9.1, 203.0.113.7").await;
        assert!(first["result"].is_object(), "{first}");
        let dodge = send_non_blocking_with(&served, xff, "10.9.9.2, 203.0.113.7").await;
        assert_eq!(dodge["error"]["code"], -32000, "{dodge}");
        // Another client, as the proxy saw it, still gets in.
        let other = send_non_blocking_with(&served, xff, "10.9.9.1, 198.51.100.4").await;
        assert!(other["result"].is_object(), "{other}");
    }
}

// --- Auth and CORS ------------------------------------------------------------------------

#[tokio::test]
async fn without_the_token_the_endpoint_answers_401_but_the_card_stays_public() {
    let served = Served::start(ok_agent().auth_token("s3cret").build().unwrap()).await;
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "message/send",
                      "params": text_message("hi")})
    .to_string();

    let anonymous = served.post().body(body.clone()).send().await.unwrap();
    assert_eq!(anonymous.status(), 401);
    let challenge = anonymous.headers()["www-authenticate"].to_str().unwrap();
    assert!(challenge.starts_with("Bearer"), "{challenge}");

    let wrong = served
        .post()
        .bearer_auth("guess")
        .body(body.clone())
        .send()
        .await
        .unwrap();
    assert_eq!(wrong.status(), 401);
    assert!(
        wrong.headers()["www-authenticate"]
            .to_str()
            .unwrap()
            .contains("invalid_token")
    );

    let bearer = served
        .post()
        .bearer_auth("s3cret")
        .body(body.clone())
        .send()
        .await
        .unwrap();
    assert_eq!(bearer.status(), 200);
    let api_key = served
        .post()
        .header("X-API-Key", "s3cret")
        .body(body)
        .send()
        .await
        .unwrap();
    assert_eq!(api_key.status(), 200);

    let card: Value = served
        .client
        .get(format!("{}.well-known/agent-card.json", served.url))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(
        card["securitySchemes"]["bearer"]["httpAuthSecurityScheme"]["scheme"],
        "bearer"
    );
    assert_eq!(
        card["securitySchemes"]["apiKey"]["apiKeySecurityScheme"]["location"],
        "header"
    );
    assert_eq!(
        card["securityRequirements"],
        json!([{"schemes": {"bearer": {"list": []}}}, {"schemes": {"apiKey": {"list": []}}}])
    );
    // The 0.3 card names them the 0.3 way.
    let card: Value = served
        .client
        .get(format!("{}.well-known/agent.json", served.url))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(card["securitySchemes"]["bearer"]["scheme"], "bearer");
    assert_eq!(card["security"], json!([{"bearer": []}, {"apiKey": []}]));
}

async fn preflight(served: &Served, origin: &str) -> reqwest::Response {
    served
        .client
        .request(reqwest::Method::OPTIONS, &served.url)
        .header("origin", origin)
        .header("access-control-request-method", "POST")
        .header(
            "access-control-request-headers",
            "content-type, authorization, x-a2a-extensions",
        )
        .send()
        .await
        .unwrap()
}

#[tokio::test]
async fn a_cors_preflight_is_answered_for_allowed_origins_only() {
    let served = Served::start(
        ok_agent()
            .auth_token("s3cret")
            .cors_origins(["https://app.example"])
            .build()
            .unwrap(),
    )
    .await;
    let allowed = preflight(&served, "https://app.example").await;
    assert!(allowed.status().is_success(), "{}", allowed.status());
    let headers = allowed.headers();
    assert_eq!(
        headers["access-control-allow-origin"],
        "https://app.example"
    );
    let methods = headers["access-control-allow-methods"].to_str().unwrap();
    assert!(methods.contains("POST"), "{methods}");
    let allowed_headers = headers["access-control-allow-headers"]
        .to_str()
        .unwrap()
        .to_ascii_lowercase();
    for needed in ["content-type", "authorization", "x-a2a-extensions"] {
        assert!(allowed_headers.contains(needed), "{allowed_headers}");
    }

    let foreign = preflight(&served, "https://evil.example").await;
    assert!(
        foreign
            .headers()
            .get("access-control-allow-origin")
            .is_none()
    );
}

#[tokio::test]
async fn without_configured_origins_no_cors_header_is_sent() {
    let served = Served::start(ok_agent().build().unwrap()).await;
    let response = preflight(&served, "https://app.example").await;
    assert!(
        response
            .headers()
            .get("access-control-allow-origin")
            .is_none()
    );
}
