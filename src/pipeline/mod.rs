//! The reply pipeline: from the text an agent writes to the parts a client may see.
//!
//! This module exists so that what goes out of a reply (text, A2UI messages that passed their
//! catalogs, a repair turn when they did not) is decided in one place that knows nothing of
//! tasks or stores. One `Pipeline` serves one reply, attempt after attempt: it takes the
//! agent's text chunk by chunk (`Pipeline::push`) and says what may be sent and what was
//! refused (`Step`); at the end of an attempt `Pipeline::finish` checks what only the
//! whole answer settles; after a refusal `Pipeline::retry` builds the repair turn's request
//! (or says why the task fails) and reads the next attempt. The task runner above it only
//! carries the parts to the store and the subscribers.
//!
//! Inside, each message is checked once: the format's reader checks a message still arriving
//! (a progressive snapshot goes out only when it already validates) and tells the guard how
//! many of the messages it hands over it checked, so the guard checks only the rest.
//!
//! - `sink`: the format's reader for one attempt (plain text, streamed A2UI, or A2UI read
//!   once at the end);
//! - `guard`: holds back an invalid message under the policy and builds repair requests;
//! - `policy`: the [`OnInvalid`] policy and the most repair turns a reply may take;
//! - `url_policy`: where a URL a model wrote may point ([`UrlPolicy`]), and `urls`: which
//!   strings of a message are URLs (the guard refuses a message whose URL breaks it, as it
//!   refuses one that does not validate);
//! - `screen`: the judgement of one message (schema, URLs, tree) the guard and a relayed
//!   agent's A2UI (`Screen`) share;
//! - `hosts`: what a URL's host name resolves to, looked up off the per-chunk path while the
//!   message that names it waits;
//! - `reconcile`: what a repair turn sends, measured against what the client already holds;
//! - `echo`: the text a repair turn repeats of what the client already read;
//! - `follow_up`: what a follow-up turn sends for a surface an earlier turn created;
//! - `mending`: a label a model wrote where a component belongs, answered by a `Text`;
//! - `sent_parts`: the parts a reply sent so far, kept as JSON until it ends.

mod echo;
mod follow_up;
mod guard;
mod hosts;
mod mending;
mod policy;
mod reconcile;
mod screen;
mod sent_parts;
pub(crate) mod sink;
mod url_policy;
mod urls;

use std::sync::Arc;

use crate::a2a::Part;
use crate::a2ui::ValidationError;
use crate::parser::ParseErrorKind;
use crate::request::Request;

use guard::Guard;
pub(crate) use hosts::HostCheck;
pub use hosts::{HostResolver, LOOKUP_TIMEOUT, SystemResolver};
pub(crate) use hosts::{Lookup, Resolved};
pub use mending::MENDED_KEY;
pub use policy::OnInvalid;
pub(crate) use policy::RepairPolicy;
#[cfg(feature = "orchestrator")]
pub(crate) use screen::Screen;
pub(crate) use sent_parts::{KeptParts, SentParts};
use sink::{Batch, OutputError, OutputPipeline, OutputSink};
pub use url_policy::{DEFAULT_DATA_URL_MAX, UrlPolicy};

/// What one push (or the end) of a reply's text gives: the parts that may go to the client,
/// in order, and whether the attempt ended with a problem.
#[derive(Debug, Default)]
pub(crate) struct Step {
    /// The parts to send now (none: nothing completed).
    pub(crate) send: Vec<Part>,
    /// Why the attempt cannot go on: what follows it is the pipeline's to
    /// [`retry`](Pipeline::retry).
    pub(crate) end: Option<End>,
    /// Host names a message waits for: the runner awaits its `run` and hands the
    /// verdicts to [`Pipeline::resume`] before pushing more.
    pub(crate) wait: Option<Lookup>,
}

impl Step {
    /// Whether the step sends nothing, ends nothing and waits for nothing (most chunks of a
    /// stream).
    pub(crate) fn is_empty(&self) -> bool {
        self.send.is_empty() && self.end.is_none() && self.wait.is_none()
    }
}

/// Why an attempt ended before its answer was done.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum End {
    /// A2UI that does not validate (or breaks its surface's tree).
    Invalid(Vec<ValidationError>),
    /// A2UI that cannot be read: `cut` when the answer ended inside a message (as at a
    /// model's token limit), otherwise a block that is not readable. `reason` is why the
    /// task fails if no repair turn mends it.
    Unreadable { reason: String, cut: bool },
    /// The output broke a limit: the task fails with this reason, with no repair turn.
    Failed(String),
}

/// One reply's pipeline (see the module docs).
///
/// The fields a chunk touches come first, so that a stream's chunk reads one cache line of
/// it unless the chunk completes something.
#[repr(C)]
pub(crate) struct Pipeline {
    /// The current attempt's reader.
    sink: Box<dyn OutputSink>,
    /// The current attempt's text as the agent wrote it (`None`: no repair turn will show
    /// it, so it is not kept).
    said: Option<String>,
    /// Checks the reply's A2UI, attempt after attempt.
    guard: Guard,
    /// Makes the next attempt's reader.
    output: Arc<dyn OutputPipeline>,
    /// Whether the client reads the reply as it comes.
    streaming: bool,
    /// The attempt's text ended while a message waited for a lookup: its end is checked
    /// once nothing waits.
    finishing: bool,
}

