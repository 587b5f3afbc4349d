//! [`OrchestratorError`]: why an orchestrator could not be built, naming the sub-agent at
//! fault as the operator configured it.

use crate::client::ClientError;

/// Why [`OrchestratorBuilder::connect`](super::OrchestratorBuilder::connect) failed.
///
/// # Example
///
/// ```
/// use a2ui_agent::orchestrator::OrchestratorError;
///
/// let error = OrchestratorError::NoAgents;
/// assert_eq!(error.to_string(), "an orchestrator needs at least one sub-agent");
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum OrchestratorError {
    /// No sub-agent was given.
    #[error("an orchestrator needs at least one sub-agent")]
    NoAgents,
    /// A sub-agent's card could not be read (it is down, or its card is unusable).
    #[error("sub-agent {url}: {source}")]
    Connect {
        /// The sub-agent's base URL, as configured.
        url: String,
        /// Why.
        #[source]
        source: ClientError,
    },
    /// The routing model could not be set up.
    #[cfg(feature = "llm")]
    #[error("the routing model: {0}")]
    Model(#[from] crate::llm::LlmError),
}
