//! `a2ui-agent validate`: check A2UI messages the way the server checks a model's output.
//!
//! Input is a JSON array of messages, JSON lines (one message, or one array, per line), or an
//! example file `{"messages": [...]}`, read from FILE or stdin. Exit status 0 when the
//! messages are valid, 1 with one JSON line per problem on stdout, 2 when the input or a
//! catalog cannot be read.

use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;

use a2ui_agent::a2ui::{Catalog, ProtocolVersion, ValidationError, Validator};
use serde_json::{Value, json};

/// Arguments of `a2ui-agent validate`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Protocol version (v0.8, v0.9, v0.9.1, v1.0). By default, the `version` of the first
    /// message, or v0.8 when it has none.
    #[arg(long = "version", value_name = "VERSION", value_parser = crate::parse_version)]
    protocol: Option<ProtocolVersion>,
    /// A custom catalog file for that version, in addition to the basic catalog (one with the
    /// basic catalog's id replaces it). Repeatable.
    #[arg(long = "catalog", value_name = "FILE")]
    catalogs: Vec<PathBuf>,
    /// Print each problem as the protocol's VALIDATION_FAILED error message, the form a model
    /// is shown to repair its output.
    #[arg(long)]
    feedback: bool,
    /// Check each message on its own (schema only), as the streaming parser does.
    #[arg(long)]
    per_message: bool,
    /// The messages; stdin when absent.
    file: Option<PathBuf>,
}

/// Runs `a2ui-agent validate`.
pub fn run(args: Args) -> ExitCode {
    match check(&args) {
        Ok((_, errors)) if errors.is_empty() => ExitCode::SUCCESS,
        Ok((version, errors)) => {
            for error in errors {
                let line = if args.feedback {
                    error.to_feedback(version)
                } else {
                    json!({
                        "messageIndex": error.message_index,
                        "surfaceId": error.surface_id,
                        "path": error.pointer,
                        "message": error.message,
                    })
                };
                println!("{line}");
            }
            ExitCode::from(1)
        }
        Err(problem) => {
            eprintln!("a2ui-agent validate: {problem}");
            ExitCode::from(2)
        }
    }
}

fn check(args: &Args) -> Result<(ProtocolVersion, Vec<ValidationError>), String> {
    let text = match &args.file {
        Some(path) => {
            std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?
        }
        None => {
            let mut text = String::new();
            std::io::stdin()
                .read_to_string(&mut text)
                .map_err(|e| format!("stdin: {e}"))?;
            text
        }
    };
    let messages = messages(&text)?;
    let version = args.protocol.unwrap_or_else(|| infer_version(&messages));
    let mut catalogs = vec![Catalog::try_basic(version).map_err(|e| e.to_string())?];
    for path in &args.catalogs {
        let catalog = Catalog::from_path(version, path).map_err(|e| e.to_string())?;
        catalogs.retain(|c| c.id() != catalog.id());
        catalogs.push(catalog);
    }
    let validator = Validator::new(version, &catalogs).map_err(|e| e.to_string())?;
    let errors = if args.per_message {
        messages
            .iter()
            .enumerate()
            .filter_map(|(i, m)| {
                validator.check_message(m).err().map(|e| ValidationError {
                    message_index: Some(i),
                    ..e
                })
            })
            .collect()
    } else {
        validator
            .check_response(&messages)
            .err()
            .unwrap_or_default()
    };
    Ok((version, errors))
}

/// The messages in `text`: JSON values one after another (an array, JSON lines, or an
/// example file's `{"messages": [...]}`), arrays flattened.
fn messages(text: &str) -> Result<Vec<Value>, String> {
    let mut out = Vec::new();
    for value in serde_json::Deserializer::from_str(text).into_iter::<Value>() {
        match value.map_err(|e| format!("input is not JSON: {e}"))? {
            Value::Array(items) => out.extend(items),
            Value::Object(mut map) if map.get("messages").is_some_and(Value::is_array) => {
                if let Some(Value::Array(items)) = map.remove("messages") {
                    out.extend(items);
                }
            }
            other => out.push(other),
        }
    }
    if out.is_empty() {
        return Err("no messages in the input".into());
    }
    Ok(out)
}

fn infer_version(messages: &[Value]) -> ProtocolVersion {
    messages
        .iter()
        .find_map(|m| m.get("version")?.as_str())
        .and_then(ProtocolVersion::from_message_version)
        .unwrap_or(ProtocolVersion::V0_8)
}
