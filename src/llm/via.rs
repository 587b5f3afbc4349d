//! How the model writes A2UI: an option of the client, in a file of its own because the
//! builder, the client and the turn all read it and none of them owns it.

/// How the model writes A2UI: see [`OpenAiChatBuilder::a2ui_via`](super::OpenAiChatBuilder::a2ui_via).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum A2uiVia {
    /// Blocks in its text, in the request's output format (`<a2ui-json>`, Express).
    #[default]
    Text,
    /// Calls of the function `send_a2ui`, whose arguments are the messages.
    ToolCall,
}
