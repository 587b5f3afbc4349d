//! Generators: what an agent offers under one A2UI protocol version, and the negotiation
//! that turns a renderer's capabilities into a [`RequestProcessor`].
//!
//! An agent registers one [`Generator`] per protocol version it speaks: the catalogs it can
//! draw with (pruned to the components it wants the model to use), its examples, its output
//! format, its progressive keys and whether it accepts a renderer's inline catalogs. Each
//! request then negotiates: the renderer's capabilities pick the active catalogs
//! ([`resolve_catalogs`]), and the processor for that catalog set (prompt, parser,
//! validator) is built once and reused from a small cache, so a busy agent never rebuilds a
//! prompt for a catalog set it has seen.
//!
//! Negotiating never changes the generator: it holds its catalogs for its whole life, and
//! one renderer's choice cannot narrow the next one's.

mod builder;
mod error;
mod examples;
pub(crate) mod grammar;
pub mod processor;
pub(crate) mod prompt;

/// The name the built-in example goes by in the prompt.
const BUILT_IN_EXAMPLE: &str = "A playlist";

use std::collections::VecDeque;
use std::fmt;
use std::sync::{Arc, Mutex};

use crate::a2ui::{Catalog, ClientCapabilities, ProtocolVersion, Validator, resolve_catalogs};
use crate::format::{Binding, OutputFormat};
use crate::parser::EmitMode;
use processor::{Parts, RequestProcessor};
use prompt::{Example, PromptInput};

pub use builder::{GeneratorBuilder, GeneratorError};
pub use error::{NegotiationError, NegotiationErrorKind};

/// How many catalog sets a generator keeps a processor for.
const CACHE_CAPACITY: usize = 16;

/// Inline catalogs larger than this (as JSON text, all of a request's together) are compiled
/// per request rather than kept.
const INLINE_CACHE_BYTES: usize = 64 * 1024;

/// What a cached processor was built for.
#[derive(Debug, Clone, PartialEq, Eq)]
enum CacheKey {
    /// Registered catalogs only: their ids, in the active order.
    Active(Vec<String>),
    /// A request with accepted inline catalogs: the ids it named and the inline documents.
    Inline(Vec<String>, String),
}

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
    inner: Arc<Inner>,
}

struct Inner {
    version: ProtocolVersion,
    catalogs: Vec<Catalog>,
    examples: Vec<Example>,
    progressive_keys: Vec<String>,
    accepts_inline: bool,
    format: Arc<dyn OutputFormat>,
    emit_mode: EmitMode,
    allowed: Option<Vec<String>>,
    /// Processors by active catalog ids, most recently built last.
    cache: Mutex<VecDeque<(CacheKey, RequestProcessor)>>,
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
            .finish_non_exhaustive()
    }
}

impl Generator {
    /// The v0.8 generator with the standard catalog.
    ///
    /// # Panics
    ///
    /// Only if the embedded catalog does not load, a build defect (see [`Catalog::basic`]).
    pub fn v0_8() -> Generator {
        Self::built_in(ProtocolVersion::V0_8)
    }

    /// The v0.9 generator with the basic catalog.
    ///
    /// # Panics
    ///
    /// As [`Generator::v0_8`].
    pub fn v0_9() -> Generator {
        Self::built_in(ProtocolVersion::V0_9)
    }

    /// The v0.9.1 generator with the basic catalog (v0.9's, under both catalog ids).
    ///
    /// # Panics
    ///
    /// As [`Generator::v0_8`].
    pub fn v0_9_1() -> Generator {
        Self::built_in(ProtocolVersion::V0_9_1)
    }

    /// The v1.0 generator with the basic catalog. v1.0 is a draft still changing upstream.
    ///
    /// # Panics
    ///
    /// As [`Generator::v0_8`].
    pub fn v1_0() -> Generator {
        Self::built_in(ProtocolVersion::V1_0)
    }

