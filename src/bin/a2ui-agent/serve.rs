//! `a2ui-agent serve`: run a model, or the built-in demo agent, over A2A (and with `--ag-ui`,
//! AG-UI; with `--mcp`, as an MCP server's tool).
//!
//! With `--model-url URL --model NAME` the agent is that model on an OpenAI-compatible
//! server (`a2ui_agent::llm::OpenAiChat`), given the A2UI prompt of whatever the client
//! negotiates (v0.9 or v0.8). Without it, the demo answers: a scripted restaurant finder
//! that writes like an LLM, text and A2UI blocks streamed in token-sized chunks, or plain text
//! for a client without A2UI. The demo needs no model, key or network.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use a2ui_agent::a2a::card::{AgentCard, AgentSkill};
use a2ui_agent::a2ui::ProtocolVersion;
use a2ui_agent::format::ToolCallFormat;
use a2ui_agent::format::express::Express;
use a2ui_agent::generator::Generator;
use a2ui_agent::llm::{A2uiVia, OpenAiChat};
use a2ui_agent::observe::Metrics;
use a2ui_agent::pipeline::OnInvalid;
use a2ui_agent::server::{self, A2uiServer, ServerBuilder};
use a2ui_agent::store::{InMemoryStore, PostgresStore, SqliteStore};

use crate::Format;
use crate::card_options::CardArgs;
use crate::demo::{DemoConfig, RestaurantFinder};
use crate::hardening::Hardening;
use crate::listen::Listen;
use crate::metrics_options::MetricsArgs;
use crate::otel_options::OtelArgs;
use crate::push_options::PushArgs;
use crate::ui_policy_options::UiPolicyArgs;

/// How the model writes its UI, for `--a2ui-via`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
enum Via {
    /// Blocks in the model's text.
    #[default]
    Text,
    /// Calls of the function `send_a2ui`.
    Tool,
}

