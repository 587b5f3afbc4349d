//! What a request passes before a handler sees it: a `Host` the server answers to, a JSON
//! body type, and a body read within its time and size budget.
//!
//! A web page can make a browser send a "simple" cross-origin POST (`text/plain`, no CORS
//! preflight) to an agent on `localhost`, and a DNS-rebinding page can even read the answer.
//! Requiring a JSON `Content-Type` forces a preflight, which the server only answers for the
//! origins it was told to trust; checking `Host` on a loopback server defeats rebinding. The
//! body is read here, once, with a deadline (a client trickling bytes cannot hold a task
//! slot forever) and a limit; an oversize body is read on and thrown away up to a bound
//! before the 413 goes out, because a client still sending when the connection closes sees
//! a broken pipe instead of the status.

use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::header::{CONNECTION, CONTENT_LENGTH, CONTENT_TYPE, HOST, TRANSFER_ENCODING};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http_body_util::BodyExt;

use crate::a2a::jsonrpc::{self, ErrorCode, Id, RpcError};
use crate::a2a::v1_0;

/// The media types a JSON-RPC body may declare (parameters such as `charset` aside).
const JSON_TYPES: [&str; 2] = ["application/json", "application/a2a+json"];

/// How many bytes of an oversize body are read and discarded so its 413 reaches the client.
const DRAIN_BOUND: usize = 16 * 1024 * 1024;

/// Which `Host` headers the server answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum HostPolicy {
    /// Any host.
    Any,
    /// Loopback names and addresses only: `localhost`, `*.localhost`, `127.0.0.0/8`, `::1`.
    Loopback,
    /// These host names (without port), compared without case.
    Only(Vec<String>),
}

impl HostPolicy {
    /// Whether a request with this `Host` (or URI authority) may go on.
    pub(crate) fn allows(&self, host: Option<&str>) -> bool {
        let names = match self {
            HostPolicy::Any => return true,
            HostPolicy::Loopback => None,
            HostPolicy::Only(names) => Some(names),
        };
        let Some(name) = host.map(strip_port) else {
            return false;
        };
        match names {
            Some(names) => names
                .iter()
                .any(|allowed| allowed.eq_ignore_ascii_case(name)),
            None => is_loopback_name(name),
        }
    }
}

/// `host` without its `:port`; an IPv6 literal without its brackets.
fn strip_port(host: &str) -> &str {
    if let Some(rest) = host.strip_prefix('[') {
        return rest.split_once(']').map_or(rest, |(address, _)| address);
    }
    match host.rsplit_once(':') {
        Some((name, port)) if port.bytes().all(|b| b.is_ascii_digit()) => name,
        _ => host,
    }
}

