//! Overload control: a cap on running tasks, overall and per client.
//!
//! Without it, one client sending non-blocking messages fills the task store with running
//! tasks in seconds, and everyone after gets "Internal error". With it, a message beyond the
//! cap gets a JSON-RPC error that says the server is busy (logged at most once per second),
//! before any task exists. The hook into the task layer is one permit: taken here before the
//! task starts, handed to [`Permit::release_when_done`] with the run, dropped when it ends.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use axum::extract::{ConnectInfo, Request};
use axum::http::header::RETRY_AFTER;
use axum::http::{HeaderMap, HeaderValue};
use axum::middleware::Next;
use axum::response::Response;

use super::limits::Limits;
use super::throttle::Throttle;
use crate::a2a::jsonrpc::{ErrorCode, RpcError};
use crate::task::manager::Running;

tokio::task_local! {
    /// The peer of the connection whose request is being handled, for the per-client task
    /// cap (the handlers of both bindings reach it without threading it through).
    static PEER: SocketAddr;
}

/// The peer address of the request being handled, when the server knows it: set by
/// [`with_peer`] from axum's `ConnectInfo`.
pub(crate) fn peer() -> Option<SocketAddr> {
    PEER.try_with(|peer| *peer).ok()
}

/// Makes the request's peer address (axum's `ConnectInfo<SocketAddr>`, which
/// [`A2uiServer::serve`](super::A2uiServer::serve) sets, and so does `axum::serve` with
/// `into_make_service_with_connect_info::<SocketAddr>()`) known to [`peer`] while the
/// handler runs, so the per-client cap holds wherever the router is served.
pub(crate) async fn with_peer(request: Request, next: Next) -> Response {
    let peer = request
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map(|info| info.0);
    match peer {
        Some(peer) => PEER.scope(peer, next.run(request)).await,
        None => next.run(request).await,
    }
}

/// The `Retry-After` (seconds) sent with a "server busy" answer: tasks end all the time, so
/// a second is a fair first wait.
pub(crate) const RETRY_AFTER_SECONDS: u32 = 1;

/// `response` with `Retry-After` when `error` says the server is busy (REST's 503, and the
/// JSON-RPC answer carrying the busy error).
pub(crate) fn with_retry_after(mut response: Response, error: &RpcError) -> Response {
    if error.code == ErrorCode::ServerBusy {
        response
            .headers_mut()
            .insert(RETRY_AFTER, HeaderValue::from(RETRY_AFTER_SECONDS));
    }
    response
}

/// Counts running tasks against the [`Limits`].
#[derive(Debug)]
pub(crate) struct Admission {
    max: usize,
    max_per_client: usize,
    key_header: Option<String>,
    counts: Mutex<Counts>,
    busy_log: Throttle,
}

#[derive(Debug, Default)]
struct Counts {
    total: usize,
    per_client: HashMap<String, usize>,
}

/// One running task's place in the counts; dropping it frees the place.
#[derive(Debug)]
pub(crate) struct Permit {
    admission: Arc<Admission>,
    /// The client it counts against; `None` when the client is unknown.
    client: Option<String>,
}

impl Admission {
    pub(crate) fn new(limits: &Limits) -> Self {
        Self {
            max: limits.max_running_tasks.max(1),
            max_per_client: limits.max_running_tasks_per_client.max(1),
            key_header: limits.client_key_header.clone(),
            counts: Mutex::new(Counts::default()),
            busy_log: Throttle::per_second(),
        }
    }

