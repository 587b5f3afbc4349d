//! Id generation, injectable: tests pin ids so responses are reproducible.

use std::sync::atomic::{AtomicU64, Ordering};

/// Where the server gets fresh ids for tasks, contexts and agent messages.
pub trait IdGenerator: Send + Sync + 'static {
    /// A new unique id.
    fn new_id(&self) -> String;
}

/// Random UUID v4 ids (the default).
#[derive(Debug, Clone, Copy, Default)]
pub struct UuidIds;

impl IdGenerator for UuidIds {
    fn new_id(&self) -> String {
        uuid::Uuid::new_v4().to_string()
    }
}

/// Ids `<prefix>1`, `<prefix>2`, ...: for tests.
///
/// # Example
///
/// ```
/// use a2ui_agent::task::{IdGenerator, SequentialIds};
///
/// let ids = SequentialIds::new("id-");
/// assert_eq!(ids.new_id(), "id-1");
/// assert_eq!(ids.new_id(), "id-2");
/// ```
#[derive(Debug, Default)]
pub struct SequentialIds {
    prefix: String,
    next: AtomicU64,
}

impl SequentialIds {
    /// Ids starting at `<prefix>1`.
    pub fn new(prefix: impl Into<String>) -> Self {
        Self {
            prefix: prefix.into(),
            next: AtomicU64::new(1),
        }
    }
}

impl IdGenerator for SequentialIds {
    fn new_id(&self) -> String {
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        format!("{}{n}", self.prefix)
    }
}
