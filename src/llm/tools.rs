//! Tools the model may call: what they are, how a call is run and how it is remembered.
//!
//! A [`Tool`] is a name, a description, the JSON Schema of its arguments and an async
//! handler. The model asks for calls in pieces (`delta.tool_calls`, several calls told apart
//! by `index`, the arguments' JSON text split anywhere); [`Calls`] joins them, bounded. Each
//! call's outcome is a [`ToolRecord`]: it goes back to the model as a `tool` message, and to
//! the client as one text part of the agent's message (its status line) whose metadata
//! member [`TOOL_CALL_METADATA`] holds the record, so the next turn's chat has the call and
//! its result again ([`chat_messages`](super::chat_messages)).

use std::fmt;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;

use futures::FutureExt;
use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::a2a::Part;
use crate::request::ClientTool;

/// The metadata member of a tool call's text part that holds its [`ToolRecord`].
pub const TOOL_CALL_METADATA: &str = "a2uiAgentToolCall";

/// The most bytes of one tool result sent to the model (and kept in the history).
const MAX_RESULT: usize = 64 * 1024;
/// The most characters of the arguments shown in a status line.
const SHOWN_ARGUMENTS: usize = 80;

/// Whether the model may, must or must not call a tool in the first round of a turn (the
/// chat completions API's `tool_choice`); later rounds, after tool results, leave it to the
/// model. See [`OpenAiChatBuilder::tool_choice`](super::OpenAiChatBuilder::tool_choice) and
/// [`action_tool_choice`](super::OpenAiChatBuilder::action_tool_choice).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum ToolChoice {
    /// The model decides (the API's default; nothing is sent).
    #[default]
    Auto,
    /// The model must call a tool: a turn that exists to act (a search for what the user
    /// asked, a booking the user confirmed). Sent as `"required"`; a client that
    /// [constrains](super::OpenAiChatBuilder::constrain) answers makes the call itself,
    /// under a grammar of the calls, since llama.cpp's `"required"` did not hold a small
    /// model to one.
    Required,
    /// The model must call this tool: a Confirm that books, where the model, free to pick,
    /// may search again (Qwen2.5-Coder-1.5B, made to call one of three tools on Confirm,
    /// searched for Italian food in Lyon). Sent as `{"type": "function", "function":
    /// {"name": ..}}`; a constraining client's grammar names only this tool.
    Tool(String),
    /// No tool is offered in that round, so the model answers (and a
    /// [grammar](super::OpenAiChatBuilder::constrain) can be sent, which llama.cpp's
    /// server refuses beside tools). For a turn that only draws, such as a form.
    None,
}

impl ToolChoice {
    /// Whether the round must call a tool.
    pub(crate) fn requires_call(&self) -> bool {
        matches!(self, ToolChoice::Required | ToolChoice::Tool(_))
    }

    /// The tools of `tools` the round may call.
    pub(crate) fn callable<'t>(&self, tools: &'t [Tool]) -> Vec<&'t Tool> {
        match self {
            ToolChoice::None => Vec::new(),
            ToolChoice::Tool(name) => tools.iter().filter(|t| t.name() == name).collect(),
            ToolChoice::Auto | ToolChoice::Required => tools.iter().collect(),
        }
    }
}

type Handler = dyn Fn(Value) -> BoxFuture<'static, Result<Value, ToolError>> + Send + Sync;

/// A function the model may call.
///
/// # Example
///
/// ```
/// use a2ui_agent::llm::{Tool, ToolError};
/// use serde_json::{Value, json};
///
/// let weather = Tool::new(
///     "get_weather",
///     "The weather in a city today.",
///     json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}),
///     |arguments: Value| async move {
///         match arguments["city"].as_str() {
///             Some(city) => Ok(json!({"city": city, "sky": "clear", "celsius": 21})),
///             None => Err(ToolError::new("say which city")),
///         }
///     },
/// );
/// assert_eq!(weather.name(), "get_weather");
/// ```
#[derive(Clone)]
pub struct Tool {
    name: String,
    description: String,
    parameters: Value,
    guide: Option<String>,
    handler: Arc<Handler>,
    /// Whether the client runs it (a [`ClientTool`]): a call to it ends the reply.
    client: bool,
    /// Whether it is the A2UI tool, whose arguments are drawn as they stream.
    a2ui: bool,
}

impl fmt::Debug for Tool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tool")
            .field("name", &self.name)
            .field("description", &self.description)
            .finish_non_exhaustive()
    }
}

