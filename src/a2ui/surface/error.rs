//! [`SurfaceError`]: why a message could not be applied to the surfaces, or a button not
//! pressed.

/// Why [`Surfaces`](super::Surfaces) refused a message or a press.
///
/// # Example
///
/// ```
/// use a2ui_agent::a2ui::{SurfaceError, Surfaces};
/// use serde_json::json;
///
/// let mut surfaces = Surfaces::new();
/// let error = surfaces
///     .apply(&json!({"version": "v0.9", "updateComponents": {"surfaceId": "s", "components": []}}))
///     .unwrap_err();
/// assert_eq!(error, SurfaceError::NoSurface("s".into()));
/// assert_eq!(error.to_string(), "no surface \"s\" was created");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SurfaceError {
    /// The message is not an A2UI message this model knows, or lacks what its kind needs.
    #[error("not an A2UI message: {0}")]
    Malformed(String),
    /// The message updates, or the press is on, a surface that is not held.
    #[error("no surface {0:?} was created")]
    NoSurface(String),
    /// A limit was reached (surfaces, components, data model bytes).
    #[error("too large: {0}")]
    TooLarge(String),
    /// A data path that cannot be written.
    #[error("bad data path: {0}")]
    BadPath(String),
    /// The pressed component has no action to send to the agent (none, or a function the
    /// renderer runs itself).
    #[error("nothing to send: {0}")]
    NoAction(String),
}
