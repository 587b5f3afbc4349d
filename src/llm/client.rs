//! [`OpenAiChat`] and what it holds: the type the builder makes, the turn's loop drives and
//! the request sender posts with. Its own file so that those modules, which the client's
//! methods call, depend on it and not on the module that calls them.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use super::chat::RepairTurns;
use super::tools::{Tool, ToolChoice};

/// A client of one model on an OpenAI-compatible server. Cheap to clone; use it directly as
/// the server's agent, or call [`OpenAiChat::stream`] from your own agent.
#[derive(Clone)]
pub struct OpenAiChat {
    pub(super) inner: Arc<Inner>,
}

/// What every clone of a client shares.
pub(super) struct Inner {
    pub(super) http: reqwest::Client,
    pub(super) endpoint: String,
    pub(super) options: Options,
}

impl fmt::Debug for OpenAiChat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OpenAiChat")
            .field("endpoint", &self.inner.endpoint)
            .field("model", &self.inner.options.model)
            .field(
                "api_key",
                &self.inner.options.api_key.as_ref().map(|_| "[redacted]"),
            )
            .finish_non_exhaustive()
    }
}

/// What the client keeps of its builder's options, as given (see each setter).
pub(super) struct Options {
    pub(super) model: String,
    pub(super) api_key: Option<String>,
    pub(super) instructions: Option<String>,
    pub(super) action_guides: Vec<(String, String)>,
    pub(super) max_history: Option<usize>,
    pub(super) temperature: Option<f32>,
    pub(super) repair_temperature: Option<f32>,
    pub(super) repair_turns: RepairTurns,
    pub(super) max_tokens: Option<u32>,
    pub(super) idle_timeout: Duration,
    pub(super) first_token_timeout: Duration,
    pub(super) reading_notice: Duration,
    pub(super) max_retries: u32,
    pub(super) backoff: Duration,
    pub(super) max_retry_wait: Duration,
    pub(super) tools: Vec<Tool>,
    pub(super) max_tool_rounds: u32,
    pub(super) grammar_member: Option<String>,
    pub(super) tool_choice: ToolChoice,
    pub(super) action_tool_choices: Vec<(String, ToolChoice)>,
    /// Where model latency, tokens and tool calls are counted.
    pub(super) meter: crate::observe::Meter,
    /// How the model writes A2UI.
    pub(super) a2ui_via: super::via::A2uiVia,
}

impl Inner {
    /// `text` with the API key replaced, whatever echoed it.
    pub(super) fn scrub(&self, text: &str) -> String {
        match &self.options.api_key {
            Some(key) if !key.is_empty() => text.replace(key.as_str(), "[redacted]"),
            _ => text.to_owned(),
        }
    }
}
