//! The request processor: what one negotiated catalog set gives an agent for a request.
//!
//! Once a renderer has said what it can draw, everything about the turn follows from the
//! active catalogs: the system prompt the model reads, the parser that reads its answer
//! (with the catalog validator deciding when a message still arriving is ready to send), and
//! the check of the finished messages. A [`RequestProcessor`] bundles the three. It is built
//! by [`Generator::negotiate`](crate::generator::Generator::negotiate) and shared (cheap to
//! clone) between every request that negotiates the same catalogs.

use std::fmt;
use std::sync::{Arc, OnceLock};

use serde_json::Value;

use crate::a2ui::{Catalog, CatalogError, ProtocolVersion, ValidationError, Validator};
use crate::format::{FormatReader, OutputFormat};
use crate::parser::{EmitMode, ParseError, ParsedPart, ParserConfig};

/// The prompt, parser and validator for one protocol version and one set of active
/// catalogs. Cloning is cheap (the state is shared); `Send + Sync`.
///
/// # Example
///
/// ```
/// use a2ui_agent::generator::Generator;
/// use a2ui_agent::parser::ParsedPart;
///
/// let processor = Generator::v0_9().negotiate(None)?;
/// assert!(processor.prompt().contains("<a2ui-json>"));
/// let parts = processor.parse(
///     "Hi!<a2ui-json>[{\"version\": \"v0.9\", \"deleteSurface\": {\"surfaceId\": \"s\"}}]</a2ui-json>",
/// )?;
/// assert!(matches!(&parts[0], ParsedPart::Text(t) if t == "Hi!"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone)]
pub struct RequestProcessor {
    inner: Arc<Inner>,
}

struct Inner {
    version: ProtocolVersion,
    validator: Validator,
    prompt: String,
    format: Arc<dyn OutputFormat>,
    progressive_keys: Vec<String>,
    emit_mode: EmitMode,
    allowed: Option<Vec<String>>,
    /// The format's grammar, written the first time it is asked for.
    grammar: OnceLock<Option<String>>,
    /// The message schema, written the first time it is asked for.
    message_schema: OnceLock<Result<Value, String>>,
}

/// What a processor is built from (by the generator).
pub(crate) struct Parts {
    pub(crate) validator: Validator,
    pub(crate) prompt: String,
    pub(crate) format: Arc<dyn OutputFormat>,
    pub(crate) progressive_keys: Vec<String>,
    pub(crate) emit_mode: EmitMode,
    pub(crate) allowed: Option<Vec<String>>,
}

impl fmt::Debug for RequestProcessor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RequestProcessor")
            .field("version", &self.inner.version)
            .field(
                "catalogs",
                &self.catalogs().iter().map(Catalog::id).collect::<Vec<_>>(),
            )
            .field("format", &self.inner.format.name())
            .field("prompt_bytes", &self.inner.prompt.len())
            .finish_non_exhaustive()
    }
}

impl RequestProcessor {
    pub(crate) fn new(parts: Parts) -> Self {
        Self {
            inner: Arc::new(Inner {
                version: parts.validator.version(),
                validator: parts.validator,
                prompt: parts.prompt,
                format: parts.format,
                progressive_keys: parts.progressive_keys,
                emit_mode: parts.emit_mode,
                allowed: parts.allowed,
                grammar: OnceLock::new(),
                message_schema: OnceLock::new(),
            }),
        }
    }

    /// The protocol version the model writes.
    pub fn version(&self) -> ProtocolVersion {
        self.inner.version
    }

    /// The active catalogs: the renderer's supported catalogs in its order of preference,
    /// then the inline catalogs the agent accepted (all registered catalogs, in the agent's
    /// order, when the request carried no capabilities).
    pub fn catalogs(&self) -> &[Catalog] {
        self.inner.validator.catalogs()
    }

    /// The system prompt for this catalog set: how to write the output, the workflow rules,
    /// the messages and catalogs in the generator's
    /// [`PromptStyle`](crate::generator::PromptStyle) and the examples. The same catalog set
    /// always gives the same text.
    pub fn prompt(&self) -> &str {
        &self.inner.prompt
    }

    /// The output format the model is asked to write.
    pub fn format(&self) -> &Arc<dyn OutputFormat> {
        &self.inner.format
    }