/// Arguments of `a2ui-agent serve`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    listen: Listen,
    /// The shortest pause before a streamed chunk, in milliseconds.
    #[arg(long, default_value_t = 10)]
    min_delay_ms: u64,
    /// The longest pause before a streamed chunk, in milliseconds.
    #[arg(long, default_value_t = 30)]
    max_delay_ms: u64,
    /// Serve a model instead of the demo: the API root of an OpenAI-compatible server
    /// (`https://api.openai.com/v1`, Ollama's `http://localhost:11434/v1`).
    #[arg(long, value_name = "URL", requires = "model")]
    model_url: Option<String>,
    /// The model's name on that server.
    #[arg(long, value_name = "NAME", requires = "model_url")]
    model: Option<String>,
    /// The environment variable that holds the API key (unset or empty: no key, as local
    /// servers expect).
    #[arg(long, value_name = "VAR", default_value = "OPENAI_API_KEY")]
    api_key_env: String,
    /// How long the model may take to write its first token, in seconds (it reads the
    /// prompt first: minutes for a long prompt on a small local model).
    #[arg(long, value_name = "SECONDS", default_value_t = 600)]
    first_token_timeout_secs: u64,
    /// How long the model may go silent once it has started answering, in seconds; then
    /// its connection is closed and the task fails ("The model server stopped answering").
    #[arg(long, value_name = "SECONDS", default_value_t = 60)]
    model_idle_timeout_secs: u64,
    /// Describe only these components of the basic catalogs to the model, e.g.
    /// `Text,Column,Button` (a shorter prompt, read sooner by a small local model).
    #[arg(long, value_name = "NAMES", value_delimiter = ',')]
    components: Vec<String>,
    /// The notation the model writes its UI in (v0.9; v0.8 is always Direct JSON):
    /// `express` is a fraction of the prompt and of the answer's tokens, which a small
    /// local model reads and writes many times faster.
    #[arg(long, value_enum, default_value_t, requires = "model_url")]
    format: Format,
    /// Constrain each answer to the format's grammar (Express only), sent as the request's
    /// `grammar` member, which llama.cpp's server reads: the model can then write only
    /// blocks that read and name what the catalog has. Not sent beside tools.
    #[arg(long, requires = "model_url")]
    grammar: bool,
    /// How the model writes its UI: `text` (blocks in its answer, in `--format`) or `tool`
    /// (calls of the function `send_a2ui`, whose arguments the provider constrains to the
    /// negotiated catalogs' message schema and which are drawn as they stream). `tool`
    /// asks for Direct JSON in the arguments, whatever `--format` says.
    #[arg(long, value_enum, default_value_t, requires = "model_url")]
    a2ui_via: Via,
    /// The most tokens the model may write per answer (unset: the server's limit).
    #[arg(long, value_name = "N")]
    max_tokens: Option<u32>,
    /// What to do with a finished A2UI message that does not validate: `repair` (ask the
    /// agent again with the errors), `fail` the task, or `forward` it as it is.
    #[arg(long, value_name = "POLICY", default_value_t = OnInvalid::Repair)]
    on_invalid: OnInvalid,
    /// How many repair turns one reply may take before its task fails.
    #[arg(long, value_name = "N", default_value_t = 2)]
    max_repairs: usize,
    #[command(flatten)]
    ui: UiPolicyArgs,
    /// How long, in milliseconds, a chunk of the agent's output waits for more before it is
    /// parsed and sent (at most 1000). Chunks already waiting are always read together; the
    /// default 0 adds no latency (see the streams bench's coalescing curve).
    #[arg(long, value_name = "MS", default_value_t = 0)]
    coalesce_ms: u64,
    #[command(flatten)]
    hardening: Hardening,
    #[command(flatten)]
    push: PushArgs,
    #[command(flatten)]
    card: CardArgs,
    /// Where tasks are kept: `memory` (lost on exit), `sqlite:PATH` (a file that keeps
    /// conversations waiting for input across restarts) or `postgres://USER@HOST/DB` (a
    /// database several instances share, behaving as one server; TLS as with libpq, e.g.
    /// `?sslmode=verify-full&sslrootcert=/path/ca.pem`).
    #[arg(long, default_value = "memory", value_name = "STORE", value_parser = parse_store)]
    store: StoreSpec,
    /// With `--store postgres://`: how long, in milliseconds, this instance's tasks are
    /// trusted to run after it stops renewing its lease (crashed); then another instance
    /// stores them `failed`.
    #[arg(long, default_value_t = 30_000, value_name = "MS")]
    lease_ms: u64,
    /// How long a finished task stays readable, in seconds.
    #[arg(long, default_value_t = 3600, value_name = "SECONDS")]
    finished_ttl_secs: u64,
    /// The most bytes (tasks as JSON) the `memory` store keeps; settled tasks are forgotten
    /// to make room, and new tasks are refused ("server busy") when running ones fill it.
    #[arg(long, value_name = "BYTES", default_value_t = InMemoryStore::DEFAULT_MAX_BYTES)]
    store_max_bytes: usize,
    /// The most bytes of history (as JSON) one task keeps; the oldest messages go first.
    #[arg(long, value_name = "BYTES", default_value_t = InMemoryStore::DEFAULT_MAX_HISTORY_BYTES)]
    task_max_history_bytes: usize,
    /// The most bytes of status message and artifacts (as JSON) one task keeps; a reply
    /// larger than that is stored as a note saying it was not kept.
    #[arg(long, value_name = "BYTES", default_value_t = InMemoryStore::DEFAULT_MAX_PARTS_BYTES)]
    task_max_parts_bytes: usize,
    /// Also serve the agent over AG-UI (CopilotKit and other AG-UI frontends): `POST` a
    /// `RunAgentInput` to `--ag-ui-path`, read AG-UI events over SSE.
    #[arg(long)]
    ag_ui: bool,
    /// Where `--ag-ui` serves AG-UI.
    #[arg(long, value_name = "PATH", default_value = ServerBuilder::DEFAULT_AG_UI_PATH, requires = "ag_ui")]
    ag_ui_path: String,
    /// Also serve the agent as an MCP server (Streamable HTTP at `--mcp-path`): MCP hosts
    /// list it as a tool and get its A2UI surfaces in the tool results (A2UI over MCP
    /// Apps). The agent then also speaks A2UI v1.0, the version that extension is for.
    #[arg(long)]
    mcp: bool,
    /// Where `--mcp` serves MCP.
    #[arg(long, value_name = "PATH", default_value = ServerBuilder::DEFAULT_MCP_PATH, requires = "mcp")]
    mcp_path: String,
    #[command(flatten)]
    metrics: MetricsArgs,
    #[command(flatten)]
    otel: OtelArgs,
}

