//! [`GeneratorBuilder`]: what an agent offers under one version, checked before it serves.

use std::fmt;
use std::sync::Arc;

use serde_json::Value;

use super::cache::ProcessorCache;
use super::examples;
use super::offer::{Generator, Inner};
use super::prompt::{Example, PromptStyle};
use crate::a2ui::{Catalog, CatalogError, ProtocolVersion, Validator};
use crate::format::{DirectJson, OutputFormat};
use crate::parser::{self, EmitMode, ParsedPart};

/// The name the built-in example goes by in the prompt.
const BUILT_IN_EXAMPLE: &str = "A playlist";

/// The properties healed while they stream unless the agent says otherwise.
fn default_progressive_keys(version: ProtocolVersion) -> Vec<String> {
    match version {
        ProtocolVersion::V0_8 => vec!["valueString".into()],
        _ => vec!["value".into()],
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
    style: PromptStyle,
}

impl fmt::Debug for GeneratorBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GeneratorBuilder")
            .field("version", &self.version)
            .field("catalogs", &self.catalogs.len())
            .field("components", &self.components)
            .field("style", &self.style)
            .finish_non_exhaustive()
    }
}

impl GeneratorBuilder {
    pub(super) fn new(version: ProtocolVersion) -> Self {
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
            style: PromptStyle::default(),
        }
    }

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

    /// Adds the example the built-in generators show ([`Generator::built_in`]): a playlist
    /// card (`Card`, `Column`, `Text`, `Button`; a title naming the playlist, each song a
    /// Text of its own, a Play button whose action carries the playlist's id by path).
    /// [`build`](Self::build) refuses it if the catalogs lack those components.
    ///
    /// ```
    /// use a2ui_agent::a2ui::ProtocolVersion;
    /// use a2ui_agent::format::express::Express;
    /// use a2ui_agent::generator::Generator;
    ///
    /// let generator = Generator::builder(ProtocolVersion::V0_9)
    ///     .format(Express::new())
    ///     .built_in_example()
    ///     .build()?;
    /// let prompt = generator.negotiate(None)?.prompt().to_owned();
    /// assert!(prompt.contains(r#"Event("play", {playlistId: $/playlist/id})"#));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn built_in_example(self) -> Self {
        let version = self.version;
        self.example(BUILT_IN_EXAMPLE, examples::playlist(version))
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

    /// How a Direct JSON prompt describes the messages and catalogs (default
    /// [`PromptStyle::Signatures`]: one line per message kind, component and function).
    ///
    /// ```
    /// use a2ui_agent::a2ui::ProtocolVersion;
    /// use a2ui_agent::generator::{Generator, PromptStyle};
    ///
    /// let full = Generator::builder(ProtocolVersion::V0_9)
    ///     .prompt_style(PromptStyle::Schemas)
    ///     .build()?;
    /// assert!(full.negotiate(None)?.prompt().contains("## Message schema"));
    /// let lean = Generator::builder(ProtocolVersion::V0_9).build()?;
    /// assert!(lean.negotiate(None)?.prompt().contains("- Text(text: DynamicString"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn prompt_style(mut self, style: PromptStyle) -> Self {
        self.style = style;
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
        if !self.format.supports(version) {
            return Err(GeneratorError::Format {
                format: self.format.name().to_owned(),
                version,
            });
        }
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
        if let Some(kinds) = &self.allowed
            && let Some(kind) = kinds
                .iter()
                .find(|k| !crate::a2ui::message_kinds(version).contains(&k.as_str()))
        {
            return Err(GeneratorError::UnknownMessage {
                kind: kind.clone(),
                version,
            });
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
        Ok(Generator {
            inner: Arc::new(Inner {
                version,
                catalogs,
                examples,
                progressive_keys: self.progressive_keys,
                accepts_inline: self.accepts_inline,
                format: self.format,
                emit_mode: self.emit_mode,
                allowed: self.allowed,
                style: self.style,
                cache: ProcessorCache::default(),
            }),
        })
    }
}

/// Prunes each catalog to the named components it has; one left with none is dropped.
fn subset(catalogs: Vec<Catalog>, names: &[String]) -> Result<Vec<Catalog>, GeneratorError> {
    if let Some(missing) = names
        .iter()
        .find(|n| !catalogs.iter().any(|c| c.has_component(n)))
    {
        return Err(GeneratorError::UnknownComponent(missing.clone()));
    }
    let mut kept = Vec::with_capacity(catalogs.len());
    for catalog in catalogs {
        let keep: Vec<&str> = names
            .iter()
            .map(String::as_str)
            .filter(|n| catalog.has_component(n))
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
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum GeneratorError {
    /// A catalog that cannot be used (wrong version, duplicate id, does not load).
    #[error("{0}")]
    Catalog(#[source] CatalogError),
    /// No catalog is left to offer (none given, or a component subset matched none).
    #[error("the generator offers no catalog")]
    NoCatalog,
    /// A component no catalog defines.
    #[error("no catalog defines component '{0}'")]
    UnknownComponent(String),
    /// A message kind the version does not have.
    #[error("A2UI {version} has no message '{kind}'")]
    UnknownMessage {
        /// The kind asked for.
        kind: String,
        /// The generator's version.
        version: ProtocolVersion,
    },
    /// An example that does not read, or does not validate against the catalogs.
    #[error("example '{name}': {message}")]
    Example {
        /// The example's name.
        name: String,
        /// What is wrong.
        message: String,
    },
    /// The output format cannot be written under this protocol version.
    #[error("the {format} format cannot be written under A2UI {version}")]
    Format {
        /// The format's name.
        format: String,
        /// The generator's version.
        version: ProtocolVersion,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

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
