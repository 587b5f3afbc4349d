//! `a2ui-agent orchestrate --agent URL [--agent URL...]`: serve one agent in front of several
//! remote A2A agents (`a2ui_agent::orchestrator::Orchestrator`), each user turn answered by
//! one of them, their surfaces kept apart and each button press sent back to its owner.
//!
//! It listens, authenticates its callers and limits them as `serve` does (the same
//! `--host`/`--port`, hardening, auth and tracing options), and serves the chat page at `/`.
//! Without a model it routes by the sub-agents' skills; with `--model-url` and `--model`, the
//! model chooses through a tool call. What the sub-agents draw is judged as `serve` judges
//! its model's A2UI, with the same `--ui-*` flags.

use std::process::ExitCode;
use std::time::Duration;

use a2ui_agent::client::Client;
use a2ui_agent::generator::Generator;
use a2ui_agent::llm::OpenAiChat;
use a2ui_agent::orchestrator::Orchestrator;
use a2ui_agent::server::{self, A2uiServer};

use crate::hardening::Hardening;
use crate::listen::Listen;
use crate::otel_options::OtelArgs;
use crate::ui_policy_options::UiPolicyArgs;

/// Arguments of `a2ui-agent orchestrate`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// A sub-agent's base URL (its card is at `<URL>/.well-known/agent-card.json`);
    /// repeatable.
    #[arg(long = "agent", value_name = "URL", required = true)]
    agents: Vec<String>,
    /// The environment variable holding a token sent to every sub-agent as
    /// `Authorization: Bearer <token>`.
    #[arg(long, value_name = "VAR")]
    agent_token_env: Option<String>,
    /// The orchestrator's name on its card.
    #[arg(long, default_value = "a2ui-agent orchestrator")]
    name: String,
    /// Let a model choose the sub-agent: the API root of an OpenAI-compatible server.
    #[arg(long, value_name = "URL", requires = "model")]
    model_url: Option<String>,
    /// The routing model's name on that server.
    #[arg(long, value_name = "NAME", requires = "model_url")]
    model: Option<String>,
    /// The environment variable that holds the model server's API key.
    #[arg(long, value_name = "VAR", default_value = "OPENAI_API_KEY")]
    api_key_env: String,
    #[command(flatten)]
    listen: Listen,
    // Where the URLs in a sub-agent's UI may point (its A2UI is judged as a model's would
    // be: a URL must have appeared in the user's turns, or its host be allowed).
    #[command(flatten)]
    ui: UiPolicyArgs,
    #[command(flatten)]
    hardening: Hardening,
    #[command(flatten)]
    otel: OtelArgs,
}

/// Runs `a2ui-agent orchestrate`.
pub fn run(args: Args) -> ExitCode {
    let (runtime, traces) = match crate::listen::start(&args.otel) {
        Ok(started) => started,
        Err(code) => return code,
    };
    let served = runtime.block_on(orchestrate(args));
    crate::listen::stop(traces, served, "orchestrator")
}

async fn orchestrate(args: Args) -> Result<(), Box<dyn std::error::Error>> {
    let token = match &args.agent_token_env {
        Some(var) => match std::env::var(var) {
            Ok(token) if !token.is_empty() => Some(token),
            _ => return Err(format!("--agent-token-env: ${var} is unset or empty").into()),
        },
        None => None,
    };
    let mut builder = Orchestrator::builder();
    for url in &args.agents {
        let client = Client::builder(url.as_str());
        builder = builder.agent_client(match &token {
            Some(token) => client.bearer_token(token.as_str()),
            None => client,
        });
    }
    if let (Some(url), Some(model)) = (&args.model_url, &args.model) {
        let mut chat = OpenAiChat::builder(url.as_str(), model.as_str())
            .first_token_timeout(Duration::from_secs(120));
        if let Ok(key) = std::env::var(&args.api_key_env) {
            chat = chat.api_key(key);
        }
        builder = builder.model(chat);
        tracing::info!(model, url, "a model routes the turns");
    }
    let orchestrator = builder.connect().await?;
    for agent in orchestrator.agents() {
        tracing::info!(
            agent = agent.name(),
            surfaces = %format!("{}:*", agent.namespace()),
            "sub-agent"
        );
    }
    let card = orchestrator.card(args.name.as_str()).build();
    let builder = A2uiServer::builder(card, orchestrator)
        .generator(Generator::v0_9())
        .generator(Generator::v0_8())
        .url_policy(args.ui.policy())
        .web_page(true);
    let backlog = args.hardening.backlog();
    let server = args.hardening.apply(builder).await?.build()?;
    let listener = server::bind(args.listen.address()?, backlog)?;
    let local = listener.local_addr()?;
    tracing::info!(
        address = %local,
        "serving the orchestrator: open http://{local}/ in a browser; card at http://{local}/.well-known/agent-card.json"
    );
    server
        .serve(listener)
        .with_graceful_shutdown(crate::listen::shutdown_signal())
        .await?;
    Ok(())
}
