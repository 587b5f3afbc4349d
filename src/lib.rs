//! # a2ui-agent
//!
//! Turn an LLM-backed function into an [A2A](https://a2a-protocol.org) agent that draws user
//! interfaces with [A2UI](https://a2ui.org).
//!
//! The data takes one path: the A2A server ([`server`]) decodes a JSON-RPC request
//! ([`a2a`]), builds a [`request::Request`], runs or continues a [`task`], calls the user's
//! [`agent`], feeds its streamed output through the incremental [`parser`] and sends each
//! finished part to the client as a `working` status update. Text is one kind of
//! [`agent::Reply`]; an agent can also complete with artifacts, answer with a bare message
//! and no task, ask for input or authentication, reject, or stream artifact chunks and
//! status text.
//!
//! # Crate features
//!
//! - `server` (default) — the A2A server (axum), the task lifecycle, the in-memory task
//!   store and the agent trait. The [`parser`] and [`a2ui`] modules never need it.
//! - `llm` (default) — `llm::OpenAiChat`, a client of OpenAI-compatible streaming chat
//!   completions usable as the agent; implies `server`.
//! - `sqlite` — `store::SqliteStore`, a durable task store (SQLite built in); implies
//!   `server`.
//! - `postgres` — `store::PostgresStore`, a task store several instances share; implies
//!   `server`.
//! - `cli` — the `a2ui-agent` command-line tool (clap); implies all of the above. Off by
//!   default, so a library build pulls neither clap nor SQLite nor a PostgreSQL client:
//!   `cargo run --features cli -- serve`, `cargo install a2ui-agent --features cli`.
//!
//! # Example
//!
//! An A2A agent from a closure, served on port 8080: a client sends a message, the closure
//! streams its reply, and the client receives it as `working` updates ending in
//! `input-required`.
//!
//! ```no_run
//! # #[cfg(feature = "server")]
//! # mod example {
//! use a2ui_agent::{A2uiServer, AgentCard, Reply, Request};
//!
//! # pub
//! async fn main() -> Result<(), Box<dyn std::error::Error>> {
//!     let card = AgentCard::builder("Echo").description("Repeats what you say").build();
//!     let echo = |request: Request| async move {
//!         let words: Vec<String> = request.text().split_inclusive(' ').map(String::from).collect();
//!         Reply::stream(futures::stream::iter(words))
//!     };
//!     let server = A2uiServer::builder(card, echo).build()?;
//!     let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await?;
//!     server.serve(listener).await?;
//!     Ok(())
//! }
//! # }
//! # fn main() {}
//! ```
#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod a2a;
pub mod a2ui;
pub mod format;
pub mod generator;
pub mod parser;

#[cfg(feature = "server")]
pub mod agent;
#[cfg(feature = "server")]
pub mod clock;
#[cfg(feature = "llm")]
pub mod llm;
#[cfg(feature = "server")]
pub mod push;
#[cfg(feature = "server")]
pub mod reply;
#[cfg(feature = "server")]
pub mod request;
#[cfg(feature = "server")]
pub mod server;
#[cfg(feature = "server")]
pub mod store;
#[cfg(feature = "server")]
pub mod task;

pub use a2a::card::{AgentCard, AgentSkill};
pub use generator::Generator;
/// The request processor a negotiation gives (kept at the crate's root, where it is used).
pub use generator::processor;

#[cfg(feature = "server")]
pub use agent::{Agent, AgentError, IntoChunk, IntoReply, Reply, ReplyEvent};
#[cfg(feature = "server")]
pub use reply::OnInvalid;
#[cfg(feature = "server")]
pub use request::Request;
#[cfg(feature = "server")]
pub use server::{A2uiServer, ServerBuilder};

/// The README's examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
