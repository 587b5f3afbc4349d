//! The A2A server: an [`axum::Router`] serving one agent over JSON-RPC and SSE.
//!
//! [`A2uiServer::builder`] takes the agent card, the agent and options, and
//! [`A2uiServer::router`] gives a router to serve directly or to mount in a larger app:
//!
//! - `POST /` — JSON-RPC 2.0, A2A 0.3 methods (`message/send`, `message/stream`, `tasks/get`,
//!   `tasks/cancel`, `tasks/resubscribe`);
//! - `GET /.well-known/agent-card.json` and `GET /.well-known/agent.json` — the agent card.

mod card;
mod error;
mod rpc;
mod sse;

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::routing::{get, post};

pub use error::BuildError;

use crate::a2a::TaskState;
use crate::a2a::card::AgentCard;
use crate::agent::Agent;
use crate::task::manager::TaskManager;
use crate::task::output::TextOutput;
use crate::task::{Clock, IdGenerator, InMemoryStore, SystemClock, TaskStore, UuidIds};

/// State shared by every handler.
pub(crate) struct ServerState {
    pub(crate) card: AgentCard,
    pub(crate) tasks: Arc<TaskManager>,
    pub(crate) keep_alive: Duration,
    pub(crate) cancel_on_disconnect: bool,
}

/// An A2A server for one agent. Cheap to clone.
///
/// # Example
///
/// ```no_run
/// use a2ui_agent::a2a::card::AgentCard;
/// use a2ui_agent::agent::{AgentError, Reply};
/// use a2ui_agent::request::Request;
/// use a2ui_agent::server::A2uiServer;
///
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// let server = A2uiServer::builder()
///     .card(AgentCard::builder("Echo").description("Repeats what you say").build())
///     .agent(|request: Request| async move { Ok::<_, AgentError>(Reply::text(request.text())) })
///     .build()?;
/// let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await?;
/// axum::serve(listener, server.router()).await?;
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct A2uiServer {
    state: Arc<ServerState>,
    body_limit: usize,
}

impl fmt::Debug for A2uiServer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("A2uiServer")
            .field("agent", &self.state.card.name)
            .field("body_limit", &self.body_limit)
            .finish_non_exhaustive()
    }
}

impl A2uiServer {
    /// Starts configuring a server.
    pub fn builder() -> ServerBuilder {
        ServerBuilder::default()
    }

    /// The router serving the agent. Mount it at `/`, or set the card's `url` to where you
    /// mount it.
    pub fn router(&self) -> Router {
        Router::new()
            .route("/", post(rpc::handle))
            .route("/.well-known/agent-card.json", get(card::agent_card))
            .route("/.well-known/agent.json", get(card::agent_card))
            .layer(DefaultBodyLimit::max(self.body_limit))
            .with_state(self.state.clone())
    }

    /// The agent card served.
    pub fn card(&self) -> &AgentCard {
        &self.state.card
    }
}

/// Configures an [`A2uiServer`]; see [`A2uiServer::builder`].
#[must_use]
pub struct ServerBuilder {
    card: Option<AgentCard>,
    agent: Option<Arc<dyn Agent>>,
    final_state: TaskState,
    keep_alive: Duration,
    body_limit: usize,
    cancel_on_disconnect: bool,
    store: Option<Arc<dyn TaskStore>>,
    clock: Arc<dyn Clock>,
    ids: Arc<dyn IdGenerator>,
}

impl Default for ServerBuilder {
    fn default() -> Self {
        Self {
            card: None,
            agent: None,
            final_state: TaskState::InputRequired,
            keep_alive: ServerBuilder::DEFAULT_KEEP_ALIVE,
            body_limit: ServerBuilder::DEFAULT_BODY_LIMIT,
            cancel_on_disconnect: false,
            store: None,
            clock: Arc::new(SystemClock),
            ids: Arc::new(UuidIds),
        }
    }
}

impl fmt::Debug for ServerBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ServerBuilder")
            .field("card", &self.card.as_ref().map(|card| &card.name))
            .field("agent", &self.agent.is_some())
            .field("final_state", &self.final_state)
            .field("keep_alive", &self.keep_alive)
            .field("body_limit", &self.body_limit)
            .field("cancel_on_disconnect", &self.cancel_on_disconnect)
            .finish_non_exhaustive()
    }
}

impl ServerBuilder {
    /// Default interval of `: keep-alive` comments on silent streams: 2 s.
    pub const DEFAULT_KEEP_ALIVE: Duration = Duration::from_secs(2);
    /// Default request body limit: 4 MiB.
    pub const DEFAULT_BODY_LIMIT: usize = 4 * 1024 * 1024;

    /// The agent card (required).
    pub fn card(mut self, card: AgentCard) -> Self {
        self.card = Some(card);
        self
    }

    /// The agent (required): a closure `|request| async { Ok(Reply::text(..)) }` or a type
    /// implementing [`Agent`].
    pub fn agent(mut self, agent: impl Agent) -> Self {
        self.agent = Some(Arc::new(agent));
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

    /// The largest request body accepted; larger ones get HTTP 413 (default 4 MiB).
    pub fn body_limit(mut self, bytes: usize) -> Self {
        self.body_limit = bytes;
        self
    }

    /// Whether a client that drops a `message/stream` cancels its task (default no: it can
    /// resubscribe or poll `tasks/get`).
    pub fn cancel_on_disconnect(mut self, cancel: bool) -> Self {
        self.cancel_on_disconnect = cancel;
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

    /// The server.
    ///
    /// # Errors
    ///
    /// [`BuildError`] when the card or the agent is missing, or the final state is not one
    /// a task can stop in.
    pub fn build(self) -> Result<A2uiServer, BuildError> {
        let card = self.card.ok_or(BuildError::MissingCard)?;
        let agent = self.agent.ok_or(BuildError::MissingAgent)?;
        if !(self.final_state.is_terminal() || self.final_state.is_interrupted()) {
            return Err(BuildError::InvalidFinalState(self.final_state));
        }
        let store = self.store.unwrap_or_else(|| {
            Arc::new(InMemoryStore::new().clock_arc(self.clock.clone())) as Arc<dyn TaskStore>
        });
        let tasks = TaskManager::new(
            store,
            agent,
            self.clock,
            self.ids,
            Arc::new(TextOutput),
            self.final_state,
        );
        Ok(A2uiServer {
            state: Arc::new(ServerState {
                card,
                tasks: Arc::new(tasks),
                keep_alive: self.keep_alive,
                cancel_on_disconnect: self.cancel_on_disconnect,
            }),
            body_limit: self.body_limit,
        })
    }
}
