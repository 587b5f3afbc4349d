//! The options of an [`OpenAiChat`], and the checks that make a client of them.
//!
//! Apart from the client, which runs a turn: this module only configures one. Each setter
//! is a field and its documentation (why the option exists, what a real model did without
//! it); [`OpenAiChatBuilder::build`] refuses at once what would fail later (a base URL that
//! is not HTTP, a header that is not valid, a tool name the APIs refuse, a tool choice that
//! names no tool).

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use reqwest::header::{AUTHORIZATION, HeaderMap, HeaderName, HeaderValue};

use super::chat::RepairTurns;
use super::client::{Inner, OpenAiChat, Options};
use super::error::LlmError;
use super::tools::{Tool, ToolChoice};
use super::via::A2uiVia;
use crate::error_chain::chain;

/// How long the first token may be slow before the client is told the model is reading.
const READING_NOTICE: Duration = Duration::from_secs(2);

/// Options of an [`OpenAiChat`]; see [`OpenAiChat::builder`].
pub struct OpenAiChatBuilder {
    base_url: String,
    headers: Vec<(String, String)>,
    connect_timeout: Duration,
    options: Options,
}

impl fmt::Debug for OpenAiChatBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OpenAiChatBuilder")
            .field("base_url", &self.base_url)
            .field("model", &self.options.model)
            .field(
                "api_key",
                &self.options.api_key.as_ref().map(|_| "[redacted]"),
            )
            .finish_non_exhaustive()
    }
}

impl OpenAiChatBuilder {
    /// The defaults [`OpenAiChat::builder`] documents.
    pub(super) fn new(base_url: String, model: String) -> Self {
        OpenAiChatBuilder {
            base_url,
            headers: Vec::new(),
            connect_timeout: Duration::from_secs(10),
            options: Options {
                model,
                api_key: None,
                instructions: None,
                action_guides: Vec::new(),
                max_history: None,
                temperature: None,
                repair_temperature: None,
                repair_turns: RepairTurns::Continue,
                max_tokens: None,
                idle_timeout: Duration::from_secs(60),
                first_token_timeout: Duration::from_secs(600),
                reading_notice: READING_NOTICE,
                max_retries: 2,
                backoff: Duration::from_millis(500),
                max_retry_wait: Duration::from_secs(30),
                tools: Vec::new(),
                max_tool_rounds: 8,
                grammar_member: None,
                tool_choice: ToolChoice::Auto,
                action_tool_choices: Vec::new(),
                meter: crate::observe::Meter::default(),
                a2ui_via: A2uiVia::Text,
            },
        }
    }

    /// The API key, sent as `Authorization: Bearer`. Local servers need none.
    #[must_use]
    pub fn api_key(mut self, key: impl Into<String>) -> Self {
        self.options.api_key = Some(key.into()).filter(|key: &String| !key.is_empty());
        self
    }

    /// The agent's own instructions, sent after the A2UI prompt in the system turn (see
    /// [`chat_messages`](crate::llm::chat_messages) for why after).
    #[must_use]
    pub fn instructions(mut self, text: impl Into<String>) -> Self {
        self.options.instructions = Some(text.into());
        self
    }

    /// What the model is told when the user's message carries the A2UI action `name` (a
    /// button's event, say), in a system turn after that message: what to draw for it. The
    /// twin of [`Tool::guide`] for what the user sends back. Qwen2.5-Coder-1.5B, sent the
    /// restaurant agent's `book` action with its instructions saying in words to draw a
    /// form, drew its previous answer's cards again; told after the action, it draws the
    /// form (`examples/restaurant_agent.rs`). A later guide for the same name replaces it.
    ///
    /// ```
    /// use a2ui_agent::llm::OpenAiChat;
    ///
    /// let model = OpenAiChat::builder("http://localhost:8081/v1", "local")
    ///     .action_guide("book", "Now draw a booking form for the restaurant of the action's context.")
    ///     .build()?;
    /// # Ok::<(), a2ui_agent::llm::LlmError>(())
    /// ```
    #[must_use]
    pub fn action_guide(mut self, name: impl Into<String>, text: impl Into<String>) -> Self {
        let name = name.into();
        self.options
            .action_guides
            .retain(|(known, _)| *known != name);
        self.options.action_guides.push((name, text.into()));
        self
    }

