//! The repair loop: an invalid A2UI message never reaches the client.
//!
//! Every A2UI message the output pipeline completes passes through a [`Guard`] before it is
//! sent: the one checker of a reply, for every problem alike. A message that fails the
//! negotiated catalogs' schema, lists an id twice or closes a cycle among the components sent
//! so far is held back, with everything after it; so is whatever follows the close of a block
//! whose surface has a component its root cannot reach. The server's [`OnInvalid`] policy
//! decides what follows: ask the agent again with the protocol's `VALIDATION_FAILED` feedback
//! ([`Repair`]), fail the task, or (`forward`) check nothing and send everything. What only
//! the end of the reply settles (a missing root, a reference nothing answers) is checked at
//! its end ([`TreeWatch::finish`]); a tree problem is repaired the same way, by messages that
//! complete the tree. Before that, a reference that reads as a label (`"child": "Send"`) is
//! mended without a repair turn (see [`mending`]).
//!
//! How the agent receives a repair turn is described in [`crate::request::Repair`].

use std::sync::Arc;

use serde_json::{Map, Value};

use crate::a2a::Part;
use crate::a2ui::{ProtocolVersion, TreeWatch, ValidationError};
use crate::parser::ParsedPart;
use crate::processor::RequestProcessor;
use crate::request::{Repair, Request};

use super::echo::Echo;
use super::follow_up::Earlier;
use super::hosts::{Lookup, Resolved};
use super::mending;
use super::policy::{OnInvalid, RepairPolicy};
use super::reconcile::Held;
use super::screen::judge;
use super::sent_parts::SentParts;
use super::sink::{Batch, mime, to_parts};
use super::urls::UrlCheck;

/// Checks one reply's A2UI messages, attempt after attempt.
pub(crate) struct Guard {
    policy: RepairPolicy,
    /// The negotiated processor (`None`: the reply is plain text).
    processor: Option<RequestProcessor>,
    /// The component trees of what the client holds; `None`: nothing to check (no A2UI, or
    /// the policy forwards). Kept across attempts: a repair completes what was sent.
    watch: Option<TreeWatch>,
    /// The request as first made, kept to build repair requests from.
    request: Option<Request>,
    /// The surfaces the client holds from the task's earlier turns, which a follow-up turn
    /// does not create again (see [`Earlier`]).
    earlier: Earlier,
    /// The metadata of the reply's A2UI parts, one map for all of them.
    mime: Arc<Map<String, Value>>,
    /// What the client holds, so that a repair turn does not send it again; built from
    /// the parts sent when the first repair turn starts (the first attempt pays nothing for
    /// a repair that may never come).
    held: Held,
    /// Where the reply's URLs may point; `None` when nothing is checked.
    urls: Option<UrlCheck>,
    /// The text a repair turn repeats, so that it does not go out again.
    echo: Echo,
    /// What waits for host names to be judged: the first message whose URLs named one not
    /// judged yet, and everything after it.
    waiting: Option<Batch>,
}

/// Where screening a batch stopped.
enum Stop {
    /// A problem: the batch is cut before it.
    Invalid(Vec<ValidationError>),
    /// A message waits for its hosts to be judged: the batch is cut before it, and the rest
    /// is kept.
    Wait(Vec<String>, Batch),
}

impl Guard {
    /// The guard for one reply to `request` under `policy`.
    pub(crate) fn new(policy: &RepairPolicy, request: &Request) -> Self {
        let processor = request.a2ui().cloned();
        let checking = policy.on_invalid != OnInvalid::Forward;
        Guard {
            policy: policy.clone(),
            urls: checking
                .then(|| UrlCheck::new(policy.urls.clone(), policy.hosts.clone(), request))
                .flatten(),
            watch: processor
                .as_ref()
                .filter(|_| checking)
                .map(|processor| TreeWatch::new(processor.validator().clone())),
            // Only a repair needs the request again.
            request: (policy.on_invalid == OnInvalid::Repair && processor.is_some())
                .then(|| request.clone()),
            earlier: Earlier::from_history(if checking && processor.is_some() {
                request.history()
            } else {
                &[]
            }),
            // A reply without a processor is text only: the version does not matter.
            mime: mime(
                processor
                    .as_ref()
                    .map_or(ProtocolVersion::V0_9, RequestProcessor::version),
            ),
            processor,
            held: Held::default(),
            echo: Echo::default(),
            waiting: None,
        }
    }
}

impl Guard {
    /// Whether a repair turn may show the agent what it wrote: if not, its text need not be
    /// kept.
    pub(crate) fn keeps_answer(&self) -> bool {
        self.request.is_some()
    }

