//! The repair turn: what an agent is told when its A2UI did not validate.
//!
//! When the server's `on_invalid` policy is [`OnInvalid::Repair`](crate::pipeline::OnInvalid) (the
//! default) and a finished A2UI message of the agent's reply fails the negotiated catalogs
//! (schema or component tree), that message is not sent. The server stops reading the reply
//! and calls the agent again for the same request, now carrying a [`Repair`] for each rejected
//! attempt ([`Request::repairs`](super::Request::repairs)). The text and the valid messages
//! sent before the rejected one stay with the client: the new answer continues the same reply
//! and should hold the corrected message and what was meant to follow it.
//!
//! A model client (such as [`crate::llm::OpenAiChat`]) appends each repair to the
//! conversation as two turns: the rejected answer as the assistant's, then
//! [`Repair::prompt`] (the protocol's `VALIDATION_FAILED` error messages and what to do) as
//! the user's. A closure agent reads [`Request::repair`](super::Request::repair) and answers
//! accordingly; one that ignores it answers the same way again, and the task fails once the
//! server's `max_repairs` is spent, saying what did not validate.

use serde_json::Value;

use crate::a2ui::{ProtocolVersion, ValidationError};

/// One rejected attempt and why it was rejected.
///
/// # Example
///
/// ```
/// use a2ui_agent::a2ui::{ProtocolVersion, ValidationError};
/// use a2ui_agent::request::Repair;
///
/// let error = ValidationError::new("/updateComponents/components/0", "unknown component 'Marquee'", Some("main"), None);
/// let repair = Repair::new(ProtocolVersion::V0_9, "Here:<a2ui-json>[...", vec![error]);
/// assert_eq!(repair.feedback()[0]["error"]["code"], "VALIDATION_FAILED");
/// assert!(repair.prompt().contains("unknown component 'Marquee'"));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Repair {
    version: ProtocolVersion,
    answer: String,
    errors: Vec<ValidationError>,
    /// Why the answer could not be read, when that is what went wrong.
    unread: Option<Unread>,
    /// How the block is written again, in the output format's words.
    notation: Option<String>,
}

/// An attempt whose A2UI could not be read at all.
#[derive(Debug, Clone, PartialEq)]
enum Unread {
    /// It ended inside a message (why).
    CutOff(String),
    /// A block's JSON (or notation) is not readable (the parse error).
    Syntax(String),
}

impl Repair {
    /// A repair of `answer` (the attempt's text as the agent wrote it, up to where it was
    /// stopped) for `errors`, under protocol `version`.
    pub fn new(
        version: ProtocolVersion,
        answer: impl Into<String>,
        errors: Vec<ValidationError>,
    ) -> Self {
        Self {
            version,
            answer: answer.into(),
            errors,
            unread: None,
            notation: None,
        }
    }

    /// This repair, asking for the block to be written `notation` (the output format's
    /// [`notation`](crate::format::OutputFormat::notation): the server sets it); without
    /// it, the prompt asks for JSON.
    ///
    /// # Example
    ///
    /// ```
    /// use a2ui_agent::a2ui::ProtocolVersion;
    /// use a2ui_agent::request::Repair;
    ///
    /// let repair = Repair::unreadable(ProtocolVersion::V0_9, "<a2ui>x = +</a2ui>", "cannot read '+'")
    ///     .in_notation("in the A2UI Express notation");
    /// assert!(repair.prompt().contains("in the A2UI Express notation"));
    /// assert!(!repair.prompt().contains("JSON"));
    /// ```
    pub fn in_notation(mut self, notation: impl Into<String>) -> Self {
        self.notation = Some(notation.into());
        self
    }

