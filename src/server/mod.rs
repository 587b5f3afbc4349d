//! The A2A server: an [`axum::Router`] serving one agent over A2A 1.0 and 0.3.
//!
//! [`A2uiServer::builder`] takes the agent card, the agent and options, and
//! [`A2uiServer::router`] gives a router to serve directly or to mount in a larger app:
//!
//! - `POST /` — JSON-RPC 2.0: the A2A 1.0 methods (`SendMessage`, `SendStreamingMessage`,
//!   `GetTask`, `ListTasks`, `CancelTask`, `SubscribeToTask`, ...) and the 0.3 ones
//!   (`message/send`, `message/stream`, `tasks/get`, `tasks/cancel`, `tasks/resubscribe`),
//!   told apart by method name and `A2A-Version`;
//! - the HTTP+JSON binding of 1.0 beside it: `POST /message:send`, `POST /message:stream`,
//!   `GET /tasks`, `GET /tasks/{id}`, `POST /tasks/{id}:cancel`, `GET|POST
//!   /tasks/{id}:subscribe`;
//! - with the `grpc` feature, the gRPC binding of 1.0 on the same port: the `A2AService` of
//!   `a2a.proto` at `/lf.a2a.v1.A2AService/{Method}` (HTTP/2), every method, listed in the
//!   card as `GRPC` at the server's `host:port`;
//! - `GET /.well-known/agent-card.json` — the A2A 1.0 agent card (the 0.3 one with
//!   `A2A-Version: 0.3`), and `GET /.well-known/agent.json` — the 0.3 card; both list the
//!   three interfaces and are cacheable (`ETag`, `Last-Modified`, 304);
//! - with [`ServerBuilder::card_signing_key`] (the `card-signing` feature), the cards signed
//!   (A2A 1.0 §8.4) and `GET /.well-known/jwks.json` — the public keys that signed them;
//! - with [`ServerBuilder::tenants`], all of the above again under `/{tenant}/` (A2A 1.0
//!   multi-tenancy);
//! - `GET /extendedAgentCard` (and the JSON-RPC methods) — the
//!   [extended card](ServerBuilder::extended_card), if one is configured;
//! - with [`ServerBuilder::web_page`], `GET /` — a chat page drawing the agent's surfaces;
//! - with [`ServerBuilder::ag_ui`], `POST /ag-ui` — the same agent over AG-UI (a
//!   `RunAgentInput` in, AG-UI events out over SSE, A2UI surfaces as `a2ui-surface`
//!   activities), for CopilotKit and other AG-UI frontends;
//! - with [`ServerBuilder::mcp`] (the `mcp` feature), `/mcp` — the same agent as a tool of
//!   an MCP server (Streamable HTTP), its surfaces in the tool results as A2UI over MCP
//!   Apps says, for MCP hosts.
//!
//! The description below uses the 0.3 names; 1.0 streams carry the same events as
//! `StreamResponse` objects (no `final`).
//!
//! [`A2uiServer::serve`] accepts connections itself, under the connection [`Limits`]
//! (timeouts, a connection cap, shutdown with a drain deadline). Every request also passes
//! the gate: a JSON `Content-Type` (415 otherwise), an allowed `Host` (403), a body within
//! its size and time budget (413, 408), the token when one is set (401), and a cap on running
//! tasks (a "server busy" JSON-RPC error, with `Retry-After`). A body is then walked within
//! the decoding budget ([`crate::a2a::budget`]: parts, bytes, values, no repeated key) before
//! it is decoded.
//!
//! A `message/stream` response carries, one SSE `data:` line each: the Task (`submitted`), a
//! `working` update when the agent starts, one `working` update per piece of output (the
//! pieces of one reply share one `messageId`), then a final update (`final: true`, the end
//! state, no part repeated) and the response closes. `: keep-alive` comments fill silences.
//! `message/send` waits for the end and returns the Task, whose status message holds the
//! whole reply.
//!
//! With one or more [`Generator`](crate::Generator)s ([`ServerBuilder::generator`]) the server speaks A2UI:
//! the card advertises one A2UI extension per generator, each request negotiates its catalogs
//! (WIRE.md §5) and the agent's output is streamed as text parts and one DataPart per A2UI
//! message.

mod admission;
mod agui;
mod assembly;
mod auth;
mod builder;
mod builder_signing;
mod card;
mod connections;
mod error;
mod gate;
#[cfg(feature = "grpc")]
mod grpc;
mod limits;
#[cfg(feature = "mcp")]
mod mcp;
mod ops;
mod paths;
mod principal;
mod push_methods;
mod rest;
mod rpc;
mod send_timeout;
mod serve;
mod signed_cards;
mod sse;
mod state;
mod subscribers;
mod tenancy;
mod throttle;
mod traced;
mod turn;
mod version;
mod web;

use std::fmt;
use std::sync::Arc;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::middleware::{from_fn, from_fn_with_state};
use axum::routing::{any, get, post};

pub use crate::request::Principal;
#[cfg(feature = "jwt")]
pub use auth::{JwksError, JwtAuth};
pub use auth::{TokenFileError, TokenTable};
pub use builder::ServerBuilder;
pub use error::BuildError;
pub use limits::Limits;
pub use serve::{DEFAULT_BACKLOG, Serve, bind};
pub(crate) use state::ServerState;

