//! The `rmcp` handler of one MCP session (or of one stateless request): what it lists,
//! and which call becomes which turn.

use std::sync::{Arc, Mutex};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ListToolsResult, PaginatedRequestParams, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};

use super::tools::{AgentTool, MAX_ACTIONS};
use super::turn;
use crate::server::ServerState;

/// One session's handler: the server, the agent's tool, the session's conversation and
/// the action events its surfaces named.
pub(crate) struct Handler {
    pub(super) state: Arc<ServerState>,
    pub(super) tool: Arc<AgentTool>,
    /// The session's conversation: an A2A context of its caller's, fresh per session.
    pub(super) conversation: String,
    /// The action events the session's surfaces may send back (listed as tools).
    actions: Mutex<Vec<String>>,
}

impl Handler {
    /// A session's handler, its conversation new.
    pub(super) fn new(state: Arc<ServerState>, tool: Arc<AgentTool>) -> Self {
        let conversation = state.tasks.ids.new_id();
        Self {
            state,
            tool,
            conversation,
            actions: Mutex::new(Vec::new()),
        }
    }

    fn actions(&self) -> std::sync::MutexGuard<'_, Vec<String>> {
        self.actions
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Remembers the action events a result's surfaces named (the first [`MAX_ACTIONS`]).
    pub(super) fn learn_actions(&self, named: Vec<String>) {
        let mut actions = self.actions();
        for name in named {
            if actions.len() >= MAX_ACTIONS {
                break;
            }
            if name != self.tool.name && !actions.contains(&name) {
                actions.push(name);
            }
        }
    }
}

impl ServerHandler for Handler {
    fn get_info(&self) -> ServerConfig {
        self.tool.info()
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let actions = self.actions().clone();
        Ok(ListToolsResult::with_all_items(self.tool.list(&actions)))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        turn::call(self, request, context).await.map(Into::into)
    }
}
