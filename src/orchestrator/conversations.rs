//! Which sub-agent conversation each of the orchestrator's conversations continues: one
//! context (and, while it waits for the user, one task) per sub-agent, per caller.
//!
//! The orchestrator calls every sub-agent with its own credentials, so to a sub-agent all
//! the orchestrator's users are one caller. What keeps one user's sub-agent tasks from
//! another is this map: it is keyed by the caller the orchestrator's server authenticated
//! (its id and tenant) and the caller's context id, so a context id guessed or reused by
//! another caller starts fresh sub-agent conversations. It is bounded: past its capacity
//! the conversation used longest ago is forgotten (its next turn starts a new sub-agent
//! context).

use std::collections::{BTreeMap, HashMap};
use std::sync::Mutex;

use crate::request::Principal;

/// Whose conversation: the caller (id, tenant) and its context id.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(super) struct Key {
    caller: String,
    tenant: Option<String>,
    context: String,
}

impl Key {
    /// The conversation `context` of `principal`.
    pub(super) fn new(principal: &Principal, context: &str) -> Self {
        Self {
            caller: principal.id().to_owned(),
            tenant: principal.tenant().map(str::to_owned),
            context: context.to_owned(),
        }
    }
}

/// Where one sub-agent's side of a conversation stands.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Thread {
    /// The sub-agent's context id, once it gave one.
    pub(super) context_id: Option<String>,
    /// The sub-agent's task waiting for the user (input or authentication), if any.
    pub(super) task_id: Option<String>,
}

/// One conversation: a thread per sub-agent (by index), and the sub-agent that answered last.
#[derive(Debug, Clone, Default)]
pub(super) struct Conversation {
    threads: HashMap<usize, Thread>,
    pub(super) last: Option<usize>,
}

impl Conversation {
    /// Sub-agent `agent`'s thread (a fresh one when it has none yet).
    pub(super) fn thread(&self, agent: usize) -> Thread {
        self.threads.get(&agent).cloned().unwrap_or_default()
    }
}

/// The conversations, at most `capacity`, the least recently used forgotten first.
#[derive(Debug)]
pub(super) struct Conversations {
    capacity: usize,
    inner: Mutex<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    /// Each conversation and the stamp of its last use.
    entries: HashMap<Key, (u64, Conversation)>,
    /// The keys by last use.
    by_use: BTreeMap<u64, Key>,
    next: u64,
}

impl Conversations {
    /// An empty map holding at most `capacity` conversations (at least one).
    pub(super) fn new(capacity: usize) -> Self {
        Self {
            capacity: capacity.max(1),
            inner: Mutex::new(Inner::default()),
        }
    }

    /// The conversation of `key` (an empty one when unknown or forgotten).
    pub(super) fn get(&self, key: &Key) -> Conversation {
        let inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        inner
            .entries
            .get(key)
            .map(|(_, conversation)| conversation.clone())
            .unwrap_or_default()
    }

    /// Records that sub-agent `agent` answered in conversation `key`, its thread now
    /// `thread`; forgets the least recently used conversation when the map is full.
    pub(super) fn record(&self, key: &Key, agent: usize, thread: Thread) {
        let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let stamp = inner.next;
        inner.next += 1;
        let mut conversation = match inner.entries.remove(key) {
            Some((old, conversation)) => {
                inner.by_use.remove(&old);
                conversation
            }
            None => Conversation::default(),
        };
        conversation.threads.insert(agent, thread);
        conversation.last = Some(agent);
        while inner.entries.len() >= self.capacity {
            let Some((_, oldest)) = inner.by_use.pop_first() else {
                break;
            };
            inner.entries.remove(&oldest);
        }
        inner.by_use.insert(stamp, key.clone());
        inner.entries.insert(key.clone(), (stamp, conversation));
    }

    /// How many conversations are kept.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.inner
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .entries
            .len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn thread(context: &str) -> Thread {
        Thread {
            context_id: Some(context.to_owned()),
            task_id: None,
        }
    }

    #[test]
    fn a_context_id_belongs_to_its_caller() {
        let map = Conversations::new(8);
        let alice = Key::new(&Principal::new("alice"), "c-1");
        map.record(&alice, 0, thread("sub-1"));
        assert_eq!(map.get(&alice).thread(0), thread("sub-1"));
        assert_eq!(map.get(&alice).last, Some(0));
        let mallory = Key::new(&Principal::new("mallory"), "c-1");
        assert_eq!(map.get(&mallory).thread(0), Thread::default());
        let other_tenant = Key::new(&Principal::new("alice").with_tenant("t"), "c-1");
        assert_eq!(map.get(&other_tenant).last, None);
    }

    #[test]
    fn past_its_capacity_the_least_recently_used_conversation_is_forgotten() {
        let map = Conversations::new(2);
        let key = |c: &str| Key::new(&Principal::anonymous(), c);
        map.record(&key("a"), 0, thread("1"));
        map.record(&key("b"), 0, thread("2"));
        map.record(&key("a"), 1, thread("3"));
        map.record(&key("c"), 0, thread("4"));
        assert_eq!(map.len(), 2);
        assert_eq!(map.get(&key("b")).last, None, "b was used longest ago");
        assert_eq!(map.get(&key("a")).thread(0), thread("1"));
        assert_eq!(map.get(&key("a")).thread(1), thread("3"));
    }
}
