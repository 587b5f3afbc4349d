//! The `serve` options of Prometheus metrics: on or off, and the address they are served on.
//!
//! Metrics get a listener of their own rather than a route beside the API: the figures span
//! every caller and tenant (tokens spent by tenant, say), so the API's callers must not read
//! them, and Prometheus should need no caller's credential to scrape. The default address is
//! loopback; an operator opens it to the scraper's network with `--metrics-addr`.

use std::net::SocketAddr;

use a2ui_agent::observe::Metrics;
use a2ui_agent::server::{A2uiServer, ServerBuilder};

/// Metrics of `a2ui-agent serve`.
#[derive(Debug, clap::Args)]
pub struct MetricsArgs {
    /// Serve Prometheus metrics (requests, tasks, streams, model latency and tokens, A2UI
    /// messages and repairs, tools, push, store latency) at `GET /metrics` on
    /// `--metrics-addr`, a listener apart from the API's.
    #[arg(long)]
    metrics: bool,
    /// Where `--metrics` listens: loopback unless the scraper is elsewhere. No credential is
    /// asked there, so give it an address only the scraper reaches.
    #[arg(
        long,
        value_name = "ADDR",
        default_value = "127.0.0.1:9464",
        requires = "metrics"
    )]
    metrics_addr: SocketAddr,
}

impl MetricsArgs {
    /// The metrics to record in, when `--metrics` asks for them.
    pub fn metrics(&self) -> Option<Metrics> {
        self.metrics.then(Metrics::new)
    }

    /// `builder`, recording in `metrics` when there are any.
    pub fn apply(metrics: Option<&Metrics>, builder: ServerBuilder) -> ServerBuilder {
        match metrics {
            Some(metrics) => builder.metrics(metrics),
            None => builder,
        }
    }

    /// Starts serving `server`'s metrics on `--metrics-addr`, when they are on.
    pub async fn serve(&self, server: &A2uiServer) -> Result<(), Box<dyn std::error::Error>> {
        let Some(router) = server.metrics_router() else {
            return Ok(());
        };
        let listener = tokio::net::TcpListener::bind(self.metrics_addr)
            .await
            .map_err(|error| format!("--metrics-addr {}: {error}", self.metrics_addr))?;
        let local = listener.local_addr()?;
        tracing::info!("metrics at http://{local}/metrics");
        tokio::spawn(async move {
            if let Err(error) = axum::serve(listener, router).await {
                tracing::error!(%error, "the metrics listener stopped");
            }
        });
        Ok(())
    }
}
