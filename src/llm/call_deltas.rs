//! The tool calls of one answer, joined from their streamed pieces.
//!
//! The model asks for calls in pieces (`delta.tool_calls`, several calls told apart by
//! `index`, the arguments' JSON text split anywhere); [`Calls`] joins them, bounded. Its own
//! file because it reads the wire's deltas and makes [`ToolCall`]s, and neither the wire nor
//! the tools need the other.

use std::collections::BTreeMap;

use super::LlmError;
use super::tools::ToolCall;
use super::wire::CallDelta;

/// The most calls the model may ask for in one answer.
const MAX_CALLS: usize = 32;
/// The most bytes of one call's arguments.
const MAX_ARGUMENTS: usize = 256 * 1024;

/// A piece of one call's arguments, as it streamed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Arguments {
    /// The call's index in the answer.
    pub(crate) index: usize,
    /// The call's name, as far as it came.
    pub(crate) name: String,
    /// The piece of the arguments' JSON text.
    pub(crate) text: String,
}

/// The calls of one answer, joined from their streamed pieces.
#[derive(Debug, Default)]
pub(crate) struct Calls {
    calls: BTreeMap<usize, ToolCall>,
}

impl Calls {
    /// Adds the pieces of one delta. A piece without `index` belongs to the call at its
    /// position in the delta (servers that send each call whole omit it). Returns each
    /// piece of arguments as it came (the call's index, its name so far, the piece), for a
    /// reader that acts on arguments while they stream.
    pub(crate) fn add(&mut self, pieces: Vec<CallDelta>) -> Result<Vec<Arguments>, LlmError> {
        let mut streamed = Vec::new();
        for (position, piece) in pieces.into_iter().enumerate() {
            let index = piece.index.unwrap_or(position);
            if !self.calls.contains_key(&index) && self.calls.len() >= MAX_CALLS {
                return Err(LlmError::Protocol(format!(
                    "the model asked for more than {MAX_CALLS} tool calls at once"
                )));
            }
            let call = self.calls.entry(index).or_insert_with(|| ToolCall {
                id: String::new(),
                name: String::new(),
                arguments: String::new(),
            });
            if let Some(id) = piece.id.filter(|id| !id.is_empty()) {
                call.id = id;
            }
            if let Some(function) = piece.function {
                if let Some(name) = function.name {
                    call.name.push_str(&name);
                }
                if let Some(arguments) = function.arguments.filter(|text| !text.is_empty()) {
                    call.arguments.push_str(&arguments);
                    streamed.push(Arguments {
                        index,
                        name: call.name.clone(),
                        text: arguments,
                    });
                }
            }
            if call.arguments.len() + call.name.len() > MAX_ARGUMENTS {
                return Err(LlmError::Protocol(format!(
                    "the arguments of a tool call are longer than {MAX_ARGUMENTS} bytes"
                )));
            }
        }
        Ok(streamed)
    }

    /// Whether the model asked for no call.
    pub(crate) fn is_empty(&self) -> bool {
        self.calls.is_empty()
    }

    /// The calls in index order; one the server gave no id gets `call_{round}_{index}`.
    pub(crate) fn finish(self, round: u32) -> Vec<ToolCall> {
        self.calls
            .into_iter()
            .map(|(index, mut call)| {
                if call.id.is_empty() {
                    call.id = format!("call_{round}_{index}");
                }
                call
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;

    fn pieces(value: Value) -> Vec<CallDelta> {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn interleaved_pieces_join_by_index() {
        let mut calls = Calls::default();
        calls
            .add(pieces(
                json!([{"index": 1, "id": "b", "function": {"name": "two", "arguments": ""}}]),
            ))
            .unwrap();
        calls
            .add(pieces(json!([{"index": 0, "id": "a", "function": {"name": "one", "arguments": "{\"x\""}}])))
            .unwrap();
        calls
            .add(pieces(json!([{"index": 1, "function": {"arguments": "{}"}}, {"index": 0, "function": {"arguments": ": 1}"}}])))
            .unwrap();
        let calls = calls.finish(0);
        assert_eq!(calls.len(), 2);
        assert_eq!(
            (
                calls[0].id.as_str(),
                calls[0].name.as_str(),
                calls[0].arguments.as_str()
            ),
            ("a", "one", "{\"x\": 1}")
        );
        assert_eq!(
            (calls[1].id.as_str(), calls[1].arguments.as_str()),
            ("b", "{}")
        );
    }

    #[test]
    fn too_many_calls_or_too_long_arguments_are_refused() {
        let mut calls = Calls::default();
        let many: Vec<Value> = (0..=MAX_CALLS)
            .map(|i| json!({"index": i, "function": {"name": "t"}}))
            .collect();
        assert!(calls.add(pieces(Value::Array(many))).is_err());
        let mut calls = Calls::default();
        let long = "x".repeat(MAX_ARGUMENTS / 2 + 1);
        calls
            .add(pieces(
                json!([{"index": 0, "function": {"arguments": long}}]),
            ))
            .unwrap();
        assert!(
            calls
                .add(pieces(
                    json!([{"index": 0, "function": {"arguments": long}}])
                ))
                .is_err()
        );
    }
}
