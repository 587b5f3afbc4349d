//! `a2ui-agent serve`: run the built-in demo agent over A2A.
//!
//! The demo is a scripted restaurant finder ([`a2ui_agent::demo`]) that answers like an LLM:
//! text and A2UI blocks streamed in token-sized chunks, as v0.9 or v0.8 as the client
//! negotiates, or plain text for a client without A2UI. No model, key or network needed.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use a2ui_agent::a2a::card::{AgentCard, AgentSkill};
use a2ui_agent::demo::{DemoConfig, RestaurantFinder};
use a2ui_agent::generator::Generator;
use a2ui_agent::server::A2uiServer;
use a2ui_agent::task::{InMemoryStore, SqliteStore};

/// Arguments of `a2ui-agent serve`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The address to listen on.
    #[arg(long, default_value = "127.0.0.1")]
    host: String,
    /// The port to listen on (0: any free port).
    #[arg(long, default_value_t = 8080)]
    port: u16,
    /// The shortest pause before a streamed chunk, in milliseconds.
    #[arg(long, default_value_t = 10)]
    min_delay_ms: u64,
    /// The longest pause before a streamed chunk, in milliseconds.
    #[arg(long, default_value_t = 30)]
    max_delay_ms: u64,
    /// Where tasks are kept: `memory` (lost on exit) or `sqlite:PATH` (a file that keeps
    /// conversations waiting for input across restarts).
    #[arg(long, default_value = "memory", value_name = "STORE", value_parser = parse_store)]
    store: StoreSpec,
    /// How long a finished task stays readable, in seconds.
    #[arg(long, default_value_t = 3600, value_name = "SECONDS")]
    finished_ttl_secs: u64,
}

/// The `--store` argument.
#[derive(Debug, Clone)]
enum StoreSpec {
    Memory,
    Sqlite(PathBuf),
}

fn parse_store(text: &str) -> Result<StoreSpec, String> {
    match text.split_once(':') {
        _ if text == "memory" => Ok(StoreSpec::Memory),
        Some(("sqlite", path)) if !path.is_empty() => Ok(StoreSpec::Sqlite(PathBuf::from(path))),
        _ => Err(format!(
            "{text:?}: expected `memory` or `sqlite:PATH` (e.g. sqlite:tasks.db)"
        )),
    }
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
    let config = DemoConfig {
        min_delay: Duration::from_millis(args.min_delay_ms),
        max_delay: Duration::from_millis(args.max_delay_ms.max(args.min_delay_ms)),
        ..DemoConfig::default()
    };
    let ttl = Duration::from_secs(args.finished_ttl_secs);
    let builder = match &args.store {
        StoreSpec::Memory => A2uiServer::builder().store(InMemoryStore::new().idle_timeout(ttl)),
        StoreSpec::Sqlite(path) => {
            let store = SqliteStore::open(path)
                .map_err(|error| format!("--store sqlite:{}: {error}", path.display()))?;
            tracing::info!(path = %path.display(), "tasks are kept in SQLite");
            A2uiServer::builder().store(store.finished_ttl(ttl))
        }
    };
    let server = builder
        .card(
            AgentCard::builder("a2ui-agent demo: restaurant finder")
                .description(
                    "Finds restaurants and books a table, with A2UI lists and forms \
                     (v0.9 or v0.8), or in plain text.",
                )
                .skill(AgentSkill::new(
                    "find-restaurants",
                    "Find restaurants",
                    "Lists restaurants near you and books a table",
                ))
                .build(),
        )
        .generator(Generator::v0_9())
        .generator(Generator::v0_8())
        .agent(RestaurantFinder::new(config))
        .web_page(true)
        .build()?;
    let address: SocketAddr = format!("{}:{}", args.host, args.port)
        .parse()
        .or_else(|_| format!("[{}]:{}", args.host, args.port).parse())?;
    let listener = tokio::net::TcpListener::bind(address).await?;
    let local = listener.local_addr()?;
    tracing::info!(
        address = %local,
        "serving the demo agent: open http://{local}/ in a browser; card at http://{local}/.well-known/agent-card.json"
    );
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
