//! The sides of the streams bench that run in processes of their own: our server
//! (`--serve AGENT`, the bench binary re-executed) and the fake OpenAI-compatible model
//! (`--model`). Each prints the URL it listens on and exits when its stdin closes.

use std::sync::Arc;
use std::time::Duration;

use a2ui_agent::a2a::card::AgentCard;
use a2ui_agent::agent::{Agent, AgentError, Reply};
use a2ui_agent::generator::Generator;
use a2ui_agent::llm::OpenAiChat;
use a2ui_agent::request::Request;
use a2ui_agent::server::{A2uiServer, Limits, ServerBuilder};
use axum::body::{Body, Bytes};
use futures::StreamExt;
use serde_json::json;

use super::reply::{self, paced};
use crate::{PAUSE, catalog_id, demo};

/// How `--serve` sets the server up besides its agent.
pub struct Options {
    /// `--store URL`: the PostgreSQL database the tasks are kept in.
    pub store: Option<String>,
    /// `--coalesce-ms MS`: the server's coalescing window.
    pub coalesce: Duration,
}

/// `--serve closure|connector|silent|demo`: our server on one runtime worker, until stdin
/// closes (`floor-*`: the floor's server instead, see [`super::floor`]).
pub fn serve(agent: &str, components: usize, model_url: Option<String>, options: Options) {
    let chunks = Arc::new(reply::reply(components, catalog_id()).chunks);
    if agent.starts_with("floor-") {
        super::floor::serve(agent, chunks, model_url);
        return;
    }
    one_worker().block_on(async move {
        match agent {
            "connector" => {
                let url = model_url.expect("--model-url for the connector");
                let connector = OpenAiChat::builder(url, "bench")
                    .build()
                    .expect("the connector");
                run_server(connector, options).await;
            }
            "silent" => {
                run_server(
                    |_: Request| async {
                        Ok::<_, AgentError>(Reply::stream(futures::stream::pending::<String>()))
                    },
                    options,
                )
                .await
            }
            "demo" => run_server(demo::RestaurantFinder::default(), options).await,
            _ => {
                run_server(
                    move |_: Request| {
                        let chunks = chunks.clone();
                        async move {
                            Ok::<_, AgentError>(Reply::stream(
                                paced(chunks, PAUSE).map(Ok::<_, AgentError>),
                            ))
                        }
                    },
                    options,
                )
                .await
            }
        }
    });
}

async fn run_server(agent: impl Agent, options: Options) {
    let listener = a2ui_agent::server::bind("127.0.0.1:0".parse().expect("an address"), 8192)
        .expect("a listener");
    let url = format!("http://{}/", listener.local_addr().expect("its address"));
    // Measures capacity, not overload control: thousands of streams from one client.
    let limits = Limits {
        max_connections: 1_000_000,
        max_running_tasks: 1_000_000,
        max_running_tasks_per_client: 1_000_000,
        ..Limits::default()
    };
    let server = A2uiServer::builder(AgentCard::builder("bench").url(&url).build(), agent)
        .generator(Generator::v0_9())
        .ag_ui("/ag-ui")
        .limits(limits)
        .cancel_on_disconnect(true)
        .coalesce_window(options.coalesce);
    let server = with_store(server, options.store).await;
    let server = server.build().expect("the server");
    println!("listening on {url}");
    exit_with_stdin();
    if let Err(error) = server.serve(listener).await {
        eprintln!("the server stopped: {error}");
    }
}

/// `builder` with its tasks in the PostgreSQL database at `store`, if given.
#[cfg(feature = "postgres")]
async fn with_store(builder: ServerBuilder, store: Option<String>) -> ServerBuilder {
    match store {
        Some(url) => builder.store(
            a2ui_agent::store::PostgresStore::builder(url)
                .connect()
                .await
                .expect("the PostgreSQL store"),
        ),
        None => builder,
    }
}

#[cfg(not(feature = "postgres"))]
async fn with_store(builder: ServerBuilder, store: Option<String>) -> ServerBuilder {
    assert!(store.is_none(), "--store needs the postgres feature");
    builder
}

/// A runtime with one worker, as every side of the bench runs: pinned to its core, its CPU
/// is the figure.
pub(super) fn one_worker() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("a runtime")
}

/// Serves `router` on a free loopback port, printing its URL (`path` appended) for the
/// bench to read, until stdin closes.
pub(super) async fn serve_router(router: axum::Router, path: &str) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a listener");
    println!(
        "listening on http://{}/{path}",
        listener.local_addr().expect("its address")
    );
    exit_with_stdin();
    let _ = axum::serve(listener, router).await;
}

/// The bench holds our stdin: when it goes away, so do we.
fn exit_with_stdin() {
    std::thread::spawn(|| {
        let _ = std::io::copy(&mut std::io::stdin(), &mut std::io::sink());
        std::process::exit(0);
    });
}

/// `--model`: the fake OpenAI-compatible server. Each request is answered with the reply's
/// chunks as chat-completion chunk events, paced and stamped, then the finish, usage and
/// `[DONE]` events.
pub fn model(components: usize) {
    let event = |delta: serde_json::Value, finish: Option<&str>| {
        let chunk = json!({"id": "chatcmpl-bench", "object": "chat.completion.chunk",
            "created": 1764500000, "model": "bench",
            "choices": [{"index": 0, "delta": delta, "logprobs": null, "finish_reason": finish}]});
        format!("data: {chunk}\n\n")
    };
    let chunks = reply::reply(components, catalog_id()).chunks;
    let events: Arc<Vec<String>> = Arc::new(
        std::iter::once(event(json!({"role": "assistant", "content": ""}), None))
            .chain(chunks.iter().map(|c| event(json!({"content": c}), None)))
            .chain([
                event(json!({}), Some("stop")),
                "data: {\"id\":\"b\",\"object\":\"chat.completion.chunk\",\"choices\":[],\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":1,\"total_tokens\":2}}\n\n".to_owned(),
                "data: [DONE]\n\n".to_owned(),
            ])
            .collect(),
    );
    one_worker().block_on(async move {
        // The body is read whole: a server that answers without reading it resets the
        // connection when it closes it.
        let answer = move |_body: Bytes| {
            let events = events.clone();
            async move {
                let stream =
                    paced(events, PAUSE).map(|e| Ok::<_, std::convert::Infallible>(Bytes::from(e)));
                axum::response::Response::builder()
                    .header("content-type", "text/event-stream")
                    .body(Body::from_stream(stream))
                    .expect("a response")
            }
        };
        let router = axum::Router::new().route("/v1/chat/completions", axum::routing::post(answer));
        serve_router(router, "v1").await;
    });
}
