//! A2UI through a tool call: the `send_a2ui` tool, and its streamed arguments as Direct JSON.
//!
//! With [`A2uiVia::ToolCall`](super::A2uiVia::ToolCall), a request whose output format is
//! the tool-call format ([`ToolCallFormat`](crate::format::ToolCallFormat)) or Direct JSON
//! offers the model [`A2UI_TOOL`], whose argument schema is the negotiated catalogs'
//! message schema ([`RequestProcessor::message_schema`]). The model's arguments
//! (`{"messages": [...]}`) stream as JSON text cut anywhere; [`Drawing`] passes the value
//! of `messages` through as the text of a Direct JSON block, byte for byte as it arrives,
//! so the server's one incremental parser reads it: a component is drawn while the
//! arguments still stream, and validation, the URL policy and repairs apply as to a block
//! the model wrote. Arguments that hold no `messages` go into the block whole, so the
//! parser or the validator says what is wrong and the repair turn tells the model.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::call_deltas::Arguments;
use super::chat::ChatMessage;
use super::tools::{Tool, ToolCall};
use crate::format::{A2UI_TOOL, CLOSE_TAG, OPEN_TAG};
use crate::generator::processor::RequestProcessor;
use crate::request::Repair;

/// What the model is told after a round in which it drew and also called other tools.
const DRAWN: &str = "The messages were sent to the client.";

/// The `send_a2ui` tool for `processor`'s catalogs, if its format reads Direct JSON blocks
/// and its schema can be written.
pub(crate) fn a2ui_tool(processor: &RequestProcessor) -> Option<Tool> {
    if !matches!(processor.format().name(), "tool-call" | "direct-json") {
        tracing::debug!(
            format = processor.format().name(),
            "A2UI is not offered as a tool for this format"
        );
        return None;
    }
    let schema = match processor.message_schema() {
        Ok(schema) => schema,
        Err(error) => {
            tracing::warn!(%error, "A2UI is not offered as a tool: its schema cannot be written");
            return None;
        }
    };
    let description = "Shows or changes the user interface: the A2UI messages, applied in order.";
    Some(Tool::for_a2ui(
        A2UI_TOOL,
        description,
        parameters(schema),
        DRAWN,
    ))
}

/// The arguments' schema: `{"messages": [message, ...]}`, with the message schema's
/// definitions lifted to the top so that its `#/$defs/...` references still point there.
///
/// Not strict (OpenAI's `strict: true`): strict mode wants every property required and no
/// `allOf`, and A2UI's components have optional properties and share their common ones
/// through `allOf`, so the schema is sent as it is and the validator checks the rest.
fn parameters(mut message: Value) -> Value {
    let defs = message
        .as_object_mut()
        .and_then(|map| map.remove("$defs"))
        .unwrap_or_else(|| json!({}));
    json!({
        "type": "object",
        "properties": {
            "messages": {
                "type": "array",
                "description": "The A2UI messages, in order.",
                "items": message,
            }
        },
        "required": ["messages"],
        "$defs": defs,
    })
}

/// Puts the `repairs` at the end of `chat` (as [`RepairTurns::Continue`] wrote them: the
/// rejected answer as the assistant's turn, what to mend as the user's) the way the model
/// made them: each block of a rejected answer becomes a `send_a2ui` call, and what to mend
/// the call's result, so the model repairs in the shape it drew. An answer without a block
/// (text only) keeps its two turns.
///
/// [`RepairTurns::Continue`]: super::RepairTurns::Continue
pub(crate) fn repairs_as_results(chat: &mut Vec<ChatMessage>, repairs: &[Repair]) {
    let Some(start) = chat.len().checked_sub(2 * repairs.len()) else {
        return;
    };
    let turns = chat.split_off(start);
    for (round, (repair, pair)) in repairs.iter().zip(turns.chunks(2)).enumerate() {
        let (said, calls) = answer_as_calls(repair.answer(), round);
        let [answer, asked] = pair else { return };
        if calls.is_empty() {
            chat.push(answer.clone());
            chat.push(asked.clone());
            continue;
        }
        let ids: Vec<String> = calls.iter().map(|call| call.id.clone()).collect();
        chat.push(ChatMessage::assistant_calls(said, calls));
        for (i, id) in ids.into_iter().enumerate() {
            let result = if i == 0 {
                asked.content.clone()
            } else {
                "What to mend in every call of this answer is in the first call's result.".into()
            };
            chat.push(ChatMessage::tool(id, result));
        }
    }
}

