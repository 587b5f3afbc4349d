//! Clients that read their SSE stream very slowly, or stop reading it, against the real
//! `a2ui-agent serve --model-url` binary answering with a long reply (a scripted model, about
//! 3 MB of text). Raw TCP clients with a small receive buffer subscribe to one task and then
//! stop reading (one reads a trickle instead), while a normal client reads the same task.
//! The server's memory stays bounded (its RSS, sampled all along, grows by far less than the
//! bytes those streams were offered), the run is not held up (the normal client gets every
//! chunk and the final update, and the task is stored), and the server closes the
//! connections of the clients that stopped reading once `--send-timeout` has passed.
#![cfg(feature = "cli")]

mod llm_support;
mod support;

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use llm_support::{Answer, MockModel, sse, text};
use serde_json::{Value, json};
use support::{SseReader, TestServer, serve_command, spawn_binary, text_message};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};

/// The chunks of the long reply, and each one's size.
const CHUNKS: usize = 3000;
const CHUNK_BYTES: usize = 1000;

/// The clients that stop reading (with the trickle reader and the normal one, under the cap
/// of 16 streams per task).
const STALLED: usize = 12;

/// `--send-timeout`: how long a client may take no bytes before its connection is closed.
const SEND_TIMEOUT_S: u64 = 3;

/// The server's resident memory in bytes (`VmRSS`).
fn rss(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|l| l.starts_with("VmRSS:")).unwrap();
    let kib: u64 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
    kib * 1024
}

