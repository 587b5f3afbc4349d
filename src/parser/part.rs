//! What the parser hands out: a response cut into its text and its A2UI messages.

/// One part of a response: conversational text, or A2UI messages from a block.
#[derive(Debug, Clone, PartialEq)]
pub enum ParsedPart {
    /// Text outside the blocks, trimmed.
    Text(String),
    /// A2UI messages (each a JSON object such as `{"version": .., "updateComponents": ..}`).
    A2ui(Vec<serde_json::Value>),
}