use crate::a2a::card::AgentCard;
use gate::{BodyBudget, HostPolicy};

/// An A2A server for one agent. Cheap to clone.
///
/// # Example
///
/// ```no_run
/// use a2ui_agent::{A2uiServer, AgentCard, Reply, Request};
///
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// let card = AgentCard::builder("Echo").description("Repeats what you say").build();
/// let echo = |request: Request| async move { Reply::text(request.text()) };
/// let server = A2uiServer::builder(card, echo).build()?;
/// let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await?;
/// // Or mount `server.router()` in a larger axum app.
/// server.serve(listener).await?;
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct A2uiServer {
    state: Arc<ServerState>,
    body_limit: usize,
    limits: Arc<Limits>,
    /// `None`: any host, or loopback names only when [`A2uiServer::serve`] listens on
    /// loopback.
    allowed_hosts: Option<Arc<[String]>>,
    /// `None`: no built-in authentication (every request is its [`Principal`] extension's,
    /// else the anonymous principal's).
    guard: Option<auth::Guard>,
    cors_origins: Arc<[String]>,
    web_page: bool,
    /// Where the AG-UI binding is served; `None`: it is not.
    ag_ui: Option<Arc<str>>,
    /// The MCP endpoint and where it is served; `None`: it is not.
    #[cfg(feature = "mcp")]
    mcp: Option<(Arc<str>, mcp::Endpoint)>,
}

impl fmt::Debug for A2uiServer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("A2uiServer")
            .field("agent", &self.state.card.name)
            .field("body_limit", &self.body_limit)
            .field("limits", &self.limits)
            .field("web_page", &self.web_page)
            .finish_non_exhaustive()
    }
}

impl A2uiServer {
    /// The router serving the agent. Mount it at `/`, or set the card's `url` to where you
    /// mount it.
    ///
    /// The router checks `Host` only against the
    /// [`allowed_hosts`](ServerBuilder::allowed_hosts) given; [`A2uiServer::serve`] also
    /// checks it on a loopback listener. The connection limits need [`A2uiServer::serve`]:
    /// an app that serves the router itself must add connect info
    /// (`into_make_service_with_connect_info::<SocketAddr>()`, or the per-client task cap
    /// cannot tell clients apart), header-read and idle timeouts with a connection cap (a
    /// bare `axum::serve` has none), and a shutdown with a deadline (see
    /// `examples/mount_in_axum.rs`).
    pub fn router(&self) -> Router {
        self.app(false)
    }

    /// The router; on a `loopback` listener without allowed hosts, only loopback hosts pass.
    fn app(&self, loopback: bool) -> Router {
        if let Some(push) = &self.state.push {
            push.start();
        }
        let hosts = match &self.allowed_hosts {
            Some(names) => HostPolicy::Only(names.to_vec()),
            None if loopback => HostPolicy::Loopback,
            None => HostPolicy::Any,
        };
        let budget = BodyBudget {
            limit: self.body_limit,
            timeout: self.limits.body_timeout,
        };
        // The agent's API, both bindings: every route here needs the token and reads its
        // body through the gate. The cards and the web page stay public. With tenants, the
        // same routes again under `/{tenant}/`.
        let tenancy = self.state.tenancy;
        let ag_ui = self.ag_ui.as_deref();
        let mut api = self.with_grpc(self.with_mcp(api_routes(tenancy, ag_ui)));
        if tenancy {
            // `nest` serves the inner `/` at `/{tenant}` only; JSON-RPC clients also post
            // to `/{tenant}/`.
            api = api
                .nest(
                    "/{tenant}",
                    self.with_grpc(self.with_mcp(api_routes(true, ag_ui)))
                        .layer(from_fn(tenancy::from_path)),
                )
                .route(
                    "/{tenant}/",
                    post(rpc::handle).layer(from_fn(tenancy::from_path)),
                );
        }
        let api = api
            .layer(from_fn(admission::with_peer))
            .layer(from_fn_with_state(budget, gate::read_body));
        // Layers that would let every request through are left out: each costs a boxed
        // future and a service clone per request.
        let api = match &self.guard {
            Some(guard) => api.layer(from_fn_with_state(guard.clone(), auth::require)),
            None => api,
        };
        let api = if crate::observe::trace::wanted() {
            api.layer(from_fn_with_state(self.bindings(), traced::request_span))
        } else {
            api
        };
        let mut public = Router::new()
            .route("/.well-known/agent-card.json", get(card::agent_card))
            .route("/.well-known/agent.json", get(card::legacy_agent_card));
        if self.state.signed.is_some() {
            public = public.route("/.well-known/jwks.json", get(card::jwks));
        }
        if self.web_page {
            public = public
                .route("/", get(web::index))
                .route("/web/{file}", get(web::asset));
        }
        let router = public
            .merge(api)
            .layer(DefaultBodyLimit::max(self.body_limit));
        let router = match hosts {
            HostPolicy::Any => router,
            hosts => router.layer(from_fn_with_state(Arc::new(hosts), gate::check_host)),
        };
        let router = router.with_state(self.state.clone());
        match auth::cors(&self.cors_origins) {
            Some(cors) => router.layer(cors),
            None => router,
        }
    }

