//! `a2ui-agent serve`.

use std::process::ExitCode;

/// Arguments of `a2ui-agent serve`.
#[derive(Debug, clap::Args)]
pub struct Args {}

/// Runs `a2ui-agent serve`.
pub fn run(_args: Args) -> ExitCode {
    eprintln!("a2ui-agent serve: not implemented yet");
    ExitCode::FAILURE
}
