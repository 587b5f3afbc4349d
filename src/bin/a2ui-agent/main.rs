//! `a2ui-agent`: run an A2UI agent, talk to any A2A agent, or use the parser, validator and
//! prompt builder from the command line.

mod agent_options;
mod bounded;
mod call;
mod callers;
mod card_options;
mod chat;
mod conversation;
mod demo;
mod hardening;
mod listen;
mod metrics_options;
mod orchestrate;
mod otel_options;
mod parse;
mod prompt;
mod push_options;
mod serve;
mod tokens;
mod ui_policy_options;
mod validate;

use std::process::ExitCode;

use a2ui_agent::a2ui::ProtocolVersion;
use clap::{Parser, Subcommand};

/// Turn an LLM-backed function into an A2A agent that draws user interfaces with A2UI.
#[derive(Debug, Parser)]
#[command(name = "a2ui-agent", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Serve a model (--model-url, --model) or the built-in demo agent over A2A.
    // Boxed: its many options make it much larger than the other commands.
    Serve(Box<serve::Args>),
    /// Split model output into text and A2UI messages, as the server does while streaming.
    Parse(parse::Args),
    /// Print the system prompt a model is given for a protocol version and its catalogs.
    Prompt(prompt::Args),
    /// Check A2UI messages against a protocol version's schema and catalogs.
    Validate(validate::Args),
    /// Send one message to an A2A agent: its text as it streams, its surfaces as an outline
    /// with numbered buttons (--press N presses one).
    Call(Box<call::Args>),
    /// Talk to an A2A agent on standard input and output (a number presses a button).
    Chat(Box<chat::Args>),
    /// Serve one agent in front of several A2A agents (--agent URL...), each turn answered
    /// by one of them.
    Orchestrate(Box<orchestrate::Args>),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Serve(args) => serve::run(*args),
        Command::Parse(args) => parse::run(args),
        Command::Prompt(args) => prompt::run(args),
        Command::Validate(args) => validate::run(args),
        Command::Call(args) => call::run(*args),
        Command::Chat(args) => chat::run(*args),
        Command::Orchestrate(args) => orchestrate::run(*args),
    }
}

/// The output format a model writes, for `--format`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
enum Format {
    /// JSON arrays of messages in `<a2ui-json>` blocks, read as they stream.
    #[default]
    DirectJson,
    /// The compact Express notation in `<a2ui>` blocks, compiled when the response ends.
    Express,
}

/// Reads a version name (`v0.9`, or `0.9`) for the `--version` options.
fn parse_version(text: &str) -> Result<ProtocolVersion, String> {
    text.parse()
        .map_err(|error: a2ui_agent::a2ui::UnknownVersion| error.to_string())
}
