//! What the MCP server says about itself: the agent's tool (from the agent card), the
//! action tools of a session's surfaces, and the `initialize` result with the agent's
//! A2UI capabilities.

use serde_json::{Map, Value, json};

use super::bundle;
use super::keys::A2UI_KEY;
use crate::a2a::card::AgentCard;
use crate::a2ui::ProtocolVersion;
use crate::server::ServerState;

/// The longest tool name made from a card's name.
const MAX_NAME: usize = 64;

/// How many action tools one session lists at most (the first ones its surfaces named).
pub(super) const MAX_ACTIONS: usize = 64;

/// The agent's tool and the server's `initialize` result, made once from the card.
pub(super) struct AgentTool {
    /// The tool's name.
    pub(super) name: String,
    /// The tool as `tools/list` shows it.
    tool: Value,
    /// The `initialize` result (the protocol version is negotiated per session).
    info: rmcp::model::ServerConfig,
}

impl AgentTool {
    /// The tool of `state`'s agent.
    pub(super) fn new(state: &ServerState) -> Self {
        let card = &state.card;
        let name = tool_name(&card.name);
        let tool = json!({
            "name": name,
            "title": card.name,
            "description": description(card),
            "inputSchema": {
                "type": "object",
                "properties": {
                    "message": {
                        "type": "string",
                        "description": "What the user asks of the agent, in the user's words."
                    },
                    "context": {
                        "type": "string",
                        "description": "Optional: what the agent should know that the \
                                        message does not say (the user's situation, earlier \
                                        turns elsewhere)."
                    }
                },
                "required": ["message"]
            },
            "_meta": bundle::tool_meta(),
        });
        Self {
            name,
            tool,
            info: server_info(card),
        }
    }

    /// The tools a session lists: the agent's, then its surfaces' `actions` (app-only).
    pub(super) fn list(&self, actions: &[String]) -> Vec<rmcp::model::Tool> {
        std::iter::once(self.tool.clone())
            .chain(actions.iter().map(|action| action_tool(action)))
            .filter_map(|tool| serde_json::from_value(tool).ok())
            .collect()
    }

    /// The `initialize` result.
    pub(super) fn info(&self) -> rmcp::model::ServerConfig {
        self.info.clone()
    }
}

/// The tool of a surface's action event `name`: for the surface to call, hidden from the
/// model (MCP Apps visibility `["app"]`).
fn action_tool(name: &str) -> Value {
    json!({
        "name": name,
        "description": format!("The user's action `{name}` on one of the agent's surfaces; \
                                its arguments are the action's resolved context."),
        "inputSchema": {"type": "object"},
        "_meta": {"ui": {"visibility": ["app"]}},
    })
}

/// A tool name made of the card's `name`: letters, digits, `_`, `-` and `.` (the others
/// become `_`, runs of them one), at most [`MAX_NAME`] bytes; `agent` when nothing is left.
pub(super) fn tool_name(name: &str) -> String {
    let mut out = String::new();
    for c in name.chars() {
        let c = match c.is_ascii_alphanumeric() || "_-.".contains(c) {
            true => c,
            false => '_',
        };
        if !(c == '_' && out.ends_with('_')) && out.len() < MAX_NAME {
            out.push(c);
        }
    }
    let out = out.trim_matches('_');
    match out.is_empty() {
        true => "agent".to_owned(),
        false => out.to_owned(),
    }
}

/// The card's description, then its skills (name, description, examples).
fn description(card: &AgentCard) -> String {
    let mut text = card.description.trim().to_owned();
    if text.is_empty() {
        text = format!("Ask {}.", card.name);
    }
    if !card.skills.is_empty() {
        text.push_str("\n\nSkills:");
        for skill in &card.skills {
            text.push_str(&format!("\n- {}: {}", skill.name, skill.description));
            if !skill.examples.is_empty() {
                let examples: Vec<String> =
                    skill.examples.iter().map(|e| format!("{e:?}")).collect();
                text.push_str(&format!(" (for example {})", examples.join(", ")));
            }
        }
    }
    text.push_str(
        "\n\nThe result holds the agent's reply as text and its user interface as A2UI \
         messages (application/a2ui+json).",
    );
    text
}

/// The `initialize` result: tools, resources (the renderer bundle), and the A2UI versions and catalogs the agent speaks
/// (`capabilities.extensions["org.a2ui/ui"].agentCapabilities`, from the card's A2UI
/// extensions).
fn server_info(card: &AgentCard) -> rmcp::model::ServerConfig {
    let mut agent = Map::new();
    for extension in &card.capabilities.extensions {
        if let Some(version) = ProtocolVersion::from_extension_uri(&extension.uri) {
            let params = extension.params.clone().unwrap_or_else(|| json!({}));
            agent.entry(version.as_str()).or_insert(params);
        }
    }
    let mut capabilities = json!({"tools": {"listChanged": false}, "resources": {}});
    if !agent.is_empty() {
        capabilities["extensions"] = json!({ A2UI_KEY: {"agentCapabilities": agent} });
    }
    let info = json!({
        "protocolVersion": rmcp::model::ProtocolVersion::LATEST_WITH_INITIALIZE,
        "capabilities": capabilities,
        "serverInfo": {"name": card.name, "version": card.version},
        "instructions": card.description,
    });
    match serde_json::from_value(info) {
        Ok(info) => info,
        Err(error) => {
            tracing::error!(%error, "the MCP initialize result does not decode");
            rmcp::model::ServerConfig::new(
                rmcp::model::ServerCapabilities::builder()
                    .enable_tools()
                    .enable_resources()
                    .build(),
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_card_name_becomes_a_plain_tool_name() {
        assert_eq!(
            tool_name("a2ui-agent demo: restaurant finder"),
            "a2ui-agent_demo_restaurant_finder"
        );
        assert_eq!(tool_name("  ::  "), "agent");
        assert_eq!(tool_name(&"x".repeat(200)).len(), MAX_NAME);
        assert_eq!(tool_name("Grüße v1.2"), "Gr_e_v1.2");
    }

    #[test]
    fn every_listed_tool_decodes() {
        let tool = serde_json::from_value::<rmcp::model::Tool>(action_tool("book")).unwrap();
        assert_eq!(tool.name, "book");
        assert!(tool.meta.is_some());
    }
}
