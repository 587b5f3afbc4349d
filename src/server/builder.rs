//! The builder of an [`A2uiServer`]: every option, its default, and the checks `build` makes.
//!
//! It lives apart from the server it builds because it is most of the server's surface: a
//! newcomer reads this file to learn what can be set.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

#[cfg(feature = "jwt")]
use super::JwtAuth;
use super::admission::Admission;
#[cfg(feature = "mcp")]
use super::assembly::mcp_path;
use super::assembly::{
    extension_uris, parsed_capabilities, published_cards, signed_cards, store_and_pusher,
};
use super::signed_cards::CardKeys;
use super::{
    A2uiServer, BuildError, Limits, Principal, ServerState, TokenTable, auth, subscribers,
};
use crate::a2a::TaskState;
use crate::a2a::card::AgentCard;
use crate::agent::Agent;
use crate::clock::{Clock, SystemClock};
use crate::generator::Generator;
use crate::parser::EmitMode;
use crate::pipeline::sink::ReplyOutput;
use crate::pipeline::{OnInvalid, RepairPolicy, UrlPolicy};
use crate::request::adapter::A2uiAdapter;
use crate::store::TaskStore;
use crate::task::manager::TaskManager;
use crate::task::{IdGenerator, UuidIds};

impl A2uiServer {
    /// Starts configuring a server for `agent`, described to clients by `card`: an async
    /// closure or function from [`Request`](crate::Request) to a reply (see [`Agent`] for the shapes it may
    /// return), or a type implementing [`Agent`], such as the `llm` connector's `OpenAiChat`.
    pub fn builder(card: AgentCard, agent: impl Agent) -> ServerBuilder {
        ServerBuilder::new(card, Arc::new(agent))
    }
}

/// Configures an [`A2uiServer`]; see [`A2uiServer::builder`].
#[must_use]
pub struct ServerBuilder {
    pub(super) card: AgentCard,
    extended_card: Option<AgentCard>,
    pub(super) card_keys: CardKeys,
    agent: Arc<dyn Agent>,
    final_state: TaskState,
    keep_alive: Duration,
    body_limit: usize,
    cancel_on_disconnect: bool,
    max_history: usize,
    max_subscribers: usize,
    max_subscribers_per_caller: usize,
    coalesce_window: Duration,
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
    push: Option<crate::push::PushSettings>,
    ag_ui: Option<String>,
    #[cfg(feature = "mcp")]
    mcp: Option<String>,
    #[cfg(feature = "metrics")]
    metrics: Option<crate::observe::Metrics>,
}

impl ServerBuilder {
    /// A builder for `agent` behind `card`, every option at its default.
    pub(super) fn new(card: AgentCard, agent: Arc<dyn Agent>) -> Self {
        Self {
            card,
            extended_card: None,
            card_keys: CardKeys::default(),
            agent,
            final_state: TaskState::InputRequired,
            keep_alive: ServerBuilder::DEFAULT_KEEP_ALIVE,
            body_limit: ServerBuilder::DEFAULT_BODY_LIMIT,
            cancel_on_disconnect: false,
            max_history: ServerBuilder::DEFAULT_MAX_HISTORY,
            max_subscribers: ServerBuilder::DEFAULT_MAX_SUBSCRIBERS,
            max_subscribers_per_caller: ServerBuilder::DEFAULT_MAX_SUBSCRIBERS_PER_CALLER,
            coalesce_window: ServerBuilder::DEFAULT_COALESCE_WINDOW,
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
            push: None,
            ag_ui: None,
            #[cfg(feature = "mcp")]
            mcp: None,
            #[cfg(feature = "metrics")]
            metrics: None,
        }
    }
}

