//! A message that starts no task yet (`message/send` waiting for the answer, or
//! `message/stream`) calls the agent before any task exists: a bare message may answer it.
//! A shutdown past its drain deadline stops that call as it stops a running task: the
//! agent's future is dropped, and the client is told the server is stopping, in an answer
//! of its method's shape, before the server returns.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use a2ui_agent::agent::{AgentError, Reply};
use a2ui_agent::request::Request;
use a2ui_agent::server::Limits;
use a2ui_agent::{A2uiServer, AgentCard};
use serde_json::{Value, json};
use tokio::sync::{Notify, oneshot};

/// How long anything that should happen may take before the test calls it a hang.
const WITHIN: Duration = Duration::from_secs(10);

/// Counts the agent calls that were dropped.
struct Dropped(Arc<AtomicUsize>);

impl Drop for Dropped {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

#[tokio::test]
async fn a_shutdown_past_its_deadline_stops_an_agent_that_has_not_answered_yet() {
    let dropped = Arc::new(AtomicUsize::new(0));
    let called = Arc::new(Notify::new());
    let agent = {
        let (dropped, called) = (dropped.clone(), called.clone());
        move |_: Request| {
            let guard = Dropped(dropped.clone());
            called.notify_one();
            async move {
                let _guard = guard;
                std::future::pending::<()>().await;
                Ok::<_, AgentError>(Reply::text("never"))
            }
        }
    };
    let limits = Limits {
        drain_deadline: Duration::from_millis(300),
        ..Limits::default()
    };
    let server = A2uiServer::builder(AgentCard::builder("Deciding").build(), agent)
        .limits(limits)
        .build()
        .unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/", listener.local_addr().unwrap());
    let (stop, stopped) = oneshot::channel::<()>();
    let served = tokio::spawn(async move {
        server
            .serve(listener)
            .with_graceful_shutdown(async move {
                let _ = stopped.await;
            })
            .await
    });
    let client = reqwest::Client::new();
    let ask = |method: &'static str, id: &'static str| {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": {"message":
            {"kind": "message", "role": "user", "messageId": id,
             "parts": [{"kind": "text", "text": "hi"}]}}});
        let request = client
            .post(&url)
            .header("content-type", "application/json")
            .body(body.to_string());
        tokio::spawn(async move {
            let response = request.send().await.map_err(|e| e.to_string())?;
            response.text().await.map_err(|e| e.to_string())
        })
    };
    let send = ask("message/send", "m-1");
    tokio::time::timeout(WITHIN, called.notified())
        .await
        .expect("the agent was not called");
    let stream = ask("message/stream", "m-2");
    tokio::time::timeout(WITHIN, called.notified())
        .await
        .expect("the agent was not called");

    let _ = stop.send(());
    tokio::time::timeout(WITHIN, served)
        .await
        .expect("serve did not return within the bound")
        .unwrap()
        .unwrap();
    assert_eq!(dropped.load(Ordering::SeqCst), 2, "both calls are stopped");

    let send = send.await.unwrap().expect("the send got no answer");
    let send: Value = serde_json::from_str(&send).unwrap();
    let message = send["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("server is stopping"), "{send}");
    let stream = stream.await.unwrap().expect("the stream got no answer");
    let last: Value = stream
        .lines()
        .filter_map(|line| line.strip_prefix("data: "))
        .next_back()
        .map(|data| serde_json::from_str(data).unwrap())
        .unwrap_or_default();
    let message = last["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("server is stopping"), "{stream}");
}
