//! [`Orchestrator`]: the agent in front of the sub-agents. Each turn goes to one of them
//! (the surface's owner for a button press; else the routing closure, the model or the
//! skills), in the caller's own thread with that sub-agent, and its answer streams back.

use std::sync::Arc;

use futures::StreamExt;
use futures::future::BoxFuture;

use super::conversations::{Conversations, Key, Thread};
use super::forward::{Events, Record, forward, unavailable};
use super::handoff::send_request;
use super::routing::by_skills;
use super::screening::Screening;
use super::sub_agent::SubAgent;
use super::surfaces::acted_on;
use crate::a2a::card::{AgentCard, AgentCardBuilder};
use crate::agent::{Agent, AgentError, Reply};
use crate::client::ClientError;
use crate::request::Request;

/// The routing closure: the index in the sub-agents of the one to answer, or `None` to
/// leave it to the model or the skills.
pub(super) type RouteFn = dyn Fn(&Request, &[SubAgent]) -> Option<usize> + Send + Sync;

/// An agent whose sub-agents are remote A2A agents; serve it like any agent.
///
/// Each user turn goes to one sub-agent: a button press to the agent whose surface it was;
/// otherwise the [routing closure](super::OrchestratorBuilder::route) decides, else the
/// [model](super::OrchestratorBuilder::model) through a tool call, else the words of the
/// text against the sub-agents' skills (or the only sub-agent). The sub-agent gets the
/// user's A2UI capabilities and its own surfaces' data model only, in the caller's own
/// context (and waiting task) with it; its text and surfaces stream back as they arrive,
/// each surface id prefixed with the sub-agent's [namespace](SubAgent::namespace), so two
/// sub-agents' `main` surfaces stay two surfaces. A sub-agent that cannot be reached fails
/// the turn's task with a message naming it.
///
/// Build one with [`Orchestrator::builder`](super::OrchestratorBuilder); see the
/// [module](super) docs for an example.
#[derive(Clone)]
pub struct Orchestrator {
    inner: Arc<Inner>,
}

pub(super) struct Inner {
    pub(super) agents: Vec<SubAgent>,
    pub(super) route: Option<Box<RouteFn>>,
    #[cfg(feature = "llm")]
    pub(super) model: Option<crate::llm::OpenAiChat>,
    pub(super) conversations: Arc<Conversations>,
}

impl std::fmt::Debug for Orchestrator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Orchestrator")
            .field("agents", &self.inner.agents)
            .field("route", &self.inner.route.is_some())
            .finish_non_exhaustive()
    }
}

impl Orchestrator {
    pub(super) fn from_inner(inner: Inner) -> Self {
        Self {
            inner: Arc::new(inner),
        }
    }

    /// The sub-agents, in the order they were given.
    pub fn agents(&self) -> &[SubAgent] {
        &self.inner.agents
    }

    /// A card for the orchestrator called `name`: described by its sub-agents, with all
    /// their skills (each skill's id prefixed with its agent's namespace). Add the URL and
    /// anything else, then `build()`.
    ///
    /// # Example
    ///
    /// ```no_run
    /// # async fn run(orchestrator: a2ui_agent::orchestrator::Orchestrator) {
    /// let card = orchestrator.card("Concierge").url("http://localhost:8080/").build();
    /// assert!(card.description.contains("Hands each request"));
    /// # }
    /// ```
    pub fn card(&self, name: impl Into<String>) -> AgentCardBuilder {
        let names: Vec<&str> = self.inner.agents.iter().map(SubAgent::name).collect();
        let mut card = AgentCard::builder(name).description(format!(
            "Hands each request to the agent best able to answer it: {}.",
            names.join(", ")
        ));
        for agent in &self.inner.agents {
            for skill in agent.skills() {
                let mut skill = skill.clone();
                skill.id = super::surfaces::namespaced(agent.namespace(), &skill.id);
                card = card.skill(skill);
            }
        }
        card
    }