    /// The grammar (GBNF) of an answer in this processor's format for its catalogs, if the
    /// format has one ([`OutputFormat::grammar`]): what a model server that constrains
    /// sampling (llama.cpp's `grammar` member) is given, so that the model can only write
    /// blocks that read and name what the catalogs declare. Written once per catalog set.
    ///
    /// # Example
    ///
    /// ```
    /// use a2ui_agent::a2ui::ProtocolVersion;
    /// use a2ui_agent::format::express::Express;
    /// use a2ui_agent::generator::Generator;
    ///
    /// let express = Generator::builder(ProtocolVersion::V0_9).format(Express::new()).build()?;
    /// let processor = express.negotiate(None)?;
    /// let grammar = processor.grammar().expect("Express has one");
    /// assert!(grammar.contains("\"Button(\""));
    /// // Direct JSON has none.
    /// assert!(Generator::v0_9().negotiate(None)?.grammar().is_none());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn grammar(&self) -> Option<&str> {
        self.inner
            .grammar
            .get_or_init(|| self.inner.format.grammar())
            .as_deref()
    }

    /// A fresh reader for one response: the generator's progressive keys and emission mode,
    /// with the catalog validator as the readiness check (a message still arriving is sent
    /// early only if it already satisfies the schema), and JSON in a Markdown fence instead
    /// of a block read as A2UI when each message is shaped as one of this version's.
    ///
    /// # Example
    ///
    /// ```
    /// use a2ui_agent::generator::Generator;
    ///
    /// let processor = Generator::v0_9().negotiate(None)?;
    /// let mut reader = processor.parser();
    /// assert_eq!(reader.feed("Hello ").len(), 1);
    /// assert!(reader.finish()?.is_empty());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn parser(&self) -> Box<dyn FormatReader> {
        self.inner.format.reader(self.parser_config())
    }

    /// The parser configuration [`parser`](Self::parser) hands to the format.
    pub fn parser_config(&self) -> ParserConfig {
        let validator = self.inner.validator.clone();
        let allowed = self.inner.allowed.clone();
        let version = self.inner.version;
        ParserConfig::default()
            .progressive_keys(self.inner.progressive_keys.iter().cloned())
            .mode(self.inner.emit_mode)
            .readiness(move |message: &Value| {
                allowed_kind(allowed.as_deref(), message).is_ok()
                    && validator.check_message(message).is_ok()
            })
            .fenced_json(move |messages: &[Value]| {
                messages.iter().all(|message| of_version(version, message))
            })
    }

    /// Reads a whole response: its text runs and A2UI messages, in order (adjacent text
    /// joined). The messages are not validated; see [`validate`](Self::validate).
    ///
    /// # Errors
    ///
    /// A [`ParseError`] if a block cannot be read or the response ends inside one.
    pub fn parse(&self, text: &str) -> Result<Vec<ParsedPart>, ParseError> {
        let mut reader = self.parser();
        let mut parts = reader.feed(text);
        if let Some(err) = reader.error() {
            return Err(err.clone());
        }
        for part in reader.finish()? {
            match (parts.last_mut(), part) {
                (Some(ParsedPart::Text(before)), ParsedPart::Text(after)) => {
                    before.push_str(&after);
                }
                (_, part) => parts.push(part),
            }
        }
        Ok(parts)
    }

    /// Checks one finished message against the active catalogs' schema (and the agent's
    /// allowed message kinds), without the component tree: what can be known before the
    /// response ends.
    ///
    /// # Errors
    ///
    /// The most relevant problem found.
    ///
    /// # Example
    ///
    /// ```
    /// use a2ui_agent::generator::Generator;
    /// use serde_json::json;
    ///
    /// let processor = Generator::v0_9().negotiate(None)?;
    /// assert!(processor.check_message(&json!({"version": "v0.9", "deleteSurface": {"surfaceId": "s"}})).is_ok());
    /// assert!(processor.check_message(&json!({"version": "v0.9", "deleteSurface": {}})).is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn check_message(&self, message: &Value) -> Result<(), ValidationError> {
        allowed_kind(self.inner.allowed.as_deref(), message)?;
        self.inner.validator.check_message(message)
    }

    /// Checks the messages of a whole response against the active catalogs: each message
    /// against the schema (and the agent's allowed message kinds), then each surface's
    /// component tree.
    ///
    /// # Errors
    ///
    /// Every problem found (at most [`MAX_ERRORS`](crate::a2ui::MAX_ERRORS)), each with the
    /// index of its message.
    ///
    /// # Example
    ///
    /// ```
    /// use a2ui_agent::generator::Generator;
    /// use serde_json::json;
    ///
    /// let processor = Generator::v0_9().negotiate(None)?;
    /// let errors = processor
    ///     .validate(&[json!({"version": "v0.9", "updateComponents": {"surfaceId": "s",
    ///         "components": [{"id": "root", "component": "Marquee"}]}})])
    ///     .unwrap_err();
    /// assert_eq!(errors[0].message_index, Some(0));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn validate(&self, messages: &[Value]) -> Result<(), Vec<ValidationError>> {
        let mut errors: Vec<ValidationError> = messages
            .iter()
            .enumerate()
            .filter_map(|(i, m)| {
                allowed_kind(self.inner.allowed.as_deref(), m)
                    .err()
                    .map(|e| ValidationError {
                        message_index: Some(i),
                        ..e
                    })
            })
            .collect();
        if let Err(more) = self.inner.validator.check_response(messages) {
            errors.extend(more);
        }
        if errors.is_empty() {
            Ok(())
        } else {
            errors.truncate(crate::a2ui::MAX_ERRORS);
            Err(errors)
        }
    }

    /// The catalog validator of the active catalogs.
    pub fn validator(&self) -> &Validator {
        &self.inner.validator
    }

    /// The JSON Schema of one A2UI message of this processor's version whose components
    /// come from its active catalogs (any of them, when there are several), self-contained:
    /// each definition it uses from the catalogs and the version's common types is copied
    /// into its `$defs`, and every `$ref` points there. It is what a model provider that
    /// constrains a function's arguments is given (A2UI as a tool call,
    /// [`OpenAiChatBuilder::a2ui_via`](crate::llm::OpenAiChatBuilder::a2ui_via)). Written
    /// once per catalog set.
    ///
    /// # Errors
    ///
    /// [`CatalogError::Schema`] when a catalog refers to a definition that does not exist.
    ///
    /// # Example
    ///
    /// ```
    /// use a2ui_agent::generator::Generator;
    ///
    /// let processor = Generator::v0_9().negotiate(None)?;
    /// let schema = processor.message_schema()?;
    /// let text = schema.to_string();
    /// assert!(text.contains("\"Button\""));
    /// // Every reference points into the schema itself.
    /// assert!(text.contains("\"$ref\":\"#/$defs/") && !text.contains("\"$ref\":\"https:"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn message_schema(&self) -> Result<Value, CatalogError> {
        self.inner
            .message_schema
            .get_or_init(|| self.inner.validator.message_schema())
            .clone()
            .map_err(|message| CatalogError::Schema {
                catalog_id: self
                    .catalogs()
                    .iter()
                    .map(Catalog::id)
                    .collect::<Vec<_>>()
                    .join(" + "),
                message,
            })
    }
}

