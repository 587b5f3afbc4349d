//! `a2ui-agent validate`.

use std::process::ExitCode;

/// Arguments of `a2ui-agent validate`.
#[derive(Debug, clap::Args)]
pub struct Args {}

/// Runs `a2ui-agent validate`.
pub fn run(_args: Args) -> ExitCode {
    eprintln!("a2ui-agent validate: not implemented yet");
    ExitCode::FAILURE
}
