//! The reply pipeline: from an agent's output to the parts a client may see.
//!
//! This room exists so that what a reply *is* (text, A2UI messages that passed their catalogs,
//! a repair turn when they did not) is decided in one place that knows nothing of tasks or
//! stores. It joins the parser, the output formats, A2UI validation and the negotiated
//! [`RequestProcessor`](crate::processor::RequestProcessor); the task runner above it only
//! carries what comes out to the store and the subscribers.
//!
//! - `output`: chunks in, parts out (the `OutputPipeline`): plain text,
//!   streamed A2UI, or A2UI read once at the end;
//! - `repair`: the guard that holds back an invalid message and the [`OnInvalid`] policy that
//!   decides what follows;
//! - `reconcile`: what a repair turn sends, measured against what the client already holds;
//! - `follow_up`: what a follow-up turn sends for a surface an earlier turn created;
//! - `mend`: a label a model wrote where a component belongs, answered by a `Text`;
//! - `sent`: the parts a reply sent so far, kept as JSON until it ends.

mod follow_up;
mod mend;
pub(crate) mod output;
mod reconcile;
mod repair;
mod sent;

pub use mend::MENDED_KEY;
pub use repair::OnInvalid;
pub(crate) use repair::{Guard, RepairPolicy};
pub(crate) use sent::{KeptParts, SentParts};
