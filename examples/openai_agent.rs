//! A model as a UI agent: the OpenAI-compatible connector behind the A2A server, with the
//! v0.9 and v0.8 generators. The client negotiates a version and its catalogs; the model is
//! given that version's A2UI prompt, its answer streams to the client as text and A2UI parts,
//! and an A2UI message that does not validate is repaired before the client sees it.
//!
//! ```text
//! # a local model with Ollama (no key):
//! MODEL_URL=http://localhost:11434/v1 MODEL=qwen2.5:7b cargo run --example openai_agent
//! # OpenAI:
//! MODEL_URL=https://api.openai.com/v1 MODEL=gpt-4o-mini OPENAI_API_KEY=sk-... \
//!   cargo run --example openai_agent
//! ```

use std::time::Duration;

use a2ui_agent::A2uiServer;
use a2ui_agent::a2a::card::{AgentCard, AgentSkill};
use a2ui_agent::generator::Generator;
use a2ui_agent::llm::OpenAiChat;
use a2ui_agent::pipeline::OnInvalid;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let url = std::env::var("MODEL_URL").unwrap_or_else(|_| "http://localhost:11434/v1".into());
    let name = std::env::var("MODEL").unwrap_or_else(|_| "qwen2.5:7b".into());
    let mut model = OpenAiChat::builder(url, &name)
        .instructions("You are a helpful travel assistant. Prefer showing options as a UI.")
        .temperature(0.2)
        .idle_timeout(Duration::from_secs(120));
    if let Ok(key) = std::env::var("OPENAI_API_KEY") {
        model = model.api_key(key);
    }
    let server = A2uiServer::builder(
        AgentCard::builder(format!("Travel assistant ({name})"))
            .skill(AgentSkill::new(
                "plan",
                "Plan a trip",
                "Suggests places and books them",
            ))
            .build(),
        model.build()?,
    )
    .generator(Generator::v0_9())
    .generator(Generator::v0_8())
    .on_invalid(OnInvalid::Repair)
    .max_repairs(2)
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
