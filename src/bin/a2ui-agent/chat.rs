//! `a2ui-agent chat URL`: a conversation with any A2A agent on standard input and output.
//! Each line is a message; a line that is a number presses that button of the last
//! outline; `/quit` (or the end of input) ends it. The context is kept across turns, and
//! the task while the agent waits for input. Standard input may be a pipe: the prompt
//! shows only on a terminal.

use std::io::{BufRead, IsTerminal, Read, Write};
use std::process::ExitCode;

use crate::agent_options::AgentArgs;
use crate::conversation::Conversation;

/// The longest line read, in bytes: a longer one is refused, not held.
const MAX_LINE: usize = 1024 * 1024;

/// Arguments of `a2ui-agent chat`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    agent: AgentArgs,
}

/// Runs `chat`: 0 when every turn ended well, 1 when the agent could not be reached or a
/// turn failed (each failure is said on standard error, and the conversation goes on).
pub fn run(args: Args) -> ExitCode {
    let runtime = match crate::conversation::runtime() {
        Ok(runtime) => runtime,
        Err(code) => return code,
    };
    runtime.block_on(chat(&args))
}

async fn chat(args: &Args) -> ExitCode {
    let (client, version) = match args.agent.connect().await {
        Ok(connected) => connected,
        Err(error) => {
            eprintln!("error: {error}");
            return ExitCode::FAILURE;
        }
    };
    let prompt = std::io::stdin().is_terminal() && !args.agent.json;
    if prompt {
        eprintln!(
            "Talking to {}. Type a message, a button's number to press it, /quit to end.",
            args.agent.url
        );
    }
    let mut conversation = Conversation::new(client, version, args.agent.json);
    let mut failed = false;
    let mut input = std::io::stdin().lock();
    loop {
        if prompt {
            eprint!("> ");
            let _ = std::io::stderr().flush();
        }
        let line = match read_line(&mut input) {
            Ok(Some(line)) => line,
            Ok(None) => break,
            Err(error) => {
                eprintln!("error: {error}");
                failed = true;
                continue;
            }
        };
        let line = line.trim();
        let outcome = match line {
            "" => continue,
            "/quit" | "/exit" => break,
            _ => match line.parse::<usize>() {
                Ok(number) => conversation.press(number).await,
                Err(_) => conversation.say(line).await,
            },
        };
        if let Err(error) = outcome {
            eprintln!("error: {error}");
            failed = true;
        }
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// The next line of `input` (`None` at its end), at most [`MAX_LINE`] bytes.
fn read_line(input: &mut impl BufRead) -> Result<Option<String>, String> {
    let mut bytes = Vec::new();
    let read = (&mut *input)
        .take(MAX_LINE as u64 + 1)
        .read_until(b'\n', &mut bytes)
        .map_err(|e| format!("reading standard input: {e}"))?;
    if read == 0 {
        return Ok(None);
    }
    if bytes.len() > MAX_LINE && !bytes.ends_with(b"\n") {
        // Skip the rest of the line.
        let mut rest = Vec::new();
        loop {
            rest.clear();
            let n = (&mut *input)
                .take(MAX_LINE as u64)
                .read_until(b'\n', &mut rest)
                .map_err(|e| format!("reading standard input: {e}"))?;
            if n == 0 || rest.ends_with(b"\n") {
                break;
            }
        }
        return Err(format!("a line longer than {MAX_LINE} bytes was skipped"));
    }
    String::from_utf8(bytes)
        .map(Some)
        .map_err(|_| "a line that is not UTF-8 was skipped".into())
}
