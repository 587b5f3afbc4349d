//! The agent inside an existing axum app: its router nested under `/agent`, next to the app's
//! own routes, all behind one tower layer (here a request counter written with
//! `axum::middleware::from_fn`; any tower layer works the same way).
//!
//! ```text
//! PORT=8080 cargo run --example mount_in_axum
//! curl localhost:8080/health                                   # the app's own route
//! curl localhost:8080/agent/.well-known/agent-card.json        # the agent's card
//! ```

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
    let server = A2uiServer::builder()
        // The card tells clients where the agent lives: under /agent.
        .card(
            AgentCard::builder("Mounted agent")
                .url(format!("{base}/agent"))
                .build(),
        )
        .generator(Generator::v0_9())
        .agent(agent)
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
    // running tasks (`Limits::max_running_tasks_per_client`) holds here too.
    axum::serve(
        listener,
        app.into_make_service_with_connect_info::<std::net::SocketAddr>(),
    )
    .await?;
    Ok(())
}
