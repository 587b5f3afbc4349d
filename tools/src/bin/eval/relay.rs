//! The eval's loopback relay in front of the model server: it forwards each chat call as it
//! streams and keeps what the eval reports of it, the usage chunk's token counts and the
//! text the model wrote (so a failed turn can be read afterwards, repair calls included).

use std::sync::{Arc, Mutex};

use axum::body::{Body, Bytes};
use axum::response::Response;
use futures::StreamExt;
use serde_json::Value;

use crate::Error;

/// What the relay saw of the model calls since the last reset.
#[derive(Debug, Default, Clone)]
pub struct Usage {
    /// Chat calls: one per turn, plus one per repair turn.
    pub calls: usize,
    /// Prompt tokens, summed over the calls.
    pub prompt: u64,
    /// Completion tokens, summed over the calls.
    pub completion: u64,
    /// What the model wrote, one string per call, in order.
    pub answers: Vec<String>,
}

/// A loopback relay in front of the model server: forwards each chat call as it streams and
/// adds up the usage chunks.
pub async fn relay(model_url: String, usage: Arc<Mutex<Usage>>) -> Result<String, Error> {
    let http = reqwest::Client::new();
    let target = format!("{}/chat/completions", model_url.trim_end_matches('/'));
    let app = axum::Router::new().route(
        "/v1/chat/completions",
        axum::routing::post(move |body: Bytes| {
            let (http, target, usage) = (http.clone(), target.clone(), usage.clone());
            async move {
                let answer = http
                    .post(&target)
                    .header("content-type", "application/json")
                    .body(body)
                    .send()
                    .await;
                let answer = match answer {
                    Ok(answer) => answer,
                    Err(error) => {
                        return Response::builder()
                            .status(502)
                            .body(Body::from(error.to_string()))
                            .unwrap_or_default();
                    }
                };
                let status = answer.status().as_u16();
                let mut upstream = answer.bytes_stream();
                // Usage is read as it passes (the client may drop the body after `[DONE]`).
                {
                    let mut seen = usage.lock().unwrap_or_else(|p| p.into_inner());
                    seen.calls += 1;
                    seen.answers.push(String::new());
                }
                let stream = async_stream::stream! {
                    let mut pending = String::new();
                    while let Some(chunk) = upstream.next().await {
                        if let Ok(bytes) = &chunk {
                            pending.push_str(&String::from_utf8_lossy(bytes));
                            while let Some(end) = pending.find('\n') {
                                let line: String = pending.drain(..=end).collect();
                                count_usage(&usage, &line);
                            }
                        }
                        yield chunk;
                    }
                };
                Response::builder()
                    .status(status)
                    .header("content-type", "text/event-stream")
                    .body(Body::from_stream(stream))
                    .unwrap_or_default()
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let address = listener.local_addr()?;
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    Ok(format!("http://{address}/v1"))
}

/// Adds what an SSE line of a chat answer carries: text to the call's answer, the usage
/// chunk's counts to the totals.
fn count_usage(usage: &Mutex<Usage>, line: &str) {
    let Some(data) = line.trim_end().strip_prefix("data: ") else {
        return;
    };
    let Ok(chunk) = serde_json::from_str::<Value>(data) else {
        return;
    };
    let mut total = usage.lock().unwrap_or_else(|p| p.into_inner());
    let text = chunk["choices"][0]["delta"]["content"].as_str();
    if let (Some(text), Some(answer)) = (text, total.answers.last_mut()) {
        answer.push_str(text);
    }
    if let Some(used) = chunk.get("usage").filter(|u| u.is_object()) {
        total.prompt += used["prompt_tokens"].as_u64().unwrap_or(0);
        total.completion += used["completion_tokens"].as_u64().unwrap_or(0);
    }
}
