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
//! - `GET /.well-known/agent-card.json` — the A2A 1.0 agent card (the 0.3 one with
//!   `A2A-Version: 0.3`), and `GET /.well-known/agent.json` — the 0.3 card; both list the
//!   three interfaces and are cacheable (`ETag`, `Last-Modified`, 304);
//! - with [`ServerBuilder::tenants`], all of the above again under `/{tenant}/` (A2A 1.0
//!   multi-tenancy);
//! - `GET /extendedAgentCard` (and the JSON-RPC methods) — the
//!   [extended card](ServerBuilder::extended_card), if one is configured;
//! - with [`ServerBuilder::web_page`], `GET /` — a chat page drawing the agent's surfaces.
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
//! With one or more [`Generator`]s ([`ServerBuilder::generator`]) the server speaks A2UI:
//! the card advertises one A2UI extension per generator, each request negotiates its catalogs
//! (WIRE.md §5) and the agent's output is streamed as text parts and one DataPart per A2UI
//! message.

mod admission;
mod auth;
mod card;
mod connections;
mod error;
mod gate;
mod limits;
mod ops;
mod principal;
mod rest;
mod rpc;
mod serve;
mod sse;
mod subscribers;
mod tenancy;
mod throttle;
mod version;
mod web;

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::middleware::{from_fn, from_fn_with_state};
use axum::routing::{any, get, post};

#[cfg(feature = "jwt")]
pub use auth::{JwksError, JwtAuth};
pub use auth::{TokenFileError, TokenTable};
pub use error::BuildError;
pub use limits::Limits;
pub use principal::Principal;
pub use serve::{DEFAULT_BACKLOG, Serve, bind};

use crate::a2a::TaskState;
use crate::a2a::budget::DecodeBudget;
use crate::a2a::card::AgentCard;
use crate::a2ui::ClientCapabilities;
use crate::agent::Agent;
use crate::clock::{Clock, SystemClock};
use crate::generator::Generator;
use crate::parser::EmitMode;
use crate::reply::output::ReplyOutput;
use crate::reply::{OnInvalid, RepairPolicy};
use crate::request::adapter::A2uiAdapter;
use crate::store::{InMemoryStore, TaskStore};
use crate::task::manager::TaskManager;
use crate::task::{IdGenerator, UuidIds};
use admission::Admission;
use gate::{BodyBudget, HostPolicy};