    /// How the block is to be written again: the format's words, else Direct JSON's.
    fn notation(&self) -> std::borrow::Cow<'_, str> {
        match &self.notation {
            Some(notation) => notation.as_str().into(),
            None => crate::format::OutputFormat::notation(&crate::format::DirectJson).into(),
        }
    }

    /// A repair of `answer`, which ended inside an A2UI message (a model stopped by its
    /// token limit, `finish_reason: "length"`): `reason` says where. It has no validation
    /// errors; its [`prompt`](Self::prompt) says the answer was cut off.
    ///
    /// # Example
    ///
    /// ```
    /// use a2ui_agent::a2ui::ProtocolVersion;
    /// use a2ui_agent::request::Repair;
    ///
    /// let repair = Repair::cut_off(ProtocolVersion::V0_9, "Here:<a2ui-json>[{", "the stream ended inside a message");
    /// assert!(repair.is_cut_off() && repair.errors().is_empty());
    /// assert!(repair.prompt().contains("cut off"));
    /// ```
    pub fn cut_off(
        version: ProtocolVersion,
        answer: impl Into<String>,
        reason: impl Into<String>,
    ) -> Self {
        Self {
            unread: Some(Unread::CutOff(reason.into())),
            ..Self::new(version, answer, Vec::new())
        }
    }

    /// A repair of `answer`, whose last A2UI block could not be read (`error`, the parse
    /// error: a small model's invalid escape in a string, say). It has no validation
    /// errors; its [`prompt`](Self::prompt) names the error.
    pub fn unreadable(
        version: ProtocolVersion,
        answer: impl Into<String>,
        error: impl Into<String>,
    ) -> Self {
        Self {
            unread: Some(Unread::Syntax(error.into())),
            ..Self::new(version, answer, Vec::new())
        }
    }

    /// Whether the attempt was cut off inside a message (rather than rejected by validation).
    pub fn is_cut_off(&self) -> bool {
        matches!(self.unread, Some(Unread::CutOff(_)))
    }

    /// Whether the attempt's A2UI could not be read (cut off, or not readable), rather than
    /// read and rejected by validation.
    pub fn is_unreadable(&self) -> bool {
        self.unread.is_some()
    }

    /// The protocol version the feedback is written in.
    pub fn version(&self) -> ProtocolVersion {
        self.version
    }

    /// The rejected attempt's text, up to where the server stopped reading it.
    pub fn answer(&self) -> &str {
        &self.answer
    }

    /// What did not validate.
    pub fn errors(&self) -> &[ValidationError] {
        &self.errors
    }

    /// The errors as the negotiated version's renderer-to-agent `VALIDATION_FAILED` error
    /// messages, one per problem.
    pub fn feedback(&self) -> Vec<Value> {
        self.errors
            .iter()
            .map(|error| error.to_feedback(self.version))
            .collect()
    }

    /// What the request is asked again with, when a model is not shown its rejected answer
    /// (see `llm::RepairTurns::Retry`): what was refused and why, in one sentence.
    ///
    /// # Example
    ///
    /// ```
    /// use a2ui_agent::a2ui::ProtocolVersion;
    /// use a2ui_agent::request::Repair;
    ///
    /// let repair = Repair::unreadable(ProtocolVersion::V0_9, "<a2ui>x = +</a2ui>", "cannot read '+'");
    /// assert!(repair.retry_note().starts_with("An earlier answer to this was refused"));
    /// assert!(repair.retry_note().contains("cannot read '+'"));
    /// assert!(!repair.retry_note().contains("x = +"), "not the answer itself");
    /// ```
    pub fn retry_note(&self) -> String {
        match &self.unread {
            Some(Unread::Syntax(error)) => format!(
                "An earlier answer to this was refused: its A2UI block could not be read \
                 ({error}). Write the whole block so that this cannot happen."
            ),
            Some(Unread::CutOff(_)) => "An earlier answer to this was cut off by the length \
                limit before its A2UI block was complete. Write a shorter one (fewer \
                components, shorter texts) and close the block."
                .to_owned(),
            None => {
                let errors: Vec<String> = self.errors.iter().map(ToString::to_string).collect();
                format!(
                    "An earlier answer to this was refused: the client reported {}. Write the \
                     whole block so that this cannot happen.",
                    errors.join("; ")
                )
            }
        }
    }

    /// The user turn that asks a model for the repair: the feedback messages, one JSON per
    /// line, and what to answer.
    pub fn prompt(&self) -> String {
        if let Some(Unread::Syntax(error)) = &self.unread {
            return format!(
                "Your last A2UI block could not be read ({error}); it was not shown. \
                 Everything before it was delivered. Continue your answer: write that block \
                 again, exactly as the instructions describe, {}, then whatever was meant to \
                 follow. Do not repeat text or messages already delivered.",
                self.notation()
            );
        }
        if let Some(Unread::CutOff(reason)) = &self.unread {
            return format!(
                "Your last answer was cut off before its A2UI block was complete ({reason}), \
                 probably by the length limit; the unfinished message was not shown. \
                 Everything before it was delivered. Continue your answer: write the \
                 unfinished message again, complete and shorter (fewer components, shorter \
                 texts), close the block, then whatever was meant to follow. Do not repeat text \
                 or messages already delivered."
            );
        }
        let mut text = String::from(
            "The client rejected the last A2UI message you wrote; it was not shown. \
             The renderer reported:\n",
        );
        for feedback in self.feedback() {
            text.push_str(&feedback.to_string());
            text.push('\n');
        }
        text.push_str(&format!(
            "Everything you wrote before that message was delivered. Continue your answer: \
             write the corrected message {}, then whatever was meant to follow it. Do not \
             repeat text or messages already delivered.",
            self.notation()
        ));
        text
    }
}
