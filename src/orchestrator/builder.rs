//! [`OrchestratorBuilder`]: the sub-agents (each a client builder: URL, credentials,
//! timeouts), how a turn is routed, and how many conversations are remembered;
//! [`OrchestratorBuilder::connect`] reads every sub-agent's card.

use std::sync::Arc;

use super::agent::{Inner, Orchestrator, RouteFn};
use super::conversations::Conversations;
use super::error::OrchestratorError;
use super::sub_agent::{SubAgent, namespace_for};
use crate::client::ClientBuilder;
use crate::request::Request;

impl Orchestrator {
    /// Starts an orchestrator with no sub-agent yet.
    pub fn builder() -> OrchestratorBuilder {
        OrchestratorBuilder {
            agents: Vec::new(),
            route: None,
            #[cfg(feature = "llm")]
            model: None,
            max_conversations: OrchestratorBuilder::DEFAULT_MAX_CONVERSATIONS,
        }
    }
}

/// Builds an [`Orchestrator`]; see [`Orchestrator::builder`].
#[must_use]
pub struct OrchestratorBuilder {
    agents: Vec<ClientBuilder>,
    route: Option<Box<RouteFn>>,
    #[cfg(feature = "llm")]
    model: Option<crate::llm::OpenAiChatBuilder>,
    max_conversations: usize,
}

impl std::fmt::Debug for OrchestratorBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OrchestratorBuilder")
            .field("agents", &self.agents)
            .field("route", &self.route.is_some())
            .field("max_conversations", &self.max_conversations)
            .finish_non_exhaustive()
    }
}

impl OrchestratorBuilder {
    /// The default of [`max_conversations`](Self::max_conversations): 10,000.
    pub const DEFAULT_MAX_CONVERSATIONS: usize = 10_000;

    /// Adds the sub-agent at `url`, with the client's defaults.
    pub fn agent(self, url: impl Into<String>) -> Self {
        self.agent_client(crate::client::Client::builder(url))
    }

    /// Adds a sub-agent reached through `client` (its URL, credentials, timeouts, preferred
    /// interfaces).
    pub fn agent_client(mut self, client: ClientBuilder) -> Self {
        self.agents.push(client);
        self
    }

    /// Routes each turn with `route`: given the request and the sub-agents, the index of
    /// the one to answer, or `None` to leave it to the model or the skills. A button press
    /// always goes to the agent whose surface it was, whatever `route` says.
    ///
    /// # Example
    ///
    /// ```
    /// use a2ui_agent::orchestrator::Orchestrator;
    ///
    /// let builder = Orchestrator::builder()
    ///     .agent("http://localhost:9001/")
    ///     .agent("http://localhost:9002/")
    ///     .route(|request, _agents| request.text().contains("weather").then_some(1));
    /// ```
    pub fn route<F>(mut self, route: F) -> Self
    where
        F: Fn(&Request, &[SubAgent]) -> Option<usize> + Send + Sync + 'static,
    {
        self.route = Some(Box::new(route));
        self
    }

    /// Lets `model` choose the sub-agent (when no routing closure did): it is offered one
    /// tool, `route_to_agent`, that lists the sub-agents' ids, names, descriptions and
    /// skills, and is made to call it. When the model fails or names none, the skills
    /// decide. The model's own tools and tool choice are replaced for this.
    #[cfg(feature = "llm")]
    pub fn model(mut self, model: crate::llm::OpenAiChatBuilder) -> Self {
        self.model = Some(model);
        self
    }

    /// The most conversations remembered (default [`Self::DEFAULT_MAX_CONVERSATIONS`]):
    /// past it, the one used longest ago is forgotten, and its next turn starts new
    /// sub-agent contexts.
    pub fn max_conversations(mut self, conversations: usize) -> Self {
        self.max_conversations = conversations;
        self
    }

    /// Reads every sub-agent's card (in turn, in the order given) and builds the
    /// orchestrator.
    ///
    /// # Errors
    ///
    /// [`OrchestratorError::NoAgents`] with no sub-agent; [`OrchestratorError::Connect`]
    /// naming the first sub-agent whose card could not be read;
    /// [`OrchestratorError::Model`] for a model that cannot be built.
    pub async fn connect(self) -> Result<Orchestrator, OrchestratorError> {
        if self.agents.is_empty() {
            return Err(OrchestratorError::NoAgents);
        }
        let mut agents: Vec<SubAgent> = Vec::with_capacity(self.agents.len());
        let mut taken: Vec<String> = Vec::new();
        for builder in self.agents {
            let url = builder.base_url().to_owned();
            let client = builder
                .connect()
                .await
                .map_err(|source| OrchestratorError::Connect {
                    url: url.clone(),
                    source,
                })?;
            let card = client
                .card()
                .await
                .map_err(|source| OrchestratorError::Connect { url, source })?;
            let namespace = namespace_for(&card.name, &taken);
            taken.push(namespace.clone());
            agents.push(SubAgent::new(card, namespace, client));
        }
        #[cfg(feature = "llm")]
        let model = match self.model {
            Some(model) => Some(super::model_routing::router(model, &agents).build()?),
            None => None,
        };
        Ok(Orchestrator::from_inner(Inner {
            agents,
            route: self.route,
            #[cfg(feature = "llm")]
            model,
            conversations: Arc::new(Conversations::new(self.max_conversations)),
        }))
    }
}