/// State shared by every handler.
pub(crate) struct ServerState {
    pub(crate) card: AgentCard,
    /// When the card was made: its `Last-Modified`.
    pub(crate) card_modified: std::time::SystemTime,
    /// The card authenticated callers get from `GetExtendedAgentCard`, if configured.
    pub(crate) extended_card: Option<AgentCard>,
    pub(crate) tasks: Arc<TaskManager>,
    pub(crate) a2ui: A2uiAdapter,
    pub(crate) keep_alive: Duration,
    pub(crate) cancel_on_disconnect: bool,
    pub(crate) admission: Arc<Admission>,
    /// How many stream subscriptions each caller holds, against its cap.
    pub(crate) subscribers: Arc<subscribers::CallerSubscribers>,
    /// Whether requests may name a tenant (`/{tenant}/` paths, `tenant` members).
    pub(crate) tenancy: bool,
    /// The tenants the card lists interfaces for.
    pub(crate) tenants: Vec<String>,
    /// What a request body may hold, checked before it is decoded.
    pub(crate) budget: DecodeBudget,
}

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
    /// Starts configuring a server for `agent`, described to clients by `card`: an async
    /// closure or function from [`Request`](crate::Request) to a reply (see
    /// [`Agent`](crate::Agent) for the shapes it may return), or a type implementing
    /// [`Agent`](crate::Agent), such as the `llm` connector's `OpenAiChat`.
    pub fn builder(card: AgentCard, agent: impl Agent) -> ServerBuilder {
        ServerBuilder::new(card, Arc::new(agent))
    }

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
        let mut api = api_routes(tenancy);
        if tenancy {
            // `nest` serves the inner `/` at `/{tenant}` only; JSON-RPC clients also post
            // to `/{tenant}/`.
            api = api
                .nest(
                    "/{tenant}",
                    api_routes(true).layer(from_fn(tenancy::from_path)),
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
        let mut public = Router::new()
            .route("/.well-known/agent-card.json", get(card::agent_card))
            .route("/.well-known/agent.json", get(card::legacy_agent_card));
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

    /// The agent card served.
    pub fn card(&self) -> &AgentCard {
        &self.state.card
    }
}

/// The agent's API, both bindings; `tenancy`: HTTP+JSON requests naming another tenant are
/// refused before their handler (JSON-RPC ones in [`rpc::handle`]).
fn api_routes(tenancy: bool) -> Router<Arc<ServerState>> {
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
    Router::new()
        .route("/", post(rpc::handle))
        .merge(rest.route_layer(from_fn(rest::negotiate_content_type)))
}

/// Configures an [`A2uiServer`]; see [`A2uiServer::builder`].
#[must_use]
pub struct ServerBuilder {
    card: AgentCard,
    extended_card: Option<AgentCard>,
    agent: Arc<dyn Agent>,
    final_state: TaskState,
    keep_alive: Duration,
    body_limit: usize,
    cancel_on_disconnect: bool,
    max_history: usize,
    max_subscribers: usize,
    max_subscribers_per_caller: usize,
    tenants: Option<Vec<String>>,
    store: Option<Arc<dyn TaskStore>>,
    clock: Arc<dyn Clock>,
    ids: Arc<dyn IdGenerator>,
    generators: Vec<Generator>,
    default_capabilities: Option<serde_json::Value>,
    emission_mode: Option<EmitMode>,
    repair: RepairPolicy,
    // Hardening: limits, hosts, auth and CORS.
    limits: Limits,
    allowed_hosts: Option<Vec<String>>,
    auth: Vec<auth::AuthMethod>,
    cors_origins: Vec<String>,
    web_page: bool,
}

impl ServerBuilder {
    /// A builder for `agent` behind `card`, every option at its default.
    fn new(card: AgentCard, agent: Arc<dyn Agent>) -> Self {
        Self {
            card,
            extended_card: None,
            agent,
            final_state: TaskState::InputRequired,
            keep_alive: ServerBuilder::DEFAULT_KEEP_ALIVE,
            body_limit: ServerBuilder::DEFAULT_BODY_LIMIT,
            cancel_on_disconnect: false,
            max_history: ServerBuilder::DEFAULT_MAX_HISTORY,
            max_subscribers: ServerBuilder::DEFAULT_MAX_SUBSCRIBERS,
            max_subscribers_per_caller: ServerBuilder::DEFAULT_MAX_SUBSCRIBERS_PER_CALLER,
            tenants: None,
            store: None,
            clock: Arc::new(SystemClock),
            ids: Arc::new(UuidIds),
            generators: Vec::new(),
            default_capabilities: None,
            emission_mode: None,
            repair: RepairPolicy::default(),
            limits: Limits::default(),
            allowed_hosts: None,
            auth: Vec::new(),
            cors_origins: Vec::new(),
            web_page: false,
        }
    }
}

impl fmt::Debug for ServerBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ServerBuilder")
            .field("card", &self.card.name)
            .field("final_state", &self.final_state)
            .field("keep_alive", &self.keep_alive)
            .field("body_limit", &self.body_limit)
            .field("cancel_on_disconnect", &self.cancel_on_disconnect)
            .field("max_history", &self.max_history)
            .field("max_subscribers", &self.max_subscribers)
            .field(
                "max_subscribers_per_caller",
                &self.max_subscribers_per_caller,
            )
            .field("tenants", &self.tenants)
            .field("limits", &self.limits)
            .field("allowed_hosts", &self.allowed_hosts)
            .field("auth", &self.auth)
            .field("cors_origins", &self.cors_origins)
            .field(
                "generators",
                &self
                    .generators
                    .iter()
                    .map(|g| g.version().as_str())
                    .collect::<Vec<_>>(),
            )
            .field("web_page", &self.web_page)
            .finish_non_exhaustive()
    }
}

impl ServerBuilder {
    /// Default interval of `: keep-alive` comments on silent streams: 2 s.
    pub const DEFAULT_KEEP_ALIVE: Duration = Duration::from_secs(2);
    /// Default request body limit: 1 MiB.
    pub const DEFAULT_BODY_LIMIT: usize = 1024 * 1024;
    /// Default number of messages a task's history keeps: 256.
    pub const DEFAULT_MAX_HISTORY: usize = 256;
    /// The default of [`max_subscribers_per_task`](Self::max_subscribers_per_task).
    pub const DEFAULT_MAX_SUBSCRIBERS: usize = 16;
    /// The default of [`max_subscribers_per_caller`](Self::max_subscribers_per_caller).
    pub const DEFAULT_MAX_SUBSCRIBERS_PER_CALLER: usize = 32;

