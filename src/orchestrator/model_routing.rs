//! A model chooses the sub-agent: one tool, `route_to_agent`, whose one argument is the
//! namespace of a sub-agent (an enum, so a model held to the schema cannot name another),
//! described by the sub-agents' names, descriptions and skills; the model is made to call
//! it, and the call is read from the reply's stream, which is then dropped (no second round).

use std::fmt::Write as _;

use futures::StreamExt;
use serde_json::{Value, json};

use super::sub_agent::SubAgent;
use crate::agent::ReplyEvent;
use crate::llm::{ChatMessage, OpenAiChat, OpenAiChatBuilder, Tool, ToolChoice, ToolRecord};

/// The routing tool's name.
pub(super) const TOOL: &str = "route_to_agent";

/// `model` made to route among `agents`: the routing tool offered, and required.
pub(super) fn router(model: OpenAiChatBuilder, agents: &[SubAgent]) -> OpenAiChatBuilder {
    let names: Vec<&str> = agents.iter().map(SubAgent::namespace).collect();
    let tool = Tool::new(
        TOOL,
        "Hands the user's message to the agent that should answer it.",
        json!({"type": "object", "properties": {"agent": {"type": "string", "enum": names,
            "description": "The agent's id."}}, "required": ["agent"]}),
        |_| async { Ok(Value::String("Handed over.".into())) },
    );
    model
        .tool(tool)
        .tool_choice(ToolChoice::Tool(TOOL.to_owned()))
        .max_tool_rounds(1)
}

/// The system turn: what the model is for, and each agent with its id and skills.
pub(super) fn instructions(agents: &[SubAgent]) -> String {
    let mut out = String::from(
        "You route the user's message to the one agent best able to answer it. Call \
         route_to_agent with that agent's id. The agents:\n",
    );
    for agent in agents {
        let _ = writeln!(
            out,
            "- id `{}`: {}. {}",
            agent.namespace(),
            agent.name(),
            agent.description()
        );
        for skill in agent.skills() {
            let _ = write!(out, "  - skill {}: {}", skill.name, skill.description);
            if !skill.tags.is_empty() {
                let _ = write!(out, " (tags: {})", skill.tags.join(", "));
            }
            if !skill.examples.is_empty() {
                let _ = write!(out, " (e.g. {})", skill.examples.join("; "));
            }
            out.push('\n');
        }
    }
    out
}

/// The sub-agent `model` routes `text` to, `previous` the conversation's last agent; `None`
/// when the model cannot be reached or names none of `agents` (the failure is logged).
pub(super) async fn choose(
    model: &OpenAiChat,
    text: &str,
    agents: &[SubAgent],
    previous: Option<usize>,
) -> Option<usize> {
    let mut messages = vec![ChatMessage::system(instructions(agents))];
    if let Some(agent) = previous.and_then(|i| agents.get(i)) {
        messages.push(ChatMessage::system(format!(
            "The conversation's last answer came from `{}`.",
            agent.namespace()
        )));
    }
    messages.push(ChatMessage::user(text));
    let mut reply = std::pin::pin!(model.reply(messages));
    while let Some(event) = reply.next().await {
        match event {
            Ok(ReplyEvent::Part(part)) => {
                let Some(record) = ToolRecord::from_part(&part) else {
                    continue;
                };
                if record.call.name != TOOL {
                    continue;
                }
                let arguments: Value = serde_json::from_str(&record.call.arguments).ok()?;
                let named = arguments.get("agent").and_then(Value::as_str)?;
                let chosen = agents.iter().position(|agent| agent.namespace() == named);
                if chosen.is_none() {
                    tracing::debug!(named, "the model routed to no known agent");
                }
                return chosen;
            }
            Ok(_) => {}
            Err(error) => {
                tracing::warn!(error = %error, "the routing model failed; routing by skills");
                return None;
            }
        }
    }
    None
}
