//! One MCP session's state (or one stateless request's): the server, the agent's tool, the
//! conversation and the action events its surfaces named. It lives apart from the `rmcp`
//! handler so that the handler and the turns it runs both read it, neither the other.

use std::sync::{Arc, Mutex};

use super::tools::{AgentTool, MAX_ACTIONS};
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

    /// The action events learnt so far.
    pub(super) fn actions(&self) -> Vec<String> {
        self.actions
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    /// Remembers the action events a result's surfaces named (the first [`MAX_ACTIONS`]).
    pub(super) fn learn_actions(&self, named: Vec<String>) {
        let mut actions = self
            .actions
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
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
