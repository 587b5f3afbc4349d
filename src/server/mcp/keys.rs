//! The names A2UI over MCP Apps and our results use in `_meta` and in embedded resources,
//! shared by the handler, the tool and the result builder.

/// The capability and `_meta` key of A2UI over MCP Apps.
pub(super) const A2UI_KEY: &str = "org.a2ui/ui";

/// The MIME type of A2UI messages in a tool result.
pub(super) const A2UI_MIME: &str = "application/a2ui+json";

/// The `_meta` key of a result (and of a stateless client's call) naming the conversation.
pub(super) const CONTEXT_KEY: &str = "a2ui-agent/contextId";
