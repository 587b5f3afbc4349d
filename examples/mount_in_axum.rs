//! The agent inside an existing axum app: its router nested under `/agent`, next to the app's
//! own routes, all behind one tower layer (here a request counter written with
//! `axum::middleware::from_fn`; any tower layer works the same way).
//!
//! The embedding case: the app, not the agent, accepts connections, so it owns what
//! `A2uiServer::serve` would otherwise add. A router served this way must be given:
//! - connect info (`into_make_service_with_connect_info::<SocketAddr>()`, below), or the
//!   per-client cap on running tasks cannot tell clients apart;
//! - a header-read timeout, an idle timeout and a cap on open connections (hyper-util's
//!   connection builder, or a proxy in front), which `axum::serve` does not set: without them
//!   one client holding sockets open locks everyone out;
//! - a graceful shutdown with a deadline (`with_graceful_shutdown` plus a timer), since
//!   `axum::serve` waits for every open stream however long it runs.
//!
//! When the app has nothing else to serve, use `server.serve(listener)` (see `echo.rs`).
//!
//! ```text
//! PORT=8080 cargo run --example mount_in_axum
//! curl localhost:8080/health                                   # the app's own route
//! curl localhost:8080/agent/.well-known/agent-card.json        # the agent's card
//! ```

use std::future::IntoFuture;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use a2ui_agent::a2a::card::AgentCard;
use a2ui_agent::generator::Generator;
use a2ui_agent::{A2uiServer, AgentError, Reply, Request};
use axum::Router;
use axum::extract::{Request as HttpRequest, State};
use axum::middleware::{self, Next};
use axum::response::Response;
use axum::routing::get;

async fn agent(request: Request) -> Result<Reply, AgentError> {
    Ok(Reply::text(format!("You said: {}", request.text())))
}

async fn count(
    State(requests): State<Arc<AtomicU64>>,
    request: HttpRequest,
    next: Next,
) -> Response {
    requests.fetch_add(1, Ordering::Relaxed);
    next.run(request).await
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let port = std::env::var("PORT").unwrap_or_else(|_| "8080".into());
    let listener = tokio::net::TcpListener::bind(format!("127.0.0.1:{port}")).await?;
    let base = format!("http://{}", listener.local_addr()?);
    let server = A2uiServer::builder(
        AgentCard::builder("Mounted agent")
            .url(format!("{base}/agent"))
            .build(),
        agent,
    )
    // The card tells clients where the agent lives: under /agent.
    .generator(Generator::v0_9())
    .build()?;
    let requests = Arc::new(AtomicU64::new(0));
    let app = Router::new()
        .route("/health", get(|| async { "ok" }))
        .route(
            "/stats",
            get({
                let requests = requests.clone();
                move || async move { format!("{} requests", requests.load(Ordering::Relaxed)) }
            }),
        )
        .nest("/agent", server.router())
        .layer(middleware::from_fn_with_state(requests, count));
    println!("listening on {base}/ (agent at {base}/agent)");
    // With connect info the agent knows each client's address, so the per-client cap on
    // running tasks (`Limits::max_running_tasks_per_client`) holds here too. The shutdown
    // waits at most 30 s for open streams once Ctrl-C is pressed.
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let serving = axum::serve(
        listener,
        app.into_make_service_with_connect_info::<std::net::SocketAddr>(),
    )
    .with_graceful_shutdown(async move {
        let _ = stopped.await;
    });
    tokio::select! {
        served = serving.into_future() => served?,
        _ = async {
            let _ = tokio::signal::ctrl_c().await;
            let _ = stop.send(());
            tokio::time::sleep(std::time::Duration::from_secs(30)).await;
        } => {}
    }
    Ok(())
}