    /// The extended agent card (default none): what `GetExtendedAgentCard` (and 0.3's
    /// `agent/getAuthenticatedExtendedCard`, and `GET /extendedAgentCard`) answer to callers
    /// that passed authentication, say with skills the public card does not list. The public
    /// card then declares it (`capabilities.extendedAgentCard`). It needs
    /// [`auth_token`](Self::auth_token): without authentication every caller would read it.
    pub fn extended_card(mut self, card: AgentCard) -> Self {
        self.extended_card = Some(card);
        self
    }

    /// The state a task ends in when the agent's reply does not say (default
    /// `input-required`, so the conversation can go on).
    pub fn final_state(mut self, state: TaskState) -> Self {
        self.final_state = state;
        self
    }

    /// How often a silent stream gets a `: keep-alive` comment (default 2 s; at least 1 ms).
    pub fn keep_alive(mut self, interval: Duration) -> Self {
        self.keep_alive = interval.max(Duration::from_millis(1));
        self
    }

    /// The largest request body accepted; larger ones get HTTP 413 (default 1 MiB). What a
    /// body within it may hold is bounded by the decoding budget of [`Limits`]
    /// (`max_parts_per_message`, `max_part_bytes`, `max_message_bytes`, `max_json_values`).
    pub fn body_limit(mut self, bytes: usize) -> Self {
        self.body_limit = bytes;
        self
    }

    /// Whether a client that drops a `message/stream` cancels its task (default no: it can
    /// resubscribe or poll `tasks/get`).
    ///
    /// The trade-off: left running, a task whose client went away still costs what the agent
    /// spends — a real model keeps generating (and billing) tokens nobody may read. Canceled,
    /// that is saved, but a client that lost its connection for a moment cannot pick the
    /// reply up again with `tasks/resubscribe`.
    pub fn cancel_on_disconnect(mut self, cancel: bool) -> Self {
        self.cancel_on_disconnect = cancel;
        self
    }

    /// The most messages a task's history keeps (default 256, at least 1); the oldest are
    /// dropped first, so a long conversation cannot grow a task without bound. The agent
    /// sees the kept ones in [`Request::history`](crate::request::Request::history).
    pub fn max_history(mut self, messages: usize) -> Self {
        self.max_history = messages.max(1);
        self
    }

    /// The most streams that may follow one running task at once (default 16, at least 1):
    /// the client that started it and those that resubscribed. One more resubscribe gets the
    /// "server busy" error (-32000, HTTP 503). Each stream is fed on its own; one that stops
    /// reading is cut off without slowing the task or the other streams.
    pub fn max_subscribers_per_task(mut self, subscribers: usize) -> Self {
        self.max_subscribers = subscribers.max(1);
        self
    }

    /// The most subscriptions (`tasks/resubscribe`, `SubscribeToTask`, `GET
    /// /tasks/{id}:subscribe`) one caller may hold open at once, over all its tasks (default
    /// 32, at least 1). One more gets the "server busy" error (-32000, HTTP 503); closing a
    /// stream gives its place back. A caller is a [`Principal`] (its id and tenant): without
    /// authentication, every client is the one anonymous caller and shares this cap, so
    /// raise it for a public server without auth. The streams of `message/stream` are
    /// bounded by the running-task caps of [`Limits`] instead.
    pub fn max_subscribers_per_caller(mut self, subscribers: usize) -> Self {
        self.max_subscribers_per_caller = subscribers.max(1);
        self
    }

    /// Turns tenants on (default off): the A2A 1.0 multi-tenancy. The API is also served
    /// under `/{tenant}/` (JSON-RPC at `/{tenant}/`, HTTP+JSON at `/{tenant}/message:send`,
    /// `/{tenant}/tasks`, ...), and a request may name its tenant in its `tenant` member.
    /// A request acts in the tenant it names only when that is its [`Principal`]'s
    /// ([`Principal::with_tenant`], a token file's or a JWT claim's); any other tenant,
    /// whether it exists or not, is answered as a task that does not exist (-32001, HTTP
    /// 404). A request that names no tenant acts in its caller's, as with tenants off. The
    /// card lists the 1.0 interfaces once more for each of `listed` (with their `tenant`);
    /// list none to keep tenant names out of the public card. A tenant named like a route
    /// (`tasks`, `message:send`, `web`, ...) cannot be reached by path.
    pub fn tenants(mut self, listed: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.tenants = Some(listed.into_iter().map(Into::into).collect());
        self
    }

