//! OpenTelemetry traces over OTLP (the `otel` feature): the layer that exports the crate's
//! `tracing` spans.
//!
//! The library emits only `tracing` spans (see the crate-private `trace` module); this is
//! the small piece an executable adds to its subscriber to send them to a collector. It is
//! kept apart so that without the feature no OpenTelemetry crate is built.

use std::fmt;

use opentelemetry::trace::TracerProvider as _;
use opentelemetry_otlp::WithExportConfig as _;
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::trace::SdkTracerProvider;
use tracing::Subscriber;
use tracing::level_filters::LevelFilter;
use tracing_subscriber::Layer;
use tracing_subscriber::filter::Targets;
use tracing_subscriber::registry::LookupSpan;

use super::trace::{CONTENT, TARGET};

/// The service name spans are exported under when `OTEL_SERVICE_NAME` is not set.
pub const DEFAULT_SERVICE_NAME: &str = "a2ui-agent";

/// How spans travel to the collector.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum OtlpProtocol {
    /// OTLP/HTTP with protobuf bodies (`POST {endpoint}/v1/traces`), the specification's
    /// recommended default; a collector listens on port 4318.
    #[default]
    HttpProtobuf,
    /// OTLP/gRPC (a collector listens on port 4317). Plain-text HTTP/2: an `https://`
    /// endpoint needs the HTTP protocol.
    Grpc,
}

impl std::str::FromStr for OtlpProtocol {
    type Err = OtlpError;

    /// `http` or `http/protobuf`, or `grpc` (the values of `OTEL_EXPORTER_OTLP_PROTOCOL`).
    fn from_str(text: &str) -> Result<Self, OtlpError> {
        match text {
            "http" | "http/protobuf" => Ok(Self::HttpProtobuf),
            "grpc" => Ok(Self::Grpc),
            other => Err(OtlpError(format!(
                "{other:?}: expected `http` (OTLP/HTTP with protobuf bodies) or `grpc`"
            ))),
        }
    }
}

/// Why traces could not be set up or flushed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("OpenTelemetry traces: {0}")]
pub struct OtlpError(String);

/// Exports the crate's spans to an OpenTelemetry collector over OTLP: a `tracing-subscriber`
/// [`Layer`] to add beside the log, and a guard that flushes what is left when the program
/// ends.
///
/// What is exported: a span per request (binding, method, outcome; its parent the
/// request's `traceparent`), per task run, per call of the agent (repair turns as their own
/// `a2ui.repair` spans, with the validation errors that caused them as events), per model
/// request (GenAI attributes: model, token usage, finish reason, time to first token), per
/// tool call, per store operation and per push delivery; and the log's events at `INFO` and
/// above, as span events. Prompt and completion text is left out unless
/// [`record_content`](Self::record_content) asks for it.
///
/// Without an [`endpoint`](Self::endpoint), the OpenTelemetry SDK reads the standard
/// variables: `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` or `OTEL_EXPORTER_OTLP_ENDPOINT`,
/// `OTEL_EXPORTER_OTLP_HEADERS`, `OTEL_EXPORTER_OTLP_TIMEOUT`; in every case
/// `OTEL_SERVICE_NAME`, `OTEL_RESOURCE_ATTRIBUTES`, `OTEL_TRACES_SAMPLER` (and its
/// `_ARG`) and the batch processor's `OTEL_BSP_*` are honoured.
///
/// # Example
///
/// ```no_run
/// use a2ui_agent::observe::{OtlpProtocol, OtlpTraces};
/// use tracing_subscriber::prelude::*;
///
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let (traces, guard) = OtlpTraces::new()
///     .endpoint("http://localhost:4318")
///     .protocol(OtlpProtocol::HttpProtobuf)
///     .layer()?;
/// tracing_subscriber::registry()
///     .with(tracing_subscriber::fmt::layer())
///     .with(traces)
///     .init();
/// // ... serve ...
/// guard.shutdown()?; // sends the spans still waiting
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, Default)]
#[must_use]
pub struct OtlpTraces {
    endpoint: Option<String>,
    protocol: OtlpProtocol,
    service_name: Option<String>,
    record_content: bool,
}

impl OtlpTraces {
    /// Traces over OTLP/HTTP to the endpoint the `OTEL_*` variables name (by default
    /// `http://localhost:4318`), without prompt or completion text.
    pub fn new() -> Self {
        Self::default()
    }

    /// The collector's address, as in `OTEL_EXPORTER_OTLP_ENDPOINT`
    /// (`http://collector:4318`): over HTTP, spans are posted to its `/v1/traces` (a URL
    /// that already ends so is taken as it is).
    pub fn endpoint(mut self, url: impl Into<String>) -> Self {
        self.endpoint = Some(url.into());
        self
    }

    /// How spans travel: OTLP/HTTP with protobuf bodies (the default) or OTLP/gRPC.
    pub fn protocol(mut self, protocol: OtlpProtocol) -> Self {
        self.protocol = protocol;
        self
    }

    /// The `service.name` spans are exported under when `OTEL_SERVICE_NAME` is not set
    /// (by default [`DEFAULT_SERVICE_NAME`]).
    pub fn service_name(mut self, name: impl Into<String>) -> Self {
        self.service_name = Some(name.into());
        self
    }

    /// Whether prompts and completions are recorded, as span events (off by default: they
    /// may hold what users typed and what tools returned).
    pub fn record_content(mut self, on: bool) -> Self {
        self.record_content = on;
        self
    }

