//! What a block reads with: the parser's settings, where errors point, and where messages go.
//!
//! The driver ([`super::super::stream`]) lends a [`Cx`] to each call on a block; the
//! block's files take it from here rather than from the block.

use serde_json::Value;

use crate::parser::config::ParserConfig;
use crate::parser::error::Locator;

/// The parser's settings and output, lent to a block while it reads.
pub(crate) struct Cx<'a> {
    pub(crate) config: &'a ParserConfig,
    pub(crate) loc: &'a Locator,
    /// Messages emitted so far in this feed.
    pub(crate) out: &'a mut Vec<Value>,
}
