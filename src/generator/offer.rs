//! [`Generator`]: what an agent offers under one A2UI protocol version. Its own file because
//! the builder that makes one and the negotiation that reads one both need it.

use std::fmt;
use std::sync::Arc;

use super::cache::ProcessorCache;
use super::prompt::{Example, PromptStyle};
use crate::a2ui::{Catalog, ProtocolVersion};
use crate::format::OutputFormat;
use crate::parser::EmitMode;

/// What an agent offers under one A2UI protocol version. Cloning is cheap (the state is
/// shared); `Send + Sync`.
///
/// # Example
///
/// ```
/// use a2ui_agent::a2ui::ClientCapabilities;
/// use a2ui_agent::generator::Generator;
/// use serde_json::json;
///
/// let generator = Generator::v0_9();
/// let caps = ClientCapabilities::parse(&json!({"v0.9": {"supportedCatalogIds": [
///     "https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json"]}}))?;
/// let processor = generator.negotiate(Some(&caps))?;
/// assert_eq!(processor.catalogs()[0].id(), generator.supported_catalog_ids()[0]);
/// assert!(processor.prompt().contains("createSurface"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone)]
pub struct Generator {
    pub(super) inner: Arc<Inner>,
}

/// What a generator holds for its whole life; negotiating reads it and never changes it.
pub(super) struct Inner {
    pub(super) version: ProtocolVersion,
    pub(super) catalogs: Vec<Catalog>,
    pub(super) examples: Vec<Example>,
    pub(super) progressive_keys: Vec<String>,
    pub(super) accepts_inline: bool,
    pub(super) format: Arc<dyn OutputFormat>,
    pub(super) emit_mode: EmitMode,
    pub(super) allowed: Option<Vec<String>>,
    pub(super) style: PromptStyle,
    /// The processors built so far, by catalog set.
    pub(super) cache: ProcessorCache,
}

impl fmt::Debug for Generator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Generator")
            .field("version", &self.inner.version)
            .field("catalogs", &self.supported_catalog_ids())
            .field("examples", &self.inner.examples.len())
            .field("progressive_keys", &self.inner.progressive_keys)
            .field("accepts_inline_catalogs", &self.inner.accepts_inline)
            .field("format", &self.inner.format.name())
            .field("prompt_style", &self.inner.style)
            .finish_non_exhaustive()
    }
}

impl Generator {
    /// The protocol version this generator speaks.
    pub fn version(&self) -> ProtocolVersion {
        self.inner.version
    }

    /// The catalogs it offers, in the agent's order.
    pub fn catalogs(&self) -> &[Catalog] {
        &self.inner.catalogs
    }

    /// The ids of the catalogs it offers, as the agent card advertises them.
    pub fn supported_catalog_ids(&self) -> Vec<&str> {
        self.inner.catalogs.iter().map(Catalog::id).collect()
    }

    /// Whether it accepts catalogs a renderer defines inline in its capabilities.
    pub fn accepts_inline_catalogs(&self) -> bool {
        self.inner.accepts_inline
    }

    /// The properties whose string values the parser may close early while they stream
    /// (default: `value` of a data model update; v0.8: `valueString`).
    pub fn progressive_keys(&self) -> &[String] {
        &self.inner.progressive_keys
    }

    /// The output format the model is asked to write.
    pub fn format(&self) -> &Arc<dyn OutputFormat> {
        &self.inner.format
    }

    /// How its Direct JSON prompts describe the messages and catalogs.
    pub fn prompt_style(&self) -> PromptStyle {
        self.inner.style
    }

    /// How the parser re-sends a message that grows.
    pub fn emit_mode(&self) -> EmitMode {
        self.inner.emit_mode
    }

    /// [`supported_catalog_ids`](Self::supported_catalog_ids), owned (for an error).
    pub(super) fn supported_catalog_ids_owned(&self) -> Vec<String> {
        self.inner
            .catalogs
            .iter()
            .map(|c| c.id().to_owned())
            .collect()
    }
}