    /// The layer that exports spans, and the guard that flushes them at the end.
    ///
    /// # Errors
    ///
    /// An endpoint that is not a URL; the gRPC protocol outside a Tokio runtime (its
    /// channel runs on the runtime current when the layer is made).
    pub fn layer<S>(self) -> Result<(impl Layer<S> + Send + Sync + 'static, TracesGuard), OtlpError>
    where
        S: Subscriber + for<'span> LookupSpan<'span> + Send + Sync,
    {
        let exporter = self.exporter()?;
        let mut resource = Resource::builder();
        if std::env::var_os("OTEL_SERVICE_NAME").is_none() {
            let name = self.service_name.as_deref().unwrap_or(DEFAULT_SERVICE_NAME);
            resource = resource.with_service_name(name.to_owned());
        }
        let provider = SdkTracerProvider::builder()
            .with_batch_exporter(exporter)
            .with_resource(resource.build())
            .build();
        let tracer = provider.tracer("a2ui_agent");
        // No busy/idle times and no thread attributes: tracking them reads the clock on
        // every enter and exit of a span, that is on every poll of a task's long-lived span.
        let layer = tracing_opentelemetry::layer()
            .with_tracked_inactivity(false)
            .with_threads(false)
            .with_tracer(tracer)
            .with_filter(exported(self.record_content));
        Ok((
            layer,
            TracesGuard {
                provider: Some(provider),
            },
        ))
    }

    /// The span exporter the settings describe.
    fn exporter(&self) -> Result<opentelemetry_otlp::SpanExporter, OtlpError> {
        let built = match self.protocol {
            OtlpProtocol::HttpProtobuf => {
                let mut builder = opentelemetry_otlp::SpanExporter::builder()
                    .with_http()
                    .with_protocol(opentelemetry_otlp::Protocol::HttpBinary);
                if let Some(url) = &self.endpoint {
                    builder = builder.with_endpoint(traces_url(url));
                }
                builder.build()
            }
            OtlpProtocol::Grpc => {
                if tokio::runtime::Handle::try_current().is_err() {
                    return Err(OtlpError(
                        "the gRPC protocol needs a Tokio runtime: make the layer inside one".into(),
                    ));
                }
                let mut builder = opentelemetry_otlp::SpanExporter::builder().with_tonic();
                if let Some(url) = &self.endpoint {
                    builder = builder.with_endpoint(url.clone());
                }
                builder.build()
            }
        };
        built.map_err(|error| OtlpError(error.to_string()))
    }
}

/// `{url}/v1/traces`, unless `url` already ends so.
fn traces_url(url: &str) -> String {
    let url = url.trim_end_matches('/');
    if url.ends_with("/v1/traces") {
        url.to_owned()
    } else {
        format!("{url}/v1/traces")
    }
}

/// What the exporter takes: the crate's trace spans and their events; every other span and
/// event at `INFO` or above; content only when `record_content`. Decided once per callsite
/// (a dependency's `debug!` in a hot loop is never asked again), unlike a filter function.
fn exported(record_content: bool) -> Targets {
    let content = if record_content {
        LevelFilter::TRACE
    } else {
        LevelFilter::OFF
    };
    Targets::new()
        .with_default(LevelFilter::INFO)
        .with_target(TARGET, LevelFilter::DEBUG)
        .with_target(CONTENT, content)
}

/// Flushes and stops the exporter: [`shutdown`](Self::shutdown) at the program's end (or
/// drop it, which does the same and ignores a failure).
#[must_use = "dropping the guard stops the export"]
pub struct TracesGuard {
    /// `None` once shut down.
    provider: Option<SdkTracerProvider>,
}

impl fmt::Debug for TracesGuard {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter
            .debug_struct("TracesGuard")
            .finish_non_exhaustive()
    }
}

impl TracesGuard {
    /// Sends the spans still waiting and stops the exporter. Call it outside async code
    /// (it blocks until the batch is sent or the export times out), while the runtime the
    /// gRPC channel runs on is still alive.
    ///
    /// # Errors
    ///
    /// The export of the last batch failed or timed out.
    pub fn shutdown(mut self) -> Result<(), OtlpError> {
        match self.provider.take() {
            Some(provider) => provider
                .shutdown()
                .map_err(|error| OtlpError(error.to_string())),
            None => Ok(()),
        }
    }
}

impl Drop for TracesGuard {
    fn drop(&mut self) {
        if let Some(provider) = self.provider.take() {
            let _ = provider.shutdown();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_traces_path_is_added_to_a_collector_address_once() {
        assert_eq!(
            traces_url("http://c:4318"),
            "http://c:4318/v1/traces".to_owned()
        );
        assert_eq!(
            traces_url("http://c:4318/"),
            "http://c:4318/v1/traces".to_owned()
        );
        assert_eq!(
            traces_url("http://c:4318/v1/traces"),
            "http://c:4318/v1/traces".to_owned()
        );
    }

    #[test]
    fn protocols_are_read_by_their_otel_names() {
        assert_eq!("http".parse(), Ok(OtlpProtocol::HttpProtobuf));
        assert_eq!("http/protobuf".parse(), Ok(OtlpProtocol::HttpProtobuf));
        assert_eq!("grpc".parse(), Ok(OtlpProtocol::Grpc));
        assert!("http/json".parse::<OtlpProtocol>().is_err());
    }
}
