//! An A2UI orchestrator: one agent in front of several remote A2A agents, the way A2UI is
//! deployed in the official samples.
//!
//! [`Orchestrator`] is an [`Agent`](crate::Agent): serve it with [`crate::A2uiServer`] and
//! its users talk to one agent while each turn is answered by one of its sub-agents,
//! reached with the crate's [client](crate::client). What an orchestrator has to get right,
//! and this one does:
//!
//! - **Routing.** A button press goes to the agent whose surface it was. Any other turn goes
//!   where a [routing closure](OrchestratorBuilder::route) says, else where a
//!   [model](OrchestratorBuilder::model) says through a tool call listing the sub-agents'
//!   cards and skills, else to the sub-agent whose card's skills the text names (or the one
//!   that answered last, or the only one).
//! - **Surfaces kept apart.** Every surface id a sub-agent draws reaches the user prefixed
//!   with the sub-agent's [namespace](SubAgent::namespace) (`weather:main`), in every A2UI
//!   message kind of every version, and loses it on the way back: two sub-agents' `main`
//!   surfaces never collide.
//! - **Each agent its own data.** A sub-agent gets the user's A2UI capabilities and its own
//!   surfaces' share of the renderer's data model; actions on other agents' surfaces and
//!   the rest of the user's metadata stay out.
//! - **Conversations.** One context (and waiting task) per sub-agent per conversation, kept
//!   per caller of the orchestrator, bounded ([`OrchestratorBuilder::max_conversations`]).
//! - **Untrusted like a model.** Every A2UI message a sub-agent sends passes the judgement
//!   the server gives its own model's A2UI (the catalogs negotiated with the user, the URL
//!   and media policy with its provenance rule and allowlist, the component trees), on
//!   every binding; a message refused is dropped and the user reads which agent sent it.
//!   A URL counts as given only when the user gave it: what a sub-agent's card or its own
//!   configuration holds does not (allow such hosts with
//!   [`ServerBuilder::ui_allow_host`](crate::server::ServerBuilder::ui_allow_host)).
//! - **Streaming, state and failure.** A sub-agent's text, surfaces, status lines and
//!   artifacts stream through as they arrive; the turn's task ends as the sub-agent's did
//!   (completed, or waiting for input), and the conversation goes on in the same context
//!   either way; a sub-agent that is down, fails or refuses fails the turn's task with a
//!   message naming it (its address and the error stay in the log); a canceled turn
//!   cancels the sub-agent's task.
//!
//! # Example
//!
//! ```no_run
//! use a2ui_agent::orchestrator::Orchestrator;
//! use a2ui_agent::{A2uiServer, Generator};
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let orchestrator = Orchestrator::builder()
//!     .agent("http://localhost:9001/") // a restaurant finder
//!     .agent("http://localhost:9002/") // a weather agent
//!     .connect()
//!     .await?;
//! let card = orchestrator.card("Concierge").url("http://localhost:8080/").build();
//! let server = A2uiServer::builder(card, orchestrator)
//!     .generator(Generator::v0_9())
//!     .generator(Generator::v0_8())
//!     .build()?;
//! server.serve(tokio::net::TcpListener::bind("127.0.0.1:8080").await?).await?;
//! # Ok(())
//! # }
//! ```
//!
//! The server's generators make it advertise and negotiate A2UI with the user's renderer;
//! the orchestrator passes the user's capabilities on and forwards the sub-agents' A2UI once
//! it passed the server's judgement (its [`OnInvalid`](crate::OnInvalid) policy and
//! [`UrlPolicy`](crate::pipeline::UrlPolicy)): a sub-agent must answer in the A2UI version
//! and catalogs the user negotiated.

mod agent;
mod builder;
mod conversations;
mod error;
mod forward;
mod handoff;
#[cfg(feature = "llm")]
mod model_routing;
mod routing;
mod screening;
mod sub_agent;
mod surfaces;

pub use agent::Orchestrator;
pub use builder::OrchestratorBuilder;
pub use error::OrchestratorError;
pub use sub_agent::SubAgent;
