//! `a2ui-agent call URL MESSAGE`: one message to any A2A agent from a terminal. The answer's
//! text prints as it streams; the surfaces it drew print as an outline with numbered
//! buttons, and `--press N` presses one (repeatable: each press is on the outline of the
//! answer before it).

use std::process::ExitCode;

use crate::agent_options::AgentArgs;
use crate::conversation::Conversation;

/// Arguments of `a2ui-agent call`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    agent: AgentArgs,
    /// The message to send.
    message: String,
    /// After the answer, presses its button N (as numbered in the outline) and shows the
    /// agent's answer to that; repeatable, each on the outline of the answer before.
    #[arg(long, value_name = "N")]
    press: Vec<usize>,
}

/// Runs `call`: 0 when every turn ended well, 1 with a one-line error otherwise.
pub fn run(args: Args) -> ExitCode {
    let runtime = match crate::conversation::runtime() {
        Ok(runtime) => runtime,
        Err(code) => return code,
    };
    match runtime.block_on(call(&args)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}

async fn call(args: &Args) -> Result<(), String> {
    let (client, version) = args.agent.connect().await?;
    let mut conversation = Conversation::new(client, version, args.agent.json);
    conversation.say(&args.message).await?;
    for &number in &args.press {
        conversation.press(number).await?;
    }
    Ok(())
}
