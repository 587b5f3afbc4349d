//! The per-task budget every store applies: a task keeps at most so many history messages,
//! so many bytes of history and so many bytes of parts (its status message and artifacts),
//! all measured as their JSON (as the stores write it: `codec`).
//!
//! Counting messages alone lets one client grow a task without bound with a few huge
//! messages, and an agent's reply (the status message) or artifacts are as large as the agent
//! makes them; the byte bounds are what keep a store's size proportional to its task count.
//!
//! What gives way, in order:
//!
//! 1. **History**: the oldest messages go first, down to the newest one.
//! 2. **A single message or artifact larger than what is left of its budget** (the newest
//!    history message over the history budget, or a reply over the parts budget) keeps its
//!    ids, role and metadata, but its parts are replaced by one text part saying how large
//!    they were and that the store did not keep them ([`omitted`]). Stream subscribers got
//!    the parts as they came; only what `tasks/get` and `ListTasks` return later is cut.
//!    The status message is served first, then artifacts in order.

use std::io;

use super::codec;
use crate::a2a::{Artifact, Message, Part, Task};

/// What one task may keep.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Budget {
    /// The most history messages (at least 1 is kept).
    pub(crate) max_history: usize,
    /// The most bytes of history, as JSON.
    pub(crate) max_history_bytes: usize,
    /// The most bytes of the status message and artifacts together, as JSON.
    pub(crate) max_parts_bytes: usize,
}

impl Budget {
    /// Default: at most 1 MiB of history (as JSON) per task.
    pub(crate) const DEFAULT_MAX_HISTORY_BYTES: usize = 1 << 20;
    /// Default: at most 1 MiB of status message and artifacts (as JSON) per task.
    pub(crate) const DEFAULT_MAX_PARTS_BYTES: usize = 1 << 20;

    /// Unbounded history count, the default byte bounds.
    pub(crate) const DEFAULT: Budget = Budget {
        max_history: usize::MAX,
        max_history_bytes: Self::DEFAULT_MAX_HISTORY_BYTES,
        max_parts_bytes: Self::DEFAULT_MAX_PARTS_BYTES,
    };

    /// Cuts `task` down to this budget (see the module documentation for what goes first).
    pub(crate) fn apply(&self, task: &mut Task) {
        trim_history(&mut task.history, self.max_history, self.max_history_bytes);
        if let Some(newest) = task.history.last_mut() {
            let mut left = self.max_history_bytes;
            fit(newest, &mut left, json_size, |m| &mut m.parts);
        }
        let mut left = self.max_parts_bytes;
        if let Some(message) = &mut task.status.message {
            fit(message, &mut left, json_size, |m| &mut m.parts);
        }
        for artifact in &mut task.artifacts {
            fit(artifact, &mut left, artifact_size, |a| &mut a.parts);
        }
    }
}

/// The text part that stands for `bytes` of parts a store did not keep under its `limit`:
/// `[5000 bytes of content not kept: over the task store's limit of 1024 bytes]`.
pub(crate) fn omitted(bytes: usize, limit: usize) -> Part {
    Part::text(format!(
        "[{bytes} bytes of content not kept: over the task store's limit of {limit} bytes]"
    ))
}

/// Takes `item`'s `size` out of `left`, or replaces its `parts` by [`omitted`] when it does
/// not fit (the notice's size is then taken out, down to zero).
fn fit<T>(
    item: &mut T,
    left: &mut usize,
    size: fn(&T) -> usize,
    parts: fn(&mut T) -> &mut Vec<Part>,
) {
    let mut bytes = size(item);
    if bytes > *left {
        *parts(item) = vec![omitted(bytes, *left)];
        bytes = size(item);
    }
    *left = left.saturating_sub(bytes);
}

/// The size of `message` as JSON, in bytes, without building the string.
pub(crate) fn json_size(message: &Message) -> usize {
    written_size(&codec::message(message))
}

/// The size of `artifact` as JSON, in bytes, without building the string.
fn artifact_size(artifact: &Artifact) -> usize {
    written_size(&codec::artifact(artifact))
}

