//! Tool calls written as text: what small local models do instead of the API's `tool_calls`.
//!
//! Served by llama.cpp, Qwen2.5-Coder-0.5B answers "Find Thai restaurants in Paris" with the
//! tools offered by *writing* ```` ```json {"name": "search_restaurants", "arguments": {...}} ```` ````
//! as its content, which the server cannot recognise as a call. When tools are offered, a
//! round's text that begins like such an object (a `{`, or a Markdown fence then a `{`) is
//! held back; when the answer ends and it is exactly one JSON object (or a list of them)
//! naming an offered tool with object arguments, it becomes those calls; otherwise the held
//! text goes out as text, unchanged, and as soon as it stops looking like one.

use serde_json::Value;

use super::tools::{Tool, ToolCall};

/// The most bytes held back while text may be a written call.
const MAX_HELD: usize = 16 * 1024;

/// Holds back the start of one answer's text while it may be a written tool call.
#[derive(Debug, Default)]
pub(crate) struct Written {
    held: String,
    /// The text is known not to be a call: it passes through.
    released: bool,
}

impl Written {
    /// `text` is the next piece of the answer; returns what may go out now.
    pub(crate) fn push(&mut self, text: &str) -> Option<String> {
        if self.released {
            return Some(text.to_owned());
        }
        self.held.push_str(text);
        if self.held.len() > MAX_HELD || !could_be_call(&self.held) {
            self.released = true;
            return Some(std::mem::take(&mut self.held)).filter(|held| !held.is_empty());
        }
        None
    }

    /// At the end of the answer: the calls the held text is, or the text to let out.
    pub(crate) fn finish(self, tools: &[Tool], round: u32) -> Result<Vec<ToolCall>, String> {
        if self.released || self.held.trim().is_empty() {
            return Err(self.held);
        }
        calls(&self.held, tools, round).ok_or(self.held)
    }
}

/// Whether `text` is still the start of a fenced or bare JSON object or list.
fn could_be_call(text: &str) -> bool {
    let text = text.trim_start();
    if text.is_empty() || "```".starts_with(text) {
        return true;
    }
    let body = match text.strip_prefix("```") {
        Some(fenced) => match fenced.split_once('\n') {
            // The fence's info string: "json", or nothing.
            Some((info, rest)) if matches!(info.trim(), "" | "json") => rest.trim_start(),
            Some(_) => return false,
            None => return "json".starts_with(fenced.trim()) || fenced.trim().is_empty(),
        },
        None => text,
    };
    body.is_empty() || body.starts_with('{') || body.starts_with('[')
}

/// The calls `text` spells, if it is nothing but one call object or a list of them.
fn calls(text: &str, tools: &[Tool], round: u32) -> Option<Vec<ToolCall>> {
    let mut body = text.trim();
    if let Some(fenced) = body.strip_prefix("```") {
        let (_, rest) = fenced.split_once('\n')?;
        body = rest.trim_end().strip_suffix("```")?.trim();
    }
    let objects = match serde_json::from_str::<Value>(body).ok()? {
        Value::Array(items) => items,
        object @ Value::Object(_) => vec![object],
        _ => return None,
    };
    objects
        .iter()
        .enumerate()
        .map(|(index, object)| {
            let name = object.get("name")?.as_str()?;
            tools.iter().find(|tool| tool.name() == name)?;
            let arguments = match object.get("arguments").or(object.get("parameters")) {
                None => "{}".to_owned(),
                Some(value @ Value::Object(_)) => value.to_string(),
                Some(Value::String(text)) => text.clone(),
                Some(_) => return None,
            };
            Some(ToolCall {
                id: format!("call_{round}_{index}"),
                name: name.to_owned(),
                arguments,
            })
        })
        .collect::<Option<Vec<_>>>()
        .filter(|calls| !calls.is_empty())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn tools() -> Vec<Tool> {
        vec![Tool::new("search", "", json!({}), |_| async {
            Ok(json!([]))
        })]
    }

    fn read(pieces: &[&str]) -> (String, Result<Vec<ToolCall>, String>) {
        let mut written = Written::default();
        let mut out = String::new();
        for piece in pieces {
            out.extend(written.push(piece));
        }
        (out, written.finish(&tools(), 0))
    }

    #[test]
    fn a_fenced_or_bare_call_object_is_a_call() {
        for pieces in [
            &[
                "``",
                "`json\n{\n  \"name\": \"search\",",
                " \"arguments\": {\"q\": \"thai\"}}\n```",
            ][..],
            &["{\"name\": \"search\", \"arguments\": {\"q\": \"thai\"}}"],
            &["[{\"name\": \"search\", \"parameters\": {\"q\": \"thai\"}}]"],
        ] {
            let (out, calls) = read(pieces);
            assert_eq!(out, "", "{pieces:?}");
            let calls = calls.unwrap();
            assert_eq!(calls.len(), 1);
            assert_eq!(
                (calls[0].name.as_str(), calls[0].arguments.as_str()),
                ("search", r#"{"q":"thai"}"#)
            );
        }
    }

    #[test]
    fn anything_else_goes_out_as_text_unchanged() {
        for pieces in [
            &["Here ", "you go."][..],
            &["```json\n{\"name\": \"nope\", \"arguments\": {}}\n```"],
            &["{\"name\": \"search\"} and more"],
            &["```python\nprint(1)\n```"],
            &["<a2ui-json>[]</a2ui-json>"],
        ] {
            let (out, calls) = read(pieces);
            let rest = calls.unwrap_err();
            assert_eq!(out + &rest, pieces.concat(), "{pieces:?}");
        }
        // Text that is plainly not a call is not held back at all.
        let mut written = Written::default();
        assert_eq!(written.push("Hello"), Some("Hello".to_owned()));
    }
}
