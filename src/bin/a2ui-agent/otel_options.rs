//! The `serve` options of OpenTelemetry traces, and the subscriber that logs and exports.
//!
//! The library only emits `tracing` spans; here, where the binary installs its subscriber,
//! the OTLP exporter joins the log as a second layer. Each layer has its own filter: the
//! log keeps its level (`RUST_LOG`), the exporter takes the crate's trace spans, and prompt
//! text reaches neither unless `--otlp-record-content` asks the exporter for it.

use a2ui_agent::observe::{OtlpError, OtlpProtocol, OtlpTraces, TracesGuard};
use tracing_subscriber::EnvFilter;
use tracing_subscriber::prelude::*;

/// Traces of `a2ui-agent serve`.
#[derive(Debug, clap::Args)]
pub struct OtelArgs {
    /// Export traces over OTLP to this collector: `http://localhost:4318` (spans are posted
    /// to its `/v1/traces`), or with `--otlp-protocol grpc` `http://localhost:4317`.
    /// Without it, traces are exported when `OTEL_EXPORTER_OTLP_ENDPOINT` or
    /// `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` is set; the other `OTEL_*` variables
    /// (`OTEL_SERVICE_NAME`, `OTEL_TRACES_SAMPLER`, `OTEL_EXPORTER_OTLP_HEADERS`...) apply.
    #[arg(long, value_name = "URL")]
    otlp_endpoint: Option<String>,
    /// How spans travel: `http` (OTLP/HTTP with protobuf bodies) or `grpc`.
    #[arg(long, value_name = "http|grpc", default_value = "http", value_parser = protocol)]
    otlp_protocol: OtlpProtocol,
    /// Record prompts and completions in the exported traces (as span events). Off by
    /// default: they may hold what users typed and what tools returned.
    #[arg(long)]
    otlp_record_content: bool,
}

impl OtelArgs {
    /// The traces to export, when an endpoint is given or set in the environment.
    fn traces(&self) -> Option<OtlpTraces> {
        let from_env = [
            "OTEL_EXPORTER_OTLP_ENDPOINT",
            "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
        ]
        .iter()
        .any(|name| std::env::var_os(name).is_some_and(|value| !value.is_empty()));
        if self.otlp_endpoint.is_none() && !from_env {
            return None;
        }
        let traces = OtlpTraces::new()
            .protocol(self.otlp_protocol)
            .record_content(self.otlp_record_content);
        Some(match &self.otlp_endpoint {
            Some(url) => traces.endpoint(url.as_str()),
            None => traces,
        })
    }

    /// Installs the log on standard error and, when asked for, the trace exporter; the
    /// guard that flushes the traces at the end. Call it inside `runtime`'s context (the
    /// gRPC exporter runs on it).
    pub fn install(&self) -> Result<Option<TracesGuard>, OtlpError> {
        let mut filter = EnvFilter::try_from_default_env()
            .unwrap_or_else(|_| EnvFilter::new("info,a2ui_agent=info"));
        // Prompt text never goes to the log, whatever RUST_LOG asks.
        if let Ok(directive) = "a2ui_agent::content=off".parse() {
            filter = filter.add_directive(directive);
        }
        let log = tracing_subscriber::fmt::layer()
            .with_writer(std::io::stderr)
            .with_filter(filter);
        let registry = tracing_subscriber::registry().with(log);
        let Some(traces) = self.traces() else {
            registry.init();
            return Ok(None);
        };
        let (layer, guard) = traces.layer()?;
        registry.with(layer).init();
        Ok(Some(guard))
    }
}

/// `http` or `grpc`, for `--otlp-protocol`.
fn protocol(text: &str) -> Result<OtlpProtocol, String> {
    text.parse().map_err(|error: OtlpError| error.to_string())
}