/// The `--store` argument.
#[derive(Debug, Clone)]
enum StoreSpec {
    Memory,
    Sqlite(PathBuf),
    Postgres(String),
}

fn parse_store(text: &str) -> Result<StoreSpec, String> {
    match text.split_once(':') {
        _ if text == "memory" => Ok(StoreSpec::Memory),
        Some(("sqlite", path)) if !path.is_empty() => Ok(StoreSpec::Sqlite(PathBuf::from(path))),
        Some(("postgres" | "postgresql", rest)) if rest.starts_with("//") => {
            Ok(StoreSpec::Postgres(text.to_owned()))
        }
        _ => Err(format!(
            "{text:?}: expected `memory`, `sqlite:PATH` (e.g. sqlite:tasks.db) or \
             `postgres://USER@HOST/DATABASE`"
        )),
    }
}

/// Runs `a2ui-agent serve`.
pub fn run(args: Args) -> ExitCode {
    let (runtime, traces) = match crate::listen::start(&args.otel) {
        Ok(started) => started,
        Err(code) => return code,
    };
    let served = runtime.block_on(serve(args));
    crate::listen::stop(traces, served, "server")
}

async fn serve(args: Args) -> Result<(), Box<dyn std::error::Error>> {
    let names: Vec<&str> = args.components.iter().map(|name| name.trim()).collect();
    let generator = |version: ProtocolVersion| -> Result<Generator, String> {
        let tool = args.a2ui_via == Via::Tool;
        let express = args.format == Format::Express && version != ProtocolVersion::V0_8 && !tool;
        if names.is_empty() && !express && !tool {
            return Ok(Generator::built_in(version));
        }
        let mut builder = Generator::builder(version);
        if !names.is_empty() {
            builder = builder.components(&names);
        }
        if express {
            // The example shows what Express answers look like; it needs its components.
            let shown = ["Card", "Column", "Text", "Button"];
            if names.is_empty() || shown.iter().all(|c| names.contains(c)) {
                builder = builder.built_in_example();
            }
            builder = builder.format(Express::new());
        }
        if tool {
            builder = builder.format(ToolCallFormat);
        }
        builder
            .build()
            .map_err(|error| format!("--components: {error}"))
    };
    let metrics = args.metrics.metrics();
    let (builder, what) = match (&args.model_url, &args.model) {
        (Some(url), Some(model)) => (
            model_server(url, model, &args.api_key_env, &args, metrics.as_ref())?,
            "the model",
        ),
        _ => (demo_server(&args), "the demo agent"),
    };
    let builder = match args.mcp {
        true => builder
            .generator(generator(ProtocolVersion::V1_0)?)
            .mcp(args.mcp_path.clone()),
        false => builder,
    };
    let builder = builder
        .generator(generator(ProtocolVersion::V0_9)?)
        .generator(generator(ProtocolVersion::V0_8)?)
        .on_invalid(args.on_invalid)
        .max_repairs(args.max_repairs)
        .url_policy(args.ui.policy())
        .coalesce_window(Duration::from_millis(args.coalesce_ms))
        .web_page(true);
    let builder = match args.ag_ui {
        true => builder.ag_ui(args.ag_ui_path.clone()),
        false => builder,
    };
    let builder = MetricsArgs::apply(metrics.as_ref(), builder);
    let builder = with_store(builder, &args).await?;
    let builder = args.push.apply(builder)?;
    let builder = args.card.apply(builder)?;
    let backlog = args.hardening.backlog();
    let server = args.hardening.apply(builder).await?.build()?;
    let address = args.listen.address()?;
    let listener = server::bind(address, backlog)?;
    args.metrics.serve(&server).await?;
    let local = listener.local_addr()?;
    tracing::info!(
        address = %local,
        "serving {what}: open http://{local}/ in a browser; card at http://{local}/.well-known/agent-card.json"
    );
    if args.ag_ui {
        tracing::info!("AG-UI at http://{local}{}", args.ag_ui_path);
    }
    if args.mcp {
        tracing::info!("MCP at http://{local}{}", args.mcp_path);
    }
    server
        .serve(listener)
        .with_graceful_shutdown(crate::listen::shutdown_signal())
        .await?;
    Ok(())
}