    /// At most the last `messages` of the task's history go to the model (default: all of
    /// them; 0: none, only the new message). A small model copies what it wrote before:
    /// Qwen2.5-Coder-1.5B, the restaurant agent's whole history before it and told to call
    /// `check_availability`, wrote its first answer's cards again; given the last two
    /// messages, it called the tool. An agent whose steps carry what they need (an action's
    /// context) loses nothing by it, and every turn reads fewer tokens.
    #[must_use]
    pub fn max_history(mut self, messages: usize) -> Self {
        self.options.max_history = Some(messages);
        self
    }

    /// The sampling temperature of a repair turn (default: [`temperature`](Self::temperature)'s).
    ///
    /// Asked to repair at temperature 0, Qwen2.5-Coder-1.5B wrote the answer before again,
    /// byte for byte, in 11 of its 15 repair turns of one eval run (at 0.7, 8 of 16): a
    /// repair needs a different draw as much as the feedback.
    #[must_use]
    pub fn repair_temperature(mut self, temperature: f32) -> Self {
        self.options.repair_temperature = Some(temperature);
        self
    }

    /// How a repair turn is put to the model (default [`RepairTurns::Continue`]: its
    /// rejected answer, then what to mend). [`RepairTurns::Retry`] asks the user's message
    /// again with what was refused, for small models that copy the answer they are shown.
    #[must_use]
    pub fn repair_turns(mut self, turns: RepairTurns) -> Self {
        self.options.repair_turns = turns;
        self
    }

    /// The sampling temperature.
    #[must_use]
    pub fn temperature(mut self, temperature: f32) -> Self {
        self.options.temperature = Some(temperature);
        self
    }

    /// The most tokens the model may write (`max_tokens`).
    #[must_use]
    pub fn max_tokens(mut self, tokens: u32) -> Self {
        self.options.max_tokens = Some(tokens);
        self
    }

