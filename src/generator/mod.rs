//! Generators: what an agent offers under one A2UI protocol version, and the negotiation
//! that turns a renderer's capabilities into a [`RequestProcessor`](processor::RequestProcessor).
//!
//! An agent registers one [`Generator`] per protocol version it speaks: the catalogs it can
//! draw with (pruned to the components it wants the model to use), its examples, its output
//! format, its progressive keys and whether it accepts a renderer's inline catalogs. Each
//! request then negotiates: the renderer's capabilities pick the active catalogs
//! ([`resolve_catalogs`]), and the processor for that catalog set (prompt, parser,
//! validator) is built once and reused from a small cache, so a busy agent never rebuilds a
//! prompt for a catalog set it has seen.
//!
//! Negotiating never changes the generator: it holds its catalogs for its whole life, and
//! one renderer's choice cannot narrow the next one's.
//!
//! What a generator makes lives beside it: the system prompt (`prompt`, whose lean
//! [`PromptStyle::Signatures`] sections `signatures` writes with `schema_text`), the
//! [`processor`] a request is answered through, and the GBNF helpers (`grammar`) the
//! grammars it hands a constraining model server are written with.

mod builder;
mod cache;
mod error;
mod examples;
pub(crate) mod grammar;
pub(crate) mod negotiation;
mod offer;
pub mod processor;
pub(crate) mod prompt;
mod schema_text;
mod signatures;

pub use builder::{GeneratorBuilder, GeneratorError};
pub use error::{NegotiationError, NegotiationErrorKind};
pub use negotiation::{ResolveError, resolve_catalogs};
pub use offer::Generator;
pub use prompt::PromptStyle;