    /// The built-in generator of `version`: its basic catalog, the default progressive keys
    /// and one example (an order confirmation card). [`Generator::v0_9`] and its siblings
    /// call this.
    ///
    /// # Panics
    ///
    /// As [`Generator::v0_8`].
    ///
    /// # Example
    ///
    /// ```
    /// use a2ui_agent::a2ui::ProtocolVersion;
    /// use a2ui_agent::generator::Generator;
    ///
    /// let prompt = Generator::built_in(ProtocolVersion::V0_8).negotiate(None)?.prompt().to_owned();
    /// assert!(prompt.contains("## Examples") && prompt.contains("beginRendering"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn built_in(version: ProtocolVersion) -> Generator {
        let built = Self::builder(version).built_in_example().build();
        match built {
            Ok(generator) => generator,
            Err(e) => panic!("the built-in {version} generator does not build: {e}"),
        }
    }

    /// A builder for a generator of `version`. Without [`GeneratorBuilder::catalog`] it
    /// offers the version's basic catalog.
    ///
    /// # Example
    ///
    /// ```
    /// use a2ui_agent::a2ui::ProtocolVersion;
    /// use a2ui_agent::generator::Generator;
    ///
    /// let generator = Generator::builder(ProtocolVersion::V0_9)
    ///     .components(&["Column", "Text", "Button"])
    ///     .build()?;
    /// let prompt = generator.negotiate(None)?.prompt().to_owned();
    /// assert!(prompt.contains("Components: Button, Column, Text."));
    /// assert!(!prompt.contains("DateTimeInput"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn builder(version: ProtocolVersion) -> GeneratorBuilder {
        GeneratorBuilder::new(version)
    }

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

    /// How the parser re-sends a message that grows.
    pub fn emit_mode(&self) -> EmitMode {
        self.inner.emit_mode
    }

    /// Settles the active catalogs for a renderer and returns the processor for them.
    ///
    /// No capabilities: every catalog the generator offers is active. Otherwise the
    /// generator's catalogs the renderer names, in the renderer's order, then the inline
    /// catalogs if this generator accepts them. The processor (and its prompt) is built once
    /// per catalog set and reused.
    ///
    /// # Errors
    ///
    /// A [`NegotiationError`] when the capabilities have no entry for this version, name no
    /// catalog the generator offers, carry an accepted inline catalog that does not load, or
    /// when an example does not fit the active catalogs.
    pub fn negotiate(
        &self,
        capabilities: Option<&ClientCapabilities>,
    ) -> Result<RequestProcessor, NegotiationError> {
        let inner = &self.inner;
        let version = inner.version;
        // A renderer sends the same inline catalogs with every message: key them by their
        // text so they are compiled, and their prompt written, once.
        let inline_key = self.inline_key(capabilities);
        if let Some(key) = &inline_key {
            if let Some(hit) = self.cached(key) {
                return Ok(hit);
            }
        }
        let active = resolve_catalogs(version, &inner.catalogs, capabilities, inner.accepts_inline)
            .map_err(|e| NegotiationError::from_resolve(self, capabilities, e))?;
        let ids: Vec<String> = active.iter().map(|c| c.id().to_owned()).collect();
        let registered_only = ids
            .iter()
            .all(|id| inner.catalogs.iter().any(|c| c.id() == id));
        let key = match inline_key {
            Some(key) => Some(key),
            None if registered_only => Some(CacheKey::Active(ids)),
            None => None,
        };
        if let Some(key) = &key {
            if let Some(hit) = self.cached(key) {
                return Ok(hit);
            }
        }
        let processor = self.build_processor(active, capabilities, &inner.format)?;
        if let Some(key) = key {
            let mut cache = inner.cache.lock().unwrap_or_else(|e| e.into_inner());
            if !cache.iter().any(|(k, _)| *k == key) {
                if cache.len() >= CACHE_CAPACITY {
                    cache.pop_front();
                }
                cache.push_back((key, processor.clone()));
            }
        }
        Ok(processor)
    }

    /// The cache key of a request whose accepted inline catalogs are small enough to keep.
    fn inline_key(&self, capabilities: Option<&ClientCapabilities>) -> Option<CacheKey> {
        if !self.inner.accepts_inline {
            return None;
        }
        let entry = capabilities?.get(self.inner.version)?;
        if entry.inline_catalogs().is_empty() {
            return None;
        }
        let documents = serde_json::to_string(entry.inline_catalogs()).ok()?;
        (documents.len() <= INLINE_CACHE_BYTES)
            .then(|| CacheKey::Inline(entry.supported_catalog_ids().to_vec(), documents))
    }

    fn cached(&self, key: &CacheKey) -> Option<RequestProcessor> {
        let cache = self.inner.cache.lock().unwrap_or_else(|e| e.into_inner());
        cache
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, processor)| processor.clone())
    }

    /// [`negotiate`](Self::negotiate), with `format` in place of the generator's own for
    /// this processor only (the generator keeps its format, and the processor is not
    /// cached).
    ///
    /// # Errors
    ///
    /// As for [`negotiate`](Self::negotiate).
    ///
    /// # Example
    ///
    /// ```
    /// use a2ui_agent::format::express::Express;
    /// use a2ui_agent::generator::Generator;
    ///
    /// let generator = Generator::v1_0();
    /// let processor = generator.negotiate_with_format(None, Express::new())?;
    /// assert!(processor.prompt().contains("<a2ui>"));
    /// assert_eq!(generator.format().name(), "direct-json");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn negotiate_with_format(
        &self,
        capabilities: Option<&ClientCapabilities>,
        format: impl OutputFormat,
    ) -> Result<RequestProcessor, NegotiationError> {
        let inner = &self.inner;
        if !format.supports(inner.version) {
            return Err(NegotiationError {
                kind: NegotiationErrorKind::Format,
                version: inner.version,
                requested: requested(inner.version, capabilities),
                offered: self.supported_catalog_ids_owned(),
                detail: format!(
                    "the {} format cannot be written under A2UI {}",
                    format.name(),
                    inner.version
                ),
            });
        }
        let active = resolve_catalogs(
            inner.version,
            &inner.catalogs,
            capabilities,
            inner.accepts_inline,
        )
        .map_err(|e| NegotiationError::from_resolve(self, capabilities, e))?;
        let format: Arc<dyn OutputFormat> = Arc::new(format);
        self.build_processor(active, capabilities, &format)
    }

    fn build_processor(
        &self,
        active: Vec<Catalog>,
        capabilities: Option<&ClientCapabilities>,
        format: &Arc<dyn OutputFormat>,
    ) -> Result<RequestProcessor, NegotiationError> {
        let inner = &self.inner;
        let error = |kind, detail: String| NegotiationError {
            kind,
            version: inner.version,
            requested: requested(inner.version, capabilities),
            offered: self.supported_catalog_ids_owned(),
            detail,
        };
        let validator = Validator::new(inner.version, &active)
            .map_err(|e| error(NegotiationErrorKind::InlineCatalog, e.to_string()))?;
        for example in &inner.examples {
            if let Err(errors) = validator.check_response(&example.messages) {
                let first = errors.first().map(ToString::to_string).unwrap_or_default();
                return Err(error(
                    NegotiationErrorKind::Example,
                    format!(
                        "example '{}' does not fit the active catalogs: {first}",
                        example.name
                    ),
                ));
            }
        }
        let binding =
            Binding::new(inner.version, validator.catalogs()).allowed(inner.allowed.as_deref());
        let format = format.bind(&binding).unwrap_or_else(|| format.clone());
        let prompt = prompt::build(&PromptInput {
            version: inner.version,
            catalogs: validator.catalogs(),
            examples: &inner.examples,
            format: format.as_ref(),
            allowed: inner.allowed.as_deref(),
        })
        .ok_or_else(|| {
            error(
                NegotiationErrorKind::NoCatalog,
                "no catalog is active".into(),
            )
        })?;
        Ok(RequestProcessor::new(Parts {
            validator,
            prompt,
            format,
            progressive_keys: inner.progressive_keys.clone(),
            emit_mode: inner.emit_mode,
            allowed: inner.allowed.clone(),
        }))
    }

    fn supported_catalog_ids_owned(&self) -> Vec<String> {
        self.inner
            .catalogs
            .iter()
            .map(|c| c.id().to_owned())
            .collect()
    }
}

