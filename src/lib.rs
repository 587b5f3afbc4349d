//! # a2ui-agent
//!
//! Turn an LLM-backed function into an [A2A](https://a2a-protocol.org) agent that draws user
//! interfaces with [A2UI](https://a2ui.org).
//!
//! The data takes one path: the A2A server ([`server`]) decodes a JSON-RPC request
//! ([`a2a`]), builds a [`request::Request`], runs or continues a [`task`], calls the user's
//! [`agent`], feeds its streamed output through the incremental [`parser`] and sends each
//! finished part to the client as a `working` status update.
//!
//! # Crate features
//!
//! - `server` — the A2A server (axum), the task lifecycle and the agent trait. The
//!   [`parser`] and [`a2ui`] modules never need it.
//! - `cli` (default) — the `a2ui-agent` command-line tool; implies `server`.
#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod a2a;
pub mod a2ui;
pub mod parser;

#[cfg(feature = "server")]
pub mod agent;
#[cfg(feature = "server")]
pub mod request;
#[cfg(feature = "server")]
pub mod server;
#[cfg(feature = "server")]
pub mod task;
