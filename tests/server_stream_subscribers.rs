//! Stream subscribers are fed each on its own: one that stops reading is cut off and never
//! delays the task or the other streams; a task, and a caller, take a bounded number of
//! them. Real sockets: the stalled subscriber is a raw TCP connection that stops reading.
#![cfg(feature = "server")]

mod support;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use a2ui_agent::agent::{AgentError, Reply};
use a2ui_agent::request::Request;
use futures::StreamExt;
use futures::channel::mpsc;
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// One chunk of the agent's reply: one `working` update each.
const CHUNK: usize = 16 * 1024;
/// 16 MiB in all: more than a stalled connection's socket buffers and its stream's own
/// buffer hold.
const CHUNKS: usize = 1024;
/// The last chunk, which the reading subscriber must see.
const MARKER: &str = "the-end-of-the-reply";
/// A hang guard, not a timing: a run that waited for each stalled subscriber in turn (30 s
/// each, before) would stall a minute here.
const GUARD: Duration = Duration::from_secs(20);

/// An agent that streams what the test sends it (one call).
fn piped_agent() -> (
    impl Fn(Request) -> futures::future::BoxFuture<'static, Result<Reply, AgentError>>,
    mpsc::UnboundedSender<String>,
) {
    let (sender, receiver) = mpsc::unbounded::<String>();
    let receiver = Arc::new(Mutex::new(Some(receiver)));
    let agent = move |_request: Request| {
        let chunks = receiver.lock().unwrap().take().expect("one call");
        Box::pin(async move { Ok(Reply::stream(chunks.map(Ok::<_, AgentError>))) })
            as futures::future::BoxFuture<'static, _>
    };
    (agent, sender)
}

/// Resubscribes to task `id` over a raw connection and reads only until the first event.
async fn stalled_subscriber(url: &str, id: &str) -> TcpStream {
    let address = url
        .trim_start_matches("http://")
        .trim_end_matches('/')
        .to_owned();
    let mut socket = TcpStream::connect(&address).await.unwrap();
    let body =
        json!({"jsonrpc": "2.0", "id": 7, "method": "tasks/resubscribe", "params": {"id": id}})
            .to_string();
    let request = format!(
        "POST / HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\n\r\n{body}",
        body.len()
    );
    socket.write_all(request.as_bytes()).await.unwrap();
    let mut seen = Vec::new();
    let mut buffer = [0u8; 4096];
    while !String::from_utf8_lossy(&seen).contains("\n\n") {
        let read = socket.read(&mut buffer).await.unwrap();
        assert!(read > 0, "closed before the first event");
        seen.extend_from_slice(&buffer[..read]);
    }
    assert!(String::from_utf8_lossy(&seen).contains("data:"));
    socket
}

#[tokio::test]
async fn subscribers_that_stop_reading_are_cut_off_without_stalling_the_others() {
    let (agent, chunks) = piped_agent();
    let server = support::builder(agent)
        .max_subscribers_per_task(3)
        .build()
        .unwrap();
    let server = support::spawn(server).await;
    let response = server
        .open_stream("message/stream", support::text_message("go"))
        .await;
    let mut reader = support::SseReader::new(response);
    let first = reader.next_event().await.unwrap();
    let id = first["result"]["id"].as_str().unwrap().to_owned();

    let mut stalled = [
        stalled_subscriber(&server.url, &id).await,
        stalled_subscriber(&server.url, &id).await,
    ];
    // Three follow the task now: a fourth is refused, clearly.
    let refused = server.stream("tasks/resubscribe", json!({"id": id})).await;
    let refused = &refused.events[0];
    assert_eq!(refused["error"]["code"], -32000, "{refused}");
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains("subscribers"),
        "{refused}"
    );

    for _ in 0..CHUNKS {
        chunks.unbounded_send("x".repeat(CHUNK)).unwrap();
    }
    chunks.unbounded_send(MARKER.to_owned()).unwrap();
    drop(chunks);

    let read_all = async {
        let mut marker = false;
        while let Some(event) = reader.next_event().await {
            let result = &event["result"];
            let text = result["status"]["message"]["parts"][0]["text"]
                .as_str()
                .unwrap_or_default();
            marker |= text == MARKER;
            if result["final"] == true {
                return (marker, result["status"]["state"].clone());
            }
        }
        panic!("the reading subscriber's stream ended without a final event");
    };
    let (marker, state) = tokio::time::timeout(GUARD, read_all)
        .await
        .expect("the reading subscriber waited for the stalled one");
    assert!(marker, "the reading subscriber missed the last chunk");
    assert_eq!(state, "input-required");

    // The stalled ones were cut off: what each reads now ends with the early-end error,
    // and never reaches the end of the reply.
    for stalled in &mut stalled {
        drain_to_the_early_end(stalled).await;
    }
}