/// The text of `answer` outside its Direct JSON blocks, and each block as a `send_a2ui`
/// call (arguments `{"messages": block}`, or the block's text under `"unreadable"` when it
/// is not JSON), numbered for repair `round`.
fn answer_as_calls(answer: &str, round: usize) -> (String, Vec<ToolCall>) {
    let mut said = String::new();
    let mut calls = Vec::new();
    let mut rest = answer;
    while let Some(open) = rest.find(OPEN_TAG) {
        said.push_str(&rest[..open]);
        let inside = &rest[open + OPEN_TAG.len()..];
        let (block, after) = match inside.find(CLOSE_TAG) {
            Some(close) => (&inside[..close], &inside[close + CLOSE_TAG.len()..]),
            None => (inside, ""),
        };
        let arguments = match serde_json::from_str::<Value>(block) {
            Ok(messages) => json!({"messages": messages}),
            Err(_) => json!({"unreadable": block}),
        };
        calls.push(ToolCall {
            id: format!("a2ui_repair_{round}_{}", calls.len()),
            name: A2UI_TOOL.to_owned(),
            arguments: arguments.to_string(),
        });
        rest = after;
    }
    said.push_str(rest);
    (said, calls)
}

/// Where a scanner is in the arguments' JSON text.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Looking for the `messages` member (or a bare array).
    #[default]
    Seeking,
    /// Passing the value of `messages` through.
    Passing,
    /// The value has been passed; the rest is ignored.
    Done,
}

/// One call's arguments, read once, byte by byte: the value of its top-level `messages`
/// member (or the whole text, when it is an array) goes out as a Direct JSON block.
#[derive(Debug, Default)]
struct Scanner {
    mode: Mode,
    /// Nesting depth of the arguments' JSON, outside strings.
    depth: u32,
    in_string: bool,
    escaped: bool,
    /// At depth 1: the last key read, and whether a `:` followed it.
    key: String,
    reading_key: bool,
    after_colon: bool,
    /// The text before `messages` was found, for arguments that turn out to have none.
    raw: String,
    /// Whether the block was opened, and closed.
    opened: bool,
    closed: bool,
    /// Whether the passed value is the whole text (a bare array).
    bare: bool,
}

impl Scanner {
    /// Reads `text`, adding to `out` what goes into the block.
    fn feed(&mut self, text: &str, out: &mut String) {
        for c in text.chars() {
            if self.mode == Mode::Seeking {
                self.raw.push(c);
            }
            self.step(c, out);
        }
    }

    fn step(&mut self, c: char, out: &mut String) {
        if self.mode == Mode::Seeking && self.depth == 0 && !self.in_string && c == '[' {
            self.bare = true;
            self.start(out);
        }
        let passing = self.mode == Mode::Passing;
        if self.in_string {
            if passing {
                out.push(c);
            }
            match (self.escaped, c) {
                (true, _) => self.escaped = false,
                (false, '\\') => self.escaped = true,
                (false, '"') => {
                    self.in_string = false;
                    if self.reading_key {
                        self.reading_key = false;
                    }
                }
                (false, c) if self.reading_key => self.key.push(c),
                _ => {}
            }
            return;
        }
        let at_member = self.depth == 1 && !self.bare;
        if passing && at_member && matches!(c, ',' | '}') {
            // The value ended: its block closes now, not when the call does.
            self.mode = Mode::Done;
            self.closed = true;
            out.push_str(CLOSE_TAG);
        } else if passing {
            out.push(c);
        }
        match c {
            '"' => {
                self.in_string = true;
                if at_member && self.mode == Mode::Seeking && !self.after_colon {
                    self.reading_key = true;
                    self.key.clear();
                }
            }
            ':' if at_member => self.after_colon = true,
            ',' if at_member => self.after_colon = false,
            '{' | '[' => self.depth = self.depth.saturating_add(1),
            '}' | ']' => self.depth = self.depth.saturating_sub(1),
            _ => {}
        }
        if self.mode == Mode::Seeking
            && at_member
            && self.after_colon
            && self.key == "messages"
            && !c.is_whitespace()
            && c != ':'
        {
            // The first character of the value: passed, and counted above.
            self.start(out);
            out.push(c);
        }
    }

    /// Opens the block: the value passes from here on.
    fn start(&mut self, out: &mut String) {
        self.mode = Mode::Passing;
        self.raw = String::new();
        self.opened = true;
        out.push_str(OPEN_TAG);
    }

    /// Ends the call's block; arguments with no `messages` go into it whole.
    fn finish(self, out: &mut String) {
        if self.closed {
            return;
        }
        if self.opened {
            out.push_str(CLOSE_TAG);
            return;
        }
        tracing::debug!("a send_a2ui call had no messages member");
        out.push_str(OPEN_TAG);
        out.push_str(&self.raw);
        out.push_str(CLOSE_TAG);
    }
}

/// The `send_a2ui` calls of one answer, as Direct JSON block text while they stream.
///
/// Calls stream one after the other (OpenAI's shape): a piece of a call not seen before
/// ends the calls before it. A server that interleaves calls gets each later call's block
/// held until the answer ends, so blocks never mix.
#[derive(Debug, Default)]
pub(crate) struct Drawing {
    scanners: BTreeMap<usize, (Scanner, String)>,
    live: Option<usize>,
    /// The calls whose blocks were closed when a later call began.
    closed: Vec<usize>,
    /// Whether a call streamed arguments.
    streamed: bool,
}