impl ServerBuilder {
    /// Where the server records: the [`metrics`](Self::metrics)' meter, or one that records
    /// nothing.
    fn meter(&self) -> crate::observe::Meter {
        #[cfg(feature = "metrics")]
        if let Some(metrics) = &self.metrics {
            return metrics.meter();
        }
        crate::observe::Meter::default()
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
            .field("coalesce_window", &self.coalesce_window)
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
            .field("push", &self.push)
            .field("ag_ui", &self.ag_ui)
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
    /// The default of [`coalesce_window`](Self::coalesce_window): none (see there why).
    pub const DEFAULT_COALESCE_WINDOW: Duration = Duration::ZERO;
    /// Where [`mcp`](Self::mcp) serves MCP unless told otherwise.
    #[cfg(feature = "mcp")]
    pub const DEFAULT_MCP_PATH: &'static str = super::mcp::DEFAULT_PATH;
    /// Where [`ag_ui`](Self::ag_ui) serves AG-UI unless told otherwise.
    pub const DEFAULT_AG_UI_PATH: &'static str = super::agui::DEFAULT_PATH;
    /// The longest [`coalesce_window`](Self::coalesce_window).
    pub const MAX_COALESCE_WINDOW: Duration = Duration::from_secs(1);

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

    /// How long a chunk of the agent's output waits for more before it is parsed and sent
    /// (default none, at most [`MAX_COALESCE_WINDOW`](Self::MAX_COALESCE_WINDOW)). Chunks
    /// that are already waiting are always read together (one parse, one update, one SSE
    /// frame for all); a window also gathers those that arrive within it, at the cost of
    /// that much latency and a timer per update. A model paced at one token every 20 ms or
    /// more sends nothing within a few milliseconds, so the default is none: the streams
    /// bench measures the curve (`BENCH_COALESCE_MS`).
    pub fn coalesce_window(mut self, window: Duration) -> Self {
        self.coalesce_window = window.min(Self::MAX_COALESCE_WINDOW);
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
    /// stream gives its place back. A caller is an authenticated [`Principal`] (its id and
    /// tenant). Without authentication every client is the one anonymous caller, which this
    /// cap does not count (it would make all clients share it); the per-task cap and the
    /// connection cap of [`Limits`] still bound them. The streams of `message/stream` are
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

    /// Where tasks are kept (default: an [`InMemoryStore`](crate::store::InMemoryStore) on the server's clock).
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

    /// Where the URLs a reply's A2UI holds may point (default: [`UrlPolicy::default`],
    /// `https` or a small `data:` image, public hosts, and only URLs that appeared in the
    /// conversation). A message whose URL breaks it is handled like one that does not
    /// validate, under [`on_invalid`](Self::on_invalid).
    pub fn url_policy(mut self, policy: UrlPolicy) -> Self {
        self.repair.urls = Arc::new(policy);
        self
    }

    /// Allows `host` in the URLs a reply shows: its URLs pass without having appeared in
    /// the conversation (see [`UrlPolicy::allow_host`]).
    pub fn ui_allow_host(mut self, host: impl Into<String>) -> Self {
        let policy = (*self.repair.urls).clone().allow_host(host);
        self.repair.urls = Arc::new(policy);
        self
    }

    /// The resolver that judges the host names of the URLs a reply shows (default:
    /// [`SystemResolver`](crate::pipeline::SystemResolver)): a URL whose host resolves to an
    /// address that is not public, or does not resolve within
    /// [`LOOKUP_TIMEOUT`](crate::pipeline::LOOKUP_TIMEOUT), is refused like one that breaks
    /// the [`url_policy`](Self::url_policy). Verdicts are cached for a minute, shared by
    /// every reply.
    pub fn ui_host_resolver(mut self, resolver: impl crate::pipeline::HostResolver) -> Self {
        self.repair.hosts = Arc::new(crate::pipeline::HostCheck::new(Arc::new(resolver)));
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

    /// Serves the agent over AG-UI too, at `path` (`POST`; [`Self::DEFAULT_AG_UI_PATH`]
    /// is `/ag-ui`): CopilotKit and other AG-UI frontends send a `RunAgentInput` and read
    /// the run as AG-UI events over SSE, the A2UI surfaces as `a2ui-surface` activities.
    /// Off by default. The same authentication, tenants, limits, stores and tasks apply as
    /// over A2A: a thread is an A2A context of the caller's. `build` refuses a path that is
    /// not a plain absolute path of its own (see [`BuildError::InvalidAgUiPath`]).
    pub fn ag_ui(mut self, path: impl Into<String>) -> Self {
        self.ag_ui = Some(path.into());
        self
    }

    /// Serves the agent as an MCP server too, at `path` ([`Self::DEFAULT_MCP_PATH`] is
    /// `/mcp`; Streamable HTTP: `POST`, `GET` and `DELETE`): MCP hosts list the agent as a
    /// tool (named and described from the card and its skills), call it with the user's
    /// message, and get the reply's text and its A2UI messages (an embedded resource of
    /// MIME `application/a2ui+json`, as A2UI over MCP Apps says); a surface's action comes
    /// back as `tools/call` of the event's name. Off by default. The same authentication,
    /// tenants (`/{tenant}/mcp`), limits, stores and tasks apply as over A2A: an MCP session
    /// is its caller's, and its conversation an A2A context of the caller's. `build`
    /// refuses a path that is not a plain absolute path of its own (see
    /// [`BuildError::InvalidMcpPath`]).
    ///
    /// # Example
    ///
    /// ```no_run
    /// use a2ui_agent::{A2uiServer, AgentCard, Reply, Request};
    ///
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let card = AgentCard::builder("Echo").description("Repeats what you say").build();
    /// let echo = |request: Request| async move { Reply::text(request.text()) };
    /// let server = A2uiServer::builder(card, echo)
    ///     .mcp(a2ui_agent::ServerBuilder::DEFAULT_MCP_PATH)
    ///     .build()?;
    /// # Ok(())
    /// # }
    /// ```
    #[cfg(feature = "mcp")]
    pub fn mcp(mut self, path: impl Into<String>) -> Self {
        self.mcp = Some(path.into());
        self
    }

    /// Records the server's figures in `metrics` (default: none recorded): requests, tasks,
    /// streams, A2UI messages, repairs, store latency, push deliveries, shed requests. Serve
    /// them with [`A2uiServer::metrics_router`], on a listener of their own.
    #[cfg(feature = "metrics")]
    pub fn metrics(mut self, metrics: &crate::observe::Metrics) -> Self {
        self.metrics = Some(metrics.clone());
        self
    }

    /// Turns push notifications on (default off), as `settings` say: clients may register
    /// webhooks for their tasks (with a send, or with the push config methods), the card
    /// declares `capabilities.pushNotifications`, and every status and artifact update of a
    /// task goes to each of its webhooks. Webhooks must be `https` on public addresses
    /// unless `settings` allow more (see [`crate::push::guard`]). Off, every push method
    /// answers `PushNotificationNotSupportedError`.
    pub fn push(mut self, settings: crate::push::PushSettings) -> Self {
        self.push = Some(settings);
        self
    }

    /// The server.
    ///
    /// # Errors
    ///
    /// [`BuildError`] when the final state is not one a task can stop in, the default
    /// capabilities are malformed, or an extended card is given without an auth token.
    pub fn build(self) -> Result<A2uiServer, BuildError> {
        if !self.final_state.is_settled() {
            return Err(BuildError::InvalidFinalState(self.final_state));
        }
        let meter = self.meter();
        let default_capabilities = parsed_capabilities(self.default_capabilities.as_ref())?;
        let ag_ui = self.ag_ui.map(super::agui::checked_path).transpose()?;
        #[cfg(feature = "mcp")]
        let mcp = mcp_path(self.mcp, ag_ui.as_ref())?;
        let other_extensions = extension_uris(&self.card);
        let tenancy = self.tenants.is_some();
        let tenants = self.tenants.unwrap_or_default();
        let (mut card, extended_card) = published_cards(
            self.card,
            self.extended_card,
            &self.generators,
            &self.auth,
            &tenants,
        )?;
        let guard = (!self.auth.is_empty()).then(|| auth::Guard {
            methods: self.auth.into(),
            #[cfg(feature = "jwt")]
            clock: self.clock.clone(),
        });
        let a2ui = A2uiAdapter::new(self.generators, default_capabilities, other_extensions);
        let (store, push) = store_and_pusher(self.store, self.push, &self.clock, &meter)?;
        card.capabilities.push_notifications = push.is_some();
        let tasks = TaskManager::new(
            store,
            self.agent,
            self.clock.clone(),
            self.ids,
            Arc::new(ReplyOutput {
                emission_mode: self.emission_mode,
            }),
            self.final_state,
        )
        .with_max_history(self.max_history)
        .with_max_subscribers(self.max_subscribers)
        .with_coalesce_window(self.coalesce_window)
        .with_repair(self.repair)
        .with_meter(meter.clone())
        .with_push(push.clone());
        let state = Arc::new(ServerState {
            signed: signed_cards(self.card_keys, &card, extended_card.as_ref(), &tenants)?,
            card,
            card_modified: self.clock.now(),
            extended_card,
            tasks: Arc::new(tasks),
            a2ui,
            keep_alive: self.keep_alive,
            cancel_on_disconnect: self.cancel_on_disconnect,
            admission: Arc::new(Admission::new(&self.limits).metered(meter.clone())),
            subscribers: Arc::new(subscribers::CallerSubscribers::new(
                self.max_subscribers_per_caller,
            )),
            budget: self.limits.decode_budget(),
            tenancy,
            tenants,
            push,
            meter,
        });
        Ok(A2uiServer {
            #[cfg(feature = "mcp")]
            mcp: mcp.map(|path| {
                let endpoint = super::mcp::Endpoint::new(&state, self.body_limit);
                (path.into(), endpoint)
            }),
            state,
            body_limit: self.body_limit,
            limits: Arc::new(self.limits),
            allowed_hosts: self.allowed_hosts.map(Into::into),
            guard,
            cors_origins: self.cors_origins.into(),
            web_page: self.web_page,
            ag_ui: ag_ui.map(Into::into),
        })
    }
}
