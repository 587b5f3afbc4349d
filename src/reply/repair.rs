//! The repair loop: an invalid A2UI message never reaches the client.
//!
//! Every A2UI message the output pipeline completes passes through a [`Guard`] before it is
//! sent. A message that fails the negotiated catalogs' schema is held back, with everything
//! after it, and the server's [`OnInvalid`] policy decides what follows: ask the agent again
//! with the protocol's `VALIDATION_FAILED` feedback ([`Repair`]), fail the task, or send the
//! message anyway. The component tree (a root, no dangling or duplicate ids, no cycle) can
//! only be judged once the reply is complete, so it is checked at its end over every message
//! of the reply; a tree problem is repaired the same way, by messages that complete the tree.
//!
//! How the agent receives a repair turn is described in [`crate::request::Repair`].

use std::fmt;
use std::str::FromStr;

use serde_json::{Map, Value};

use crate::a2a::Part;
use crate::a2ui::ValidationError;
use crate::processor::RequestProcessor;
use crate::request::{Repair, Request};

/// What the server does with a finished A2UI message that does not validate.
///
/// # Example
///
/// ```
/// use a2ui_agent::reply::OnInvalid;
///
/// assert_eq!("fail".parse::<OnInvalid>(), Ok(OnInvalid::Fail));
/// assert_eq!(OnInvalid::default(), OnInvalid::Repair);
/// assert!("retry".parse::<OnInvalid>().is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OnInvalid {
    /// Hold it back and call the agent again with the validation errors (see
    /// [`Request::repairs`]), up to the server's `max_repairs` times; then fail the task
    /// with the errors. The default.
    #[default]
    Repair,
    /// Hold it back and fail the task with the validation errors.
    Fail,
    /// Send it as it is. For pass-through setups (conformance suites) where the client
    /// judges the messages itself.
    Forward,
}

impl FromStr for OnInvalid {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text {
            "repair" => Ok(OnInvalid::Repair),
            "fail" => Ok(OnInvalid::Fail),
            "forward" => Ok(OnInvalid::Forward),
            other => Err(format!(
                "unknown policy '{other}' (expected repair, fail or forward)"
            )),
        }
    }
}

impl fmt::Display for OnInvalid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            OnInvalid::Repair => "repair",
            OnInvalid::Fail => "fail",
            OnInvalid::Forward => "forward",
        })
    }
}

/// The server's policy: what to do, and how many repair turns a reply may take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RepairPolicy {
    pub(crate) on_invalid: OnInvalid,
    pub(crate) max_repairs: usize,
}

impl Default for RepairPolicy {
    fn default() -> Self {
        Self {
            on_invalid: OnInvalid::Repair,
            max_repairs: 2,
        }
    }
}

impl RepairPolicy {
    /// The guard for one reply to `request`.
    pub(crate) fn guard(&self, request: &Request) -> Guard {
        let checking = self.on_invalid != OnInvalid::Forward;
        Guard {
            policy: *self,
            processor: request.a2ui().filter(|_| checking).cloned(),
            // Only a repair needs the request again.
            request: (checking && self.on_invalid == OnInvalid::Repair && request.a2ui().is_some())
                .then(|| request.clone()),
            sent: Vec::new(),
            answer: String::new(),
        }
    }
}

/// Checks one reply's A2UI messages, attempt after attempt.
pub(crate) struct Guard {
    policy: RepairPolicy,
    /// `None`: nothing to check (no A2UI, or the policy forwards).
    processor: Option<RequestProcessor>,
    /// The request as first made, kept to build repair requests from.
    request: Option<Request>,
    /// Every A2UI message of the reply let through so far.
    sent: Vec<Value>,
    /// The current attempt's text as the agent wrote it.
    answer: String,
}

impl Guard {
    /// Notes a chunk of the current attempt (a repair turn shows the agent what it wrote).
    pub(crate) fn record(&mut self, chunk: &str) {
        if self.request.is_some() {
            self.answer.push_str(chunk);
        }
    }

    /// The parts that may go to the client: all of `parts`, or those before the first A2UI
    /// message that does not validate, with its errors. The last `checked` parts already
    /// passed the processor's `check_message` (the reader's readiness check, see
    /// [`OutputSink::push_checked`](super::output::OutputSink::push_checked)) and are not
    /// checked again.
    pub(crate) fn screen(
        &mut self,
        mut parts: Vec<Part>,
        checked: usize,
    ) -> (Vec<Part>, Option<Vec<ValidationError>>) {
        let Some(processor) = &self.processor else {
            return (parts, None);
        };
        let unchecked = parts.len().saturating_sub(checked);
        for index in 0..parts.len() {
            let Part::Data { data, .. } = &parts[index] else {
                continue;
            };
            let message = Value::Object(Map::clone(data));
            let verdict = if index < unchecked {
                processor.check_message(&message)
            } else {
                Ok(())
            };
            match verdict {
                Ok(()) => self.sent.push(message),
                Err(error) => {
                    parts.truncate(index);
                    return (parts, Some(vec![error]));
                }
            }
        }
        (parts, None)
    }

    /// At the end of an attempt: the component trees of every message of the reply.
    pub(crate) fn finish(&mut self) -> Option<Vec<ValidationError>> {
        let processor = self.processor.as_ref()?;
        if self.sent.is_empty() {
            return None;
        }
        // Each message passed `check_message` in `screen`: only the trees are left.
        processor.check_trees(&self.sent).err()
    }

    /// The request for the next attempt after `errors`, or why the task fails.
    pub(crate) fn next(&mut self, errors: Vec<ValidationError>) -> Result<Request, String> {
        let done = self
            .request
            .as_ref()
            .map_or(0, |request| request.repairs().len());
        let listed = errors
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("; ");
        let (Some(request), Some(processor)) = (self.request.as_mut(), &self.processor) else {
            return Err(format!("The agent's A2UI did not validate: {listed}"));
        };
        if done >= self.policy.max_repairs {
            return Err(format!(
                "The agent's A2UI still did not validate after {done} repair turn{}: {listed}",
                if done == 1 { "" } else { "s" }
            ));
        }
        tracing::info!(attempt = done + 1, errors = %listed, "asking the agent to repair its A2UI");
        let answer = std::mem::take(&mut self.answer);
        let repaired =
            request
                .clone()
                .with_repair(Repair::new(processor.version(), answer, errors));
        *request = repaired.clone();
        Ok(repaired)
    }
}
