//! `GET /.well-known/agent-card.json` (and the older `/.well-known/agent.json`), the A2UI
//! entries the card gets from the server's generators, and the extended card.
//!
//! Which shape a client gets (the card module of [`crate::a2a::card`] says why):
//!
//! - `/.well-known/agent-card.json`: the A2A 1.0 card ([`v1_0::encode_card`]), which the 1.0
//!   card schema accepts, listing JSON-RPC 1.0, HTTP+JSON 1.0 and JSON-RPC 0.3; with
//!   `A2A-Version: 0.3` (header or query parameter) the 0.3 card instead;
//! - `/.well-known/agent.json` (the path of 0.2 and early 0.3 clients): the 0.3 card, which
//!   also carries `supportedInterfaces`.
//!
//! A server with [card signing keys](super::ServerBuilder::card_signing_key) serves the
//! cards signed once when it was built (see `signed_cards`).
//!
//! Answers carry `Cache-Control`, an `ETag` (a hash of the body) and `Last-Modified` (when
//! the server was built); a conditional GET that matches gets 304 Not Modified.

use std::hash::{Hash, Hasher};
use std::sync::Arc;
use std::time::SystemTime;

use axum::extract::{RawQuery, State};
use axum::http::header::{
    CACHE_CONTROL, CONTENT_TYPE, ETAG, HOST, IF_MODIFIED_SINCE, IF_NONE_MATCH, LAST_MODIFIED, VARY,
};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};

use serde_json::{Value, json};

use super::ServerState;
use super::version::{self, Version};
use crate::a2a::card::{AgentCard, AgentExtension};
use crate::a2a::v1_0;
use crate::generator::Generator;

/// How long a client may keep the card before asking again.
const CACHE_CONTROL_VALUE: &str = "public, max-age=300";
/// Adds one A2UI extension per generator to `card` (the first generator of a version wins;
/// an entry the card already has is kept), the A2UI MIME types to its output modes, and
/// turns streaming on.
pub(crate) fn advertise_a2ui(card: &mut AgentCard, generators: &[Generator]) {
    if generators.is_empty() {
        return;
    }
    card.capabilities.streaming = true;
    for generator in generators {
        let version = generator.version();
        let uri = version.extension_uri();
        if card.capabilities.extensions.iter().any(|e| e.uri == uri) {
            continue;
        }
        let mut extension = AgentExtension::new(uri);
        extension.description = Some(format!(
            "A2UI {}: the agent answers with user interfaces built from the listed catalogs.",
            version.as_str()
        ));
        extension.required = false;
        extension.params = Some(json!({
            "supportedCatalogIds": generator.supported_catalog_ids(),
            "acceptsInlineCatalogs": generator.accepts_inline_catalogs(),
        }));
        card.capabilities.extensions.push(extension);
        let mime = version.mime_type();
        if !card.default_output_modes.iter().any(|m| m == mime) {
            card.default_output_modes.push(mime.to_owned());
        }
    }
}

/// `GET /.well-known/agent-card.json`: the 1.0 card, or the 0.3 one when asked for.
pub(crate) async fn agent_card(
    State(state): State<Arc<ServerState>>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
) -> Response {
    let query_version = query.as_deref().and_then(version::from_query);
    let shape = match version::requested(&headers, query_version.as_deref()) {
        Ok(Some(Version::V0_3)) => Version::V0_3,
        _ => Version::V1_0,
    };
    card_response(&state, &headers, shape)
}

/// `GET /.well-known/agent.json`: the 0.3 card.
pub(crate) async fn legacy_agent_card(
    State(state): State<Arc<ServerState>>,
    headers: HeaderMap,
) -> Response {
    card_response(&state, &headers, Version::V0_3)
}

/// Adds the gRPC interface (the `grpc` feature) after the card's other 1.0 ones: gRPC is
/// served on the same port, and a gRPC target is `host:port` (gRPC clients take no scheme
/// and no path), so its URL is the card URL's host and port. A card URL with a path (the
/// router mounted under a prefix) lists none: gRPC clients cannot reach a prefix.
pub(crate) fn list_grpc(card: &mut AgentCard) {
    #[cfg(feature = "grpc")]
    {
        use crate::a2a::card::{AgentInterface, binding};
        let Ok(url) = url::Url::parse(&card.url) else {
            return;
        };
        if url.path() != "/" {
            return;
        }
        let (Some(host), Some(port)) = (url.host_str(), url.port_or_known_default()) else {
            return;
        };
        let at = card
            .supported_interfaces
            .iter()
            .rposition(|interface| interface.protocol_version == "1.0")
            .map_or(0, |last| last + 1);
        card.supported_interfaces.insert(
            at,
            AgentInterface {
                url: format!("{host}:{port}"),
                protocol_binding: binding::GRPC.into(),
                protocol_version: "1.0".into(),
                tenant: None,
            },
        );
    }
    #[cfg(not(feature = "grpc"))]
    let _ = card;
}

