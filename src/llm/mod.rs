//! A model client: the OpenAI-compatible streaming chat-completions API as an [`Agent`].
//!
//! OpenAI, Ollama (`http://localhost:11434/v1`), vLLM, llama.cpp's server, LiteLLM and
//! Gemini's compatible endpoint all answer `POST {base}/chat/completions` with `stream: true`
//! as Server-Sent Events (WIRE.md §7). [`OpenAiChat`] sends the conversation built from the
//! [`Request`] ([`chat_messages`]: the A2UI prompt, the task's earlier turns, the new message
//! and any repair turns) and yields the content deltas as the reply's stream, so the server's
//! parser reads A2UI blocks while the model writes them.
//!
//! The SSE framing is decoded in place (the crate's `event_stream`, which the A2A client
//! shares); this module reads the chunks. It retries 429 and 5xx answers that come before
//! the first token (bounded, with backoff, honouring `Retry-After`), bounds the wait to
//! connect, for the first token (long: a local model reads a long prompt for minutes; the
//! client sees "The model is reading the prompt…" meanwhile) and between two events, and
//! ends a failed call with an [`LlmError`] a person can read, which never contains the API
//! key. Dropping the reply's stream (a canceled task) drops the response and closes the HTTP
//! request, so the model server stops generating.
//!
//! With [`Tool`]s ([`OpenAiChatBuilder::tool`]) the model may call functions of yours: the
//! calls it streams are joined, run (together when it asks for several), answered as `tool`
//! messages, and the model asked again, for at most
//! [`max_tool_rounds`](OpenAiChatBuilder::max_tool_rounds) rounds. Its text streams to the
//! client in every round; each call shows as a one-line text part of the reply ("Called
//! name(arguments)") whose metadata member [`TOOL_CALL_METADATA`] keeps the call and its
//! result, so the task's next turn sends them to the model again.
//!
//! # Example
//!
//! A local Ollama model serving A2UI:
//!
//! ```no_run
//! use a2ui_agent::llm::OpenAiChat;
//! use a2ui_agent::{A2uiServer, AgentCard, Generator};
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let model = OpenAiChat::builder("http://localhost:11434/v1", "qwen2.5:7b")
//!     .temperature(0.2)
//!     .build()?;
//! let server = A2uiServer::builder(AgentCard::builder("Assistant").build(), model)
//!     .generator(Generator::v0_9())
//!     .build()?;
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await?;
//! server.serve(listener).await?;
//! # Ok(())
//! # }
//! ```

mod a2ui_call;
mod builder;
mod call_deltas;
mod chat;
mod client;
mod completion;
mod error;
mod required_call;
mod send;
mod text_calls;
mod tool_loop;
mod tools;
mod via;
mod wire;

use futures::StreamExt;
use futures::future::BoxFuture;

pub use builder::OpenAiChatBuilder;
pub use chat::{ChatMessage, RepairTurns, chat_messages, chat_messages_with};
pub use client::OpenAiChat;
pub use error::LlmError;
pub use tools::{TOOL_CALL_METADATA, Tool, ToolCall, ToolChoice, ToolError, ToolRecord};
pub use via::A2uiVia;

use crate::agent::{Agent, AgentError, Reply, ReplyEvent};
use crate::format::A2UI_TOOL;
use crate::request::{Request, UserActionKind};
use completion::Piece;

impl OpenAiChat {
    /// Options for `model` at `base_url`, the API root that `/chat/completions` is appended
    /// to (`https://api.openai.com/v1`, `http://localhost:11434/v1`).
    ///
    /// Defaults: no key, the server's temperature and token limit, a 10 s connect timeout,
    /// a 10 min wait for the first token (a local model reads a long prompt slowly), then a
    /// 60 s idle timeout (longest silence between two events), 2 retries from 500 ms
    /// doubling, a `Retry-After` of at most 30 s honoured, no tools, at most 8 tool rounds.
    pub fn builder(base_url: impl Into<String>, model: impl Into<String>) -> OpenAiChatBuilder {
        OpenAiChatBuilder::new(base_url.into(), model.into())
    }