    /// A header sent with every request (e.g. `OpenAI-Organization`, a proxy's key).
    #[must_use]
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// How long connecting may take.
    #[must_use]
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }

    /// The longest silence accepted between two events once the model has begun to write.
    #[must_use]
    pub fn idle_timeout(mut self, timeout: Duration) -> Self {
        self.options.idle_timeout = timeout;
        self
    }

    /// The longest wait for the first token of an answer (headers included), counted from
    /// the request. It grows with the prompt on a local model: reading 12,000 tokens takes
    /// several minutes on a small CPU.
    #[must_use]
    pub fn first_token_timeout(mut self, timeout: Duration) -> Self {
        self.options.first_token_timeout = timeout;
        self
    }

    /// How long the first token may take before the client sees the passing status "The
    /// model is reading the prompt…" (default 2 s).
    #[must_use]
    pub fn reading_notice(mut self, after: Duration) -> Self {
        self.options.reading_notice = after;
        self
    }

    /// Constrains each answer to the grammar of the request's A2UI format, sent as the
    /// request member `member`: `"grammar"` for llama.cpp's server. The server then
    /// samples only tokens the grammar allows, so a block always reads and names only
    /// components, properties and values the catalogs declare (see
    /// [`RequestProcessor::grammar`](crate::generator::processor::RequestProcessor::grammar)); a
    /// request whose format has no grammar (Direct JSON), or that offers tools, is sent
    /// without one (llama.cpp's server refuses a grammar beside tools).
    ///
    /// ```
    /// use a2ui_agent::llm::OpenAiChat;
    ///
    /// let model = OpenAiChat::builder("http://localhost:8081/v1", "local")
    ///     .constrain("grammar")
    ///     .build()?;
    /// # Ok::<(), a2ui_agent::llm::LlmError>(())
    /// ```
    #[must_use]
    pub fn constrain(mut self, member: impl Into<String>) -> Self {
        self.options.grammar_member = Some(member.into()).filter(|m: &String| !m.is_empty());
        self
    }

    /// Whether the model may, must or must not call a tool in the first round of each turn
    /// (default [`ToolChoice::Auto`]; see [`action_tool_choice`](Self::action_tool_choice)
    /// for the turns an action starts). Rounds after tool results leave it to the model,
    /// and a repair turn is never made to call one.
    ///
    /// Qwen2.5-Coder-1.5B, asked for Thai food in Paris with the search tool offered,
    /// copied the chat template's list of tools out as its answer in 3 of 12 runs instead
    /// of calling it. [`ToolChoice::Required`] asks the server for a call; a client that
    /// [constrains](Self::constrain) answers samples the call under a grammar of its own
    /// (llama.cpp's `"required"` let that model write the call in the wrong tags, then
    /// newlines until `max_tokens`).
    #[must_use]
    pub fn tool_choice(mut self, choice: ToolChoice) -> Self {
        self.options.tool_choice = choice;
        self
    }

    /// Records the model's figures in `metrics` (default: none recorded): time to first
    /// token and duration by model, tokens in and out by model and tenant, tool calls by
    /// tool and outcome. Give the server's builder the same [`Metrics`](crate::observe::Metrics).
    #[cfg(feature = "metrics")]
    #[must_use]
    pub fn metrics(mut self, metrics: &crate::observe::Metrics) -> Self {
        self.options.meter = metrics.meter();
        self
    }

    /// The tool choice of the first round of a turn whose message carries the A2UI action
    /// `name`, in place of [`tool_choice`](Self::tool_choice)'s: [`ToolChoice::Required`]
    /// for an action that exists to act (a Confirm that books), [`ToolChoice::None`] for
    /// one that only draws (a Book button that opens a form), which a grammar then
    /// constrains. A later choice for the same name replaces the earlier one.
    ///
    /// ```
    /// use a2ui_agent::llm::{OpenAiChat, ToolChoice};
    ///
    /// let model = OpenAiChat::builder("http://localhost:8081/v1", "local")
    ///     .tool_choice(ToolChoice::Required)
    ///     .action_tool_choice("book", ToolChoice::None)
    ///     .action_tool_choice("confirm", ToolChoice::Required)
    ///     .build()?;
    /// # Ok::<(), a2ui_agent::llm::LlmError>(())
    /// ```
    #[must_use]
    pub fn action_tool_choice(mut self, name: impl Into<String>, choice: ToolChoice) -> Self {
        let name = name.into();
        self.options
            .action_tool_choices
            .retain(|(known, _)| *known != name);
        self.options.action_tool_choices.push((name, choice));
        self
    }

    /// How the model writes A2UI (default [`A2uiVia::Text`]: blocks in its text).
    ///
    /// [`A2uiVia::ToolCall`] offers the model the function
    /// [`A2UI_TOOL`](crate::format::A2UI_TOOL) (`send_a2ui`), whose argument schema,
    /// `{"messages": [...]}`, holds the negotiated catalogs' message schema
    /// ([`RequestProcessor::message_schema`](crate::generator::processor::RequestProcessor::message_schema)),
    /// so a provider that constrains arguments (OpenAI, llama.cpp's server with `--jinja`)
    /// samples only messages of those catalogs. Its arguments are drawn while they stream,
    /// through the same parser, validation and repairs as a block; a call that does not
    /// validate goes back to the model as the tool's result. Give the generator the
    /// [`ToolCallFormat`](crate::format::ToolCallFormat) so the prompt asks for the call;
    /// a request in another format than it or Direct JSON is answered as text.
    ///
    /// ```
    /// use a2ui_agent::llm::{A2uiVia, OpenAiChat};
    ///
    /// let model = OpenAiChat::builder("https://api.openai.com/v1", "gpt-4.1-mini")
    ///     .a2ui_via(A2uiVia::ToolCall)
    ///     .build()?;
    /// # Ok::<(), a2ui_agent::llm::LlmError>(())
    /// ```
    #[must_use]
    pub fn a2ui_via(mut self, via: A2uiVia) -> Self {
        self.options.a2ui_via = via;
        self
    }

    /// A tool the model may call (see [`Tool`]); add one call per tool.
    #[must_use]
    pub fn tool(mut self, tool: Tool) -> Self {
        self.options.tools.push(tool);
        self
    }

    /// How many rounds of tool calls one reply may take; a model that still calls tools
    /// after that fails the reply with [`LlmError::ToolRounds`].
    #[must_use]
    pub fn max_tool_rounds(mut self, rounds: u32) -> Self {
        self.options.max_tool_rounds = rounds;
        self
    }

    /// How many times a 429 or 5xx answer is retried before the call fails (0: never), the
    /// first pause (doubled each time, unless the server's `Retry-After` says otherwise),
    /// and the longest `Retry-After` waited for (a longer one fails the call at once).
    #[must_use]
    pub fn retries(mut self, max_retries: u32, backoff: Duration, max_wait: Duration) -> Self {
        self.options.max_retries = max_retries;
        self.options.backoff = backoff;
        self.options.max_retry_wait = max_wait;
        self
    }

    /// The client.
    ///
    /// # Errors
    ///
    /// [`LlmError::Config`] for a base URL that is not `http(s)://`, a header that is not
    /// valid HTTP, or a TLS setup that fails.
    pub fn build(self) -> Result<OpenAiChat, LlmError> {
        let base = self.base_url.trim_end_matches('/');
        let url = reqwest::Url::parse(base).map_err(|error| {
            LlmError::Config(format!("the base URL '{base}' is not a URL: {error}"))
        })?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(LlmError::Config(format!(
                "the base URL '{base}' must start with http:// or https://"
            )));
        }
        if self.options.model.is_empty() {
            return Err(LlmError::Config("the model name is empty".into()));
        }
        self.check_tools()?;
        let mut headers = HeaderMap::new();
        for (name, value) in &self.headers {
            let header = HeaderName::from_bytes(name.as_bytes())
                .map_err(|_| LlmError::Config(format!("'{name}' is not a header name")))?;
            let mut value = HeaderValue::from_str(value).map_err(|_| {
                LlmError::Config(format!("the value of header '{name}' is not valid"))
            })?;
            value.set_sensitive(true);
            headers.insert(header, value);
        }
        if let Some(key) = &self.options.api_key {
            if HeaderValue::from_str(&format!("Bearer {key}")).is_err() {
                return Err(LlmError::Config(
                    "the API key holds characters a header cannot".into(),
                ));
            }
            headers.remove(AUTHORIZATION);
        }
        let http = reqwest::Client::builder()
            .default_headers(headers)
            .connect_timeout(self.connect_timeout)
            .build()
            .map_err(|error| LlmError::Config(chain(&error)))?;
        Ok(OpenAiChat {
            inner: Arc::new(Inner {
                http,
                endpoint: format!("{base}/chat/completions"),
                options: self.options,
            }),
        })
    }

    /// Refuses a tool name the APIs refuse, two tools of one name, and a tool choice that
    /// names no tool.
    fn check_tools(&self) -> Result<(), LlmError> {
        for (index, tool) in self.options.tools.iter().enumerate() {
            let name = tool.name();
            let valid = !name.is_empty()
                && name.len() <= 64
                && name
                    .bytes()
                    .all(|byte| byte.is_ascii_alphanumeric() || byte == b'_' || byte == b'-');
            if !valid {
                return Err(LlmError::Config(format!(
                    "the tool name '{name}' is not 1 to 64 letters, digits, '_' or '-'"
                )));
            }
            if self.options.tools[..index]
                .iter()
                .any(|other| other.name() == name)
            {
                return Err(LlmError::Config(format!("two tools are named '{name}'")));
            }
        }
        let choices = std::iter::once(&self.options.tool_choice).chain(
            self.options
                .action_tool_choices
                .iter()
                .map(|(_, choice)| choice),
        );
        for choice in choices {
            if let ToolChoice::Tool(name) = choice
                && !self.options.tools.iter().any(|tool| tool.name() == name)
            {
                return Err(LlmError::Config(format!(
                    "the tool choice names '{name}', which is not one of the tools"
                )));
            }
        }
        Ok(())
    }
}
