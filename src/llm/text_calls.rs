//! Tool calls written as text: what small local models do instead of the API's `tool_calls`.
//!
//! Served by llama.cpp, Qwen2.5-Coder-0.5B answers "Find Thai restaurants in Paris" with the
//! tools offered by *writing* ```` ```json {"name": "search_restaurants", "arguments": {...}} ```` ````
//! as its content, which the server cannot recognise as a call; the 1.5B model writes the
//! bare object, or doubles its braces (`{{"name": ...}}`) as its chat template's own
//! example does, and a server without a tool-call parser passes the template's
//! `<tool_call>…</tool_call>` tags through as text. When tools are offered, a round's text
//! that begins like such a call (a `{`, a `[`, a Markdown fence, a `<tool_call>` tag) is held
//! back; when the answer ends and it is nothing but calls (each object naming an offered
//! tool, with object arguments), it becomes those calls; otherwise the held text goes out as
//! text, unchanged, and as soon as it stops looking like one.

use serde_json::Value;

use super::tools::{Tool, ToolCall};

/// The most bytes held back while text may be a written call.
const MAX_HELD: usize = 16 * 1024;

/// The tags of a call in the Hermes and Qwen chat templates.
const OPEN_TAG: &str = "<tool_call>";
const CLOSE_TAG: &str = "</tool_call>";

/// The tags around the tools' list in those templates' system turn. Qwen2.5-Coder-1.5B
/// began a call with them, empty (`<tools></tools>` and then the call's object), in one
/// of two runs of the restaurant agent's first turn.
const TOOLS_OPEN: &str = "<tools>";
const TOOLS_CLOSE: &str = "</tools>";

/// Holds back the start of one answer's text while it may be a written tool call.
#[derive(Debug, Default)]
pub(crate) struct TextCalls {
    held: String,
    /// The text is known not to be a call: it passes through.
    released: bool,
}

impl TextCalls {
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
    if let Some(rest) = body.strip_prefix(TOOLS_OPEN) {
        let rest = rest.trim_start();
        return match rest.strip_prefix(TOOLS_CLOSE) {
            Some(after) => could_be_call(after),
            None => TOOLS_CLOSE.starts_with(rest) || could_be_call(rest),
        };
    }
    body.is_empty()
        || body.starts_with('{')
        || body.starts_with('[')
        || body.starts_with(OPEN_TAG)
        || OPEN_TAG.starts_with(body)
        || TOOLS_OPEN.starts_with(body)
}

/// The calls `text` spells, if it is nothing but call objects: one, a list of them, or a
/// run of `<tool_call>`-tagged ones, possibly in one Markdown fence.
fn calls(text: &str, tools: &[Tool], round: u32) -> Option<Vec<ToolCall>> {
    let mut body = text.trim();
    if let Some(fenced) = body.strip_prefix("```") {
        let (_, rest) = fenced.split_once('\n')?;
        body = rest.trim_end().strip_suffix("```")?.trim();
    }
    let objects = objects(body)?;
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

/// The JSON objects `body` is made of: values one after another (lists flattened), each
/// maybe in `<tool_call>` tags (the last one's closing tag may be missing), with only
/// whitespace between them.
fn objects(body: &str) -> Option<Vec<Value>> {
    let mut objects = Vec::new();
    let mut rest = body.trim_start();
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix(TOOLS_OPEN) {
            rest = after.trim_start();
            continue;
        }
        if let Some(after) = rest.strip_prefix(TOOLS_CLOSE) {
            rest = after.trim_start();
            continue;
        }
        let tagged = rest.strip_prefix(OPEN_TAG);
        let (value, after) = value(tagged.unwrap_or(rest).trim_start())?;
        rest = after.trim_start();
        if tagged.is_some() {
            rest = rest.strip_prefix(CLOSE_TAG).unwrap_or(rest).trim_start();
        }
        match value {
            Value::Array(items) => objects.extend(items),
            object @ Value::Object(_) => objects.push(object),
            _ => return None,
        }
    }
    Some(objects)
}

/// The JSON value at the start of `text` and what follows it. An object whose braces are
/// doubled (`{{"name": ...}}`, as Qwen's chat template spells its example) is read as the
/// object inside.
fn value(text: &str) -> Option<(Value, &str)> {
    fn first(text: &str) -> Option<(Value, &str)> {
        let mut values = serde_json::Deserializer::from_str(text).into_iter::<Value>();
        let value = values.next()?.ok()?;
        Some((value, &text[values.byte_offset()..]))
    }
    if text.starts_with("{{") {
        let (value, after) = first(&text[1..])?;
        return Some((value, after.trim_start().strip_prefix('}')?));
    }
    first(text)
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
        let mut written = TextCalls::default();
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
            // Qwen's chat template spells its example call with doubled braces.
            &[
                "{{\"name\": \"search\", ",
                "\"arguments\": {\"q\": \"thai\"}}}",
            ],
            // The template's tags, from a server that does not read them.
            &[
                "<tool",
                "_call>\n{\"name\": \"search\", \"arguments\": {\"q\": \"thai\"}}\n</tool_call>",
            ],
            &["<tool_call>\n{\"name\": \"search\", \"arguments\": \"{\\\"q\\\":\\\"thai\\\"}\"}"],
            // The tags of the template's list of tools, empty, before the call.
            &[
                "<tools",
                "></",
                "tools>\n{\"name\": \"search\", \"arguments\": {\"q\": \"thai\"}}",
            ],
            &["<tools>\n{\"name\": \"search\", \"arguments\": {\"q\": \"thai\"}}\n</tools>"],
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
    fn a_run_of_tagged_calls_is_each_of_them_in_order() {
        let (out, calls) = read(&[
            "<tool_call>\n{\"name\": \"search\", \"arguments\": {\"q\": \"thai\"}}\n</tool_call>\n",
            "<tool_call>\n{\"name\": \"search\", \"arguments\": {\"q\": \"pho\"}}\n</tool_call>",
        ]);
        assert_eq!(out, "");
        let calls: Vec<(String, String)> = calls
            .unwrap()
            .into_iter()
            .map(|call| (call.id, call.arguments))
            .collect();
        assert_eq!(
            calls,
            [
                ("call_0_0".to_owned(), r#"{"q":"thai"}"#.to_owned()),
                ("call_0_1".to_owned(), r#"{"q":"pho"}"#.to_owned())
            ]
        );
    }

    #[test]
    fn anything_else_goes_out_as_text_unchanged() {
        for pieces in [
            &["Here ", "you go."][..],
            &["```json\n{\"name\": \"nope\", \"arguments\": {}}\n```"],
            &["{\"name\": \"search\"} and more"],
            &["```python\nprint(1)\n```"],
            &["<a2ui-json>[]</a2ui-json>"],
            &["<tool_call>\n{\"name\": \"search\"}\n</tool_call> and then some"],
            &["{{\"name\": \"search\"}"],
            // What the 1.5B model wrote with the tools' descriptions before the call: echoed
            // from the prompt, not a call.
            &["<tools>\n{\"type\": \"function\"}\n</tools>\n{\"name\": \"search\"}"],
        ] {
            let (out, calls) = read(pieces);
            let rest = calls.unwrap_err();
            assert_eq!(out + &rest, pieces.concat(), "{pieces:?}");
        }
        // Text that is plainly not a call is not held back at all.
        let mut written = TextCalls::default();
        assert_eq!(written.push("Hello"), Some("Hello".to_owned()));
    }
}