/// Adds, for each of `tenants`, the card's 1.0 interfaces again with that tenant: where
/// and how a client acts in it (HTTP+JSON under `{url}/{tenant}/`, JSON-RPC with
/// `params.tenant`).
pub(crate) fn list_tenants(card: &mut AgentCard, tenants: &[String]) {
    let untenanted: Vec<_> = card
        .supported_interfaces
        .iter()
        .filter(|interface| interface.protocol_version == "1.0" && interface.tenant.is_none())
        .cloned()
        .collect();
    for tenant in tenants {
        card.supported_interfaces
            .extend(untenanted.iter().cloned().map(|mut interface| {
                interface.tenant = Some(tenant.clone());
                interface
            }));
    }
}

/// `card` in `shape`, its empty `url` made the URL the client used (`http://<Host>/`) and
/// the interfaces of `tenants` listed at it.
pub(crate) fn encode(
    card: &AgentCard,
    tenants: &[String],
    headers: &HeaderMap,
    shape: Version,
) -> Value {
    let mut card = card.clone();
    if card.url.is_empty() {
        let host = headers
            .get(HOST)
            .and_then(|host| host.to_str().ok())
            .filter(|host| is_plausible_host(host))
            .unwrap_or("localhost");
        card.set_url(format!("http://{host}/"));
        list_grpc(&mut card);
        list_tenants(&mut card, tenants);
    }
    shaped(&card, shape)
}

/// `card` as the JSON of `shape`.
pub(crate) fn shaped(card: &AgentCard, shape: Version) -> Value {
    match shape {
        Version::V1_0 => v1_0::encode_card(card),
        Version::V0_3 => json!(card),
    }
}

/// The public card in `shape`, with its caching headers, or 304 for a matching
/// conditional GET.
fn card_response(state: &ServerState, headers: &HeaderMap, shape: Version) -> Response {
    let body = match &state.signed {
        Some(signed) => signed.card(shape).to_owned(),
        None => encode(&state.card, &state.tenants, headers, shape).to_string(),
    };
    let mut hasher = std::hash::DefaultHasher::new();
    body.hash(&mut hasher);
    let etag = format!("\"{:016x}\"", hasher.finish());
    let modified = state.card_modified;
    let mut response = if not_modified(headers, &etag, modified) {
        StatusCode::NOT_MODIFIED.into_response()
    } else {
        ([(CONTENT_TYPE, "application/json")], body).into_response()
    };
    let out = response.headers_mut();
    out.insert(CACHE_CONTROL, HeaderValue::from_static(CACHE_CONTROL_VALUE));
    // The body depends on the version asked for and, with no configured URL, on Host.
    out.insert(VARY, HeaderValue::from_static("A2A-Version, Host"));
    if let Ok(value) = HeaderValue::from_str(&etag) {
        out.insert(ETAG, value);
    }
    if let Ok(value) = HeaderValue::from_str(&httpdate::fmt_http_date(modified)) {
        out.insert(LAST_MODIFIED, value);
    }
    response
}

/// Whether a conditional GET may be answered 304: `If-None-Match` names `etag` (or `*`);
/// without it, `If-Modified-Since` is not before `modified` (HTTP dates have whole seconds).
fn not_modified(headers: &HeaderMap, etag: &str, modified: SystemTime) -> bool {
    if let Some(value) = headers.get(IF_NONE_MATCH) {
        let Ok(value) = value.to_str() else {
            return false;
        };
        return value
            .split(',')
            .map(str::trim)
            .any(|tag| tag == "*" || tag.strip_prefix("W/").unwrap_or(tag) == etag);
    }
    let since = headers
        .get(IF_MODIFIED_SINCE)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| httpdate::parse_http_date(value).ok());
    let whole_seconds = |time: SystemTime| {
        time.duration_since(SystemTime::UNIX_EPOCH)
            .map_or(0, |since| since.as_secs())
    };
    since.is_some_and(|since| whole_seconds(since) >= whole_seconds(modified))
}

/// `GET /.well-known/jwks.json` (routed when the cards are signed): the public keys that
/// signed them.
pub(crate) async fn jwks(State(state): State<Arc<ServerState>>) -> Response {
    match &state.signed {
        Some(signed) => signed.jwks_response(),
        None => StatusCode::NOT_FOUND.into_response(),
    }
}

/// A `Host` header we are willing to echo into a URL: `name[:port]` or `[v6][:port]`.
fn is_plausible_host(host: &str) -> bool {
    !host.is_empty()
        && host.len() <= 255
        && host
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-.:[]_".contains(&b))
}