/// The builder with the task store `--store` names.
async fn with_store(
    builder: ServerBuilder,
    args: &Args,
) -> Result<ServerBuilder, Box<dyn std::error::Error>> {
    let ttl = Duration::from_secs(args.finished_ttl_secs);
    Ok(match &args.store {
        StoreSpec::Memory => builder.store(
            InMemoryStore::new()
                .idle_timeout(ttl)
                .max_bytes(args.store_max_bytes)
                .max_history_bytes(args.task_max_history_bytes)
                .max_parts_bytes(args.task_max_parts_bytes),
        ),
        StoreSpec::Sqlite(path) => {
            let store = SqliteStore::open(path)
                .map_err(|error| format!("--store sqlite:{}: {error}", path.display()))?;
            tracing::info!(path = %path.display(), "tasks are kept in SQLite");
            builder.store(
                store
                    .finished_ttl(ttl)
                    .max_history_bytes(args.task_max_history_bytes)
                    .max_parts_bytes(args.task_max_parts_bytes),
            )
        }
        StoreSpec::Postgres(url) => {
            let store = PostgresStore::builder(url.as_str())
                .finished_ttl(ttl)
                .max_history_bytes(args.task_max_history_bytes)
                .max_parts_bytes(args.task_max_parts_bytes)
                .lease(Duration::from_millis(args.lease_ms))
                .connect()
                .await
                // The URL may hold a password: the message names only the scheme.
                .map_err(|error| format!("--store postgres://...: {error}"))?;
            builder.store(store)
        }
    })
}

/// A server whose agent is `model` at `url`, keyed by the variable `key_env` if set.
fn model_server(
    url: &str,
    model: &str,
    key_env: &str,
    args: &Args,
    metrics: Option<&Metrics>,
) -> Result<ServerBuilder, Box<dyn std::error::Error>> {
    let mut chat = OpenAiChat::builder(url, model)
        .first_token_timeout(Duration::from_secs(args.first_token_timeout_secs))
        .idle_timeout(Duration::from_secs(args.model_idle_timeout_secs));
    if let Some(tokens) = args.max_tokens {
        chat = chat.max_tokens(tokens);
    }
    if args.grammar {
        chat = chat.constrain("grammar");
    }
    if args.a2ui_via == Via::Tool {
        if args.format == Format::Express {
            tracing::warn!(
                "--a2ui-via tool draws Direct JSON arguments: --format express is not used"
            );
        }
        chat = chat.a2ui_via(A2uiVia::ToolCall);
    }
    if let Ok(key) = std::env::var(key_env) {
        chat = chat.api_key(key);
    }
    if let Some(metrics) = metrics {
        chat = chat.metrics(metrics);
    }
    let chat = chat.build()?;
    tracing::info!(model, url, "answering with a model");
    let card = AgentCard::builder(format!("a2ui-agent: {model}"))
        .description("A model that answers with A2UI surfaces (v0.9 or v0.8), or in plain text.")
        .build();
    Ok(A2uiServer::builder(card, chat))
}

/// The scripted demo's server.
fn demo_server(args: &Args) -> ServerBuilder {
    let config = DemoConfig {
        min_delay: Duration::from_millis(args.min_delay_ms),
        max_delay: Duration::from_millis(args.max_delay_ms.max(args.min_delay_ms)),
        ..DemoConfig::default()
    };
    let card = AgentCard::builder("a2ui-agent demo: restaurant finder")
        .description(
            "Finds restaurants and books a table, with A2UI lists and forms \
             (v0.9 or v0.8), or in plain text.",
        )
        .skill(restaurant_skill())
        .build();
    A2uiServer::builder(card, RestaurantFinder::new(config))
}

/// The demo's one skill, with the tags and an example an orchestrator routes by.
fn restaurant_skill() -> AgentSkill {
    let mut skill = AgentSkill::new(
        "find-restaurants",
        "Find restaurants",
        "Lists restaurants near you and books a table",
    );
    skill.tags = ["restaurants", "dinner", "lunch", "food", "booking"]
        .map(str::to_owned)
        .to_vec();
    skill.examples = vec!["Dinner for two tonight?".to_owned()];
    skill
}