/// The length of `value` written as JSON.
fn written_size(value: &impl serde::Serialize) -> usize {
    struct Count(usize);
    impl io::Write for Count {
        fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
            self.0 = self.0.saturating_add(bytes.len());
            Ok(bytes.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    // Writing borrowed strings and JSON values into a sink that never fails cannot fail.
    let _ = serde_json::to_writer(&mut count, value);
    count.0
}

/// Drops the oldest messages of `history` beyond `max` messages or `max_bytes` of JSON; the
/// newest message is always kept, whatever its size.
pub(crate) fn trim_history(history: &mut Vec<Message>, max: usize, max_bytes: usize) {
    let mut keep = 0;
    let mut bytes = 0usize;
    for message in history.iter().rev() {
        if keep >= max.max(1) {
            break;
        }
        let size = json_size(message);
        if keep > 0 && bytes.saturating_add(size) > max_bytes {
            break;
        }
        bytes = bytes.saturating_add(size);
        keep += 1;
    }
    let excess = history.len() - keep;
    history.drain(..excess);
}

/// The setters of a [`Budget`] every store's builder offers, written once:
/// `$($budget).+` is the path of the builder's `Budget` below `self` (`budget`,
/// `limits.budget`).
macro_rules! budget_setters {
    ($($budget:ident).+) => {
        /// The most history messages a task keeps (at least 1); the oldest go first.
        /// Unbounded by default: the server's own
        /// [`max_history`](crate::server::ServerBuilder::max_history) bounds the count.
        #[must_use]
        pub fn max_history(mut self, messages: usize) -> Self {
            self.$($budget).+.max_history = messages.max(1);
            self
        }

        /// The most bytes of history (as JSON) a task keeps; the oldest messages go first,
        /// and the newest, if larger on its own, keeps its ids but not its parts.
        #[must_use]
        pub fn max_history_bytes(mut self, bytes: usize) -> Self {
            self.$($budget).+.max_history_bytes = bytes;
            self
        }

        /// The most bytes of status message and artifacts (as JSON) a task keeps; one that
        /// does not fit keeps its ids but its parts read back as a notice saying they were
        /// not kept.
        #[must_use]
        pub fn max_parts_bytes(mut self, bytes: usize) -> Self {
            self.$($budget).+.max_parts_bytes = bytes;
            self
        }
    };
}
pub(crate) use budget_setters;

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::a2a::{FileBody, FileContent, TaskState, TaskStatus};

    #[test]
    fn the_size_is_the_length_of_the_json() {
        let mut metadata = serde_json::Map::new();
        metadata.insert("mimeType".into(), "application/json".into());
        let mut message = Message::agent(
            "m",
            vec![
                Part::text("héllo \"x\""),
                Part::Data {
                    data: std::sync::Arc::new(metadata.clone()),
                    metadata: Some(std::sync::Arc::new(metadata.clone())),
                },
                Part::File {
                    file: FileContent {
                        body: FileBody::Uri("https://e/x.png".into()),
                        mime_type: Some("image/png".into()),
                        name: None,
                    },
                    metadata: None,
                },
            ],
        );
        message.context_id = Some("c".into());
        message.extensions = vec!["urn:x".into()];
        message.metadata = Some(metadata);
        assert_eq!(
            json_size(&message),
            codec::to_json(&codec::message(&message)).len()
        );
    }

    fn task(history: Vec<Message>, reply: usize, artifacts: &[usize]) -> Task {
        Task {
            id: "t".into(),
            context_id: "c".into(),
            status: TaskStatus {
                state: TaskState::Completed,
                message: Some(Message::agent("reply", vec![Part::text("r".repeat(reply))])),
                timestamp: None,
            },
            artifacts: artifacts
                .iter()
                .enumerate()
                .map(|(i, n)| Artifact {
                    artifact_id: format!("a{i}"),
                    name: None,
                    description: None,
                    parts: vec![Part::text("a".repeat(*n))],
                    extensions: vec![],
                    metadata: None,
                })
                .collect(),
            history,
            metadata: None,
        }
    }

    fn parts_bytes(task: &Task) -> usize {
        task.status.message.as_ref().map_or(0, json_size)
            + task.artifacts.iter().map(artifact_size).sum::<usize>()
    }

    #[test]
    fn a_reply_over_the_parts_budget_reads_back_as_a_notice_with_its_ids() {
        let budget = Budget {
            max_parts_bytes: 1_000,
            ..Budget::DEFAULT
        };
        let mut big = task(vec![], 5_000, &[]);
        budget.apply(&mut big);
        let reply = big.status.message.unwrap();
        assert_eq!(reply.message_id, "reply");
        assert_eq!(reply.parts.len(), 1);
        let text = reply.parts[0].as_text().unwrap();
        assert!(text.contains("bytes of content not kept"), "{text}");
        assert!(text.contains("limit of 1000 bytes"), "{text}");
    }

    #[test]
    fn a_huge_newest_message_keeps_its_id_but_not_its_parts() {
        let budget = Budget {
            max_history_bytes: 500,
            ..Budget::DEFAULT
        };
        let huge = Message::agent("user-says", vec![Part::text("u".repeat(10_000))]);
        let mut big = task(vec![huge], 10, &[]);
        budget.apply(&mut big);
        assert_eq!(big.history.len(), 1);
        assert_eq!(big.history[0].message_id, "user-says");
        assert!(json_size(&big.history[0]) <= 500);
    }

    proptest! {
        /// What is kept is the newest suffix, within both bounds (or the newest message
        /// alone), and one more message would break a bound.
        #[test]
        fn the_newest_suffix_within_both_bounds_is_kept(
            sizes in proptest::collection::vec(0usize..300, 0..20),
            max in 0usize..10,
            max_bytes in 0usize..3000,
        ) {
            let history: Vec<Message> = sizes
                .iter()
                .enumerate()
                .map(|(i, n)| Message::agent(format!("m{i}"), vec![Part::text("x".repeat(*n))]))
                .collect();
            let mut kept = history.clone();
            trim_history(&mut kept, max, max_bytes);
            prop_assert_eq!(&kept[..], &history[history.len() - kept.len()..]);
            if history.is_empty() {
                return Ok(());
            }
            prop_assert!(!kept.is_empty());
            let bytes: usize = kept.iter().map(json_size).sum();
            prop_assert!(kept.len() == 1 || (kept.len() <= max && bytes <= max_bytes));
            if kept.len() < history.len() {
                let next = json_size(&history[history.len() - kept.len() - 1]);
                prop_assert!(kept.len() + 1 > max.max(1) || bytes + next > max_bytes);
            }
        }

        /// Parts within the budget are kept as they are; over it, the status message and
        /// artifacts fit the budget but for the notices that stand for what was cut (at
        /// most one per item), and nothing that fitted in order was cut.
        #[test]
        fn stored_parts_stay_within_their_budget(
            reply in 0usize..2_000,
            artifacts in proptest::collection::vec(0usize..1_000, 0..5),
            max_parts_bytes in 100usize..4_000,
        ) {
            let budget = Budget { max_parts_bytes, ..Budget::DEFAULT };
            let original = task(vec![], reply, &artifacts);
            let mut kept = original.clone();
            budget.apply(&mut kept);
            if parts_bytes(&original) <= max_parts_bytes {
                prop_assert_eq!(kept, original);
            } else {
                let notice =
                    written_size(&omitted(usize::MAX, usize::MAX).as_text().unwrap_or_default())
                        + 64;
                let items = 1 + artifacts.len();
                prop_assert!(parts_bytes(&kept) <= max_parts_bytes + items * notice);
                let first_cut = kept.status.message.as_ref() != original.status.message.as_ref();
                if !first_cut {
                    prop_assert!(original.status.message.as_ref().map_or(0, json_size) <= max_parts_bytes);
                }
            }
        }
    }
}
