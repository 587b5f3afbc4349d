//! A sub-agent's A2UI judged as the server judges a model's, before it reaches the user.
//!
//! What a remote agent sends is as untrusted as what a model writes: it may name a component
//! the user's catalog lacks, or an image whose URL is `javascript:`, points into the user's
//! network or carries the user's data to a stranger. So every A2UI message a sub-agent sends,
//! in its messages and its artifacts, passes the same judgement as the orchestrator's own
//! model output (the pipeline's `Screen`: the catalogs negotiated with the user, the server's
//! URL and media policy, the component trees), under the policy of the server that serves the
//! orchestrator (`--ui-allow-host`, the provenance rule), whatever binding the user came in by.
//!
//! Provenance: a sub-agent's output counts as model output. A URL it shows must have appeared
//! in what the user gave this conversation, or be on the allowlist; what the sub-agent's card
//! or its own configuration holds is not "given" (the sub-agent may have been told anything).
//! An operator whose sub-agents show images from their own hosts allows those hosts.
//!
//! A data part is judged as A2UI when it names an A2UI media type or none (some renderers
//! read an untyped data part as A2UI; the namespacing reads it so too).
//!
//! A message refused is dropped (there is no repair turn: the sub-agent is not a model the
//! orchestrator can ask again), the user reads which agent sent it and why it was not shown,
//! and the log says the same with the agent's name (never its address).

use std::sync::Arc;

use serde_json::{Map, Value};

use super::surfaces::is_a2ui;
use crate::a2a::Part;
use crate::a2ui::ValidationError;
use crate::agent::{AgentError, ReplyEvent};
use crate::pipeline::Screen;
use crate::request::Request;

/// The judgement of one sub-agent's answer.
pub(super) struct Screening {
    screen: Screen,
    /// The sub-agent's name, as the user and the log read it.
    agent: String,
}

impl Screening {
    /// The screening of sub-agent `agent`'s answer to `request`.
    pub(super) fn new(request: &Request, agent: &str) -> Self {
        Self {
            screen: Screen::new(&request.reply_policy(), request),
            agent: agent.to_owned(),
        }
    }

    /// `event` as it may reach the user: its A2UI messages that pass, then a note for each
    /// one refused.
    pub(super) async fn event(
        &mut self,
        event: Result<ReplyEvent, AgentError>,
    ) -> Vec<Result<ReplyEvent, AgentError>> {
        match event {
            Ok(ReplyEvent::Part(part)) => {
                let (kept, refused) = self.parts(vec![*part]).await;
                let out = kept.into_iter().map(ReplyEvent::part);
                out.chain(refused).map(Ok).collect()
            }
            Ok(ReplyEvent::Artifact(mut chunk)) => {
                let parts = std::mem::take(&mut chunk.artifact.parts);
                let (kept, refused) = self.parts(parts).await;
                chunk.artifact.parts = kept;
                let kept =
                    (!chunk.artifact.parts.is_empty()).then_some(ReplyEvent::Artifact(chunk));
                kept.into_iter().chain(refused).map(Ok).collect()
            }
            other => vec![other],
        }
    }

    /// The parts of `parts` that may reach the user, and a note for each message refused.
    async fn parts(&mut self, parts: Vec<Part>) -> (Vec<Part>, Vec<ReplyEvent>) {
        let mut kept = Vec::with_capacity(parts.len());
        let mut refused = Vec::new();
        for part in parts {
            match part {
                Part::Data { data, metadata } if is_a2ui(metadata.as_deref()) => {
                    let mut data = Arc::unwrap_or_clone(data);
                    for error in self.data(&mut data).await {
                        refused.push(self.refusal(&error));
                    }
                    if !data.is_empty() {
                        kept.push(Part::Data {
                            data: Arc::new(data),
                            metadata,
                        });
                    }
                }
                other => kept.push(other),
            }
        }
        (kept, refused)
    }

    /// Screens the A2UI messages of a data part's object (one message, or
    /// `{"messages": [...]}`), leaving those that pass (an empty object: none); why each
    /// other was refused.
    async fn data(&mut self, data: &mut Map<String, Value>) -> Vec<ValidationError> {
        let mut refused = Vec::new();
        if let Some(Value::Array(list)) = data.get_mut("messages") {
            for message in std::mem::take(list) {
                match self.screen.check(&message).await {
                    Ok(()) => list.push(message),
                    Err(error) => refused.push(error),
                }
            }
            if list.is_empty() {
                data.clear();
            }
            return refused;
        }
        let message = Value::Object(std::mem::take(data));
        match self.screen.check(&message).await {
            Ok(()) => {
                if let Value::Object(message) = message {
                    *data = message;
                }
            }
            Err(error) => refused.push(error),
        }
        refused
    }

    /// What the user reads of a message refused for `error` (the operator reads the same in
    /// the log).
    fn refusal(&self, error: &ValidationError) -> ReplyEvent {
        let agent = &self.agent;
        tracing::warn!(agent, %error, "a sub-agent's A2UI message was refused: not forwarded");
        ReplyEvent::part(Part::text(format!(
            "\n\n(A UI message from the agent \"{agent}\" was not shown: it breaks this \
             server's rules, {error}.)\n\n"
        )))
    }
}
