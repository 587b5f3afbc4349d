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

use std::collections::VecDeque;
use std::fmt;
use std::sync::{Arc, Mutex};

use serde_json::Value;

use crate::a2ui::{
    Catalog, CatalogError, ClientCapabilities, ProtocolVersion, ResolveError, Validator,
    resolve_catalogs,
};
use crate::format::{DirectJson, OutputFormat};
use crate::parser::{self, EmitMode, ParsedPart};
use crate::processor::{Parts, RequestProcessor};
use crate::prompt::{self, Example, PromptInput};

/// How many catalog sets a generator keeps a processor for.
const CACHE_CAPACITY: usize = 16;

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
    cache: Mutex<VecDeque<(Vec<String>, RequestProcessor)>>,
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
        Self::basic(ProtocolVersion::V0_8)
    }

    /// The v0.9 generator with the basic catalog.
    ///
    /// # Panics
    ///
    /// As [`Generator::v0_8`].
    pub fn v0_9() -> Generator {
        Self::basic(ProtocolVersion::V0_9)
    }

    /// The v0.9.1 generator with the basic catalog (v0.9's, under both catalog ids).
    ///
    /// # Panics
    ///
    /// As [`Generator::v0_8`].
    pub fn v0_9_1() -> Generator {
        Self::basic(ProtocolVersion::V0_9_1)
    }

    /// The v1.0 generator with the basic catalog. v1.0 is a draft still changing upstream.
    ///
    /// # Panics
    ///
    /// As [`Generator::v0_8`].
    pub fn v1_0() -> Generator {
        Self::basic(ProtocolVersion::V1_0)
    }

    fn basic(version: ProtocolVersion) -> Generator {
        let builder = Self::builder(version);
        Self::from_builder(builder, vec![Catalog::basic(version)], Vec::new())
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
        GeneratorBuilder {
            version,
            catalogs: Vec::new(),
            explicit_catalogs: false,
            components: None,
            examples: Vec::new(),
            progressive_keys: default_progressive_keys(version),
            accepts_inline: false,
            format: Arc::new(DirectJson),
            emit_mode: EmitMode::default(),
            allowed: None,
        }
    }

    fn from_builder(
        builder: GeneratorBuilder,
        catalogs: Vec<Catalog>,
        examples: Vec<Example>,
    ) -> Generator {
        Generator {
            inner: Arc::new(Inner {
                version: builder.version,
                catalogs,
                examples,
                progressive_keys: builder.progressive_keys,
                accepts_inline: builder.accepts_inline,
                format: builder.format,
                emit_mode: builder.emit_mode,
                allowed: builder.allowed,
                cache: Mutex::new(VecDeque::new()),
            }),
        }
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
        let active = resolve_catalogs(version, &inner.catalogs, capabilities, inner.accepts_inline)
            .map_err(|e| NegotiationError::from_resolve(self, capabilities, e))?;
        let key: Vec<String> = active.iter().map(|c| c.id().to_owned()).collect();
        let cacheable = key
            .iter()
            .all(|id| inner.catalogs.iter().any(|c| c.id() == id));
        if cacheable {
            if let Some(hit) = self.cached(&key) {
                return Ok(hit);
            }
        }
        let processor = self.build_processor(active, capabilities)?;
        if cacheable {
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

    fn cached(&self, key: &[String]) -> Option<RequestProcessor> {
        let cache = self.inner.cache.lock().unwrap_or_else(|e| e.into_inner());
        cache
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, processor)| processor.clone())
    }

    fn build_processor(
        &self,
        active: Vec<Catalog>,
        capabilities: Option<&ClientCapabilities>,
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
        let prompt = prompt::build(&PromptInput {
            version: inner.version,
            catalogs: validator.catalogs(),
            examples: &inner.examples,
            format: inner.format.as_ref(),
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
            format: inner.format.clone(),
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

/// Builds a [`Generator`]: catalogs, a component subset, examples, the output format and
/// parser options. Consuming; finish with [`build`](Self::build).
#[must_use]
pub struct GeneratorBuilder {
    version: ProtocolVersion,
    catalogs: Vec<Catalog>,
    explicit_catalogs: bool,
    components: Option<Vec<String>>,
    examples: Vec<(String, String)>,
    progressive_keys: Vec<String>,
    accepts_inline: bool,
    format: Arc<dyn OutputFormat>,
    emit_mode: EmitMode,
    allowed: Option<Vec<String>>,
}

impl fmt::Debug for GeneratorBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GeneratorBuilder")
            .field("version", &self.version)
            .field("catalogs", &self.catalogs.len())
            .field("components", &self.components)
            .finish_non_exhaustive()
    }
}

impl GeneratorBuilder {
    /// Offers `catalog` (in the order added). Without any, the version's basic catalog is
    /// offered. A catalog of the sibling version (v0.9 for v0.9.1) is recompiled.
    pub fn catalog(mut self, catalog: Catalog) -> Self {
        self.catalogs.push(catalog);
        self
    }

    /// Offers exactly `catalogs`, in order, replacing any added before; an empty list is
    /// refused by [`build`](Self::build) (a generator must offer something to draw with).
    pub fn catalogs(mut self, catalogs: impl IntoIterator<Item = Catalog>) -> Self {
        self.catalogs = catalogs.into_iter().collect();
        self.explicit_catalogs = true;
        self
    }

    /// Keeps only these components in every catalog (a catalog left with none is dropped),
    /// so the prompt describes only them and the validator accepts only them.
    pub fn components(mut self, names: &[&str]) -> Self {
        self.components = Some(names.iter().map(|n| (*n).to_owned()).collect());
        self
    }

    /// Adds an example turn for the prompt. `text` is a JSON array of messages, an object
    /// `{"messages": [...]}` (the layout of the official example files), one message, or a
    /// whole model answer (text and `<a2ui-json>` blocks), shown as written.
    pub fn example(mut self, name: impl Into<String>, text: impl Into<String>) -> Self {
        self.examples.push((name.into(), text.into()));
        self
    }

    /// The properties whose string values may be closed early while they stream (replaces
    /// the default; empty turns healing off). Never list ids, paths or URLs.
    pub fn progressive_keys(mut self, keys: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.progressive_keys = keys.into_iter().map(Into::into).collect();
        self
    }

    /// Whether renderers may add catalogs inline in their capabilities (default `false`).
    pub fn accept_inline_catalogs(mut self, accept: bool) -> Self {
        self.accepts_inline = accept;
        self
    }

    /// The output format (default [`DirectJson`]).
    pub fn format(mut self, format: impl OutputFormat) -> Self {
        self.format = Arc::new(format);
        self
    }

    /// How the parser re-sends a message that grows (default [`EmitMode::Delta`]).
    pub fn emit_mode(mut self, mode: EmitMode) -> Self {
        self.emit_mode = mode;
        self
    }

    /// Only these message kinds may be sent (e.g. `["createSurface", "updateComponents"]`):
    /// the prompt describes only them and the processor rejects the others.
    pub fn messages(mut self, kinds: &[&str]) -> Self {
        self.allowed = Some(kinds.iter().map(|k| (*k).to_owned()).collect());
        self
    }

    /// Builds the generator, checking that the catalogs and examples fit together.
    ///
    /// # Errors
    ///
    /// A [`GeneratorError`]: a catalog of another version or two with one id, a component
    /// or message kind no catalog or version defines, or an example that does not read or
    /// does not validate against the catalogs.
    ///
    /// # Example
    ///
    /// ```
    /// use a2ui_agent::a2ui::ProtocolVersion;
    /// use a2ui_agent::generator::Generator;
    ///
    /// let err = Generator::builder(ProtocolVersion::V0_9).components(&["Marquee"]).build().unwrap_err();
    /// assert!(err.to_string().contains("'Marquee'"));
    /// ```
    pub fn build(mut self) -> Result<Generator, GeneratorError> {
        let version = self.version;
        let mut catalogs = std::mem::take(&mut self.catalogs);
        if catalogs.is_empty() && !self.explicit_catalogs {
            catalogs.push(Catalog::try_basic(version).map_err(GeneratorError::Catalog)?);
        }
        if let Some(names) = &self.components {
            catalogs = subset(catalogs, names)?;
        }
        if catalogs.is_empty() {
            return Err(GeneratorError::NoCatalog);
        }
        if let Some(kinds) = &self.allowed {
            if let Some(kind) = kinds
                .iter()
                .find(|k| !crate::a2ui::message_kinds(version).contains(&k.as_str()))
            {
                return Err(GeneratorError::UnknownMessage {
                    kind: kind.clone(),
                    version,
                });
            }
        }
        let validator = Validator::new(version, &catalogs).map_err(GeneratorError::Catalog)?;
        let catalogs = validator.catalogs().to_vec();
        let mut examples = Vec::with_capacity(self.examples.len());
        for (name, text) in std::mem::take(&mut self.examples) {
            let example = read_example(name, &text)?;
            if let Err(errors) = validator.check_response(&example.messages) {
                return Err(GeneratorError::Example {
                    name: example.name,
                    message: errors.first().map(ToString::to_string).unwrap_or_default(),
                });
            }
            examples.push(example);
        }
        Ok(Generator::from_builder(self, catalogs, examples))
    }
}

/// Prunes each catalog to the named components it has; one left with none is dropped.
fn subset(catalogs: Vec<Catalog>, names: &[String]) -> Result<Vec<Catalog>, GeneratorError> {
    if let Some(missing) = names.iter().find(|n| {
        !catalogs
            .iter()
            .any(|c| c.component_names().any(|m| m == *n))
    }) {
        return Err(GeneratorError::UnknownComponent(missing.clone()));
    }
    let mut kept = Vec::with_capacity(catalogs.len());
    for catalog in catalogs {
        let keep: Vec<&str> = names
            .iter()
            .map(String::as_str)
            .filter(|n| catalog.component_names().any(|m| m == *n))
            .collect();
        if !keep.is_empty() {
            kept.push(catalog.subset(&keep).map_err(GeneratorError::Catalog)?);
        }
    }
    Ok(kept)
}

/// Reads an example: JSON messages (a list, `{"messages": [...]}` or one message), or a
/// model answer.
fn read_example(name: String, text: &str) -> Result<Example, GeneratorError> {
    let bad = |message: String| GeneratorError::Example {
        name: name.clone(),
        message,
    };
    let (messages, response) = match serde_json::from_str::<Value>(text) {
        Ok(Value::Array(messages)) => (messages, None),
        Ok(Value::Object(mut map)) => match map.remove("messages") {
            Some(Value::Array(messages)) => (messages, None),
            Some(_) => return Err(bad("'messages' must be a list of messages".into())),
            None => (vec![Value::Object(map)], None),
        },
        Ok(_) => return Err(bad("an example is a list of A2UI messages".into())),
        Err(_) => {
            let parts = parser::parse(text).map_err(|e| bad(e.to_string()))?;
            let messages: Vec<Value> = parts
                .into_iter()
                .flat_map(|part| match part {
                    ParsedPart::A2ui(messages) => messages,
                    ParsedPart::Text(_) => Vec::new(),
                })
                .collect();
            (messages, Some(text.to_owned()))
        }
    };
    if messages.is_empty() {
        return Err(bad("it holds no A2UI message".into()));
    }
    Ok(Example {
        name,
        messages,
        response,
    })
}

/// Why a [`GeneratorBuilder`] could not build.
#[derive(Debug)]
#[non_exhaustive]
pub enum GeneratorError {
    /// A catalog that cannot be used (wrong version, duplicate id, does not load).
    Catalog(CatalogError),
    /// No catalog is left to offer (none given, or a component subset matched none).
    NoCatalog,
    /// A component no catalog defines.
    UnknownComponent(String),
    /// A message kind the version does not have.
    UnknownMessage {
        /// The kind asked for.
        kind: String,
        /// The generator's version.
        version: ProtocolVersion,
    },
    /// An example that does not read, or does not validate against the catalogs.
    Example {
        /// The example's name.
        name: String,
        /// What is wrong.
        message: String,
    },
}

impl fmt::Display for GeneratorError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Catalog(e) => e.fmt(f),
            Self::NoCatalog => f.write_str("the generator offers no catalog"),
            Self::UnknownComponent(name) => write!(f, "no catalog defines component '{name}'"),
            Self::UnknownMessage { kind, version } => {
                write!(f, "A2UI {version} has no message '{kind}'")
            }
            Self::Example { name, message } => write!(f, "example '{name}': {message}"),
        }
    }
}

