//! The JSON of the streaming chat-completions API (WIRE.md §7): the request body and the
//! chunks of the answer. Only the fields the connector reads are modelled; unknown fields are
//! ignored, so servers that add their own (Ollama's `system_fingerprint`, vLLM's
//! `stop_reason`) read the same.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::chat::ChatMessage;

/// `POST {base}/chat/completions` body.
#[derive(Debug, Serialize)]
pub(crate) struct ChatRequest<'a> {
    pub(crate) model: &'a str,
    pub(crate) messages: &'a [ChatMessage],
    pub(crate) stream: bool,
    pub(crate) stream_options: StreamOptions,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) temperature: Option<f32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) max_tokens: Option<u32>,
    #[serde(skip_serializing_if = "<[ToolSpec<'_>]>::is_empty")]
    pub(crate) tools: &'a [ToolSpec<'a>],
    /// `"required"`, or the tool the model must call; absent for the server's default.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) tool_choice: Option<Value>,
    /// The grammar the answer is sampled under, as the member the server reads it from
    /// (llama.cpp: `grammar`); empty when none is sent.
    #[serde(flatten)]
    pub(crate) grammar: Option<Grammar<'a>>,
}

/// A grammar (GBNF) under a member name of the server's choosing.
#[derive(Debug)]
pub(crate) struct Grammar<'a> {
    pub(crate) member: &'a str,
    pub(crate) text: &'a str,
}

impl Serialize for Grammar<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(1))?;
        map.serialize_entry(self.member, self.text)?;
        map.end()
    }
}

/// `tools[i]` of the request: `{"type": "function", "function": {name, description,
/// parameters}}`.
#[derive(Debug, Serialize)]
pub(crate) struct ToolSpec<'a> {
    #[serde(rename = "type")]
    pub(crate) kind: &'static str,
    pub(crate) function: FunctionSpec<'a>,
}

/// The function a [`ToolSpec`] offers.
#[derive(Debug, Serialize)]
pub(crate) struct FunctionSpec<'a> {
    pub(crate) name: &'a str,
    pub(crate) description: &'a str,
    pub(crate) parameters: &'a Value,
}

/// Asks for a last chunk with the token usage.
#[derive(Debug, Serialize)]
pub(crate) struct StreamOptions {
    pub(crate) include_usage: bool,
}

/// One `data:` event of the answer: a content delta, the finish reason, the usage, or an
/// error object.
#[derive(Debug, Deserialize)]
pub(crate) struct Chunk {
    #[serde(default)]
    pub(crate) choices: Vec<Choice>,
    #[serde(default)]
    pub(crate) usage: Option<Value>,
    #[serde(default)]
    pub(crate) error: Option<ErrorObject>,
}

/// `choices[i]` of a chunk.
#[derive(Debug, Deserialize)]
pub(crate) struct Choice {
    #[serde(default)]
    pub(crate) delta: Option<Delta>,
    #[serde(default)]
    pub(crate) finish_reason: Option<String>,
}

/// `choices[i].delta`: the role in the first chunk, then content pieces or pieces of tool
/// calls.
#[derive(Debug, Deserialize)]
pub(crate) struct Delta {
    #[serde(default)]
    pub(crate) content: Option<String>,
    #[serde(default)]
    pub(crate) tool_calls: Option<Vec<CallDelta>>,
}

/// `delta.tool_calls[i]`: a piece of the call at `index` (the id and name come first, the
/// arguments' JSON text in pieces after).
#[derive(Debug, Deserialize)]
pub(crate) struct CallDelta {
    #[serde(default)]
    pub(crate) index: Option<usize>,
    #[serde(default)]
    pub(crate) id: Option<String>,
    #[serde(default)]
    pub(crate) function: Option<FunctionDelta>,
}

/// `delta.tool_calls[i].function`.
#[derive(Debug, Deserialize)]
pub(crate) struct FunctionDelta {
    #[serde(default)]
    pub(crate) name: Option<String>,
    /// The arguments' JSON text; a server that sends them as a JSON object (some do)
    /// reads as that object's text.
    #[serde(default, deserialize_with = "text_or_json")]
    pub(crate) arguments: Option<String>,
}

/// A string as it is, any other JSON value as its text.
fn text_or_json<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<String>, D::Error> {
    Ok(match Option::<Value>::deserialize(deserializer)? {
        None | Some(Value::Null) => None,
        Some(Value::String(text)) => Some(text),
        Some(other) => Some(other.to_string()),
    })
}

/// `{"error": {"message", "type", "code"}}`, in an error response or mid-stream.
#[derive(Debug, Deserialize)]
pub(crate) struct ErrorObject {
    #[serde(default)]
    pub(crate) message: Option<String>,
    #[serde(default, rename = "type")]
    pub(crate) kind: Option<String>,
    #[serde(default)]
    pub(crate) code: Option<Value>,
}

impl ErrorObject {
    /// `message (type, code)`, with whatever of the three the server gave.
    pub(crate) fn describe(&self) -> String {
        let mut text = self
            .message
            .clone()
            .unwrap_or_else(|| "no message".to_owned());
        let mut detail = Vec::new();
        if let Some(kind) = &self.kind {
            detail.push(kind.clone());
        }
        match &self.code {
            Some(Value::String(code)) => detail.push(code.clone()),
            Some(Value::Number(code)) => detail.push(code.to_string()),
            _ => {}
        }
        if !detail.is_empty() {
            text.push_str(&format!(" ({})", detail.join(", ")));
        }
        text
    }
}

/// The error object of an error response body, if it has one. Some servers put a plain
/// string in `error` (`{"error": "model not found"}`); that reads as its message.
pub(crate) fn error_in_body(body: &str) -> Option<ErrorObject> {
    let value: Map<String, Value> = serde_json::from_str(body).ok()?;
    match value.get("error")? {
        Value::String(message) => Some(ErrorObject {
            message: Some(message.clone()),
            kind: None,
            code: None,
        }),
        other => serde_json::from_value(other.clone()).ok(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_error_body_reads_as_message_type_and_code() {
        let body = r#"{"error": {"message": "Rate limit reached", "type": "requests", "code": "rate_limit_exceeded"}}"#;
        assert_eq!(
            error_in_body(body).unwrap().describe(),
            "Rate limit reached (requests, rate_limit_exceeded)"
        );
        assert_eq!(
            error_in_body(r#"{"error": "model 'x' not found"}"#)
                .unwrap()
                .describe(),
            "model 'x' not found"
        );
        assert!(error_in_body("<html>502</html>").is_none());
    }

    #[test]
    fn a_usage_chunk_has_no_choices() {
        let chunk: Chunk = serde_json::from_str(
            r#"{"id":"c","object":"chat.completion.chunk","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":5,"total_tokens":8}}"#,
        )
        .unwrap();
        assert!(chunk.choices.is_empty());
        assert_eq!(chunk.usage.unwrap()["total_tokens"], 8);
    }
}
