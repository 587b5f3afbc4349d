//! The smallest agent: it streams your words back, word by word.
//!
//! ```text
//! cargo run --example echo            # listens on 127.0.0.1:8080
//! PORT=0 cargo run --example echo     # any free port
//! curl -s localhost:8080/ -H 'content-type: application/json' -d '{"jsonrpc": "2.0",
//!   "id": 1, "method": "message/send", "params": {"message": {"kind": "message",
//!   "role": "user", "messageId": "m1", "parts": [{"kind": "text", "text": "hello"}]}}}'
//! ```

use a2ui_agent::a2a::card::AgentCard;
use a2ui_agent::{A2uiServer, AgentError, Reply, Request};

async fn echo(request: Request) -> Result<Reply, AgentError> {
    let words: Vec<Result<String, AgentError>> = request
        .text()
        .split_inclusive(' ')
        .map(|word| Ok(word.to_owned()))
        .collect();
    Ok(Reply::stream(futures::stream::iter(words)))
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let server = A2uiServer::builder(
        AgentCard::builder("Echo")
            .description("Repeats what you say")
            .build(),
        echo,
    )
    .build()?;
    let port = std::env::var("PORT").unwrap_or_else(|_| "8080".into());
    let listener = tokio::net::TcpListener::bind(format!("127.0.0.1:{port}")).await?;
    println!("listening on http://{}/", listener.local_addr()?);
    // `serve` adds what a bare `axum::serve(listener, server.router())` lacks: each
    // client's address (for the per-client cap), header, idle and connection limits, and a
    // shutdown that drains running tasks up to a deadline.
    server
        .serve(listener)
        .with_graceful_shutdown(async {
            let _ = tokio::signal::ctrl_c().await;
        })
        .await?;
    Ok(())
}