/// The properties healed while they stream unless the agent says otherwise.
fn default_progressive_keys(version: ProtocolVersion) -> Vec<String> {
    match version {
        ProtocolVersion::V0_8 => vec!["valueString".into()],
        _ => vec!["value".into()],
    }
}

fn requested(version: ProtocolVersion, capabilities: Option<&ClientCapabilities>) -> Vec<String> {
    capabilities
        .and_then(|c| c.get(version))
        .map(|entry| entry.supported_catalog_ids().to_vec())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_catalog_set_seen_before_reuses_its_processor() {
        let generator = Generator::v0_9();
        let a = generator.negotiate(None).unwrap();
        let b = generator.negotiate(None).unwrap();
        assert!(std::ptr::eq(a.prompt(), b.prompt()));
    }

    #[test]
    fn a_renderers_inline_catalogs_are_compiled_once() {
        let generator = Generator::builder(ProtocolVersion::V0_9)
            .accept_inline_catalogs(true)
            .build()
            .unwrap();
        let caps = ClientCapabilities::parse(&json!({"v0.9": {"supportedCatalogIds": [],
            "inlineCatalogs": [{"catalogId": "r/x", "components": {"Marquee": {"type": "object"}}}]}}))
        .unwrap();
        let a = generator.negotiate(Some(&caps)).unwrap();
        let b = generator.negotiate(Some(&caps)).unwrap();
        assert!(std::ptr::eq(a.prompt(), b.prompt()));
        assert_eq!(a.catalogs()[0].id(), "r/x");
    }

    #[test]
    fn the_cache_stays_bounded() {
        let mut builder = Generator::builder(ProtocolVersion::V0_9);
        let basic = Catalog::basic(ProtocolVersion::V0_9);
        let mut ids = Vec::new();
        for i in 0..(CACHE_CAPACITY + 4) {
            let mut doc = basic.schema().clone();
            doc["catalogId"] = json!(format!("c{i}"));
            builder = builder.catalog(Catalog::from_value(ProtocolVersion::V0_9, doc).unwrap());
            ids.push(format!("c{i}"));
        }
        let generator = builder.build().unwrap();
        for id in &ids {
            let caps =
                ClientCapabilities::parse(&json!({"v0.9": {"supportedCatalogIds": [id]}})).unwrap();
            generator.negotiate(Some(&caps)).unwrap();
        }
        assert_eq!(generator.inner.cache.lock().unwrap().len(), CACHE_CAPACITY);
    }
}
