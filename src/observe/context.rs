//! The W3C Trace Context carried in and out of HTTP requests: a request's `traceparent`
//! adopted as its span's parent, the current span's context written into the model
//! server's and the webhooks' requests, a span renamed once its name is known.
//!
//! One place for what needs OpenTelemetry's own types (the `otel` feature): without the
//! feature each function here does nothing, or only what a plain `tracing` subscriber reads.

use axum::http::HeaderMap;
#[cfg(feature = "otel")]
use axum::http::{HeaderName, HeaderValue};
#[cfg(feature = "otel")]
use opentelemetry::propagation::{Extractor, Injector, TextMapPropagator};
#[cfg(feature = "otel")]
use opentelemetry_sdk::propagation::TraceContextPropagator;
use tracing::Span;
#[cfg(feature = "otel")]
use tracing_opentelemetry::OpenTelemetrySpanExt as _;

/// Makes the W3C Trace Context of `headers` (`traceparent`, `tracestate`), when there is
/// a valid one, the parent of `span`.
#[cfg(feature = "otel")]
pub(crate) fn adopt_parent(span: &Span, headers: &HeaderMap) {
    if span.is_disabled() || !headers.contains_key("traceparent") {
        return;
    }
    let context = TraceContextPropagator::new().extract(&Headers(headers));
    let _ = span.set_parent(context);
}

/// Writes the current span's W3C Trace Context into `headers` (nothing when no span is
/// exported).
#[cfg(feature = "otel")]
pub(crate) fn inject(headers: &mut HeaderMap) {
    let span = Span::current();
    if span.is_disabled() {
        return;
    }
    let context = span.context();
    TraceContextPropagator::new().inject_context(&context, &mut HeadersMut(headers));
}

/// Names `span` `name` in the export, also once its OpenTelemetry span has started (when
/// recording `otel.name` no longer renames it).
#[cfg(feature = "otel")]
pub(crate) fn rename(span: &Span, name: String) {
    use opentelemetry::trace::TraceContextExt as _;
    span.context().span().update_name(name);
}

/// A request's headers, read by the propagator.
#[cfg(feature = "otel")]
struct Headers<'h>(&'h HeaderMap);

#[cfg(feature = "otel")]
impl Extractor for Headers<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key)?.to_str().ok()
    }

    fn keys(&self) -> Vec<&str> {
        self.0.keys().map(HeaderName::as_str).collect()
    }
}

/// An outgoing request's headers, written by the propagator.
#[cfg(feature = "otel")]
struct HeadersMut<'h>(&'h mut HeaderMap);

#[cfg(feature = "otel")]
impl Injector for HeadersMut<'_> {
    fn set(&mut self, key: &str, value: String) {
        if let (Ok(name), Ok(value)) = (
            HeaderName::from_bytes(key.as_bytes()),
            HeaderValue::from_str(&value),
        ) {
            self.0.insert(name, value);
        }
    }
}

/// Without the `otel` feature no trace context is read from a request.
#[cfg(not(feature = "otel"))]
#[inline]
pub(crate) fn adopt_parent(_span: &Span, _headers: &HeaderMap) {}

/// Without the `otel` feature no trace context is written into a request.
#[cfg(not(feature = "otel"))]
#[inline]
pub(crate) fn inject(_headers: &mut HeaderMap) {}

/// Names `span` `name` for a subscriber that reads `otel.name`.
#[cfg(not(feature = "otel"))]
pub(crate) fn rename(span: &Span, name: String) {
    span.record("otel.name", name);
}
