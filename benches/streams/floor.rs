//! The floor: what tokio, hyper and axum alone cost here for the same streams, so each
//! target can be read against what this machine charges before any A2A or A2UI work.
//!
//! `--serve floor-closure|floor-connector|floor-silent` answers every POST with an SSE
//! stream and does the least a streaming server can: the closure floor paces the same
//! chunks with the same timer as our closure agent; the connector floor reads the same fake
//! model through `reqwest`, as `llm::OpenAiChat` does, one body read per token; the silent
//! floor sends nothing. None parses, validates, keeps or stores anything: a chunk that
//! carries a stamp goes out at once as one SSE event holding that chunk (one event per
//! component, about as many events as ours sends), every other chunk is dropped. Our
//! server's figures minus these are what the A2A and A2UI pipeline costs; where a floor
//! alone misses a target, no pipeline on this machine and this stack can meet it.

use std::convert::Infallible;
use std::sync::Arc;

use axum::body::Bytes;
use axum::response::sse::{Event, Sse};
use futures::StreamExt;
use futures::stream::BoxStream;

use super::reply::{paced, stamps_in};
use super::sides::{one_worker, serve_router};
use crate::PAUSE;

/// What a floor server answers with.
#[derive(Clone)]
enum Floor {
    /// The reply's chunks, paced in the server.
    Closure(Arc<Vec<String>>),
    /// The fake model's stream, read through `reqwest` from this URL (`.../v1`).
    Connector(reqwest::Client, Arc<str>),
    /// Nothing, until the client goes.
    Silent,
}

/// `--serve floor-*`: a floor server on one runtime worker, as ours runs, until stdin closes.
pub fn serve(kind: &str, chunks: Arc<Vec<String>>, model_url: Option<String>) {
    let floor = match kind {
        "floor-closure" => Floor::Closure(chunks),
        "floor-connector" => Floor::Connector(
            reqwest::Client::new(),
            model_url
                .expect("--model-url for the connector floor")
                .into(),
        ),
        "floor-silent" => Floor::Silent,
        other => panic!("no floor named {other}"),
    };
    one_worker().block_on(async move {
        // The request body is read, as ours reads it.
        let answer = move |_body: Bytes| {
            let floor = floor.clone();
            async move { Sse::new(events(floor).await) }
        };
        serve_router(
            axum::Router::new().route("/", axum::routing::post(answer)),
            "",
        )
        .await;
    });
}

/// The SSE events `floor` sends for one request.
async fn events(floor: Floor) -> BoxStream<'static, Result<Event, Infallible>> {
    match floor {
        Floor::Closure(chunks) => paced(chunks, PAUSE)
            .filter_map(|chunk| std::future::ready(framed(chunk.as_bytes())))
            .boxed(),
        Floor::Connector(http, url) => {
            let sent = http
                .post(format!("{url}/chat/completions"))
                .header("content-type", "application/json")
                .body(r#"{"model":"bench","stream":true,"messages":[{"role":"user","content":"hi"}]}"#)
                .send()
                .await;
            let Ok(response) = sent else {
                return futures::stream::empty().boxed();
            };
            futures::stream::unfold(response, |mut response| async move {
                let chunk = response.chunk().await.ok()??;
                Some((framed(&chunk), response))
            })
            .filter_map(std::future::ready)
            .boxed()
        }
        Floor::Silent => futures::stream::pending().boxed(),
    }
}

/// One SSE event holding `chunk` as a JSON string, if it carries a stamp; none otherwise.
fn framed(chunk: &[u8]) -> Option<Result<Event, Infallible>> {
    stamps_in(chunk).next()?;
    let text = String::from_utf8_lossy(chunk);
    let data = serde_json::to_string(&text).unwrap_or_default();
    Some(Ok(Event::default().data(data)))
}
