//! `a2ui-agent prompt`.

use std::process::ExitCode;

/// Arguments of `a2ui-agent prompt`.
#[derive(Debug, clap::Args)]
pub struct Args {}

/// Runs `a2ui-agent prompt`.
pub fn run(_args: Args) -> ExitCode {
    eprintln!("a2ui-agent prompt: not implemented yet");
    ExitCode::FAILURE
}
