//! The span of each request the API answers, its parent the caller's W3C `traceparent`.
//!
//! One middleware in front of every binding rather than a span in each handler: the
//! bindings (JSON-RPC, HTTP+JSON, AG-UI, MCP, gRPC) share the router, and a request refused
//! by the gate or the authentication belongs in the trace too. The handlers fill in the
//! method and outcome when they know them (through the meter's `request`). The router adds
//! the middleware only when a subscriber wants the spans, so a server without traces pays
//! nothing per request.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::header::CONTENT_TYPE;
use axum::middleware::Next;
use axum::response::Response;
use tracing::Instrument;

use crate::observe::{Binding, adopt_parent, trace};

/// What tells the bindings apart before a handler runs: the MCP endpoint's path, when the
/// agent is served over MCP (the other bindings name themselves in their handlers).
#[derive(Debug, Default)]
pub(crate) struct Bindings {
    pub(crate) mcp: Option<String>,
}

/// Runs `request` inside its span.
pub(crate) async fn request_span(
    State(bindings): State<Arc<Bindings>>,
    request: Request,
    next: Next,
) -> Response {
    let path = request.uri().path();
    let grpc = request
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| value.starts_with("application/grpc"));
    let binding = match &bindings.mcp {
        _ if grpc => Some(Binding::Grpc.as_str()),
        Some(mcp) if path.ends_with(mcp.as_str()) => Some(Binding::Mcp.as_str()),
        _ => None,
    };
    let span = trace::request(request.method().as_str(), path, binding);
    adopt_parent(&span, request.headers());
    next.run(request).instrument(span).await
}