impl std::error::Error for GeneratorError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Catalog(e) => Some(e),
            _ => None,
        }
    }
}

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
#[derive(Debug, Clone)]
pub struct NegotiationError {
    kind: NegotiationErrorKind,
    version: ProtocolVersion,
    requested: Vec<String>,
    offered: Vec<String>,
    detail: String,
}

impl NegotiationError {
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
            detail: error.to_string(),
        }
    }

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

impl fmt::Display for NegotiationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let offered = self.offered.join(", ");
        match self.kind {
            NegotiationErrorKind::VersionNotDescribed => write!(
                f,
                "A2UI {}: the renderer's capabilities have no {} entry ({})",
                self.version, self.version, self.detail
            ),
            NegotiationErrorKind::NoCatalogInCommon if self.requested.is_empty() => write!(
                f,
                "A2UI {}: the renderer supports no catalog; this agent offers [{offered}]",
                self.version
            ),
            NegotiationErrorKind::NoCatalogInCommon => write!(
                f,
                "A2UI {}: no catalog in common: the renderer supports [{}], this agent offers \
                 [{offered}]",
                self.version,
                self.requested.join(", ")
            ),
            _ => write!(
                f,
                "A2UI {}: {} (the renderer asked for [{}], this agent offers [{offered}])",
                self.version,
                self.detail,
                self.requested.join(", ")
            ),
        }
    }
}

impl std::error::Error for NegotiationError {}

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

    #[test]
    fn an_example_given_as_a_model_answer_is_read_for_its_messages() {
        let example = read_example(
            "bye".into(),
            "Bye!<a2ui-json>[{\"version\": \"v0.9\", \"deleteSurface\": {\"surfaceId\": \"s\"}}]</a2ui-json>",
        )
        .unwrap();
        assert_eq!(example.messages.len(), 1);
        assert!(example.response.is_some());
    }
}
