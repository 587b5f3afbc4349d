//! The options `call` and `chat` share: which agent, how to reach it (credentials, the
//! interface, the timeout), which A2UI version to ask for, and how to print.

use std::time::Duration;

use a2ui_agent::a2a::card::AgentCard;
use a2ui_agent::a2ui::ProtocolVersion;
use a2ui_agent::client::{Client, ClientError, Transport};

use crate::parse_version;

/// How to reach the agent, and what to ask it for.
#[derive(Debug, clap::Args)]
pub struct AgentArgs {
    /// The agent's base URL (its card is at `URL/.well-known/agent-card.json`).
    pub url: String,
    /// Sends `Authorization: Bearer TOKEN` with every request.
    #[arg(long, value_name = "TOKEN")]
    bearer_token: Option<String>,
    /// Sends the API key VALUE in the header NAME with every request (repeatable).
    #[arg(long, value_name = "NAME=VALUE", value_parser = parse_header)]
    api_key: Vec<(String, String)>,
    /// The interfaces to use, most wanted first (repeatable; default: every one, in this
    /// order: jsonrpc, http-json, jsonrpc-0.3); the first one the card offers is used.
    #[arg(long, value_enum)]
    transport: Vec<TransportArg>,
    /// How long to wait for the agent to connect, answer or say anything more while it
    /// streams, in seconds.
    #[arg(long, value_name = "SECONDS", default_value_t = 60)]
    timeout: u64,
    /// The A2UI version to ask for (default: the newest of v0.9 and v0.8 the card offers;
    /// `none`: ask for plain text).
    #[arg(long, value_name = "VERSION")]
    a2ui: Option<String>,
    /// Prints one JSON object per line (text, a2ui, status, outline, press events) and
    /// nothing else on standard output.
    #[arg(long)]
    pub json: bool,
}

/// An interface, for `--transport`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum TransportArg {
    /// JSON-RPC, A2A 1.0.
    Jsonrpc,
    /// HTTP+JSON, A2A 1.0.
    HttpJson,
    /// JSON-RPC, A2A 0.3.
    #[value(name = "jsonrpc-0.3")]
    Jsonrpc0_3,
}

impl From<TransportArg> for Transport {
    fn from(arg: TransportArg) -> Self {
        match arg {
            TransportArg::Jsonrpc => Transport::JsonRpc1_0,
            TransportArg::HttpJson => Transport::HttpJson1_0,
            TransportArg::Jsonrpc0_3 => Transport::JsonRpc0_3,
        }
    }
}

/// `NAME=VALUE`, for `--api-key`.
fn parse_header(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((name, value)) if !name.trim().is_empty() => {
            Ok((name.trim().to_owned(), value.to_owned()))
        }
        _ => Err("expected NAME=VALUE".into()),
    }
}

/// The A2UI versions the outline draws, in order of preference (v0.9.1 names v0.9 again).
const DRAWN: [ProtocolVersion; 3] = [
    ProtocolVersion::V0_9,
    ProtocolVersion::V0_9_1,
    ProtocolVersion::V0_8,
];

impl AgentArgs {
    /// The timeout of every wait.
    pub fn timeout(&self) -> Duration {
        Duration::from_secs(self.timeout.max(1))
    }

    /// A client of the agent, its card read and an interface chosen; and the A2UI version
    /// to ask for (`None`: plain text).
    ///
    /// # Errors
    ///
    /// A one-line message for a bad option, an unreachable agent or an unusable card.
    pub async fn connect(&self) -> Result<(Client, Option<ProtocolVersion>), String> {
        let wanted = match self.a2ui.as_deref() {
            None => None,
            Some("none") => Some(None),
            Some(name) => Some(Some(
                parse_version(name).map_err(|e| format!("--a2ui: {e}"))?,
            )),
        };
        let mut builder = Client::builder(&self.url)
            .connect_timeout(self.timeout())
            .request_timeout(self.timeout())
            .stream_idle_timeout(self.timeout());
        if !self.transport.is_empty() {
            builder = builder.prefer(self.transport.iter().map(|&t| Transport::from(t)));
        }
        if let Some(token) = &self.bearer_token {
            builder = builder.bearer_token(token);
        }
        for (name, value) in &self.api_key {
            builder = builder.api_key(name, value);
        }
        // The card first, to pick the version whose extension header goes with every call.
        let probe = builder
            .clone()
            .connect()
            .await
            .map_err(|e| self.failed(&e))?;
        let card = probe.card().await.map_err(|e| self.failed(&e))?;
        let version = match wanted {
            Some(version) => version,
            None => offered(&card),
        };
        let Some(version) = version else {
            return Ok((probe, None));
        };
        let client = builder
            .extension(version.extension_uri())
            .connect()
            .await
            .map_err(|e| self.failed(&e))?;
        Ok((client, Some(version)))
    }

    /// `error` as one line naming the agent.
    pub fn failed(&self, error: &ClientError) -> String {
        format!("{}: {error}", self.url)
    }
}

/// The newest A2UI version the card offers that the outline draws.
fn offered(card: &AgentCard) -> Option<ProtocolVersion> {
    DRAWN.into_iter().find(|version| {
        card.capabilities
            .extensions
            .iter()
            .any(|extension| ProtocolVersion::from_extension_uri(&extension.uri) == Some(*version))
    })
}
