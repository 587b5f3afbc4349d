//! Task lifecycle: creating, continuing, running, canceling and keeping A2A tasks.
//!
//! An A2A task moves through states (`submitted` → `working` → `input-required` | `completed`
//! | ...); the rules live in one place, [`Lifecycle`], so no code path can put a task in a
//! state the protocol forbids, and one function, `lifecycle::transition`, changes a task's
//! status through them. The runner that drives an agent for a task, feeds its output
//! through the output pipeline and fans events out to stream subscribers is crate-private;
//! the pieces users can replace are public: the [`TaskStore`](crate::store::TaskStore), the
//! [`Clock`](crate::clock::Clock) and the [`IdGenerator`].
//!
//! The runner is a straight line of steps, each a file of free functions over the runner's
//! state (`manager`): `start` creates or continues a task, `run` drives the agent and
//! settles the task, `answer` turns the agent's reply into updates through the reply
//! pipeline (and repairs), `feed` reads the agent's stream token by token. Beside the line,
//! `reply_kinds` handles the replies that are not text (artifacts, a bare message before any
//! task, explicit outcomes), `cancel` stops tasks (and `deciding` the agent calls made before a task exists) and `read` answers get, list and
//! subscribe; `handoff` holds the types the steps hand each other, `running` the live entry
//! of a task while it runs, and `operations` the methods the bindings call.

mod answer;
mod call;
mod cancel;
mod deciding;
mod error;
mod fanout;
mod feed;
mod follow;
mod handoff;
mod ids;
mod lifecycle;
pub(crate) mod manager;
mod operations;
mod read;
mod reply_kinds;
mod run;
pub(crate) mod run_watchers;
mod running;
mod start;

pub use error::TaskError;
pub(crate) use handoff::Begun;
pub use ids::{IdGenerator, SequentialIds, UuidIds};
pub use lifecycle::Lifecycle;