    /// Where tasks are kept (default: an [`InMemoryStore`] on the server's clock).
    pub fn store(mut self, store: impl TaskStore) -> Self {
        self.store = Some(Arc::new(store));
        self
    }

    /// The clock for timestamps (default: the system clock).
    pub fn clock(mut self, clock: impl Clock) -> Self {
        self.clock = Arc::new(clock);
        self
    }

    /// The id generator for tasks, contexts and messages (default: UUID v4).
    pub fn ids(mut self, ids: impl IdGenerator) -> Self {
        self.ids = Arc::new(ids);
        self
    }

    /// Adds an A2UI generator; call once per protocol version (or catalog set) to offer, in
    /// order of preference. The first that negotiates with a request's capabilities answers
    /// it; the card advertises one A2UI extension per generator.
    ///
    /// # Example
    ///
    /// ```no_run
    /// use a2ui_agent::{A2uiServer, AgentCard, Generator, Request};
    ///
    /// let agent = |request: Request| async move {
    ///     // Give `request.a2ui().map(|p| p.prompt())` to the model as its system prompt.
    ///     "Hello"
    /// };
    /// let server = A2uiServer::builder(AgentCard::builder("Forms").build(), agent)
    ///     .generator(Generator::v0_9())
    ///     .generator(Generator::v0_8())
    ///     .build();
    /// ```
    pub fn generator(mut self, generator: Generator) -> Self {
        self.generators.push(generator);
        self
    }

    /// The capabilities assumed when a client activates the A2UI extension but declares none
    /// in its message (default: every catalog of the generator). They do not make A2UI
    /// active for a client that did not ask for it.
    pub fn default_capabilities(mut self, capabilities: serde_json::Value) -> Self {
        self.default_capabilities = Some(capabilities);
        self
    }

    /// What a streamed reply resends when a message grows: [`EmitMode::Delta`] (only what
    /// changed) or [`EmitMode::Cumulative`] (the whole message again). Default: each
    /// generator's own mode.
    pub fn emission_mode(mut self, mode: EmitMode) -> Self {
        self.emission_mode = Some(mode);
        self
    }

    /// What happens to a finished A2UI message that does not validate against the
    /// negotiated catalogs: [`OnInvalid::Repair`] (the default: held back, and the agent is
    /// asked again with the errors, see [`crate::request::Repair`]), [`OnInvalid::Fail`] or
    /// [`OnInvalid::Forward`] (sent as it is).
    pub fn on_invalid(mut self, policy: OnInvalid) -> Self {
        self.repair.on_invalid = policy;
        self
    }

    /// How many repair turns one reply may take before its task fails (default 2).
    pub fn max_repairs(mut self, repairs: usize) -> Self {
        self.repair.max_repairs = repairs;
        self
    }

    /// The time and count [`Limits`] (default: [`Limits::default`]).
    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// The host names the server answers for (compared without port or case); a request
    /// with another `Host` gets 403. Default: any host, except that [`A2uiServer::serve`] on
    /// a loopback address answers only loopback names and addresses, which defeats DNS
    /// rebinding.
    pub fn allowed_hosts(mut self, hosts: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.allowed_hosts = Some(hosts.into_iter().map(Into::into).collect());
        self
    }

    /// Requires `token` on every request to the agent's API (JSON-RPC and HTTP+JSON alike),
    /// as `Authorization: Bearer <token>` or `X-API-Key: <token>` (401 otherwise); the card
    /// declares both schemes and stays public. Every holder of the one token is the same
    /// (anonymous) caller: for several callers, see [`auth_tokens`](Self::auth_tokens).
    /// Default: no authentication.
    pub fn auth_token(self, token: impl Into<String>) -> Self {
        self.auth_tokens(TokenTable::new().with(Principal::anonymous(), token.into()))
    }