/// Whether `message` reads as an attempt at an A2UI message of `version`: what a Markdown
/// fence or a bare answer must hold to be read as A2UI rather than text; whether it then
/// validates is the validator's to say, as for a block. From v0.9 on, its `version` member
/// names the version and something else is beside it: a message the model meant as A2UI,
/// however wrong (a small model's repair turn wrote the `VALIDATION_FAILED` feedback back,
/// and a message with two kinds); read as text, it would end the turn with no A2UI at all.
/// v0.8 messages have no `version`: one member naming one of its message kinds, nothing
/// else.
fn of_version(version: ProtocolVersion, message: &Value) -> bool {
    let Some(map) = message.as_object() else {
        return false;
    };
    let mut others = map.keys().filter(|key| *key != "version");
    match (version.message_version(), map.get("version")) {
        (None, None) => {
            let kinds = crate::a2ui::message_kinds(version);
            others
                .next()
                .is_some_and(|kind| kinds.contains(&kind.as_str()))
                && others.next().is_none()
        }
        (Some(_), Some(Value::String(written))) => {
            ProtocolVersion::from_message_version(written)
                .is_some_and(|written| version.accepts_messages_of(written))
                && others.next().is_some()
        }
        _ => false,
    }
}

/// Whether `message` is of a kind the agent allows (`allowed` `None`: every kind).
fn allowed_kind(allowed: Option<&[String]>, message: &Value) -> Result<(), ValidationError> {
    let Some(allowed) = allowed else {
        return Ok(());
    };
    let Some(map) = message.as_object() else {
        return Ok(());
    };
    match map
        .keys()
        .find(|k| *k != "version" && !allowed.iter().any(|a| a == *k))
    {
        Some(kind) if super::prompt::message_kinds_any(kind) => {
            let surface = map
                .get(kind)
                .and_then(|b| b.get("surfaceId"))
                .and_then(Value::as_str);
            Err(ValidationError::new(
                format!("/{kind}"),
                format!(
                    "'{kind}' messages are not allowed here; use one of {}",
                    allowed.join(", ")
                ),
                surface,
                None,
            ))
        }
        _ => Ok(()),
    }
}