impl Tool {
    /// A tool named `name` (what the model calls it by), described for the model, taking
    /// arguments that `parameters` (a JSON Schema object) describes. `handler` gets the
    /// model's arguments, parsed; what it returns goes back to the model: a JSON string as
    /// its text, anything else as JSON. An `Err` reaches the model as an error it can read
    /// and answer to, not as a failure of the task.
    pub fn new<F, Fut>(
        name: impl Into<String>,
        description: impl Into<String>,
        parameters: Value,
        handler: F,
    ) -> Self
    where
        F: Fn(Value) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Value, ToolError>> + Send + 'static,
    {
        Self {
            name: name.into(),
            description: description.into(),
            parameters,
            guide: None,
            handler: Arc::new(move |arguments| Box::pin(handler(arguments))),
            client: false,
            a2ui: false,
        }
    }

    /// The A2UI tool `name`: its calls are drawn (by the reply's parser) as their arguments
    /// stream; run beside other tools, it answers `drawn`.
    pub(crate) fn for_a2ui(
        name: &str,
        description: &str,
        parameters: Value,
        drawn: &'static str,
    ) -> Self {
        let mut offered = Self::new(name, description, parameters, move |_| async move {
            Ok(Value::String(drawn.to_owned()))
        });
        offered.a2ui = true;
        offered
    }

    /// Whether it is the A2UI tool.
    pub(crate) fn draws(&self) -> bool {
        self.a2ui
    }

    /// The client's `tool`, offered to the model like the agent's own; the client runs it,
    /// so a call to it ends the reply instead of running here.
    pub(crate) fn for_client(tool: &ClientTool) -> Self {
        let mut offered = Self::new(
            tool.name.clone(),
            tool.description.clone(),
            tool.parameters.clone(),
            |_| async { Err(ToolError::new("this tool runs in the client")) },
        );
        offered.client = true;
        offered
    }

    /// Whether the client runs it.
    pub(crate) fn runs_in_client(&self) -> bool {
        self.client
    }

    /// What the model is told once this tool answered, in a system turn after the round's
    /// results: how to show the result, say. A small model given a result with nothing
    /// after it often answers with another call, or with its chat template's
    /// `<tool_response>` tags, where it should draw; told after the result what to write
    /// (a block with `{field}` placeholders to fill from the result), it draws.
    /// Qwen2.5-Coder-1.5B needed it to draw the restaurant agent's cards
    /// (`examples/restaurant_agent.rs`). Not sent after a call that failed, nor again in
    /// later turns.
    ///
    /// ```
    /// use a2ui_agent::llm::Tool;
    /// use serde_json::json;
    ///
    /// let search = Tool::new("search", "Finds books.", json!({"type": "object"}), |_| async {
    ///     Ok(json!({"books": [{"title": "Dune"}]}))
    /// })
    /// .guide("Now show each book of the result as a Card with its title.");
    /// assert_eq!(search.guide_text(), Some("Now show each book of the result as a Card with its title."));
    /// ```
    #[must_use]
    pub fn guide(mut self, text: impl Into<String>) -> Self {
        self.guide = Some(text.into()).filter(|text| !text.trim().is_empty());
        self
    }

    /// The [guide](Self::guide), if it has one.
    pub fn guide_text(&self) -> Option<&str> {
        self.guide.as_deref()
    }

    /// The name the model calls it by.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// What the model is told it does.
    pub fn description(&self) -> &str {
        &self.description
    }

    /// The JSON Schema of its arguments.
    pub fn parameters(&self) -> &Value {
        &self.parameters
    }
}

/// Why a tool call failed; the model reads its message as the call's result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolError {
    message: String,
}

impl ToolError {
    /// An error with `message`.
    pub fn new(message: impl fmt::Display) -> Self {
        Self {
            message: message.to_string(),
        }
    }

    /// The message.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl<E: std::error::Error> From<E> for ToolError {
    fn from(error: E) -> Self {
        Self::new(error)
    }
}

/// A call the model asked for: its id, the tool's name and the arguments' JSON text as the
/// model wrote it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The id the model gave the call (the `tool` message answering it repeats it).
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// The arguments, JSON text.
    pub arguments: String,
}

/// A call and its outcome, as the model read it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolRecord {
    /// The call.
    #[serde(flatten)]
    pub call: ToolCall,
    /// The result's text, as sent to the model.
    pub result: String,
    /// Whether the call failed (`result` then says why).
    #[serde(default)]
    pub is_error: bool,
}

impl ToolRecord {
    /// The text part that shows the call to the client (one line) and keeps the record in
    /// its [`TOOL_CALL_METADATA`] metadata member.
    pub fn to_part(&self) -> Part {
        let mut metadata = Map::new();
        if let Ok(record) = serde_json::to_value(self) {
            metadata.insert(TOOL_CALL_METADATA.to_owned(), record);
        }
        Part::Text {
            text: self.status_line(),
            metadata: Some(Arc::new(metadata)),
        }
    }