    fn counts(&self) -> std::sync::MutexGuard<'_, Counts> {
        self.counts
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// A place for one more running task of the client that sent this request, or the
    /// "server busy" error.
    pub(crate) fn admit(
        self: &Arc<Self>,
        headers: &HeaderMap,
        peer: Option<SocketAddr>,
    ) -> Result<Permit, RpcError> {
        let client = self.client_key(headers, peer);
        let mut counts = self.counts();
        let of_client = client
            .as_ref()
            .and_then(|client| counts.per_client.get(client).copied())
            .unwrap_or(0);
        let refusal = if counts.total >= self.max {
            Some(format!(
                "Server busy: {} tasks are running, the most it runs at once; retry later",
                self.max
            ))
        } else if of_client >= self.max_per_client {
            Some(format!(
                "Server busy: you have {} tasks running, the most one client may; \
                 retry when one ends",
                self.max_per_client
            ))
        } else {
            None
        };
        if let Some(message) = refusal {
            drop(counts);
            if self.busy_log.allow() {
                let client = client.as_deref().unwrap_or("unknown");
                tracing::warn!(client, %message, "refusing new tasks: overloaded");
            }
            return Err(RpcError::new(ErrorCode::ServerBusy, message));
        }
        counts.total += 1;
        if let Some(client) = &client {
            *counts.per_client.entry(client.clone()).or_insert(0) += 1;
        }
        Ok(Permit {
            admission: self.clone(),
            client,
        })
    }

    /// The configured header's value, else the peer's IP address; `None` when neither is
    /// known (a router served without connect info): then only the overall cap applies.
    fn client_key(&self, headers: &HeaderMap, peer: Option<SocketAddr>) -> Option<String> {
        let from_header: Option<String> = self
            .key_header
            .as_deref()
            .and_then(|name| headers.get(name))
            .and_then(|value| value.to_str().ok())
            // The first address of a list such as X-Forwarded-For, bounded in length.
            .map(|value| value.split(',').next().unwrap_or("").trim())
            .filter(|value| !value.is_empty())
            .map(|value| value.chars().take(128).collect());
        from_header.or_else(|| peer.map(|peer| peer.ip().to_string()))
    }
}

impl Permit {
    /// Keeps the place until `running` ends.
    pub(crate) fn release_when_done(self, running: &Running) {
        running.hold_until_done(Box::new(self));
    }
}

impl Drop for Permit {
    fn drop(&mut self) {
        let mut counts = self.admission.counts();
        counts.total = counts.total.saturating_sub(1);
        let Some(client) = &self.client else {
            return;
        };
        if let Some(count) = counts.per_client.get_mut(client) {
            *count -= 1;
            if *count == 0 {
                counts.per_client.remove(client);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn admission(max: usize, per_client: usize) -> Arc<Admission> {
        Arc::new(Admission::new(&Limits {
            max_running_tasks: max,
            max_running_tasks_per_client: per_client,
            client_key_header: Some("x-client".to_owned()),
            ..Limits::default()
        }))
    }

    fn from(client: &'static str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert("x-client", client.parse().unwrap());
        headers
    }

    #[test]
    fn a_client_over_its_share_is_busy_while_others_still_get_in() {
        let admission = admission(10, 2);
        let none = None;
        let _a1 = admission.admit(&from("a"), none).unwrap();
        let a2 = admission.admit(&from("a"), none).unwrap();
        let refused = admission.admit(&from("a"), none).unwrap_err();
        assert_eq!(refused.code, ErrorCode::ServerBusy);
        assert!(
            refused.message.starts_with("Server busy"),
            "{}",
            refused.message
        );
        let _b1 = admission.admit(&from("b"), none).unwrap();
        drop(a2);
        admission.admit(&from("a"), none).unwrap();
    }

    #[test]
    fn an_unknown_client_counts_only_against_the_total() {
        let admission = admission(3, 1);
        let unknown = HeaderMap::new();
        let _permits: Vec<Permit> = (0..3)
            .map(|_| admission.admit(&unknown, None).unwrap())
            .collect();
        assert!(admission.admit(&unknown, None).is_err());
    }

    #[test]
    fn the_total_cap_holds_across_clients() {
        let admission = admission(2, 2);
        let none = None;
        let _a = admission.admit(&from("a"), none).unwrap();
        let b = admission.admit(&from("b"), none).unwrap();
        assert!(admission.admit(&from("c"), none).is_err());
        drop(b);
        assert!(admission.admit(&from("c"), none).is_ok());
    }
}