    /// The model's name.
    pub fn model(&self) -> &str {
        &self.inner.options.model
    }

    /// The chat for `request`: [`chat_messages_with`] this client's instructions and
    /// [repair turns](OpenAiChatBuilder::repair_turns).
    ///
    /// When the user's message carries an action that has an
    /// [action guide](OpenAiChatBuilder::action_guide), the guide follows as a last system
    /// turn.
    pub fn messages(&self, request: &Request) -> Vec<ChatMessage> {
        let instructions = self.inner.options.instructions.as_deref();
        let history = request.history();
        let mut chat = match self.inner.options.max_history {
            Some(most) if history.len() > most => {
                let recent = history[history.len() - most..].to_vec();
                let trimmed = request.clone().with_history(recent);
                chat_messages_with(&trimmed, instructions, self.inner.options.repair_turns)
            }
            _ => chat_messages_with(request, instructions, self.inner.options.repair_turns),
        };
        if self.inner.options.repair_turns == RepairTurns::Continue
            && self.a2ui_tool(request).is_some()
        {
            a2ui_call::repairs_as_results(&mut chat, request.repairs());
        }
        let mut guides: Vec<&str> = Vec::new();
        for action in request.actions() {
            let guide =
                self.inner.options.action_guides.iter().find(|(name, _)| {
                    action.kind == UserActionKind::Action && *name == action.name
                });
            if let Some((_, guide)) = guide.filter(|(_, guide)| !guides.contains(&guide.as_str())) {
                guides.push(guide);
            }
        }
        if !guides.is_empty() {
            chat.push(ChatMessage::system(guides.join("\n\n")));
        }
        chat
    }

    /// The tools the model may call.
    pub fn tools(&self) -> &[Tool] {
        &self.inner.options.tools
    }

    /// Sends `messages` without tools and returns the answer as it streams: its content
    /// deltas, in order. Resolves once the server accepted the request (after any retries).
    ///
    /// # Errors
    ///
    /// An [`LlmError`] when the server cannot be reached or refuses; a later failure is an
    /// `Err` item of the stream.
    pub async fn stream(
        &self,
        messages: &[ChatMessage],
    ) -> Result<impl futures::Stream<Item = Result<String, LlmError>> + Send + 'static, LlmError>
    {
        let (response, started) = self
            .send(
                messages,
                &[],
                &ToolChoice::None,
                self.inner.options.temperature,
                None,
            )
            .await?;
        let pieces = completion::pieces(
            response,
            started,
            self.inner.options.first_token_timeout,
            self.inner.clone(),
            0,
            self.inner
                .options
                .meter
                .model_call(&self.inner.options.model, None),
        );
        Ok(pieces.filter_map(|piece| async move {
            match piece {
                Ok(Piece::Text(text)) => Some(Ok(text)),
                Ok(Piece::Calling | Piece::Arguments(_) | Piece::Calls(_)) => None,
                Err(error) => Some(Err(error)),
            }
        }))
    }