impl Pipeline {
    /// The pipeline of the reply to `request` under `policy`, reading with `output`'s sinks;
    /// `streaming` when the client reads the reply as it comes.
    pub(crate) fn new(
        policy: &RepairPolicy,
        output: Arc<dyn OutputPipeline>,
        request: &Request,
        streaming: bool,
    ) -> Self {
        let guard = Guard::new(policy, request);
        Pipeline {
            sink: output.start(request, streaming),
            said: guard.keeps_answer().then(String::new),
            guard,
            output,
            streaming,
            finishing: false,
        }
    }

    /// Reads `chunk` of the agent's text: what it completed that may be sent, and whether
    /// the attempt ends here.
    pub(crate) fn push(&mut self, chunk: &str) -> Step {
        if let Some(said) = &mut self.said {
            said.push_str(chunk);
        }
        match self.sink.push(chunk) {
            // Most chunks complete nothing: no screening.
            Ok(batch) if batch.is_empty() => Step::default(),
            Ok(batch) => self.screen(batch),
            Err(error) => self.unreadable(error),
        }
    }

    /// Ends the attempt's text: what the reader still held, the parts that mend the answer,
    /// and what the component trees of the whole reply still lack.
    pub(crate) fn finish(&mut self) -> Step {
        let sink = std::mem::replace(&mut self.sink, Box::new(sink::TextOutput));
        let step = match sink.finish() {
            Ok(batch) => self.screen(batch),
            Err(error) => return self.unreadable(error),
        };
        if step.wait.is_some() {
            self.finishing = true;
            return step;
        }
        self.finished(step)
    }

    /// After the lookup a step waited for: what waited, screened with its verdicts (and,
    /// when the attempt's text had ended, what the whole answer still lacks).
    pub(crate) fn resume(&mut self, resolved: Resolved) -> Step {
        let (send, invalid, wait) = self.guard.resume(resolved);
        let step = Step {
            send,
            end: invalid.map(End::Invalid),
            wait,
        };
        if !self.finishing || step.wait.is_some() {
            return step;
        }
        self.finishing = false;
        self.finished(step)
    }

    /// `step`, the last of an attempt, with what mends the answer and what it still lacks.
    fn finished(&mut self, mut step: Step) -> Step {
        if step.end.is_none() {
            let (mended, invalid) = self.guard.finish();
            step.send.extend(mended);
            step.end = invalid.map(End::Invalid);
        }
        step
    }

    /// After an attempt that ended with `end`: the request of the repair turn that follows
    /// (the next attempt is read from here on), or why the task fails. `sent` is what the
    /// reply sent so far, all attempts and events together.
    ///
    /// # Errors
    ///
    /// The reason the task fails: the policy does not repair, the repair turns are spent,
    /// or the output broke a limit.
    pub(crate) fn retry(&mut self, end: End, sent: &SentParts) -> Result<Request, String> {
        self.guard.drop_waiting();
        self.finishing = false;
        let said = self.said.as_mut().map(std::mem::take).unwrap_or_default();
        let next = match end {
            End::Invalid(errors) => self.guard.next(errors, said, sent)?,
            End::Unreadable { reason, cut } => self.guard.unreadable(&reason, cut, said, sent)?,
            End::Failed(reason) => return Err(reason),
        };
        self.sink = self.output.start(&next, self.streaming);
        Ok(next)
    }

    /// The current attempt's text as kept for a repair turn (empty when not kept).
    #[cfg(test)]
    pub(crate) fn said(&self) -> &str {
        self.said.as_deref().unwrap_or_default()
    }

    /// The parts of `batch` that may go out, and the first problem in it.
    fn screen(&mut self, batch: Batch) -> Step {
        let (send, invalid, wait) = self.guard.screen(batch);
        Step {
            send,
            end: invalid.map(End::Invalid),
            wait,
        }
    }

    /// What the read completed before `error` (text before a broken block, say) goes out;
    /// a block that cannot be read, or an answer cut off inside a message, may be repaired;
    /// a limit exceeded fails the task.
    fn unreadable(&mut self, error: OutputError) -> Step {
        // What waits for a lookup is not sent: the attempt ends here.
        let (send, _, _) = self.guard.screen(error.before);
        self.guard.drop_waiting();
        let end = match error.kind {
            Some(ParseErrorKind::Truncated) => End::Unreadable {
                reason: error.reason,
                cut: true,
            },
            Some(ParseErrorKind::Syntax) => End::Unreadable {
                reason: error.reason,
                cut: false,
            },
            _ => End::Failed(error.reason),
        };
        Step {
            send,
            end: Some(end),
            wait: None,
        }
    }
}
