//! Exists so that scripts/tck.sh (a step of scripts/test.sh) runs the A2A TCK against our server.
//!
//! The server under test of the official A2A 1.0 TCK (`../shared/reference/a2a-tck`).
//!
//! The TCK drives agent behaviour in-band: the `messageId` of the message it sends starts
//! with a prefix (`tck-complete-task`, `tck-input-required`, ...), and its
//! `scenarios/*.feature` say what the agent does for each. This tool is the crate's own
//! server with an ordinary agent that looks the prefix up in [`BEHAVIOURS`]: one small
//! function per prefix, nothing special inside the library. `scripts/test.sh` starts it and
//! runs the TCK against it. Push notifications are on, with the TCK's webhook receiver on
//! this machine allowed.
//!
//! ```text
//! cargo run --release -p a2ui-agent-tools --bin tck_sut -- --port 9999   # binds 127.0.0.1 only
//! cargo run --release -p a2ui-agent-tools --bin tck_sut -- --port 0      # any free port (printed)
//! ```
//!
//! `TCK_STREAMING_TIMEOUT` (seconds, default 2) sets how long the resubscription task runs:
//! twice that, as `docs/SUT_REQUIREMENTS.md` asks.

use std::time::Duration;

use a2ui_agent::a2a::card::{AgentCard, AgentSkill};
use a2ui_agent::a2a::{Part, TaskState};
use a2ui_agent::push::PushSettings;
use a2ui_agent::{A2uiServer, AgentError, Reply, ReplyEvent, Request};

/// What the agent does for one `messageId` prefix.
struct Behaviour {
    /// The prefix, as `scenarios/*.feature` spell it.
    prefix: &'static str,
    /// The reply.
    reply: fn(&Request) -> Reply,
}

/// Every prefix of `scenarios/core_operations.feature` and `scenarios/streaming.feature`.
/// The longest matching prefix wins (`tck-artifact-file-url` before `tck-artifact-file`).
const BEHAVIOURS: &[Behaviour] = &[
    Behaviour {
        prefix: "tck-complete-task",
        reply: complete_task,
    },
    Behaviour {
        prefix: "tck-artifact-text",
        reply: artifact_text,
    },
    Behaviour {
        prefix: "tck-artifact-file",
        reply: artifact_file,
    },
    Behaviour {
        prefix: "tck-artifact-file-url",
        reply: artifact_file_url,
    },
    Behaviour {
        prefix: "tck-artifact-data",
        reply: artifact_data,
    },
    Behaviour {
        prefix: "tck-message-response",
        reply: message_response,
    },
    Behaviour {
        prefix: "tck-input-required",
        reply: input_required,
    },
    Behaviour {
        prefix: "tck-reject-task",
        reply: reject_task,
    },
    Behaviour {
        prefix: "tck-stream-001",
        reply: stream_001,
    },
    Behaviour {
        prefix: "tck-stream-002",
        reply: stream_002,
    },
    Behaviour {
        prefix: "tck-stream-003",
        reply: stream_003,
    },
    Behaviour {
        prefix: "tck-stream-ordering-001",
        reply: stream_ordering_001,
    },
    Behaviour {
        prefix: "tck-stream-artifact-text",
        reply: stream_artifact_text,
    },
    Behaviour {
        prefix: "tck-stream-artifact-file",
        reply: stream_artifact_file,
    },
    Behaviour {
        prefix: "tck-stream-artifact-chunked",
        reply: stream_artifact_chunked,
    },
    Behaviour {
        prefix: "test-resubscribe-message-id",
        reply: long_running,
    },
];

/// The behaviour for `message_id`: the longest prefix it starts with.
fn behaviour(message_id: &str) -> Option<&'static Behaviour> {
    BEHAVIOURS
        .iter()
        .filter(|behaviour| message_id.starts_with(behaviour.prefix))
        .max_by_key(|behaviour| behaviour.prefix.len())
}

/// A completed task whose reply is `text`.
fn completed(text: &str) -> Reply {
    Reply::text(text).with_final_state(TaskState::Completed)
}

/// `working`, then one artifact holding `parts`, then completed.
fn streamed_artifact(parts: Vec<Part>) -> Reply {
    let events = [Ok::<_, AgentError>(ReplyEvent::artifact(parts))];
    Reply::events(futures::stream::iter(events)).with_final_state(TaskState::Completed)
}

/// The file part of the file scenarios: `output.txt`, `text/plain`.
fn output_txt() -> Part {
    Part::file_bytes(b"tck", Some("output.txt"), Some("text/plain"))
}

fn complete_task(_: &Request) -> Reply {
    completed("Hello from TCK")
}

fn artifact_text(_: &Request) -> Reply {
    Reply::artifact(vec![Part::text("Generated text content")])
}

fn artifact_file(_: &Request) -> Reply {
    Reply::artifact(vec![output_txt()])
}

fn artifact_file_url(_: &Request) -> Reply {
    Reply::artifact(vec![Part::file_url(
        "https://example.com/output.txt",
        Some("output.txt"),
        Some("text/plain"),
    )])
}

fn artifact_data(_: &Request) -> Reply {
    let mut data = serde_json::Map::new();
    data.insert("key".to_owned(), "value".into());
    data.insert("count".to_owned(), 42.into());
    Reply::artifact(vec![Part::data(data)])
}

