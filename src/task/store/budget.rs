//! The history budget every store applies: a task keeps at most so many messages and so many
//! bytes of them (measured as their JSON), dropping the oldest first.
//!
//! Counting messages alone lets one client grow a task without bound with a few huge
//! messages; the byte bound is what keeps a store's size proportional to its task count.

use std::io;

use crate::a2a::Message;
use crate::a2a::v0_3::wire_message;

/// The size of `message` as JSON, in bytes, without building the string.
pub(crate) fn json_size(message: &Message) -> usize {
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
    let _ = serde_json::to_writer(&mut count, &wire_message(message));
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

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::a2a::v0_3::encode_message;
    use crate::a2a::{FileBody, FileContent, Part};

    #[test]
    fn the_size_is_the_length_of_the_json() {
        let mut metadata = serde_json::Map::new();
        metadata.insert("mimeType".into(), "application/json".into());
        let mut message = Message::agent(
            "m",
            vec![
                Part::text("héllo \"x\""),
                Part::Data {
                    data: metadata.clone(),
                    metadata: Some(metadata.clone()),
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
            encode_message(&message).to_string().len()
        );
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
    }
}
