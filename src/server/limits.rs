//! The limits that keep one client — slow, idle, greedy or hostile — from taking the server
//! from everyone else, in one plain struct so they can be read, set and documented together.

use std::time::Duration;

use crate::a2a::budget::DecodeBudget;

/// Time and count limits of a server; see [`ServerBuilder::limits`](super::ServerBuilder::limits).
///
/// The connection limits (`header_read_timeout`, `max_request_head_bytes`, `send_timeout`,
/// `idle_timeout`, `max_connections`, `drain_deadline`) apply when the server accepts its own connections with
/// [`A2uiServer::serve`](super::A2uiServer::serve); the others also apply to the
/// [`router`](super::A2uiServer::router) mounted elsewhere.
///
/// # Example
///
/// ```
/// use std::time::Duration;
/// use a2ui_agent::server::Limits;
///
/// let limits = Limits {
///     max_running_tasks: 64,
///     drain_deadline: Duration::from_secs(5),
///     ..Limits::default()
/// };
/// assert_eq!(limits.max_connections, Limits::default().max_connections);
/// ```
///
/// New limits may be added in minor releases: build one from `..Limits::default()`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// How long a client may take to send a request's headers, counted from when the server
    /// starts waiting for them (a new connection's first request included); then the
    /// connection is closed (default 10 s).
    pub header_read_timeout: Duration,
    /// The most bytes an HTTP/1.1 request's line and headers may take (default 8 KiB, the
    /// per-line limit of Apache and nginx); a larger head gets 431 and the connection closes.
    /// It also sizes the buffer each connection reads into, which every open stream keeps for
    /// its life: 8 KiB saves about 5 KiB per stream against a larger one. Values below 8 KiB
    /// count as 8 KiB (hyper's floor). HTTP/2 bounds the header list at 16 KiB on its own.
    pub max_request_head_bytes: usize,
    /// How long a client may take to send a whole request body; then it gets 408 and the
    /// connection is closed (default 30 s).
    pub body_timeout: Duration,
    /// How long a client may take no bytes while the server has bytes for it (an SSE stream
    /// it stopped reading, a response it does not read); then its connection is closed
    /// (default 30 s). The time counts only while a write waits and starts again at every
    /// byte the client takes: a slow reader that keeps reading stays, and so does a quiet
    /// stream; zero turns it off. (A stream's task stops waiting for such a client sooner;
    /// see the stream limits in the production guide.)
    pub send_timeout: Duration,
    /// How long a connection may sit with no request in flight before it is closed
    /// (default 60 s). A connection carrying an SSE stream is never idle: its `: keep-alive`
    /// comments keep it open as long as the task runs. On HTTP/1.1 the wait for the next
    /// request on a kept-alive connection is also bounded by `header_read_timeout` (hyper
    /// times the next headers from the end of the last response); this limit covers the
    /// rest, HTTP/2 connections for instance.
    pub idle_timeout: Duration,
    /// The most connections open at once (default 512). At the cap a new connection makes
    /// the longest-idle one (nothing in flight) close; when every one is busy, new ones wait
    /// in the listen backlog. Either way a warning is logged, at most once per second.
    pub max_connections: usize,
    /// On shutdown, how long running streams and requests may go on before their tasks are
    /// ended `failed` and the remaining connections closed (default 30 s).
    pub drain_deadline: Duration,
    /// The most tasks running at once (default 1024); beyond it a new message gets the
    /// "server busy" JSON-RPC error.
    pub max_running_tasks: usize,
    /// The most tasks one client may have running at once (default 64). The client is the
    /// authenticated caller (its tenant and id) when there is one; for an anonymous request,
    /// its address (see `trusted_proxies`).
    pub max_running_tasks_per_client: usize,
    /// How many proxies in front of the server are trusted to append the address they
    /// received a request from to `X-Forwarded-For` (default 0). With 0, anonymous clients are
    /// keyed for `max_running_tasks_per_client` by their peer IP address, which the
    /// [`router`](super::A2uiServer::router) reads from axum's `ConnectInfo<SocketAddr>`:
    /// [`A2uiServer::serve`](super::A2uiServer::serve) sets it, and so does `axum::serve`
    /// given `router.into_make_service_with_connect_info::<SocketAddr>()`. With `N`, the
    /// client is the `N`th address from the right of the header (the leftmost, if it holds
    /// fewer): the entry the outermost trusted proxy appended. The entries left of it are
    /// written by the client, who can put anything there, so they are never read. A request
    /// with neither header nor peer address (a router served without connect info) counts
    /// only against `max_running_tasks`.
    pub trusted_proxies: usize,
    /// The header the trusted proxies write the client into instead of `X-Forwarded-For`
    /// (for instance `X-Real-IP`); read like it, right to left, with at least one trusted
    /// hop: a proxy that sets a header of one value makes it the key. `None` (the default):
    /// `X-Forwarded-For` when `trusted_proxies` is above 0, else the peer address.
    pub client_key_header: Option<String>,
    /// The most parts one message may have (default 100); more is a -32602 error (400 on
    /// the HTTP+JSON binding), found while the body is read, before it is decoded.
    pub max_parts_per_message: usize,
    /// The most bytes one part may take as sent (default 512 KiB); more is -32602.
    pub max_part_bytes: usize,
    /// The most bytes one message may take as sent (default 1 MiB); more is -32602.
    pub max_message_bytes: usize,
    /// The most JSON values (scalars, arrays, objects, keys) one request body may hold
    /// (default 20,000); more is -32602. A value costs tens of bytes once decoded whatever
    /// its size on the wire, so this bounds the memory a body can claim.
    pub max_json_values: usize,
}