    /// Sends `messages` with this client's tools and streams the reply: the model's text
    /// in every round, passing statuses ("The model is reading the prompt…", "Calling
    /// name…") and one part per tool call (see [`ToolRecord::to_part`]), as the server's
    /// agent does. The tools run as the model asks for them (those asked for together, at
    /// the same time); their results go back to the model until it answers without calls.
    /// Dropping the stream stops the model and the running handlers.
    pub fn reply(
        &self,
        messages: Vec<ChatMessage>,
    ) -> impl futures::Stream<Item = Result<ReplyEvent, LlmError>> + Send + 'static {
        tool_loop::reply(
            self.clone(),
            messages,
            tool_loop::Turn {
                tools: self.inner.options.tools.clone(),
                temperature: self.inner.options.temperature,
                grammar: None,
                first: self.inner.options.tool_choice.clone(),
                given: None,
                tenant: None,
            },
        )
    }

    /// [`reply`](Self::reply) for `request`, whose chat `messages` are (your own, or
    /// [`messages`](Self::messages)): a repair turn is asked at the
    /// [repair temperature](OpenAiChatBuilder::repair_temperature), and a client that
    /// [constrains](OpenAiChatBuilder::constrain) answers sends the grammar of the
    /// request's A2UI format.
    pub fn reply_to(
        &self,
        request: &Request,
        messages: Vec<ChatMessage>,
    ) -> impl futures::Stream<Item = Result<ReplyEvent, LlmError>> + Send + 'static {
        let temperature = match self.inner.options.repair_temperature {
            Some(repairing) if !request.repairs().is_empty() => Some(repairing),
            _ => self.inner.options.temperature,
        };
        let grammar = self
            .inner
            .options
            .grammar_member
            .as_ref()
            .and_then(|_| request.a2ui()?.grammar())
            .map(str::to_owned);
        // What the model is given may be shown: the system turns (the agent's instructions
        // among them) and the tool results; the tool loop adds the results to come.
        let given = request.provenance();
        for message in &messages {
            if matches!(message.role, "system" | "tool") {
                given.add(message.content.clone());
            }
        }
        tool_loop::reply(
            self.clone(),
            messages,
            tool_loop::Turn {
                tools: self.offered_tools(request),
                temperature,
                grammar,
                first: self.first_tool_choice(request),
                given: Some(given.clone()),
                tenant: request.principal().tenant().map(str::to_owned),
            },
        )
    }

    /// The tools offered for `request`: this client's, then those the client runs itself
    /// ([`Request::client_tools`]) whose names are not taken by one of this client's.
    fn offered_tools(&self, request: &Request) -> Vec<Tool> {
        let own = &self.inner.options.tools;
        let client = request.client_tools();
        let theirs = client
            .iter()
            .filter(|tool| own.iter().all(|mine| mine.name() != tool.name))
            .map(Tool::for_client);
        let mut offered: Vec<Tool> = own.iter().cloned().chain(theirs).collect();
        if let Some(drawing) = self.a2ui_tool(request)
            && offered.iter().all(|tool| tool.name() != A2UI_TOOL)
        {
            offered.push(drawing);
        }
        offered
    }

    /// The A2UI tool for `request`, when this client draws through a tool call and the
    /// request has A2UI in a format that reads Direct JSON blocks.
    fn a2ui_tool(&self, request: &Request) -> Option<Tool> {
        if self.inner.options.a2ui_via != A2uiVia::ToolCall {
            return None;
        }
        a2ui_call::a2ui_tool(request.a2ui()?)
    }

    /// The tool choice of the first round of `request`'s turn: the one for an action the
    /// message carries, else the client's. A repair turn is never made to call a tool: it
    /// exists to write the UI again.
    fn first_tool_choice(&self, request: &Request) -> ToolChoice {
        let chosen = request
            .actions()
            .iter()
            .filter(|action| action.kind == UserActionKind::Action)
            .find_map(|action| {
                self.inner
                    .options
                    .action_tool_choices
                    .iter()
                    .find(|(name, _)| *name == action.name)
                    .map(|(_, choice)| choice.clone())
            })
            .unwrap_or_else(|| self.inner.options.tool_choice.clone());
        if chosen.requires_call() && !request.repairs().is_empty() {
            return ToolChoice::Auto;
        }
        chosen
    }
}

impl Agent for OpenAiChat {
    fn call(&self, request: Request) -> BoxFuture<'static, Result<Reply, AgentError>> {
        let this = self.clone();
        Box::pin(async move {
            let messages = this.messages(&request);
            let chunks = this.reply_to(&request, messages);
            Ok(Reply::events(
                chunks.map(|item| item.map_err(LlmError::into_agent_error)),
            ))
        })
    }
}