/// Reads what `stalled` was sent: it must end with the early-end error, without the end of
/// the reply.
async fn drain_to_the_early_end(stalled: &mut TcpStream) {
    let drain = async {
        let mut tail = String::new();
        let mut buffer = vec![0u8; 64 * 1024];
        loop {
            let read = stalled.read(&mut buffer).await.unwrap();
            assert!(read > 0, "closed without the early-end error");
            tail.push_str(&String::from_utf8_lossy(&buffer[..read]));
            assert!(
                !tail.contains(MARKER),
                "the stalled subscriber got the whole reply"
            );
            if tail.contains("The stream ended early") {
                return;
            }
            let mut cut = tail.len().saturating_sub(256);
            while !tail.is_char_boundary(cut) {
                cut -= 1;
            }
            tail.drain(..cut);
        }
    };
    tokio::time::timeout(GUARD, drain)
        .await
        .expect("the stalled subscriber's stream did not end");
}

#[tokio::test]
async fn a_caller_holding_its_cap_of_subscriptions_is_busy_until_it_closes_one() {
    let (agent, chunks) = piped_agent();
    // Only an authenticated caller is counted: unauthenticated clients are all the one
    // anonymous caller, and must not share one cap.
    let tokens = a2ui_agent::server::TokenTable::parse("alice alice-token\n").unwrap();
    let server = support::builder(agent)
        .max_subscribers_per_caller(2)
        .auth_tokens(tokens)
        .build()
        .unwrap();
    let spawned = support::spawn(server).await;
    let mut server = support::TestServer::external(spawned.url.clone());
    let mut headers = reqwest::header::HeaderMap::new();
    headers.insert("authorization", "Bearer alice-token".parse().unwrap());
    server.client = reqwest::Client::builder()
        .default_headers(headers)
        .build()
        .unwrap();
    // The stream that starts the task is not a subscription: it takes no place.
    let response = server
        .open_stream("message/stream", support::text_message("go"))
        .await;
    let mut starter = support::SseReader::new(response);
    let first = starter.next_event().await.unwrap();
    let id = first["result"]["id"].as_str().unwrap().to_owned();

    let subscribe = || async {
        let response = server
            .open_stream("tasks/resubscribe", json!({"id": id}))
            .await;
        let mut reader = support::SseReader::new(response);
        let first = reader.next_event().await.unwrap();
        (reader, first)
    };
    let (first_reader, opened) = subscribe().await;
    assert_eq!(opened["result"]["id"], id.as_str(), "{opened}");
    let (_second_reader, opened) = subscribe().await;
    assert_eq!(opened["result"]["id"], id.as_str(), "{opened}");

    let (_, refused) = subscribe().await;
    assert_eq!(refused["error"]["code"], -32000, "{refused}");
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains("as a caller may (2)"),
        "{refused}"
    );

    // Closing a stream gives its place back (once the server sees the connection go).
    drop(first_reader);
    let reopened = async {
        loop {
            let (reader, opened) = subscribe().await;
            if opened["result"]["id"] == id.as_str() {
                return reader;
            }
            assert_eq!(opened["error"]["code"], -32000, "{opened}");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    };
    let _reopened = tokio::time::timeout(GUARD, reopened)
        .await
        .expect("a closed subscription never gave its place back");
    drop(chunks);
}