    /// The sub-agent to answer `request`, `last` the conversation's last one.
    async fn choose(&self, request: &Request, last: Option<usize>) -> Option<usize> {
        let agents = &self.inner.agents;
        if let Some(namespace) = acted_on(request.parts()) {
            return agents
                .iter()
                .position(|agent| agent.namespace() == namespace);
        }
        if agents.len() == 1 {
            return Some(0);
        }
        if let Some(route) = &self.inner.route
            && let Some(chosen) = route(request, agents).filter(|&i| i < agents.len())
        {
            return Some(chosen);
        }
        let text = request.text();
        #[cfg(feature = "llm")]
        if let Some(model) = &self.inner.model
            && !text.trim().is_empty()
            && let Some(chosen) = super::model_routing::choose(model, &text, agents, last).await
        {
            return Some(chosen);
        }
        by_skills(&text, agents, last)
    }

    /// The answer to `request`.
    async fn answer(self, request: Request) -> Result<Reply, AgentError> {
        let key = Key::new(request.principal(), request.context_id());
        let conversation = self.inner.conversations.get(&key);
        let Some(index) = self.choose(&request, conversation.last).await else {
            return Ok(Reply::text(self.not_routed()));
        };
        let Some(agent) = self.inner.agents.get(index) else {
            return Ok(Reply::text(self.not_routed()));
        };
        let thread = conversation.thread(index);
        let Some(send) = send_request(&request, agent.namespace(), &thread) else {
            return Ok(Reply::text(
                "That surface belongs to no agent here any more; ask again.",
            ));
        };
        let (events, thread) = match start(agent, send, thread).await {
            Ok(started) => started,
            Err(error) => return Err(error),
        };
        let record = Record {
            conversations: self.inner.conversations.clone(),
            key,
            index,
        };
        let screening = Screening::new(&request, agent.name());
        Ok(Reply::events(forward(
            events,
            agent.clone(),
            thread,
            record,
            screening,
        )))
    }

    /// What the user is told when no sub-agent could be chosen.
    fn not_routed(&self) -> String {
        let names: Vec<&str> = self.inner.agents.iter().map(SubAgent::name).collect();
        format!(
            "I could not tell which agent should answer that. Ask me something for one of: {}.",
            names.join(", ")
        )
    }
}

/// Sends `send` to `agent` as a stream; when the task it continues is gone (the sub-agent
/// forgot it, or it ended), once more as a new task in the same context.
async fn start(
    agent: &SubAgent,
    mut send: crate::a2a::SendRequest,
    mut thread: Thread,
) -> Result<(Events, Thread), AgentError> {
    match open(agent, send.clone()).await {
        Ok(events) => Ok((events, thread)),
        Err(error) if error.agent_code().is_some() && thread.task_id.is_some() => {
            tracing::debug!(agent = agent.name(), %error, "the waiting task is gone: a new one");
            thread.task_id = None;
            send.message.task_id = None;
            match open(agent, send).await {
                Ok(events) => Ok((events, thread)),
                Err(error) => Err(unavailable(agent, &error)),
            }
        }
        Err(error) => Err(unavailable(agent, &error)),
    }
}

/// The events of `send` to `agent`, its first one read: an error before the stream starts
/// or as its first event is the `Err`.
async fn open(agent: &SubAgent, send: crate::a2a::SendRequest) -> Result<Events, ClientError> {
    let mut events = agent.client().send_streaming(send).await?;
    match events.next().await {
        Some(Err(error)) => Err(error),
        Some(Ok(first)) => Ok(Box::pin(
            futures::stream::once(async move { Ok(first) }).chain(events),
        )),
        None => Ok(Box::pin(events)),
    }
}

impl Agent for Orchestrator {
    fn call(&self, request: Request) -> BoxFuture<'static, Result<Reply, AgentError>> {
        Box::pin(self.clone().answer(request))
    }
}
