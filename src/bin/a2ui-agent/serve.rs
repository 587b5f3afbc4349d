//! `a2ui-agent serve`: run the built-in demo agent over A2A.
//!
//! The demo agent streams its reply word by word, with a short pause between words, so a
//! client can watch `message/stream` deliver `working` updates as they come.

use std::net::SocketAddr;
use std::process::ExitCode;
use std::time::Duration;

use a2ui_agent::a2a::card::{AgentCard, AgentSkill};
use a2ui_agent::agent::{AgentError, Reply};
use a2ui_agent::request::Request;
use a2ui_agent::server::A2uiServer;
use futures::StreamExt;

/// Arguments of `a2ui-agent serve`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The address to listen on.
    #[arg(long, default_value = "127.0.0.1")]
    host: String,
    /// The port to listen on (0: any free port).
    #[arg(long, default_value_t = 8080)]
    port: u16,
    /// The pause between streamed words, in milliseconds.
    #[arg(long, default_value_t = 50)]
    word_delay_ms: u64,
}

/// Runs `a2ui-agent serve`.
pub fn run(args: Args) -> ExitCode {
    install_tracing();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            tracing::error!(%error, "could not start the async runtime");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(serve(args)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            tracing::error!(%error, "server stopped");
            ExitCode::FAILURE
        }
    }
}

fn install_tracing() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info,a2ui_agent=info"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .init();
}

async fn serve(args: Args) -> Result<(), Box<dyn std::error::Error>> {
    let delay = Duration::from_millis(args.word_delay_ms);
    let server = A2uiServer::builder()
        .card(
            AgentCard::builder("a2ui-agent demo")
                .description("Echoes what you say, streamed word by word.")
                .skill(AgentSkill::new(
                    "echo",
                    "Echo",
                    "Repeats the message back, one word at a time",
                ))
                .build(),
        )
        .agent(move |request: Request| demo_agent(request, delay))
        .build()?;
    let address: SocketAddr = format!("{}:{}", args.host, args.port)
        .parse()
        .or_else(|_| format!("[{}]:{}", args.host, args.port).parse())?;
    let listener = tokio::net::TcpListener::bind(address).await?;
    let local = listener.local_addr()?;
    tracing::info!(address = %local, "serving the demo agent: card at http://{local}/.well-known/agent-card.json");
    axum::serve(listener, server.router())
        .with_graceful_shutdown(shutdown_signal())
        .await?;
    Ok(())
}

/// Resolves on Ctrl-C or, on Unix, SIGTERM.
async fn shutdown_signal() {
    let interrupt = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = interrupt => {}
        () = terminate => {}
    }
    tracing::info!("shutting down");
}

/// Replies "You said: <text>", one word per chunk.
async fn demo_agent(request: Request, delay: Duration) -> Result<Reply, AgentError> {
    let text = request.text();
    let reply = if text.trim().is_empty() {
        "Say something and I will repeat it.".to_owned()
    } else {
        format!("You said: {text}")
    };
    let words: Vec<String> = reply.split_inclusive(' ').map(str::to_owned).collect();
    let chunks = futures::stream::iter(words).then(move |word| async move {
        tokio::time::sleep(delay).await;
        Ok(word)
    });
    Ok(Reply::stream(chunks))
}