impl Drawing {
    /// Reads one piece of arguments of the call `arguments.index`, if it calls
    /// [`A2UI_TOOL`]: the block text that goes out now, if any.
    pub(crate) fn hear(&mut self, arguments: &Arguments) -> Option<String> {
        if arguments.name != A2UI_TOOL {
            return None;
        }
        self.streamed = true;
        let mut out = String::new();
        let index = arguments.index;
        if self.closed.contains(&index) {
            // Its block is closed: what is lost makes it unreadable, which the repair says.
            tracing::debug!(
                index,
                "a piece of a send_a2ui call came after the next call began"
            );
            return None;
        }
        if !self.scanners.contains_key(&index) && self.live.is_none_or(|live| index > live) {
            if let Some(live) = self.live.take() {
                self.close(live, &mut out);
                self.closed.push(live);
            }
            self.live = Some(index);
        }
        let (scanner, held) = self.scanners.entry(index).or_default();
        if self.live == Some(index) {
            scanner.feed(&arguments.text, &mut out);
        } else {
            scanner.feed(&arguments.text, held);
        }
        (!out.is_empty()).then_some(out)
    }

    /// Ends the block of the call streaming now, before text the model writes after it
    /// (text inside an open block would be read as part of it).
    pub(crate) fn interrupt(&mut self) -> Option<String> {
        let live = self.live.take()?;
        let mut out = String::new();
        self.close(live, &mut out);
        self.closed.push(live);
        (!out.is_empty()).then_some(out)
    }

    /// Reads the whole arguments of a call that did not stream (written as text).
    pub(crate) fn whole(&mut self, arguments: &str) -> String {
        let mut out = String::new();
        let mut scanner = Scanner::default();
        scanner.feed(arguments, &mut out);
        scanner.finish(&mut out);
        out
    }

    /// Whether a call streamed arguments.
    pub(crate) fn streamed(&self) -> bool {
        self.streamed
    }

    /// At the end of the answer: the rest of every block.
    pub(crate) fn finish(&mut self) -> Option<String> {
        let mut out = String::new();
        let indexes: Vec<usize> = self.scanners.keys().copied().collect();
        for index in indexes {
            self.close(index, &mut out);
        }
        self.live = None;
        (!out.is_empty()).then_some(out)
    }

    /// Ends the block of call `index`: what it held, then its end.
    fn close(&mut self, index: usize, out: &mut String) {
        if let Some((scanner, held)) = self.scanners.remove(&index) {
            out.push_str(&held);
            scanner.finish(out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drawn(pieces: &[&str]) -> String {
        let mut drawing = Drawing::default();
        let mut out = String::new();
        for piece in pieces {
            let arguments = Arguments {
                index: 0,
                name: A2UI_TOOL.into(),
                text: (*piece).into(),
            };
            out.extend(drawing.hear(&arguments));
        }
        out.extend(drawing.finish());
        out
    }

    #[test]
    fn the_messages_value_becomes_a_block_however_the_arguments_are_cut() {
        let arguments =
            r#"{"note": "a \"messages\": [1]", "messages": [{"v": "x\"]}"}], "after": 1}"#;
        let whole = drawn(&[arguments]);
        assert_eq!(
            whole,
            format!(r#"{OPEN_TAG}[{{"v": "x\"]}}"}}]{CLOSE_TAG}"#)
        );
        for cut in 1..arguments.len() {
            assert_eq!(
                drawn(&[&arguments[..cut], &arguments[cut..]]),
                whole,
                "cut at {cut}"
            );
        }
    }

    #[test]
    fn a_bare_array_passes_whole_and_anything_else_goes_in_as_it_is() {
        assert_eq!(
            drawn(&["[1, ", "2]"]),
            format!("{OPEN_TAG}[1, 2]{CLOSE_TAG}")
        );
        assert_eq!(
            drawn(&["not ", "json"]),
            format!("{OPEN_TAG}not json{CLOSE_TAG}")
        );
        assert_eq!(
            drawn(&[r#"{"x": 1}"#]),
            format!(r#"{OPEN_TAG}{{"x": 1}}{CLOSE_TAG}"#)
        );
    }

    #[test]
    fn a_second_call_closes_the_first_block() {
        let mut drawing = Drawing::default();
        let piece = |index: usize, text: &str| Arguments {
            index,
            name: A2UI_TOOL.into(),
            text: text.into(),
        };
        let mut out = String::new();
        out.extend(drawing.hear(&piece(0, r#"{"messages": [1"#)));
        out.extend(drawing.hear(&piece(1, r#"{"messages": [2]}"#)));
        assert_eq!(
            drawing.hear(&piece(0, "]}")),
            None,
            "the first block is closed"
        );
        out.extend(drawing.finish());
        assert_eq!(
            out,
            format!("{OPEN_TAG}[1{CLOSE_TAG}{OPEN_TAG}[2]{CLOSE_TAG}")
        );
    }
}
