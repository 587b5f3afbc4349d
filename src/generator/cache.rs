//! The processors a generator has built, by catalog set. A renderer sends the same
//! capabilities with every message, so a busy agent builds the processor (and writes the
//! prompt) of a catalog set once, and a bounded number of sets are kept.

use std::collections::VecDeque;
use std::sync::Mutex;

use super::processor::RequestProcessor;

/// How many catalog sets a generator keeps a processor for.
pub(super) const CACHE_CAPACITY: usize = 16;

/// What a cached processor was built for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum CacheKey {
    /// Registered catalogs only: their ids, in the active order.
    Active(Vec<String>),
    /// A request with accepted inline catalogs: the ids it named and the inline documents.
    Inline(Vec<String>, String),
}

/// Processors by catalog set, most recently built last, at most [`CACHE_CAPACITY`].
#[derive(Default)]
pub(super) struct ProcessorCache {
    entries: Mutex<VecDeque<(CacheKey, RequestProcessor)>>,
}

impl ProcessorCache {
    /// The processor built for `key`, if it is kept.
    pub(super) fn get(&self, key: &CacheKey) -> Option<RequestProcessor> {
        let entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        entries
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, processor)| processor.clone())
    }

    /// Keeps `processor` for `key` (unless one is kept already), forgetting the oldest when
    /// full.
    pub(super) fn insert(&self, key: CacheKey, processor: &RequestProcessor) {
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        if !entries.iter().any(|(k, _)| *k == key) {
            if entries.len() >= CACHE_CAPACITY {
                entries.pop_front();
            }
            entries.push_back((key, processor.clone()));
        }
    }

    /// How many processors are kept.
    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.entries.lock().unwrap_or_else(|e| e.into_inner()).len()
    }
}