    /// What the request spans need to tell the bindings apart.
    fn bindings(&self) -> Arc<traced::Bindings> {
        #[cfg(feature = "mcp")]
        if let Some((path, _)) = &self.mcp {
            return Arc::new(traced::Bindings {
                mcp: Some(path.to_string()),
            });
        }
        Arc::new(traced::Bindings::default())
    }

    /// `api` and, when it is served, the MCP endpoint.
    fn with_mcp(&self, api: Router<Arc<ServerState>>) -> Router<Arc<ServerState>> {
        #[cfg(feature = "mcp")]
        if let Some((path, endpoint)) = &self.mcp {
            return api.merge(endpoint.routes(path));
        }
        api
    }

    /// `api` and the gRPC service (the `grpc` feature).
    fn with_grpc(&self, api: Router<Arc<ServerState>>) -> Router<Arc<ServerState>> {
        #[cfg(feature = "grpc")]
        if let Some(service) = grpc::service(self.state.clone(), self.body_limit) {
            let path = format!("{}{{method}}", grpc::PATH_PREFIX);
            let counted = axum::middleware::from_fn_with_state(
                self.state.meter.clone(),
                grpc::counted::count,
            );
            return api.merge(
                Router::new()
                    .route_service(&path, service)
                    .route_layer(counted),
            );
        }
        api
    }

    /// The agent card served.
    pub fn card(&self) -> &AgentCard {
        &self.state.card
    }

    /// `GET /metrics`: the [`metrics`](ServerBuilder::metrics) given to the builder, in the
    /// Prometheus text format; `None` when none were given.
    ///
    /// Serve it on a listener of its own, one Prometheus reaches and clients do not (the
    /// command-line tool's `serve --metrics` listens on loopback by default): the figures
    /// span every caller and tenant, so the API's callers must not read them, and the
    /// scraper needs no credential of theirs.
    ///
    /// # Example
    ///
    /// ```no_run
    /// use a2ui_agent::observe::Metrics;
    /// use a2ui_agent::{A2uiServer, AgentCard, Reply, Request};
    ///
    /// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
    /// let metrics = Metrics::new();
    /// let card = AgentCard::builder("Echo").build();
    /// let echo = |request: Request| async move { Reply::text(request.text()) };
    /// let server = A2uiServer::builder(card, echo).metrics(&metrics).build()?;
    /// let scrape = tokio::net::TcpListener::bind("127.0.0.1:9464").await?;
    /// let router = server.metrics_router().expect("metrics were given");
    /// tokio::spawn(async move { axum::serve(scrape, router).await });
    /// server.serve(tokio::net::TcpListener::bind("127.0.0.1:8080").await?).await?;
    /// # Ok(())
    /// # }
    /// ```
    #[cfg(feature = "metrics")]
    pub fn metrics_router(&self) -> Option<Router> {
        let metrics = self.state.meter.metrics()?;
        Some(Router::new().route(
            "/metrics",
            get(move || {
                let metrics = metrics.clone();
                async move {
                    (
                        [(
                            axum::http::header::CONTENT_TYPE,
                            crate::observe::Metrics::CONTENT_TYPE,
                        )],
                        metrics.encode(),
                    )
                }
            }),
        ))
    }

    /// What the push notification sender did so far; `None` when push is off.
    pub fn push_stats(&self) -> Option<crate::push::PushStats> {
        self.state.push.as_ref().map(crate::push::Pusher::stats)
    }
}

/// The agent's API, both A2A bindings and AG-UI at `ag_ui`; `tenancy`: HTTP+JSON and AG-UI
/// requests naming another tenant are refused before their handler (JSON-RPC ones in
/// [`rpc::handle`]).
fn api_routes(tenancy: bool, ag_ui: Option<&str>) -> Router<Arc<ServerState>> {
    let rest = Router::new()
        .route("/message:send", post(rest::message_send))
        .route("/message:stream", post(rest::message_stream))
        .route("/tasks", get(rest::list_tasks))
        .route(
            "/tasks/{target}",
            get(rest::get_task).post(rest::task_action),
        )
        .route(
            "/tasks/{id}/pushNotificationConfigs",
            any(rest::push_configs),
        )
        .route(
            "/tasks/{id}/pushNotificationConfigs/{config}",
            any(rest::push_configs),
        )
        .route("/extendedAgentCard", get(rest::extended_card));
    let rest = if tenancy {
        rest.route_layer(from_fn(tenancy::check_rest))
    } else {
        rest
    };
    let api = Router::new()
        .route("/", post(rpc::handle))
        .merge(rest.route_layer(from_fn(rest::negotiate_content_type)));
    let Some(path) = ag_ui else {
        return api;
    };
    let ag_ui = Router::new().route(path, post(agui::handle));
    api.merge(if tenancy {
        ag_ui.route_layer(from_fn(tenancy::check_rest))
    } else {
        ag_ui
    })
}
