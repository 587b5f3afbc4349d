//! What a streamed reply may yield as a chunk of text: a `String`, a `&'static str`, or a
//! `Result` of one with an [`AgentError`], so an LLM stream maps into a reply with `?`-style
//! errors and no conversions.

use super::error::AgentError;

/// What a streamed reply's items may be: a chunk of text (`String`, `&'static str`), or a
/// `Result` of one with an [`AgentError`], whose error fails the task with its message. The
/// error type is fixed so that an item written `Ok(text)` needs no annotation; a stream with
/// another error type converts it on the way: `.map(|item| item.map_err(AgentError::new))`.
pub trait IntoChunk {
    /// The chunk, or why the stream failed.
    ///
    /// # Errors
    ///
    /// The stream's own error.
    fn into_chunk(self) -> Result<String, AgentError>;
}

impl IntoChunk for String {
    fn into_chunk(self) -> Result<String, AgentError> {
        Ok(self)
    }
}

impl IntoChunk for &'static str {
    fn into_chunk(self) -> Result<String, AgentError> {
        Ok(self.to_owned())
    }
}

impl<T: Into<String>> IntoChunk for Result<T, AgentError> {
    fn into_chunk(self) -> Result<String, AgentError> {
        self.map(Into::into)
    }
}
