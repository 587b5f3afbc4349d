//! Tools the client runs itself (AG-UI's frontend tools), offered to the agent's model.
//!
//! A client offers them with a request (AG-UI's `RunAgentInput.tools`; over A2A, the
//! request metadata member [`CLIENT_TOOLS_METADATA`]). When the model calls one, the agent's
//! reply ends with the call, as a text part whose metadata member
//! [`CLIENT_TOOL_CALL_METADATA`] holds it (`{id, name, arguments}`), for the client to run;
//! the client's next message answers it with a data part `{toolCallId, content}` marked by
//! [`CLIENT_TOOL_RESULT_METADATA`]. The agent's model then reads the call and its result as
//! the turns of its conversation they are, and goes on.

use std::sync::Arc;

use serde_json::{Map, Value, json};

use crate::a2a::{Metadata, Part};

/// The request metadata member holding the client's tools: `[{name, description,
/// parameters}]`.
pub const CLIENT_TOOLS_METADATA: &str = "a2uiAgentClientTools";
/// The metadata member of the part that asks the client to run a call: `{id, name,
/// arguments}`.
pub const CLIENT_TOOL_CALL_METADATA: &str = "a2uiAgentClientToolCall";
/// The metadata member (`true`) of the data part that answers a call: `{toolCallId,
/// content}`.
pub const CLIENT_TOOL_RESULT_METADATA: &str = "a2uiAgentClientToolResult";

/// At most this many client tools are read from one request.
const MAX_TOOLS: usize = 64;

/// A tool the client runs itself, offered to the agent's model.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ClientTool {
    /// The name the model calls it by: 1 to 64 letters, digits, `_` or `-`.
    pub name: String,
    /// What the model is told it does.
    pub description: String,
    /// The JSON Schema of its arguments (an object; `{"type": "object"}` when not given).
    pub parameters: Value,
}

/// The client's tools in the request `metadata`: those with a usable name, once each, at
/// most [`MAX_TOOLS`].
pub(crate) fn from_metadata(metadata: Option<&Metadata>) -> Vec<ClientTool> {
    let Some(Value::Array(tools)) = metadata.and_then(|m| m.get(CLIENT_TOOLS_METADATA)) else {
        return Vec::new();
    };
    let mut found: Vec<ClientTool> = Vec::new();
    for tool in tools {
        let Some(name) = tool.get("name").and_then(Value::as_str) else {
            continue;
        };
        let usable = !name.is_empty()
            && name.len() <= 64
            && name
                .bytes()
                .all(|byte| byte.is_ascii_alphanumeric() || byte == b'_' || byte == b'-');
        if !usable || found.iter().any(|seen| seen.name == name) {
            continue;
        }
        let parameters = match tool.get("parameters") {
            Some(schema @ Value::Object(_)) => schema.clone(),
            _ => json!({"type": "object"}),
        };
        found.push(ClientTool {
            name: name.to_owned(),
            description: tool
                .get("description")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned(),
            parameters,
        });
        if found.len() == MAX_TOOLS {
            break;
        }
    }
    found
}

/// The call a part asks the client to run: its `{id, name, arguments}`.
pub(crate) fn client_call_of(part: &Part) -> Option<&Map<String, Value>> {
    part.metadata()?.get(CLIENT_TOOL_CALL_METADATA)?.as_object()
}

/// The answer a part carries to a client call: the call's id and the result's text.
pub(crate) fn client_result_of(part: &Part) -> Option<(&str, &str)> {
    let Part::Data { data, metadata } = part else {
        return None;
    };
    metadata.as_deref()?.get(CLIENT_TOOL_RESULT_METADATA)?;
    let id = data.get("toolCallId")?.as_str()?;
    let content = data.get("content")?.as_str()?;
    Some((id, content))
}

/// The part answering the client call `id` with `content`.
pub(crate) fn client_result_part(id: &str, content: &str) -> Part {
    let mut data = Map::new();
    data.insert("toolCallId".into(), Value::String(id.to_owned()));
    data.insert("content".into(), Value::String(content.to_owned()));
    let mut metadata = Map::new();
    metadata.insert(CLIENT_TOOL_RESULT_METADATA.into(), Value::Bool(true));
    Part::Data {
        data: Arc::new(data),
        metadata: Some(Arc::new(metadata)),
    }
}

/// The part asking the client to run the call `call` (`{id, name, arguments}`), shown as
/// one line of text to a client that does not read it.
pub(crate) fn client_call_part(call: Map<String, Value>) -> Part {
    let name = call.get("name").and_then(Value::as_str).unwrap_or_default();
    let text = format!("\nAsked the client to run {name}\n");
    let mut metadata = Map::new();
    metadata.insert(CLIENT_TOOL_CALL_METADATA.into(), Value::Object(call));
    Part::Text {
        text,
        metadata: Some(Arc::new(metadata)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_usable_tools_are_read_once_each() {
        let metadata = json!({CLIENT_TOOLS_METADATA: [
            {"name": "pick_date", "description": "Asks for a date",
                "parameters": {"type": "object", "properties": {}}},
            {"name": "pick_date", "description": "again"},
            {"name": "bad name"},
            {"name": ""},
            {"description": "no name"},
            {"name": "confirm"},
            7
        ]});
        let tools = from_metadata(metadata.as_object());
        let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["pick_date", "confirm"]);
        assert_eq!(tools[0].description, "Asks for a date");
        assert_eq!(tools[1].parameters, json!({"type": "object"}));
        assert!(from_metadata(None).is_empty());
    }

    #[test]
    fn a_call_and_its_answer_survive_their_parts() {
        let call = json!({"id": "c1", "name": "pick_date", "arguments": "{}"});
        let part = client_call_part(call.as_object().cloned().unwrap());
        assert_eq!(client_call_of(&part).unwrap()["id"], "c1");
        assert_eq!(
            part.as_text(),
            Some("\nAsked the client to run pick_date\n")
        );
        let answer = client_result_part("c1", "Friday");
        assert_eq!(client_result_of(&answer), Some(("c1", "Friday")));
        assert_eq!(client_result_of(&Part::text("x")), None);
        assert!(client_call_of(&answer).is_none());
    }
}
