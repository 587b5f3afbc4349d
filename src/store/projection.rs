//! What of a task a read needs, so a store decodes no more than that.
//!
//! A settled A2UI task is a few KB of JSON but several times that as Rust values, most of it
//! in its history and artifacts. A `ListTasks` page wants neither by default (1.0 lists
//! without artifacts, and dashboards ask for `historyLength` 0), yet decoding a page of 100
//! whole tasks to drop those parts allocates megabytes of small values per page: memory the
//! allocator then keeps. [`Projection`] carries what the query asks for down to the decoding, so
//! the parts nobody reads stay text.

use crate::a2a::TaskListQuery;

/// The parts of a task a read returns; the rest is left out (history trimmed to the newest
/// messages, artifacts empty).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Projection {
    /// How many of the newest history messages (`None`: all).
    pub(crate) history: Option<usize>,
    /// Whether the artifacts.
    pub(crate) artifacts: bool,
}

impl Projection {
    /// The whole task.
    pub(crate) const ALL: Projection = Projection {
        history: None,
        artifacts: true,
    };

    /// The status alone: no history, no artifacts.
    #[cfg(feature = "postgres")] // only PostgreSQL's notifications use it
    pub(crate) const STATUS: Projection = Projection {
        history: Some(0),
        artifacts: false,
    };

    /// What a listing with `query` returns of each task.
    pub(crate) fn listed(query: &TaskListQuery) -> Self {
        Projection {
            history: query.history_length,
            artifacts: query.include_artifacts,
        }
    }

    /// The newest wanted items of a history of `len` messages: how many to skip from the start.
    pub(crate) fn history_skip(&self, len: usize) -> usize {
        self.history.map_or(0, |keep| len.saturating_sub(keep))
    }
}