fn is_loopback_name(name: &str) -> bool {
    let name = name.strip_suffix('.').unwrap_or(name);
    name.eq_ignore_ascii_case("localhost")
        || name
            .len()
            .checked_sub(".localhost".len())
            .and_then(|at| name.get(at..))
            .is_some_and(|suffix| suffix.eq_ignore_ascii_case(".localhost"))
        || name.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

/// Refuses a request whose `Host` the policy does not allow: 403.
pub(crate) async fn check_host(
    State(policy): State<Arc<HostPolicy>>,
    request: Request,
    next: Next,
) -> Response {
    let host = request
        .headers()
        .get(HOST)
        .and_then(|host| host.to_str().ok())
        .or_else(|| {
            request
                .uri()
                .authority()
                .map(|authority| authority.as_str())
        });
    if policy.allows(host) {
        return next.run(request).await;
    }
    tracing::debug!(
        host = host.unwrap_or(""),
        "refused a request for a foreign host"
    );
    refuse(
        StatusCode::FORBIDDEN,
        "this server does not answer for that Host",
        false,
    )
}

/// The budget of one request body.
#[derive(Debug, Clone, Copy)]
pub(crate) struct BodyBudget {
    pub(crate) limit: usize,
    pub(crate) timeout: Duration,
}

/// Checks the `Content-Type` of a request that carries a body (POST, PUT, PATCH: 415) and
/// reads the body within the budget (413, 408). Other methods pass untouched.
pub(crate) async fn read_body(
    State(budget): State<BodyBudget>,
    request: Request,
    next: Next,
) -> Response {
    if !matches!(
        *request.method(),
        Method::POST | Method::PUT | Method::PATCH
    ) {
        return next.run(request).await;
    }
    // A gRPC call (`application/grpc`, which no browser form sends, to the service's path)
    // reads its own messages, under the same size limit, answering with gRPC statuses.
    #[cfg(feature = "grpc")]
    if is_grpc(&request) {
        return next.run(request).await;
    }
    if !is_json(request.headers()) && !is_bodiless_read(&request) {
        return refuse(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "the body must be JSON: send Content-Type: application/json",
            false,
        );
    }
    let (parts, body) = request.into_parts();
    let dialect = Dialect::of(parts.uri.path());
    let declared = parts
        .headers
        .get(CONTENT_LENGTH)
        .and_then(|length| length.to_str().ok())
        .and_then(|length| length.parse::<u64>().ok());
    let too_large = format!("the body is over the limit of {} bytes", budget.limit);
    let drainable = budget.limit.saturating_add(DRAIN_BOUND) as u64;
    if declared.is_some_and(|length| length > drainable) {
        return dialect.refuse(StatusCode::PAYLOAD_TOO_LARGE, &too_large, true);
    }
    match tokio::time::timeout(budget.timeout, collect(body, budget.limit)).await {
        Err(_) => dialect.refuse(
            StatusCode::REQUEST_TIMEOUT,
            "the body did not arrive in time",
            true,
        ),
        Ok(Err(Unreadable)) => {
            dialect.refuse(StatusCode::BAD_REQUEST, "the body could not be read", true)
        }
        Ok(Ok(Collected::TooLarge { drained })) => {
            dialect.refuse(StatusCode::PAYLOAD_TOO_LARGE, &too_large, !drained)
        }
        Ok(Ok(Collected::Body(bytes))) => {
            next.run(Request::from_parts(parts, Body::from(bytes)))
                .await
        }
    }
}

/// A POST without a body (A2A 1.0 HTTP+JSON `:subscribe`, `:cancel`) that a browser could
/// not have sent cross-site: it carries `A2A-Version`, which needs a preflight, or it is a
/// `:subscribe`, which changes nothing (Python's client sends it bare).
fn is_bodiless_read(request: &Request) -> bool {
    let headers = request.headers();
    let empty = headers.get(TRANSFER_ENCODING).is_none()
        && headers
            .get(CONTENT_LENGTH)
            .is_none_or(|length| length.as_bytes() == b"0");
    // A2A-Version is a header a cross-site page cannot add without a CORS preflight.
    let unforgeable =
        request.uri().path().ends_with(":subscribe") || headers.contains_key("a2a-version");
    empty && headers.get(CONTENT_TYPE).is_none() && unforgeable
}

fn is_json(headers: &HeaderMap) -> bool {
    headers
        .get(CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .map(|value| value.split(';').next().unwrap_or("").trim())
        .is_some_and(|essence| JSON_TYPES.iter().any(|t| t.eq_ignore_ascii_case(essence)))
}

/// Whether the request is a gRPC call (`application/grpc`, `application/grpc+proto`) to the
/// A2A service (under a tenant's path too).
#[cfg(feature = "grpc")]
fn is_grpc(request: &Request) -> bool {
    request.uri().path().contains(super::grpc::PATH_PREFIX)
        && request
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|value| value.to_str().ok())
            .is_some_and(|value| value.starts_with("application/grpc"))
}

enum Collected {
    Body(Bytes),
    /// Over the limit; `drained` when the rest was read to its end.
    TooLarge {
        drained: bool,
    },
}

struct Unreadable;

/// Reads `body` up to `limit` bytes; past it, reads on and discards up to [`DRAIN_BOUND`].
async fn collect(mut body: Body, limit: usize) -> Result<Collected, Unreadable> {
    let mut kept = Vec::new();
    let mut discarded = 0usize;
    let mut over = false;
    while let Some(frame) = body.frame().await {
        let Ok(data) = frame.map_err(|_| Unreadable)?.into_data() else {
            continue;
        };
        if !over && kept.len().saturating_add(data.len()) <= limit {
            kept.extend_from_slice(&data);
            continue;
        }
        if !over {
            over = true;
            kept = Vec::new();
        }
        discarded = discarded.saturating_add(data.len());
        if discarded > DRAIN_BOUND {
            return Ok(Collected::TooLarge { drained: false });
        }
    }
    if over {
        return Ok(Collected::TooLarge { drained: true });
    }
    Ok(Collected::Body(Bytes::from(kept)))
}

/// How a refused body is answered: a client of either binding reads the refusal as it reads
/// any other error of its binding, not as an unparsable page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Dialect {
    /// The JSON-RPC route (`/`): a JSON-RPC error with a null id (the request was not read).
    JsonRpc,
    /// The HTTP+JSON routes: a `google.rpc.Status` body.
    Rest,
}

