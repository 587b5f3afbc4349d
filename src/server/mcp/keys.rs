//! The names A2UI over MCP Apps gives its keys and types, in one place so that the session,
//! the tool and the result read the same ones.

/// The capability and `_meta` key of A2UI over MCP Apps.
pub(super) const A2UI_KEY: &str = "org.a2ui/ui";

/// The MIME type of A2UI messages in a tool result.
pub(super) const A2UI_MIME: &str = "application/a2ui+json";

/// The `_meta` key of a result (and of a stateless client's call) naming the conversation.
pub(super) const CONTEXT_KEY: &str = "a2ui-agent/contextId";