    /// The record a part holds, if it is a tool call's part.
    pub fn from_part(part: &Part) -> Option<Self> {
        let Part::Text {
            metadata: Some(metadata),
            ..
        } = part
        else {
            return None;
        };
        serde_json::from_value(metadata.get(TOOL_CALL_METADATA)?.clone()).ok()
    }

    /// `Called name({"city":"Paris"})`, the arguments cut short, then `: failed` when it
    /// failed; on a line of its own.
    pub fn status_line(&self) -> String {
        let arguments: String = self.call.arguments.chars().take(SHOWN_ARGUMENTS).collect();
        let more = if arguments.len() < self.call.arguments.len() {
            "…"
        } else {
            ""
        };
        let failed = if self.is_error { ": failed" } else { "" };
        format!("\nCalled {}({arguments}{more}){failed}\n", self.call.name)
    }
}

/// Runs `call` with the tool of its name among `tools`. Whatever goes wrong (no such tool,
/// arguments that are not a JSON object, the handler's error or panic) is a failed record.
pub(crate) async fn run(tools: &[Tool], call: ToolCall) -> ToolRecord {
    let outcome = match tools.iter().find(|tool| tool.name == call.name) {
        None => Err(format!(
            "There is no tool named '{}'. The tools are: {}.",
            call.name,
            tools.iter().map(Tool::name).collect::<Vec<_>>().join(", ")
        )),
        Some(tool) => match arguments(&call.arguments) {
            Err(error) => Err(format!("The arguments are not a JSON object: {error}")),
            Ok(arguments) => {
                let handled = AssertUnwindSafe((tool.handler)(arguments))
                    .catch_unwind()
                    .await;
                match handled {
                    Ok(Ok(Value::String(text))) => Ok(text),
                    Ok(Ok(value)) => Ok(value.to_string()),
                    Ok(Err(error)) => Err(error.message),
                    Err(_) => {
                        tracing::error!(tool = %call.name, "a tool handler panicked");
                        Err("The tool failed unexpectedly.".to_owned())
                    }
                }
            }
        },
    };
    let (mut result, is_error) = match outcome {
        Ok(text) => (text, false),
        Err(text) => (format!("Error: {text}"), true),
    };
    if result.len() > MAX_RESULT {
        let mut end = MAX_RESULT;
        while !result.is_char_boundary(end) {
            end -= 1;
        }
        result.truncate(end);
        result.push_str("… (cut short)");
    }
    ToolRecord {
        call,
        result,
        is_error,
    }
}

/// The arguments' JSON text as an object (empty text: no arguments).
fn arguments(text: &str) -> Result<Value, String> {
    if text.trim().is_empty() {
        return Ok(Value::Object(Map::new()));
    }
    match serde_json::from_str::<Value>(text) {
        Ok(value @ Value::Object(_)) => Ok(value),
        Ok(_) => Err("it is not an object".to_owned()),
        Err(error) => Err(error.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[tokio::test]
    async fn failures_of_every_kind_become_records_the_model_can_read() {
        let tools = [
            Tool::new("ok", "", json!({}), |args: Value| async move { Ok(args) }),
            Tool::new("err", "", json!({}), |_| async {
                Err(ToolError::new("no table free"))
            }),
            Tool::new("boom", "", json!({}), |_| async { panic!("bug") }),
        ];
        let call = |name: &str, arguments: &str| ToolCall {
            id: "c".into(),
            name: name.into(),
            arguments: arguments.into(),
        };
        let ok = run(&tools, call("ok", r#"{"n": 1}"#)).await;
        assert_eq!((ok.result.as_str(), ok.is_error), (r#"{"n":1}"#, false));
        for (name, arguments, says) in [
            ("err", "{}", "Error: no table free"),
            ("boom", "{}", "Error: The tool failed unexpectedly."),
            (
                "ok",
                "[1]",
                "Error: The arguments are not a JSON object: it is not an object",
            ),
            (
                "ok",
                "{\"n\": ",
                "Error: The arguments are not a JSON object",
            ),
            (
                "nope",
                "{}",
                "Error: There is no tool named 'nope'. The tools are: ok, err, boom.",
            ),
        ] {
            let record = run(&tools, call(name, arguments)).await;
            assert!(record.is_error, "{name}");
            assert!(record.result.starts_with(says), "{name}: {}", record.result);
        }
    }

    #[test]
    fn a_record_survives_its_part() {
        let record = ToolRecord {
            call: ToolCall {
                id: "c1".into(),
                name: "search".into(),
                arguments: r#"{"q":"thai"}"#.into(),
            },
            result: "[]".into(),
            is_error: false,
        };
        let part = record.to_part();
        assert_eq!(part.as_text(), Some("\nCalled search({\"q\":\"thai\"})\n"));
        assert_eq!(ToolRecord::from_part(&part), Some(record));
        assert_eq!(ToolRecord::from_part(&Part::text("hi")), None);
    }
}