fn message_response(_: &Request) -> Reply {
    Reply::message(vec![Part::text("Direct message response")])
}

fn input_required(_: &Request) -> Reply {
    Reply::input_required(vec![Part::text("Please say more.")])
}

fn reject_task(_: &Request) -> Reply {
    Reply::reject("rejected")
}

fn stream_001(_: &Request) -> Reply {
    streamed_artifact(vec![Part::text("Stream hello from TCK")])
}

fn stream_002(_: &Request) -> Reply {
    Reply::stream(futures::stream::empty::<String>()).with_final_state(TaskState::Completed)
}

fn stream_003(_: &Request) -> Reply {
    streamed_artifact(vec![Part::text("Stream task lifecycle")])
}

fn stream_ordering_001(_: &Request) -> Reply {
    streamed_artifact(vec![Part::text("Ordered output")])
}

fn stream_artifact_text(_: &Request) -> Reply {
    streamed_artifact(vec![Part::text("Streamed text content")])
}

fn stream_artifact_file(_: &Request) -> Reply {
    streamed_artifact(vec![output_txt()])
}

fn stream_artifact_chunked(_: &Request) -> Reply {
    let events = [
        ReplyEvent::chunk(vec![Part::text("chunk-1 ")], false),
        ReplyEvent::chunk(vec![Part::text("chunk-2")], true),
    ]
    .map(Ok::<_, AgentError>);
    Reply::events(futures::stream::iter(events)).with_final_state(TaskState::Completed)
}

/// `working`, then silence for twice `TCK_STREAMING_TIMEOUT`, then completed.
fn long_running(_: &Request) -> Reply {
    let wait = streaming_timeout() * 2;
    let chunks = async_stream::stream! {
        yield Ok::<_, AgentError>("Working on it...".to_owned());
        tokio::time::sleep(wait).await;
    };
    Reply::stream(chunks).with_final_state(TaskState::Completed)
}

/// `TCK_STREAMING_TIMEOUT` in seconds (default 2, as the TCK's).
fn streaming_timeout() -> Duration {
    std::env::var("TCK_STREAMING_TIMEOUT")
        .ok()
        .and_then(|seconds| seconds.trim().parse::<f64>().ok())
        .filter(|seconds| seconds.is_finite() && *seconds >= 0.0 && *seconds <= 600.0)
        .map_or(Duration::from_secs(2), Duration::from_secs_f64)
}

/// The agent: the prefix's behaviour, or the scenarios' default (complete with an echo).
async fn agent(request: Request) -> Result<Reply, AgentError> {
    let reply = match behaviour(request.message_id()) {
        Some(behaviour) => (behaviour.reply)(&request),
        None => completed(&format!(
            "Unhandled messageId prefix: {}",
            request.message_id()
        )),
    };
    Ok(reply)
}

/// What the command line asks for: `--port N` (default 9999; 0 picks a free one), and
/// `--no-push` for a server without push notifications (the TCK checks the errors such a
/// server answers only against one).
struct Options {
    port: u16,
    push: bool,
}

fn options() -> Result<Options, String> {
    let mut args = std::env::args().skip(1);
    let mut options = Options {
        port: 9999,
        push: true,
    };
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--port" => {
                let value = args.next().ok_or("--port needs a value")?;
                options.port = value
                    .parse()
                    .map_err(|_| format!("--port: not a port number: {value:?}"))?;
            }
            "--no-push" => options.push = false,
            other => {
                return Err(format!(
                    "unknown argument {other:?}; usage: tck_sut [--port N] [--no-push]"
                ));
            }
        }
    }
    Ok(options)
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let options = options()?;
    let card = AgentCard::builder("a2ui-agent TCK SUT")
        .description("The A2A TCK's system under test, served by a2ui-agent")
        .version(env!("CARGO_PKG_VERSION"))
        .skill(AgentSkill::new(
            "tck",
            "TCK conformance",
            "Answers the TCK's messages by their messageId prefix",
        ))
        .build();
    // The TCK's webhook receiver listens on this machine (`http://localhost:PORT/webhook`):
    // plain http and loopback are allowed for it, and for nothing else.
    let push = PushSettings::default()
        .allow_http(true)
        .allow_host("localhost")
        .allow_host("127.0.0.1")
        .allow_host("::1");
    let builder = A2uiServer::builder(card, agent).final_state(TaskState::Completed);
    let builder = if options.push {
        builder.push(push)
    } else {
        builder
    };
    let server = builder.build()?;
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", options.port)).await?;
    println!("listening on http://{}/", listener.local_addr()?);
    server.serve(listener).await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_longest_prefix_wins() {
        let found = |id: &str| behaviour(id).map(|behaviour| behaviour.prefix);
        assert_eq!(
            found("tck-artifact-file-url-1"),
            Some("tck-artifact-file-url")
        );
        assert_eq!(found("tck-artifact-file-1"), Some("tck-artifact-file"));
        assert_eq!(
            found("tck-stream-artifact-file-x"),
            Some("tck-stream-artifact-file")
        );
        assert_eq!(found("something-else"), None);
    }
}
