//! How a server command runs: where it listens (`--host` and `--port`, one group that
//! `serve` and `orchestrate` both flatten, so the two agree on names, defaults and parsing),
//! the runtime and tracing it starts with, how it stops, and what it exits with.

use std::error::Error;
use std::net::SocketAddr;
use std::process::ExitCode;

use a2ui_agent::observe::TracesGuard;
use tokio::runtime::Runtime;

use crate::otel_options::OtelArgs;

/// The address of `a2ui-agent serve` and `a2ui-agent orchestrate`.
#[derive(Debug, clap::Args)]
pub struct Listen {
    /// The address to listen on.
    #[arg(long, default_value = "127.0.0.1")]
    host: String,
    /// The port to listen on (0: any free port).
    #[arg(long, default_value_t = 8080)]
    port: u16,
}

impl Listen {
    /// The socket address: an IPv4 or IPv6 host (bracketed or not) and the port.
    ///
    /// # Errors
    ///
    /// When the host is not an IP address.
    pub fn address(&self) -> Result<SocketAddr, String> {
        format!("{}:{}", self.host, self.port)
            .parse()
            .or_else(|_| format!("[{}]:{}", self.host, self.port).parse())
            .map_err(|_| format!("--host {}: not an IP address", self.host))
    }
}

/// The runtime a server command runs on, with the tracing `otel` asks for installed in it;
/// the exit code when either cannot start (the reason printed).
pub fn start(otel: &OtelArgs) -> Result<(Runtime, Option<TracesGuard>), ExitCode> {
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("error: could not start the async runtime: {error}");
            return Err(ExitCode::FAILURE);
        }
    };
    let traces = {
        // The gRPC exporter's channel runs on the runtime.
        let _context = runtime.enter();
        match otel.install() {
            Ok(traces) => traces,
            Err(error) => {
                eprintln!("error: --otlp-endpoint: {error}");
                return Err(ExitCode::FAILURE);
            }
        }
    };
    Ok((runtime, traces))
}

/// The exit code of a server command that `served` (`what` names it in the log when it
/// failed), once the last traces went out.
pub fn stop(
    traces: Option<TracesGuard>,
    served: Result<(), Box<dyn Error>>,
    what: &str,
) -> ExitCode {
    // The last spans go out before the runtime (and the gRPC channel on it) stops.
    if let Some(Err(error)) = traces.map(TracesGuard::shutdown) {
        tracing::warn!(%error, "the last traces were not sent");
    }
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            tracing::error!(%error, "{what} stopped");
            ExitCode::FAILURE
        }
    }
}

/// Resolves on Ctrl-C or, on Unix, SIGTERM.
pub async fn shutdown_signal() {
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
