//! A2UI as a function call: the prompt and the reader of the tool-call path.
//!
//! Hosted models and the frameworks around them call functions more reliably than they
//! write tags, and a provider constrains a function's arguments to its schema. On this
//! path the model calls [`A2UI_TOOL`] with `{"messages": [...]}` instead of writing
//! `<a2ui-json>` blocks; the model connector ([`crate::llm`]) turns the call's streamed
//! arguments into Direct JSON block text as they arrive, so the reader is Direct JSON's own
//! incremental parser, and readiness, validation, the URL policy and repairs apply
//! unchanged. This format says so in the prompt and writes the examples as calls.

use serde_json::Value;

use super::{FormatReader, OutputFormat, StreamReader, message_lines};
use crate::parser::{ParserConfig, StreamParser};

/// The name of the function a model calls to draw: `send_a2ui`.
pub const A2UI_TOOL: &str = "send_a2ui";

/// The output format of the tool-call path: the model calls [`A2UI_TOOL`] with the A2UI
/// messages as `{"messages": [...]}`; text stays text.
///
/// Its reader is Direct JSON's: give it to a connector that writes the call's arguments
/// as a Direct JSON block ([`OpenAiChatBuilder::a2ui_via`](crate::llm::OpenAiChatBuilder::a2ui_via)).
///
/// # Example
///
/// ```
/// use a2ui_agent::a2ui::ProtocolVersion;
/// use a2ui_agent::format::{OutputFormat, ToolCallFormat};
/// use a2ui_agent::generator::Generator;
///
/// let generator = Generator::builder(ProtocolVersion::V0_9).format(ToolCallFormat).build()?;
/// let prompt = generator.negotiate(None)?.prompt().to_owned();
/// assert!(prompt.contains("send_a2ui") && !prompt.contains("<a2ui-json>"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct ToolCallFormat;

impl OutputFormat for ToolCallFormat {
    fn name(&self) -> &str {
        "tool-call"
    }

    fn instructions(&self) -> String {
        format!(
            "## How to write your answer\n\
             \n\
             Write conversational text as usual. To show or change a user interface, call \
             the function `{A2UI_TOOL}` with the arguments {{\"messages\": [...]}}: the A2UI \
             messages, in order. Only the function's arguments are drawn: never write A2UI \
             messages, JSON or tags in your text. Keep the text short when a surface says \
             the same thing.\n\
             \n\
             - The arguments must be valid JSON: double quotes, no trailing commas.\n\
             - One call may hold every message of the answer; a later call is applied after \
             it.\n\
             - If the function answers with errors, call it again with the messages \
             corrected.\n"
        )
    }

    fn streams(&self) -> bool {
        true
    }

    fn reader(&self, config: ParserConfig) -> Box<dyn FormatReader> {
        Box::new(StreamReader(StreamParser::new(config)))
    }

    fn example(&self, messages: &[Value]) -> String {
        format!(
            "(calls `{A2UI_TOOL}` with)\n{{\"messages\": {}}}",
            message_lines(messages)
        )
    }

    fn notation(&self) -> String {
        format!(
            "as a new call of `{A2UI_TOOL}` whose arguments are {{\"messages\": [...]}} (valid \
             JSON: double quotes, no comments, backslashes in strings doubled)"
        )
    }
}