    /// Requires one of the tokens of `table` on every request to the agent's API, sent as
    /// for [`auth_token`](Self::auth_token); each request acts for the token's
    /// [`Principal`], and sees only that principal's tasks.
    pub fn auth_tokens(mut self, table: TokenTable) -> Self {
        self.auth.push(auth::AuthMethod::Tokens(Arc::new(table)));
        self
    }

    /// Accepts JWT bearer tokens that `jwt` verifies (`Authorization: Bearer <JWT>`), each
    /// request acting for the principal its claims name. With token tables as well, either
    /// kind of credential suffices.
    #[cfg(feature = "jwt")]
    pub fn jwt(mut self, jwt: JwtAuth) -> Self {
        self.auth.push(auth::AuthMethod::Jwt(Arc::new(jwt)));
        self
    }

    /// The browser origins (`https://app.example`, or `*`) allowed to call the agent across
    /// origins; preflights are answered for them. Default: none, no CORS headers.
    pub fn cors_origins(mut self, origins: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.cors_origins = origins.into_iter().map(Into::into).collect();
        self
    }

    /// Whether `GET /` serves a chat page (default no): a person opens the server's URL in a
    /// browser, talks to the agent and sees its A2UI surfaces drawn, while they stream, by
    /// the official renderer. The page is embedded in the binary; `POST /` stays JSON-RPC.
    pub fn web_page(mut self, serve: bool) -> Self {
        self.web_page = serve;
        self
    }

    /// The server.
    ///
    /// # Errors
    ///
    /// [`BuildError`] when the final state is not one a task can stop in, the default
    /// capabilities are malformed, or an extended card is given without an auth token.
    pub fn build(self) -> Result<A2uiServer, BuildError> {
        let mut card = self.card;
        let agent = self.agent;
        if !self.final_state.is_settled() {
            return Err(BuildError::InvalidFinalState(self.final_state));
        }
        let default_capabilities = self
            .default_capabilities
            .as_ref()
            .map(ClientCapabilities::parse)
            .transpose()
            .map_err(|e| BuildError::InvalidDefaultCapabilities(e.to_string()))?;
        let other_extensions = card
            .capabilities
            .extensions
            .iter()
            .map(|e| e.uri.clone())
            .collect();
        card::advertise_a2ui(&mut card, &self.generators);
        let mut extended_card = self.extended_card;
        if let Some(extended) = &mut extended_card {
            if self.auth.is_empty() {
                return Err(BuildError::ExtendedCardWithoutAuth);
            }
            card.supports_authenticated_extended_card = true;
            extended.supports_authenticated_extended_card = true;
            auth::declare(extended, &self.auth);
        }
        auth::declare(&mut card, &self.auth);
        let tenancy = self.tenants.is_some();
        let tenants = self.tenants.unwrap_or_default();
        if !card.url.is_empty() {
            card::list_tenants(&mut card, &tenants);
        }
        let card_modified = self.clock.now();
        let guard = (!self.auth.is_empty()).then(|| auth::Guard {
            methods: self.auth.into(),
            #[cfg(feature = "jwt")]
            clock: self.clock.clone(),
        });
        let a2ui = A2uiAdapter::new(self.generators, default_capabilities, other_extensions);
        let store = self.store.unwrap_or_else(|| {
            Arc::new(InMemoryStore::new().clock_arc(self.clock.clone())) as Arc<dyn TaskStore>
        });
        let tasks = TaskManager::new(
            store,
            agent,
            self.clock,
            self.ids,
            Arc::new(ReplyOutput {
                emission_mode: self.emission_mode,
            }),
            self.final_state,
        )
        .with_max_history(self.max_history)
        .with_max_subscribers(self.max_subscribers)
        .with_repair(self.repair);
        Ok(A2uiServer {
            state: Arc::new(ServerState {
                card,
                card_modified,
                extended_card,
                tasks: Arc::new(tasks),
                a2ui,
                keep_alive: self.keep_alive,
                cancel_on_disconnect: self.cancel_on_disconnect,
                admission: Arc::new(Admission::new(&self.limits)),
                subscribers: Arc::new(subscribers::CallerSubscribers::new(
                    self.max_subscribers_per_caller,
                )),
                budget: self.limits.decode_budget(),
                tenancy,
                tenants,
            }),
            body_limit: self.body_limit,
            limits: Arc::new(self.limits),
            allowed_hosts: self.allowed_hosts.map(Into::into),
            guard,
            cors_origins: self.cors_origins.into(),
            web_page: self.web_page,
        })
    }
}
