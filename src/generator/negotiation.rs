//! Negotiation: from what a renderer says it can draw to the processor a request is
//! answered through.
//!
//! Three choices, made in this order: which of a server's generators answer (the version the
//! client asked for, else the versions its capabilities describe); which catalogs are active
//! for that generator ([`resolve_catalogs`]); and the processor for that catalog set, built
//! once and kept ([`Generator::negotiate`]). The capabilities themselves are data, read in
//! [`a2ui`](crate::a2ui); deciding what they lead to is here, in one place.

use std::sync::Arc;

use super::cache::CacheKey;
use super::error::{NegotiationError, NegotiationErrorKind};
use super::offer::Generator;
use super::processor::{Parts, RequestProcessor};
use super::prompt::{self, PromptInput};
use crate::a2ui::{
    CapabilitiesError, Catalog, CatalogError, ClientCapabilities, ProtocolVersion, Validator,
};
use crate::format::{Binding, OutputFormat};

/// Inline catalogs larger than this (as JSON text, all of a request's together) are compiled
/// per request rather than kept.
const INLINE_CACHE_BYTES: usize = 64 * 1024;

/// Why no catalog set could be settled on.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ResolveError {
    /// The capabilities are malformed for this version (e.g. no entry for it).
    #[error("{0}")]
    Capabilities(#[source] CapabilitiesError),
    /// A catalog problem: nothing in common, or an accepted inline catalog that does not load.
    #[error("{0}")]
    Catalog(#[source] CatalogError),
}

/// Decides which catalogs are active for a request under `version`.
///
/// - No capabilities: every registered catalog (the renderer stated no preference).
/// - Otherwise: each registered catalog the renderer names (by id or basic-catalog alias), in
///   the renderer's order, once, under the id the renderer named it by; then, if the agent accepts them, each inline catalog (one
///   whose id is already active is skipped). Unknown ids and refused inline catalogs are
///   passed over.
///
/// # Errors
///
/// [`ResolveError::Capabilities`] when the capabilities have no entry for `version`;
/// [`ResolveError::Catalog`] when nothing is left to render with or an accepted inline
/// catalog does not load.
///
/// # Example
///
/// ```
/// use a2ui_agent::a2ui::{Catalog, ClientCapabilities, ProtocolVersion};
/// use a2ui_agent::generator::resolve_catalogs;
/// use serde_json::json;
///
/// let v = ProtocolVersion::V0_9;
/// let caps = ClientCapabilities::parse(&json!({"v0.9": {"supportedCatalogIds": [
///     "https://a2ui.org/specification/v0_9_1/catalogs/basic/catalog.json"]}})).unwrap();
/// let active = resolve_catalogs(v, &[Catalog::basic(v)], Some(&caps), false).unwrap();
/// // The agent writes the id the renderer knows.
/// assert_eq!(active[0].id(), "https://a2ui.org/specification/v0_9_1/catalogs/basic/catalog.json");
/// ```
pub fn resolve_catalogs(
    version: ProtocolVersion,
    registered: &[Catalog],
    capabilities: Option<&ClientCapabilities>,
    accepts_inline: bool,
) -> Result<Vec<Catalog>, ResolveError> {
    let Some(capabilities) = capabilities else {
        return Ok(registered.to_vec());
    };
    let entry = capabilities.get(version).ok_or_else(|| {
        ResolveError::Capabilities(CapabilitiesError::new(
            "",
            format!(
                "no entry for {version}; the capabilities describe [{}]",
                capabilities
                    .versions()
                    .iter()
                    .map(|v| v.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        ))
    })?;
    let mut active: Vec<Catalog> = Vec::new();
    for id in entry.supported_catalog_ids() {
        if let Some(catalog) = registered.iter().find(|c| c.answers_to(id))
            && !active.iter().any(|a| a.is_same(catalog))
        {
            active.push(catalog.known_as(id));
        }
    }
    if accepts_inline {
        for catalog in entry.load_inline(version).map_err(ResolveError::Catalog)? {
            if !active.iter().any(|a| a.is_same(&catalog)) {
                active.push(catalog);
            }
        }
    }
    if active.is_empty() {
        return Err(ResolveError::Catalog(CatalogError::NoCatalogInCommon {
            requested: entry.supported_catalog_ids().to_vec(),
            available: registered.iter().map(|c| c.id().to_owned()).collect(),
        }));
    }
    Ok(active)
}

impl Generator {
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
        // A renderer sends the same inline catalogs with every message: key them by their
        // text so they are compiled, and their prompt written, once.
        let inline_key = self.inline_key(capabilities);
        if let Some(hit) = inline_key.as_ref().and_then(|key| inner.cache.get(key)) {
            return Ok(hit);
        }
        let active = self.active_catalogs(capabilities)?;
        let ids: Vec<String> = active.iter().map(|c| c.id().to_owned()).collect();
        let registered_only = ids
            .iter()
            .all(|id| inner.catalogs.iter().any(|c| c.id() == id));
        let key = match inline_key {
            Some(key) => Some(key),
            None if registered_only => Some(CacheKey::Active(ids)),
            None => None,
        };
        if let Some(hit) = key.as_ref().and_then(|key| inner.cache.get(key)) {
            return Ok(hit);
        }
        let processor = self.build_processor(active, capabilities, &inner.format)?;
        if let Some(key) = key {
            inner.cache.insert(key, &processor);
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

    /// The catalogs active for a renderer with `capabilities` ([`resolve_catalogs`] over
    /// this generator's own).
    fn active_catalogs(
        &self,
        capabilities: Option<&ClientCapabilities>,
    ) -> Result<Vec<Catalog>, NegotiationError> {
        let inner = &self.inner;
        resolve_catalogs(
            inner.version,
            &inner.catalogs,
            capabilities,
            inner.accepts_inline,
        )
        .map_err(|e| NegotiationError::from_resolve(self, capabilities, e))
    }

    /// A [`NegotiationError`] of `kind` for a renderer with `capabilities`.
    fn refusal(
        &self,
        kind: NegotiationErrorKind,
        capabilities: Option<&ClientCapabilities>,
        detail: String,
    ) -> NegotiationError {
        NegotiationError {
            kind,
            version: self.inner.version,
            requested: requested(self.inner.version, capabilities),
            offered: self.supported_catalog_ids_owned(),
            detail,
        }
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
            let detail = format!(
                "the {} format cannot be written under A2UI {}",
                format.name(),
                inner.version
            );
            return Err(self.refusal(NegotiationErrorKind::Format, capabilities, detail));
        }
        let active = self.active_catalogs(capabilities)?;
        let format: Arc<dyn OutputFormat> = Arc::new(format);
        self.build_processor(active, capabilities, &format)
    }

    /// The processor for `active` catalogs, writing in `format`: the validator, the
    /// examples checked against it, the prompt.
    fn build_processor(
        &self,
        active: Vec<Catalog>,
        capabilities: Option<&ClientCapabilities>,
        format: &Arc<dyn OutputFormat>,
    ) -> Result<RequestProcessor, NegotiationError> {
        let inner = &self.inner;
        let error = |kind, detail: String| self.refusal(kind, capabilities, detail);
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
            style: inner.style,
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
}

impl NegotiationError {
    /// The error of a negotiation whose catalogs did not resolve.
    fn from_resolve(
        generator: &Generator,
        capabilities: Option<&ClientCapabilities>,
        error: ResolveError,
    ) -> Self {
        let version = generator.version();
        let kind = match &error {
            ResolveError::Capabilities(_) => NegotiationErrorKind::VersionNotDescribed,
            ResolveError::Catalog(CatalogError::NoCatalogInCommon { .. }) => {
                NegotiationErrorKind::NoCatalogInCommon
            }
            _ => NegotiationErrorKind::InlineCatalog,
        };
        Self {
            kind,
            version,
            requested: requested(version, capabilities),
            offered: generator.supported_catalog_ids_owned(),
            detail: match (&error, capabilities) {
                (ResolveError::Capabilities(_), Some(capabilities)) => {
                    let described: Vec<&str> = capabilities
                        .versions()
                        .into_iter()
                        .map(ProtocolVersion::as_str)
                        .collect();
                    format!("they describe [{}]", described.join(", "))
                }
                _ => error.to_string(),
            },
        }
    }
}

/// The catalog ids the renderer named for `version`.
fn requested(version: ProtocolVersion, capabilities: Option<&ClientCapabilities>) -> Vec<String> {
    capabilities
        .and_then(|c| c.get(version))
        .map(|entry| entry.supported_catalog_ids().to_vec())
        .unwrap_or_default()
}

/// Why a client's A2UI request cannot be served.
#[cfg(feature = "server")]
#[derive(Debug, thiserror::Error)]
pub(crate) enum Refusal {
    /// The renderer's capabilities do not parse.
    #[error("The A2UI capabilities in the message are malformed: {0}")]
    MalformedCapabilities(CapabilitiesError),
    /// The capabilities describe only versions no generator speaks.
    #[error("The client's A2UI capabilities describe {described} but this agent speaks {offered}.")]
    VersionNotSpoken {
        /// The versions the capabilities describe.
        described: String,
        /// The versions the server's generators speak.
        offered: String,
    },
    /// Every candidate generator refused the capabilities.
    #[error("Cannot answer with A2UI: {}", join_errors(.0))]
    Negotiation(Vec<NegotiationError>),
}

#[cfg(feature = "server")]
fn join_errors(errors: &[NegotiationError]) -> String {
    let reasons: Vec<String> = errors.iter().map(ToString::to_string).collect();
    reasons.join("; ")
}

/// The processor one request is answered through, from a server's `generators` (in order of
/// preference): the first that negotiates among those of the `requested` version, with the
/// renderer's `declared` capabilities (else the `assumed` ones); with no version requested,
/// among those whose version the `declared` capabilities describe. `None` when the client
/// neither asked for a version nor declared capabilities: it is answered in plain text.
///
/// # Errors
///
/// [`Refusal::VersionNotSpoken`] when the declared capabilities describe no version a
/// generator speaks; [`Refusal::Negotiation`] with each candidate's reason when none
/// negotiates.
#[cfg(feature = "server")]
pub(crate) fn negotiate_among(
    generators: &[Generator],
    requested: Option<ProtocolVersion>,
    declared: Option<&ClientCapabilities>,
    assumed: Option<&ClientCapabilities>,
) -> Result<Option<RequestProcessor>, Refusal> {
    let (candidates, capabilities): (Vec<&Generator>, Option<&ClientCapabilities>) =
        match (requested, declared) {
            (Some(version), declared) => (
                generators
                    .iter()
                    .filter(|g| g.version() == version)
                    .collect(),
                declared.or(assumed),
            ),
            (None, None) => return Ok(None),
            (None, Some(declared)) => (described_by(generators, declared)?, Some(declared)),
        };
    let mut errors = Vec::new();
    for generator in candidates {
        match generator.negotiate(capabilities) {
            Ok(processor) => return Ok(Some(processor)),
            Err(error) => errors.push(error),
        }
    }
    Err(Refusal::Negotiation(errors))
}

/// The generators whose version `declared` describes, or why there are none.
#[cfg(feature = "server")]
fn described_by<'g>(
    generators: &'g [Generator],
    declared: &ClientCapabilities,
) -> Result<Vec<&'g Generator>, Refusal> {
    let candidates: Vec<&Generator> = generators
        .iter()
        .filter(|g| declared.get(g.version()).is_some())
        .collect();
    if candidates.is_empty() {
        return Err(Refusal::VersionNotSpoken {
            described: list(declared.versions().iter().map(|v| v.as_str())),
            offered: list(generators.iter().map(|g| g.version().as_str())),
        });
    }
    Ok(candidates)
}

/// `items` joined with commas, or "no version".
#[cfg(feature = "server")]
fn list<'a>(items: impl Iterator<Item = &'a str>) -> String {
    let items: Vec<&str> = items.collect();
    if items.is_empty() {
        "no version".to_owned()
    } else {
        items.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generator::cache::CACHE_CAPACITY;
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
        assert_eq!(generator.inner.cache.len(), CACHE_CAPACITY);
    }
}
