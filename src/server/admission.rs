//! Overload control: a cap on running tasks, overall and per client.
//!
//! A client is the authenticated caller when there is one (its tenant and id): many users
//! behind one address (an office's egress, a web backend) each get their share, and one
//! caller on many addresses gets one. An anonymous request's client is its address.
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
use crate::observe::Meter;
use crate::request::Principal;
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
    /// The header the trusted proxies write, and how many entries from its right end the
    /// client is; `None`: key clients by the peer address.
    forwarded: Option<(String, usize)>,
    counts: Mutex<Counts>,
    busy_log: Throttle,
    /// Where refused tasks are counted (`shed_requests{reason}`).
    meter: Meter,
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
            forwarded: match (&limits.client_key_header, limits.trusted_proxies) {
                (None, 0) => None,
                (None, hops) => Some(("x-forwarded-for".to_owned(), hops)),
                (Some(header), hops) => Some((header.clone(), hops.max(1))),
            },
            counts: Mutex::new(Counts::default()),
            busy_log: Throttle::per_second(),
            meter: Meter::default(),
        }
    }

    /// Counts the tasks it refuses on `meter`.
    pub(crate) fn metered(mut self, meter: Meter) -> Self {
        self.meter = meter;
        self
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
        principal: &Principal,
    ) -> Result<Permit, RpcError> {
        let client = match principal.id() {
            "" => self.client_key(headers, peer),
            id => Some(format!(
                "caller {}/{id}",
                principal.tenant().unwrap_or_default()
            )),
        };
        let mut counts = self.counts();
        let of_client = client
            .as_ref()
            .and_then(|client| counts.per_client.get(client).copied())
            .unwrap_or(0);
        let refusal = if counts.total >= self.max {
            self.meter.shed("tasks");
            Some(format!(
                "Server busy: {} tasks are running, the most it runs at once; retry later",
                self.max
            ))
        } else if of_client >= self.max_per_client {
            self.meter.shed("client_tasks");
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

    /// The client as the trusted proxies name it, else the peer's IP address; `None` when
    /// neither is known (a router served without connect info): then only the overall cap
    /// applies.
    fn client_key(&self, headers: &HeaderMap, peer: Option<SocketAddr>) -> Option<String> {
        let forwarded = self
            .forwarded
            .as_ref()
            .and_then(|(name, hops)| forwarded_client(headers, name, *hops));
        forwarded.or_else(|| peer.map(|peer| peer.ip().to_string()))
    }
}

/// The entry `hops` from the right of the comma-separated lists in the `name` headers (the
/// leftmost when there are fewer), trimmed and bounded in length: what the outermost of
/// `hops` trusted proxies appended. A proxy may add its entry as a header line of its own,
/// so every line counts, in order.
fn forwarded_client(headers: &HeaderMap, name: &str, hops: usize) -> Option<String> {
    let mut entries: Vec<&str> = Vec::new();
    for value in headers.get_all(name) {
        // A line that is not text cannot be split with confidence: key by the peer instead.
        let text = value.to_str().ok()?;
        entries.extend(text.split(',').map(str::trim));
    }
    let at = entries.len().saturating_sub(hops.max(1));
    entries
        .get(at)
        .filter(|entry| !entry.is_empty())
        .map(|entry| entry.chars().take(128).collect())
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
        let anonymous = Principal::anonymous();
        let admission = admission(10, 2);
        let none = None;
        let _a1 = admission.admit(&from("a"), none, &anonymous).unwrap();
        let a2 = admission.admit(&from("a"), none, &anonymous).unwrap();
        let refused = admission.admit(&from("a"), none, &anonymous).unwrap_err();
        assert_eq!(refused.code, ErrorCode::ServerBusy);
        assert!(
            refused.message.starts_with("Server busy"),
            "{}",
            refused.message
        );
        let _b1 = admission.admit(&from("b"), none, &anonymous).unwrap();
        drop(a2);
        admission.admit(&from("a"), none, &anonymous).unwrap();
    }

    #[test]
    fn an_authenticated_caller_is_the_client_whatever_its_address() {
        let admission = admission(10, 1);
        let (ada, bob) = (Principal::new("ada"), Principal::new("bob"));
        // Two callers behind one address each get their share.
        let _ada = admission.admit(&from("office"), None, &ada).unwrap();
        let _bob = admission.admit(&from("office"), None, &bob).unwrap();
        // One caller on another address gets none more.
        assert!(admission.admit(&from("home"), None, &ada).is_err());
        // The same id in another tenant is another caller.
        let ada_elsewhere = Principal::new("ada").with_tenant("acme");
        assert!(admission.admit(&from("home"), None, &ada_elsewhere).is_ok());
        // Anonymous requests are still keyed by address.
        let anonymous = Principal::anonymous();
        let _office = admission.admit(&from("office"), None, &anonymous).unwrap();
        assert!(admission.admit(&from("office"), None, &anonymous).is_err());
    }

    #[test]
    fn an_unknown_client_counts_only_against_the_total() {
        let anonymous = Principal::anonymous();
        let admission = admission(3, 1);
        let unknown = HeaderMap::new();
        let _permits: Vec<Permit> = (0..3)
            .map(|_| admission.admit(&unknown, None, &anonymous).unwrap())
            .collect();
        assert!(admission.admit(&unknown, None, &anonymous).is_err());
    }

    #[test]
    fn the_total_cap_holds_across_clients() {
        let anonymous = Principal::anonymous();
        let admission = admission(2, 2);
        let none = None;
        let _a = admission.admit(&from("a"), none, &anonymous).unwrap();
        let b = admission.admit(&from("b"), none, &anonymous).unwrap();
        assert!(admission.admit(&from("c"), none, &anonymous).is_err());
        drop(b);
        assert!(admission.admit(&from("c"), none, &anonymous).is_ok());
    }

    #[test]
    fn the_client_is_the_entry_the_trusted_proxies_appended_not_the_leftmost() {
        let forwarded = |value: &'static str| {
            let mut headers = HeaderMap::new();
            headers.insert("x-forwarded-for", value.parse().unwrap());
            headers
        };
        let behind = |hops| {
            Admission::new(&Limits {
                trusted_proxies: hops,
                ..Limits::default()
            })
        };
        let peer = Some(SocketAddr::from(([10, 0, 0, 1], 4000)));
        // The client wrote "1.1.1.1"; the one proxy appended the address it saw.
        let spoofed = forwarded("1.1.1.1, 203.0.113.7");
        assert_eq!(
            behind(1).client_key(&spoofed, peer).as_deref(),
            Some("203.0.113.7")
        );
        assert_eq!(
            behind(2).client_key(&spoofed, peer).as_deref(),
            Some("1.1.1.1")
        );
        // Fewer entries than hops: all were appended by trusted proxies.
        assert_eq!(
            behind(3).client_key(&spoofed, peer).as_deref(),
            Some("1.1.1.1")
        );
        // No trusted proxy: the header is the client's, never read.
        assert_eq!(
            behind(0).client_key(&spoofed, peer).as_deref(),
            Some("10.0.0.1")
        );
        // Lines added by different proxies count in order.
        let mut lines = forwarded("6.6.6.6");
        lines.append("x-forwarded-for", "198.51.100.2".parse().unwrap());
        assert_eq!(
            behind(1).client_key(&lines, peer).as_deref(),
            Some("198.51.100.2")
        );
        // No header: the peer.
        assert_eq!(
            behind(1).client_key(&HeaderMap::new(), peer).as_deref(),
            Some("10.0.0.1")
        );
    }
}
