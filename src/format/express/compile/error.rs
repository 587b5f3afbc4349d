//! [`CompileError`]: why a block does not compile. Its own file because every part of the
//! compiler makes one.

/// Why a block does not compile, at a byte offset of the block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CompileError {
    /// `true`: the text cannot be read (a parse error); `false`: it reads but names what the
    /// catalog does not declare (a validation error).
    pub(crate) syntax: bool,
    pub(crate) message: String,
    pub(crate) at: usize,
}

/// A validation error at `at`: the block reads, but names what the catalogs do not declare.
pub(super) fn invalid(at: usize, message: impl Into<String>) -> CompileError {
    CompileError {
        syntax: false,
        message: message.into(),
        at,
    }
}
