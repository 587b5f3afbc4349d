//! The MCP binding: the agent as a tool of an MCP server (Streamable HTTP), its A2UI
//! surfaces in the tool results as A2UI over MCP Apps says.
//!
//! MCP hosts (chat apps, IDEs) are where most people meet tools; A2UI's draft "A2UI over
//! MCP Apps" extension says how a tool result carries A2UI: one embedded resource of MIME
//! `application/a2ui+json` holding the ordered A2UI messages, beside a text block for the
//! model and text-only hosts. This module serves that with the official Rust SDK (`rmcp`)
//! and is an adapter over the same operations layer as A2A and AG-UI ([`super::ops`]): a
//! `tools/call` becomes an A2A send — the MCP session (or the `a2ui-agent/contextId` a
//! result returned, for stateless clients) is the conversation, an A2A context of the
//! caller's — that goes through the same gate, admission, request step, task layer and
//! reply pipeline, and the task's events are collected into the tool result (`result`).
//!
//! - `tools/list`: the agent's tool (named for the card, described by its description and
//!   skills, taking the user's `message` and an optional `context`, its `_meta.ui.resourceUri`
//!   the renderer bundle), and the action events the session's surfaces may send back, as
//!   app-only tools (`_meta.ui.visibility`).
//! - `resources/list`, `resources/read`: the renderer bundle (`bundle`), the HTML an MCP
//!   Apps host that does not draw A2UI itself shows the surfaces with.
//! - `tools/call` of the agent's tool: one turn; a tool named for an action event: the
//!   user's action (arguments: its resolved context; `_meta["org.a2ui/ui"].surfaceId` and
//!   `.dataModel`), which reaches the agent as the A2A action a renderer would send, in the
//!   conversation's waiting task, so the agent answers with an update of its surfaces.
//! - A2UI version and catalogs: what the client declared under
//!   `capabilities.extensions["org.a2ui/ui"].rendererCapabilities` in `initialize` (or per
//!   call in `_meta["org.a2ui/ui"]`), the newest version both speak; a client that declared
//!   none gets the version the renderer bundle draws (when the agent speaks it). The agent's
//!   own are in the `initialize` result (`agentCapabilities`).
//! - While the model writes, a client that sent a `progressToken` gets progress
//!   notifications: the reply's text so far and the A2UI messages new since the last one
//!   (`_meta["a2ui-agent/messages"]`). `notifications/cancelled` stops the model.
//!
//! The same authentication, tenants (`/{tenant}/mcp`), limits and stores apply as over A2A;
//! an MCP session belongs to the caller that opened it (`sessions`): another caller
//! presenting its id is answered as if it did not exist.

mod bundle;
mod handler;
mod keys;
mod result;
mod sessions;
mod tools;

use std::sync::Arc;

use axum::Router;
use axum::middleware::from_fn_with_state;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

use super::ServerState;
use handler::Handler;
use sessions::Sessions;

/// The path the binding is served at unless told otherwise.
pub(crate) const DEFAULT_PATH: &str = "/mcp";

/// How many sessions one caller may hold open; opening one more closes its oldest.
const SESSIONS_PER_CALLER: usize = 32;

/// `path` when it can serve the binding (see [`super::paths::checked`]); else why not, for
/// [`BuildError::InvalidMcpPath`](super::BuildError::InvalidMcpPath).
pub(crate) fn checked_path(path: String) -> Result<String, super::BuildError> {
    super::paths::checked(path).map_err(super::BuildError::InvalidMcpPath)
}

/// The MCP endpoint of a server: `rmcp`'s Streamable HTTP service (its sessions kept in
/// memory) behind the check that a session is its caller's. Cheap to clone; every clone
/// shares the sessions.
#[derive(Clone)]
pub(crate) struct Endpoint {
    service: StreamableHttpService<Handler, LocalSessionManager>,
    sessions: Arc<Sessions>,
}

impl Endpoint {
    /// The endpoint of the server whose state is `state`, reading bodies of at most
    /// `body_limit` bytes.
    pub(crate) fn new(state: &Arc<ServerState>, body_limit: usize) -> Self {
        let manager = Arc::new(LocalSessionManager::default());
        // The router's gate checks `Host` and `Origin`, authenticates and reads the body
        // within its budget before the service sees a request.
        let config = StreamableHttpServerConfig::default()
            .disable_allowed_hosts()
            .disable_allowed_origins()
            .with_sse_keep_alive(Some(state.keep_alive))
            .with_max_request_body_bytes(body_limit);
        let tool = Arc::new(tools::AgentTool::new(state));
        let factory_state = state.clone();
        let service = StreamableHttpService::new(
            move || Ok(Handler::new(factory_state.clone(), tool.clone())),
            manager.clone(),
            config,
        );
        Self {
            service,
            sessions: Arc::new(Sessions::new(manager, SESSIONS_PER_CALLER)),
        }
    }

    /// The routes serving the endpoint at `path` (every method: `POST` messages, `GET` the
    /// session's stream, `DELETE` the session).
    pub(crate) fn routes(&self, path: &str) -> Router<Arc<ServerState>> {
        Router::new()
            .route_service(path, self.service.clone())
            .route_layer(from_fn_with_state(
                self.sessions.clone(),
                sessions::owned_by_caller,
            ))
    }
}
