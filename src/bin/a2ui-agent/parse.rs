//! `a2ui-agent parse`.

use std::process::ExitCode;

/// Arguments of `a2ui-agent parse`.
#[derive(Debug, clap::Args)]
pub struct Args {}

/// Runs `a2ui-agent parse`.
pub fn run(_args: Args) -> ExitCode {
    eprintln!("a2ui-agent parse: not implemented yet");
    ExitCode::FAILURE
}
