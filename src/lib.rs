// The crate's front page is the README, so its examples are doctests and docs.rs shows what
// GitHub shows; the guides under docs/ are pages of the `guide` module.
#![doc = include_str!("../README.md")]
#![deny(missing_docs)]
#![deny(unreachable_pub)]
#![forbid(unsafe_code)]

pub mod a2a;
pub mod a2ui;
#[cfg(feature = "server")]
mod address;
pub mod format;
pub mod generator;
pub mod guide;
pub mod parser;

#[cfg(feature = "server")]
pub mod agent;
#[cfg(feature = "client")]
pub mod client;
#[cfg(feature = "server")]
pub mod clock;
#[cfg(feature = "server")]
mod error_chain;
#[cfg(any(feature = "llm", feature = "client"))]
mod event_stream;
#[cfg(feature = "llm")]
pub mod llm;
#[cfg(any(feature = "metrics", feature = "otel"))]
pub mod observe;
#[cfg(all(feature = "server", not(any(feature = "metrics", feature = "otel"))))]
mod observe;
#[cfg(feature = "orchestrator")]
pub mod orchestrator;
#[cfg(feature = "server")]
pub mod pipeline;
#[cfg(feature = "server")]
pub mod push;
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
pub use pipeline::OnInvalid;
#[cfg(feature = "server")]
pub use request::Request;
#[cfg(feature = "server")]
pub use server::{A2uiServer, ServerBuilder};
