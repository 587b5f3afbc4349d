//! A webhook receiver for the push notification tests: an axum server on 127.0.0.1 that
//! records every request (headers and body) and answers as told: acknowledge, fail the
//! first N requests with 503, fail until opened, hang, or redirect.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use serde_json::Value;

/// How the receiver answers.
#[derive(Clone, Debug)]
pub enum Behaviour {
    /// 200 to everything.
    Ack,
    /// 503 to the first `n` requests, then 200.
    FailFirst(usize),
    /// 503 until [`Receiver::open`], then 200.
    Closed,
    /// Never answers.
    Hang,
    /// 302 to this location.
    Redirect(String),
}

/// One request the receiver got.
#[derive(Clone, Debug)]
pub struct Received {
    pub headers: HeaderMap,
    pub body: Value,
}

#[derive(Clone)]
struct Shared {
    behaviour: Behaviour,
    received: Arc<Mutex<Vec<Received>>>,
    /// Requests seen, answered or not.
    seen: Arc<Mutex<usize>>,
    /// Whether a [`Behaviour::Closed`] receiver was opened.
    open: Arc<AtomicBool>,
}

/// A running receiver; stops when dropped.
pub struct Receiver {
    pub url: String,
    shared: Shared,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Receiver {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn hook(State(shared): State<Shared>, headers: HeaderMap, body: Bytes) -> Response {
    let seen = {
        let mut seen = shared.seen.lock().unwrap();
        *seen += 1;
        *seen
    };
    let record = || {
        shared.received.lock().unwrap().push(Received {
            headers: headers.clone(),
            body: serde_json::from_slice(&body).unwrap_or(Value::Null),
        });
    };
    match &shared.behaviour {
        Behaviour::Ack => {
            record();
            StatusCode::OK.into_response()
        }
        Behaviour::FailFirst(n) if seen <= *n => StatusCode::SERVICE_UNAVAILABLE.into_response(),
        Behaviour::FailFirst(_) => {
            record();
            StatusCode::OK.into_response()
        }
        Behaviour::Closed if !shared.open.load(Ordering::SeqCst) => {
            StatusCode::SERVICE_UNAVAILABLE.into_response()
        }
        Behaviour::Closed => {
            record();
            StatusCode::OK.into_response()
        }
        Behaviour::Hang => std::future::pending().await,
        Behaviour::Redirect(location) => {
            (StatusCode::FOUND, [("location", location.clone())]).into_response()
        }
    }
}

impl Receiver {
    /// Starts a receiver on 127.0.0.1 answering as `behaviour` says; its URL is
    /// `http://127.0.0.1:PORT/hook`.
    pub async fn start(behaviour: Behaviour) -> Receiver {
        let shared = Shared {
            behaviour,
            received: Arc::default(),
            seen: Arc::default(),
            open: Arc::default(),
        };
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let app = Router::new()
            .route("/hook", post(hook))
            .with_state(shared.clone());
        let task = tokio::spawn(async move {
            axum::serve(listener, app).await.unwrap();
        });
        Receiver {
            url: format!("http://{address}/hook"),
            shared,
            task,
        }
    }

    /// Starts acknowledging (a [`Behaviour::Closed`] receiver).
    pub fn open(&self) {
        self.shared.open.store(true, Ordering::SeqCst);
    }

    /// What was acknowledged so far.
    pub fn received(&self) -> Vec<Received> {
        self.shared.received.lock().unwrap().clone()
    }

    /// How many requests came, answered or not.
    pub fn seen(&self) -> usize {
        *self.shared.seen.lock().unwrap()
    }

    /// Waits (at most 20 s) until `done` holds of what was acknowledged; returns it.
    pub async fn wait_for(&self, done: impl Fn(&[Received]) -> bool) -> Vec<Received> {
        for _ in 0..400 {
            let received = self.received();
            if done(&received) {
                return received;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!(
            "the webhook did not receive what was expected: {:?}",
            self.received()
        );
    }
}