    /// The parts that may go to the client: all of `batch`, or those before the first
    /// problem, with its errors; on a repair turn, without what the client already holds
    /// (see [`Held`]). A problem is an A2UI message that does not validate (the
    /// last `batch.checked` messages already passed the same check while they arrived), one
    /// that breaks its surface's tree, or, where a block closes, a component the root of a
    /// surface created in it cannot reach. A message whose URLs name a host not judged yet
    /// stops the screening: it and what follows wait for the [`Lookup`] returned, then
    /// [`resume`](Self::resume).
    pub(crate) fn screen(
        &mut self,
        batch: Batch,
    ) -> (Vec<Part>, Option<Vec<ValidationError>>, Option<Lookup>) {
        let Batch {
            mut parsed,
            checked,
            block_ends,
        } = match self.waiting.take() {
            Some(waiting) => waiting.then(batch),
            None => batch,
        };
        let stop = self.first_problem(&mut parsed, checked, &block_ends);
        let sent = self.out(parsed);
        match stop {
            None => (sent, None, None),
            Some(Stop::Invalid(errors)) => (sent, Some(errors), None),
            Some(Stop::Wait(hosts, rest)) => {
                self.waiting = Some(rest);
                let hosts_check = self.urls.as_ref().map(|urls| urls.hosts().clone());
                (
                    sent,
                    None,
                    hosts_check.map(|check| Lookup::new(hosts, check)),
                )
            }
        }
    }

    /// Screens what waited for a [`Lookup`], with its verdicts (see [`Self::screen`]).
    pub(crate) fn resume(
        &mut self,
        resolved: Resolved,
    ) -> (Vec<Part>, Option<Vec<ValidationError>>, Option<Lookup>) {
        if let Some(urls) = &mut self.urls {
            urls.resolved(resolved);
        }
        self.screen(Batch::default())
    }

    /// Forgets what waits for a lookup (the attempt ended without it).
    pub(crate) fn drop_waiting(&mut self) {
        self.waiting = None;
    }

    /// The parts `parsed` (checked already) becomes on its way to the client: a follow-up's
    /// creations rewritten, a repair turn's reconciled with what the client holds; noted as
    /// sent.
    fn out(&mut self, mut parsed: Vec<ParsedPart>) -> Vec<Part> {
        for part in &mut parsed {
            if let ParsedPart::A2ui(messages) = part {
                *messages = self.earlier.rewrite(std::mem::take(messages));
            }
        }
        if self.request.is_none() {
            return to_parts(parsed, &self.mime);
        }
        if self.held.is_repairing() {
            for part in &mut parsed {
                match part {
                    ParsedPart::A2ui(messages) => {
                        *messages = self.held.reconcile(std::mem::take(messages));
                    }
                    ParsedPart::Text(text) => *text = self.echo.text(std::mem::take(text)),
                }
            }
        }
        to_parts(parsed, &self.mime)
    }

    /// Cuts `parsed` before its first problem and returns the problem (see `screen`).
    fn first_problem(
        &mut self,
        parsed: &mut Vec<ParsedPart>,
        checked: usize,
        block_ends: &[usize],
    ) -> Option<Stop> {
        let (Some(processor), Some(watch), Some(urls)) =
            (&self.processor, &mut self.watch, &mut self.urls)
        else {
            return None;
        };
        let last = parsed.len().saturating_sub(1);
        let mut ends = block_ends.iter().peekable();
        for index in 0..parsed.len() {
            while ends.next_if(|&&end| end <= index).is_some() {
                let errors = watch.block_closed();
                if !errors.is_empty() {
                    parsed.truncate(index);
                    return Some(Stop::Invalid(errors));
                }
            }
            let Some(ParsedPart::A2ui(messages)) = parsed.get_mut(index) else {
                continue;
            };
            let unchecked = if index == last {
                messages.len().saturating_sub(checked)
            } else {
                messages.len()
            };
            let verdict = messages.iter().enumerate().find_map(|(at, message)| {
                // A message that is not an object is dropped on the way out (see `to_parts`).
                if !message.is_object() {
                    return None;
                }
                match judge(processor, urls, watch, message, at >= unchecked) {
                    Ok(hosts) if hosts.is_empty() => None,
                    Ok(hosts) => Some((at, Stop::Wait(hosts, Batch::default()))),
                    Err(error) => Some((at, Stop::Invalid(vec![error]))),
                }
            });
            match verdict {
                None => {}
                Some((at, Stop::Wait(hosts, _))) => {
                    let mut rest = vec![ParsedPart::A2ui(messages.split_off(at))];
                    rest.extend(parsed.drain(index + 1..));
                    let rest = Batch {
                        parsed: rest,
                        checked: 0,
                        block_ends: ends.map(|end| end - index).collect(),
                    };
                    return Some(Stop::Wait(hosts, rest));
                }
                Some((at, stop)) => {
                    messages.truncate(at);
                    parsed.truncate(index + 1);
                    return Some(stop);
                }
            }
        }
        if ends.next().is_some() {
            let errors = watch.block_closed();
            if !errors.is_empty() {
                return Some(Stop::Invalid(errors));
            }
        }
        None
    }