impl Limits {
    /// The default of [`Limits::header_read_timeout`]: 10 s.
    pub const DEFAULT_HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);
    /// The default of [`Limits::max_request_head_bytes`]: 8 KiB, also the least it can be.
    pub const DEFAULT_MAX_REQUEST_HEAD_BYTES: usize = 8 * 1024;
    /// The default of [`Limits::body_timeout`]: 30 s.
    pub const DEFAULT_BODY_TIMEOUT: Duration = Duration::from_secs(30);
    /// The default of [`Limits::send_timeout`]: 30 s.
    pub const DEFAULT_SEND_TIMEOUT: Duration = Duration::from_secs(30);
    /// The default of [`Limits::idle_timeout`]: 60 s.
    pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(60);
    /// The default of [`Limits::max_connections`]: 512, well under the usual limit of 1024
    /// open files.
    pub const DEFAULT_MAX_CONNECTIONS: usize = 512;
    /// The default of [`Limits::drain_deadline`]: 30 s.
    pub const DEFAULT_DRAIN_DEADLINE: Duration = Duration::from_secs(30);
    /// The default of [`Limits::max_running_tasks`]: 1024.
    pub const DEFAULT_MAX_RUNNING_TASKS: usize = 1024;
    /// The default of [`Limits::max_running_tasks_per_client`]: 64.
    pub const DEFAULT_MAX_RUNNING_TASKS_PER_CLIENT: usize = 64;

    /// The budget a request body is read within.
    pub(crate) fn decode_budget(&self) -> DecodeBudget {
        DecodeBudget {
            max_parts: self.max_parts_per_message,
            max_part_bytes: self.max_part_bytes,
            max_message_bytes: self.max_message_bytes,
            max_values: self.max_json_values,
        }
    }
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            header_read_timeout: Self::DEFAULT_HEADER_READ_TIMEOUT,
            max_request_head_bytes: Self::DEFAULT_MAX_REQUEST_HEAD_BYTES,
            body_timeout: Self::DEFAULT_BODY_TIMEOUT,
            send_timeout: Self::DEFAULT_SEND_TIMEOUT,
            idle_timeout: Self::DEFAULT_IDLE_TIMEOUT,
            max_connections: Self::DEFAULT_MAX_CONNECTIONS,
            drain_deadline: Self::DEFAULT_DRAIN_DEADLINE,
            max_running_tasks: Self::DEFAULT_MAX_RUNNING_TASKS,
            max_running_tasks_per_client: Self::DEFAULT_MAX_RUNNING_TASKS_PER_CLIENT,
            trusted_proxies: 0,
            client_key_header: None,
            max_parts_per_message: DecodeBudget::DEFAULT_MAX_PARTS,
            max_part_bytes: DecodeBudget::DEFAULT_MAX_PART_BYTES,
            max_message_bytes: DecodeBudget::DEFAULT_MAX_MESSAGE_BYTES,
            max_json_values: DecodeBudget::DEFAULT_MAX_VALUES,
        }
    }
}