/// A raw HTTP/1.1 client with a small receive buffer that posts `body` and reads only up to
/// the first SSE event; the socket (left unread from then on) and that event.
async fn subscribe_then_stop(address: SocketAddr, body: &Value) -> (TcpStream, Value) {
    let socket = TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(4096).unwrap();
    let mut stream = socket.connect(address).await.unwrap();
    let body = body.to_string();
    let request = format!(
        "POST / HTTP/1.1\r\nhost: {address}\r\ncontent-type: application/json\r\n\
         content-length: {}\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut seen = Vec::new();
    let mut buffer = [0u8; 256];
    let first = loop {
        let read = tokio::time::timeout(Duration::from_secs(30), stream.read(&mut buffer))
            .await
            .expect("no first event within 30 s")
            .unwrap();
        assert!(read > 0, "closed before the first event");
        seen.extend_from_slice(&buffer[..read]);
        let text = String::from_utf8_lossy(&seen);
        if let Some(start) = text.find("data: ")
            && let Some(end) = text[start..].find('\n')
        {
            break serde_json::from_str(&text[start + 6..start + end]).unwrap();
        }
    };
    (stream, first)
}

/// A JSON-RPC request body.
fn rpc(method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
}

/// Whether the process still holds its end of a connection between `server_port` and
/// `client_port` (a line of /proc/net/tcp with an inode: an orphan the kernel still
/// drains has none).
fn server_holds(server_port: u16, client_port: u16) -> bool {
    let table = std::fs::read_to_string("/proc/net/tcp").unwrap();
    let port =
        |address: &str| u16::from_str_radix(address.rsplit(':').next().unwrap(), 16).unwrap();
    table.lines().skip(1).any(|line| {
        let fields: Vec<&str> = line.split_whitespace().collect();
        port(fields[1]) == server_port && port(fields[2]) == client_port && fields[9] != "0"
    })
}

/// What one long run measured.
struct Run {
    /// How much the server's RSS grew at most, from just before the run.
    grew: u64,
    /// How long the run took.
    ran: Duration,
}

/// Serves the long reply once to a normal reader, with `stalled` clients that stop reading
/// (and, with any, one reading a trickle) on the same task; checks the normal reader got
/// every chunk and the final update, the task is stored, and the server closed the stalled
/// clients' connections. A server process of its own, so its RSS is this run's.
async fn long_run(stalled: usize) -> Run {
    let deltas: Vec<Value> = (0..CHUNKS)
        .map(|n| text(&format!("{n:05} {}\n", "y".repeat(CHUNK_BYTES - 7))))
        .collect();
    let mock = MockModel::start(vec![
        Answer::fixture("text.sse"),
        Answer::Sse {
            body: sse(&deltas, "stop"),
            pause: Duration::from_millis(2),
        },
    ])
    .await;
    let timeout = SEND_TIMEOUT_S.to_string();
    let command = serve_command(&[
        "--model-url",
        &mock.base_url,
        "--model",
        "m",
        "--send-timeout",
        &timeout,
    ]);
    let (child, url) = spawn_binary(command, Duration::from_secs(30)).await;
    let pid = child.id().unwrap();
    let server = TestServer::external(url.clone());
    let address: SocketAddr = url
        .trim_start_matches("http://")
        .trim_end_matches('/')
        .parse()
        .unwrap();

    // Warm up (the first task, a short answer), then the baseline.
    server.result("message/send", text_message("hi")).await;
    let baseline = rss(pid);
    let peak = Arc::new(AtomicU64::new(baseline));
    let sampler = {
        let peak = peak.clone();
        tokio::spawn(async move {
            loop {
                peak.fetch_max(rss(pid), Ordering::Relaxed);
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        })
    };

    // The long task, started by a client that stops reading after its first event (or the
    // normal reader, without any); the others subscribe to it and stop too.
    let started = Instant::now();
    let mut stalled_streams = Vec::new();
    let (mut events, id) = if stalled == 0 {
        let mut events = SseReader::new(
            server
                .open_stream("message/stream", text_message("write"))
                .await,
        );
        let opening = events.next_event().await.expect("no first event");
        let id = opening["result"]["id"].as_str().unwrap().to_owned();
        (events, id)
    } else {
        let (first, event) =
            subscribe_then_stop(address, &rpc("message/stream", text_message("write"))).await;
        let id = event["result"]["id"].as_str().unwrap().to_owned();
        stalled_streams.push(first);
        let events = SseReader::new(
            server
                .open_stream("tasks/resubscribe", json!({"id": id}))
                .await,
        );
        (events, id)
    };
    for _ in 1..stalled {
        let (stream, _) =
            subscribe_then_stop(address, &rpc("tasks/resubscribe", json!({"id": id}))).await;
        stalled_streams.push(stream);
    }
    // One reads a trickle, 640 bytes every 10 ms (about a tenth of the model's pace), until its
    // stream ends: it never stops long, but would set the pace of the run if it were waited for.
    let trickled = Arc::new(AtomicU64::new(0));
    let trickling = if stalled > 0 {
        let (mut trickle, _) =
            subscribe_then_stop(address, &rpc("tasks/resubscribe", json!({"id": id}))).await;
        let trickled = trickled.clone();
        Some(tokio::spawn(async move {
            let mut buffer = [0u8; 640];
            loop {
                match trickle.read(&mut buffer).await {
                    Ok(0) | Err(_) => return,
                    Ok(read) => trickled.fetch_add(read as u64, Ordering::Relaxed),
                };
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        }))
    } else {
        None
    };

    // The normal reader gets every chunk from where it joined, and the final update.
    let read = async {
        let mut last_chunk = None;
        loop {
            let event = events.next_event().await.expect("the stream ended early");
            let result = &event["result"];
            if result["final"] == true {
                return (result["status"]["state"].clone(), last_chunk);
            }
            if let Some(text) = result["status"]["message"]["parts"][0]["text"].as_str() {
                last_chunk = text.get(..5).map(str::to_owned);
            }
        }
    };
    let (state, last_chunk) = tokio::time::timeout(Duration::from_secs(120), read)
        .await
        .expect("the run was held up: no final update within 120 s");
    let ran = started.elapsed();
    let last = format!("{:05}", CHUNKS - 1);
    assert_eq!(last_chunk.as_deref(), Some(last.as_str()));
    let stored = server.get_task(&id).await;
    assert_eq!(stored["status"]["state"], state, "{stored}");

    // The connections of the clients that stopped reading are closed by the server.
    let ports: Vec<u16> = stalled_streams
        .iter()
        .map(|stream| stream.local_addr().unwrap().port())
        .collect();
    let deadline = Instant::now() + Duration::from_secs(SEND_TIMEOUT_S + 30);
    while ports.iter().any(|&port| server_holds(address.port(), port)) {
        assert!(
            Instant::now() < deadline,
            "the server still holds connections of clients that stopped reading"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    sampler.abort();
    if let Some(trickling) = trickling {
        // It drains what was queued for it before it was cut off, at its own pace.
        trickling.abort();
        let read = trickled.load(Ordering::Relaxed);
        println!("the trickle reader had read {read} bytes when the run ended");
    }
    Run {
        grew: peak.load(Ordering::Relaxed).saturating_sub(baseline),
        ran,
    }
}

#[tokio::test]
async fn clients_that_stop_reading_are_cut_off_without_holding_the_run_or_the_servers_memory() {
    let alone = long_run(0).await;
    let slowed = long_run(STALLED).await;
    let offered = (STALLED * CHUNKS * CHUNK_BYTES) as u64;
    println!(
        "alone: {:?}, RSS +{} KiB; with {STALLED} stalled readers and a trickle: {:?}, RSS +{} KiB \
         ({} KiB offered to the stalled streams)",
        alone.ran,
        alone.grew / 1024,
        slowed.ran,
        slowed.grew / 1024,
        offered / 1024
    );
    // Each stalled stream holds at most its buffer of events, not what it was offered.
    let extra = slowed.grew.saturating_sub(alone.grew);
    assert!(
        extra < offered / 4,
        "the stalled streams cost {extra} bytes"
    );
}