    /// At the end of an attempt: the parts that mend the reply (see [`mending`]), and what the
    /// component trees of the whole reply still lack.
    pub(crate) fn finish(&mut self) -> (Vec<Part>, Option<Vec<ValidationError>>) {
        let (Some(processor), Some(watch)) = (&self.processor, &mut self.watch) else {
            return (Vec::new(), None);
        };
        let mut errors = watch.finish();
        let mut parts = Vec::new();
        if !errors.is_empty() {
            let mut mended = Vec::new();
            for (labels, message) in mending::labels(watch, processor.version()) {
                if processor.check_message(&message).is_ok() && watch.observe(&message).is_ok() {
                    tracing::info!(?labels, "mended labels written where components belong");
                    mended.push((labels, message));
                }
            }
            if !mended.is_empty() {
                errors = watch.finish();
                parts = self.mending(mended);
            }
        }
        (parts, (!errors.is_empty()).then_some(errors))
    }

    /// The parts of mending `messages`, each marked with the labels it answers.
    fn mending(&mut self, messages: Vec<(Vec<String>, Value)>) -> Vec<Part> {
        let mut parts = Vec::new();
        for (labels, message) in messages {
            for mut part in self.out(vec![ParsedPart::A2ui(vec![message])]) {
                if let Part::Data { metadata, .. } = &mut part {
                    let mut marked = metadata.as_deref().cloned().unwrap_or_default();
                    marked.insert(mending::MENDED_KEY.into(), Value::from(labels.clone()));
                    *metadata = Some(Arc::new(marked));
                }
                parts.push(part);
            }
        }
        parts
    }

    /// The request for the next attempt after `errors` in the attempt that wrote `answer`
    /// (`sent`: the reply's parts so far), or why the task fails.
    pub(crate) fn next(
        &mut self,
        errors: Vec<ValidationError>,
        answer: String,
        sent: &SentParts,
    ) -> Result<Request, String> {
        let listed = errors
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("; ");
        self.retry(
            answer,
            sent,
            |version, answer| Repair::new(version, answer, errors),
            |done| match done {
                None => format!("The agent's A2UI did not validate: {listed}"),
                Some(done) => format!(
                    "The agent's A2UI still did not validate after {done} repair turn{}: {listed}",
                    plural(done)
                ),
            },
        )
    }

    /// The request for the next attempt after the answer's A2UI could not be read (`cut`:
    /// it ended inside a message, as at the model's token limit; otherwise a block is not
    /// readable), `reason` being why the task fails without a repair; or why the task fails.
    pub(crate) fn unreadable(
        &mut self,
        reason: &str,
        cut: bool,
        answer: String,
        sent: &SentParts,
    ) -> Result<Request, String> {
        self.retry(
            answer,
            sent,
            |version, answer| {
                if cut {
                    Repair::cut_off(version, answer, reason)
                } else {
                    Repair::unreadable(version, answer, reason)
                }
            },
            |done| match done {
                None => reason.to_owned(),
                Some(done) => format!(
                    "{reason} (still {} after {done} repair turn{})",
                    if cut { "cut off" } else { "unreadable" },
                    plural(done)
                ),
            },
        )
    }

    /// The next attempt's request with the repair `make` builds, or why the task fails
    /// (`failure` of the repair turns done, `None` when the policy does not repair).
    fn retry(
        &mut self,
        answer: String,
        sent: &SentParts,
        make: impl FnOnce(ProtocolVersion, String) -> Repair,
        failure: impl FnOnce(Option<usize>) -> String,
    ) -> Result<Request, String> {
        let done = self
            .request
            .as_ref()
            .map_or(0, |request| request.repairs().len());
        let (Some(request), Some(processor)) = (self.request.as_mut(), &self.processor) else {
            return Err(failure(None));
        };
        if done >= self.policy.max_repairs {
            return Err(failure(Some(done)));
        }
        let repair = make(processor.version(), answer).in_notation(processor.format().notation());
        tracing::info!(attempt = done + 1, unreadable = repair.is_unreadable(), errors = ?repair.errors(), "asking the agent to repair its A2UI");
        if !self.held.is_repairing() {
            // What the client holds is what it was sent: replayed once, now that it matters.
            for message in sent.data_of(processor.version().mime_type()) {
                self.held.reconcile(vec![message]);
            }
        }
        self.held.repairing();
        self.echo.repair(|| sent.text());
        let repaired = request.clone().with_repair(repair);
        *request = repaired.clone();
        Ok(repaired)
    }
}

fn plural(count: usize) -> &'static str {
    if count == 1 { "" } else { "s" }
}

#[cfg(test)]
#[path = "guard_tests.rs"]
mod tests;
