//! The one judgement every A2UI message an agent's reply shows passes, whoever wrote it.
//!
//! A model's A2UI arrives as text the pipeline reads, and the [`Guard`](super::guard) judges
//! each message it completes; a relayed agent's A2UI (an orchestrator's sub-agent) arrives
//! as messages already made, and is just as untrusted. Both are judged here, by [`judge`]:
//! the negotiated catalogs' schema, the URL and media policy (with the provenance rule:
//! a URL must have appeared in what the agent was given, or be on the allowlist) and the
//! surface's component tree. [`Screen`] is that judgement for messages that arrive whole,
//! host lookups awaited in place.

use serde_json::Value;

use crate::a2ui::{TreeWatch, ValidationError};
use crate::processor::RequestProcessor;
#[cfg(feature = "orchestrator")]
use crate::request::Request;

use super::urls::UrlCheck;
#[cfg(feature = "orchestrator")]
use {
    super::hosts::Lookup,
    super::policy::{OnInvalid, RepairPolicy},
};

/// Judges `message`: the host names it waits for (none: it passed, and `watch` took it in),
/// or why it is refused. `schema_checked` when it already passed the schema (a progressive
/// snapshot checked while it arrived).
pub(crate) fn judge(
    processor: &RequestProcessor,
    urls: &mut UrlCheck,
    watch: &mut TreeWatch,
    message: &Value,
    schema_checked: bool,
) -> Result<Vec<String>, ValidationError> {
    if !schema_checked {
        processor.check_message(message)?;
    }
    let hosts = urls.check(message)?;
    if hosts.is_empty() {
        watch.observe(message)?;
    }
    Ok(hosts)
}

#[cfg(feature = "orchestrator")]
/// The judgement of one reply's A2UI messages that arrive whole (see the module docs),
/// under the server's policy and what the reply's request was given.
pub(crate) struct Screen {
    mode: Mode,
}

#[cfg(feature = "orchestrator")]
enum Mode {
    /// The policy forwards A2UI unchecked.
    Forward,
    /// The client negotiated no A2UI: none may reach it.
    NoA2ui,
    Check(Box<Checks>),
}

#[cfg(feature = "orchestrator")]
struct Checks {
    processor: RequestProcessor,
    urls: UrlCheck,
    watch: TreeWatch,
}

#[cfg(feature = "orchestrator")]
/// The most lookups one message may wait for before it is refused (each names the hosts
/// the message still lacks verdicts for; one is enough unless a resolver misbehaves).
const MAX_LOOKUPS: usize = 2;

#[cfg(feature = "orchestrator")]
impl Screen {
    /// The screen of the reply to `request` under `policy`.
    pub(crate) fn new(policy: &RepairPolicy, request: &Request) -> Self {
        if policy.on_invalid == OnInvalid::Forward {
            return Screen {
                mode: Mode::Forward,
            };
        }
        let checks = request.a2ui().cloned().and_then(|processor| {
            let urls = UrlCheck::new(policy.urls.clone(), policy.hosts.clone(), request)?;
            let watch = TreeWatch::new(processor.validator().clone());
            Some(Checks {
                processor,
                urls,
                watch,
            })
        });
        Screen {
            mode: checks.map_or(Mode::NoA2ui, |checks| Mode::Check(Box::new(checks))),
        }
    }

    /// Whether `message` may go to the client: every rule of [`judge`], the hosts its URLs
    /// name resolved first.
    ///
    /// # Errors
    ///
    /// Why it is refused: as a model's message would be, or because the client reads no
    /// A2UI.
    pub(crate) async fn check(&mut self, message: &Value) -> Result<(), ValidationError> {
        let checks = match &mut self.mode {
            Mode::Forward => return Ok(()),
            Mode::NoA2ui => {
                return Err(ValidationError::new(
                    "",
                    "this conversation's client negotiated no A2UI",
                    None,
                    None,
                ));
            }
            Mode::Check(checks) => checks,
        };
        for _ in 0..=MAX_LOOKUPS {
            let Checks {
                processor,
                urls,
                watch,
            } = &mut **checks;
            let hosts = judge(processor, urls, watch, message, false)?;
            if hosts.is_empty() {
                return Ok(());
            }
            let resolved = Lookup::new(hosts, urls.hosts().clone()).run().await;
            urls.resolved(resolved);
        }
        Err(ValidationError::new(
            "",
            "its URLs' hosts could not be judged",
            None,
            None,
        ))
    }
}
