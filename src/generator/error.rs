//! [`NegotiationError`]: a renderer and a generator that cannot agree on catalogs.

use crate::a2ui::ProtocolVersion;

/// What kind of failure a [`NegotiationError`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum NegotiationErrorKind {
    /// The capabilities describe other protocol versions only (they are malformed for this
    /// one); another generator may negotiate.
    VersionNotDescribed,
    /// The renderer names no catalog this generator offers (or none at all) and no accepted
    /// inline catalog.
    NoCatalogInCommon,
    /// An inline catalog the generator accepts does not load.
    InlineCatalog,
    /// An example does not fit the active catalogs.
    Example,
    /// No catalog is active, so there is nothing to prompt with.
    NoCatalog,
    /// The output format asked for cannot be written under this version.
    Format,
}

/// A renderer and a generator that cannot agree on catalogs. `Display` names the version,
/// the catalogs asked for and the catalogs offered.
///
/// # Example
///
/// ```
/// use a2ui_agent::a2ui::ClientCapabilities;
/// use a2ui_agent::generator::{Generator, NegotiationErrorKind};
/// use serde_json::json;
///
/// let caps = ClientCapabilities::parse(&json!({"v0.9": {"supportedCatalogIds": ["acme/ui"]}}))?;
/// let err = Generator::v0_9().negotiate(Some(&caps)).unwrap_err();
/// assert_eq!(err.kind(), NegotiationErrorKind::NoCatalogInCommon);
/// assert!(err.to_string().contains("acme/ui"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, thiserror::Error)]
#[error("{}", describe(self))]
pub struct NegotiationError {
    pub(super) kind: NegotiationErrorKind,
    pub(super) version: ProtocolVersion,
    pub(super) requested: Vec<String>,
    pub(super) offered: Vec<String>,
    pub(super) detail: String,
}

impl NegotiationError {
    /// What kind of failure this is.
    pub fn kind(&self) -> NegotiationErrorKind {
        self.kind
    }

    /// The protocol version negotiated.
    pub fn version(&self) -> ProtocolVersion {
        self.version
    }

    /// The catalog ids the renderer named for this version.
    pub fn requested(&self) -> &[String] {
        &self.requested
    }

    /// The catalog ids the generator offers.
    pub fn offered(&self) -> &[String] {
        &self.offered
    }
}

/// What a [`NegotiationError`] says: the version, the catalogs asked for and offered.
fn describe(error: &NegotiationError) -> String {
    let offered = error.offered.join(", ");
    match error.kind {
        NegotiationErrorKind::VersionNotDescribed => format!(
            "A2UI {}: the renderer's capabilities have no {} entry; {}",
            error.version, error.version, error.detail
        ),
        NegotiationErrorKind::NoCatalogInCommon if error.requested.is_empty() => format!(
            "A2UI {}: the renderer supports no catalog; this agent offers [{offered}]",
            error.version
        ),
        NegotiationErrorKind::NoCatalogInCommon => format!(
            "A2UI {}: no catalog in common: the renderer supports [{}], this agent offers \
             [{offered}]",
            error.version,
            error.requested.join(", ")
        ),
        _ => format!(
            "A2UI {}: {} (the renderer asked for [{}], this agent offers [{offered}])",
            error.version,
            error.detail,
            error.requested.join(", ")
        ),
    }
}