impl Dialect {
    fn of(path: &str) -> Self {
        if path == "/" {
            Dialect::JsonRpc
        } else {
            Dialect::Rest
        }
    }

    /// The refusal with `status` and a JSON body saying `reason`; `close` as in [`refuse`].
    fn refuse(self, status: StatusCode, reason: &str, close: bool) -> Response {
        let body = match self {
            Dialect::JsonRpc => jsonrpc::failure(
                &Id::Null,
                &RpcError::new(
                    ErrorCode::InvalidRequest,
                    format!("Invalid Request: {reason}"),
                ),
            ),
            Dialect::Rest => {
                let error = RpcError::new(ErrorCode::InvalidRequest, reason);
                let (_, mut body) = v1_0::rest_error_body(&error);
                body["error"]["code"] = status.as_u16().into();
                body
            }
        };
        let content_type = match self {
            Dialect::JsonRpc => "application/json",
            Dialect::Rest => "application/a2a+json",
        };
        let mut response = (
            status,
            [(CONTENT_TYPE, HeaderValue::from_static(content_type))],
            body.to_string(),
        )
            .into_response();
        if close {
            response
                .headers_mut()
                .insert(CONNECTION, HeaderValue::from_static("close"));
        }
        response
    }
}

/// A short plain-text refusal; `close` asks the client to close the connection (its request
/// was not read to the end).
fn refuse(status: StatusCode, reason: &str, close: bool) -> Response {
    let mut response = (status, format!("{reason}\n")).into_response();
    if close {
        response
            .headers_mut()
            .insert(CONNECTION, HeaderValue::from_static("close"));
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_policy_allows_loopback_names_and_addresses_with_or_without_port() {
        let policy = HostPolicy::Loopback;
        for host in [
            "localhost",
            "LOCALHOST:8080",
            "app.localhost:1",
            "127.0.0.1",
            "127.1.2.3:80",
            "[::1]:8080",
            "[::1]",
            "localhost.",
        ] {
            assert!(policy.allows(Some(host)), "{host}");
        }
        for host in [
            "evil.example",
            "localhost.evil.example",
            "evillocalhost",
            "10.0.0.1:8080",
            "[::2]",
            "",
        ] {
            assert!(!policy.allows(Some(host)), "{host}");
        }
        assert!(!policy.allows(None));
    }

    #[test]
    fn a_list_policy_compares_names_without_port_or_case() {
        let policy = HostPolicy::Only(vec!["agent.example".to_owned()]);
        assert!(policy.allows(Some("Agent.Example:443")));
        assert!(!policy.allows(Some("other.example")));
        assert!(HostPolicy::Any.allows(None));
    }

    #[test]
    fn only_json_media_types_pass() {
        let with = |value: &'static str| {
            let mut headers = HeaderMap::new();
            headers.insert(CONTENT_TYPE, HeaderValue::from_static(value));
            is_json(&headers)
        };
        assert!(with("application/json"));
        assert!(with("Application/JSON; charset=utf-8"));
        assert!(with("application/a2a+json"));
        assert!(!with("text/plain"));
        assert!(!with("application/x-www-form-urlencoded"));
        assert!(!with("multipart/form-data; boundary=x"));
        assert!(!is_json(&HeaderMap::new()));
    }
}
