//! Budgets checked while a request body is read, before any model of it is built.
//!
//! A JSON value costs many times its text in memory: `{"kind":"text","text":"a"}` is 27
//! bytes on the wire and several hundred once it is a `serde_json::Value` and then a
//! [`Part`](crate::a2a::Part), so a 4 MiB body of 150,000 one-letter parts used to grow the server
//! by about 370 MB. `check` walks the body once with serde, allocating nothing that grows
//! with it besides the keys of one object at a time, and refuses it at the first budget it
//! breaks: more parts in one `parts` array than `DecodeBudget::max_parts`, a part or a
//! `message` longer than its byte budget, more JSON values in all than
//! `DecodeBudget::max_values`, nesting deeper than `MAX_DEPTH`. The same walk refuses
//! duplicate object keys at any depth (serde_json would keep the last one silently, so two
//! `method` keys would run the second). Only a body that passes is decoded, so the model built
//! from it is bounded by the budget and not by what a client chose to send.
//!
//! The A2A client (`client`) walks every answer it reads the same way, with sizes of its
//! own: an agent's answer is as untrusted as a client's request.
//!
//! The walk knows two member names and nothing else of the protocol: `parts` (an array of
//! parts, in 0.3 and 1.0 alike) and `message`. It does not import the wire modules, and they
//! need not know it ran.
//!
//! # Example
//!
//! ```
//! # #[cfg(feature = "unstable-internals")] {
//! use a2ui_agent::a2a::budget::{DecodeBudget, RefusalKind, check};
//!
//! let budget = DecodeBudget { max_parts: 2, ..DecodeBudget::default() };
//! let ok = br#"{"message":{"parts":[{"text":"a"},{"text":"b"}]}}"#;
//! assert!(check(ok, &budget).is_ok());
//!
//! let three = br#"{"message":{"parts":[{"text":"a"},{"text":"b"},{"text":"c"}]}}"#;
//! assert_eq!(check(three, &budget).unwrap_err().kind, RefusalKind::OverBudget);
//!
//! let twice = br#"{"method":"a","method":"b"}"#;
//! let refusal = check(twice, &budget).unwrap_err();
//! assert_eq!((refusal.kind, refusal.depth), (RefusalKind::DuplicateKey, 0));
//! # }
//! ```

use std::borrow::Cow;
use std::collections::HashSet;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;

use super::jsonrpc::{ErrorCode, RpcError};

/// How deep objects and arrays may nest in a request.
pub const MAX_DEPTH: usize = 64;

/// What one request body may hold; see the [module](self) documentation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DecodeBudget {
    /// The most elements of one `parts` array.
    pub max_parts: usize,
    /// The most bytes of one element of a `parts` array, as sent.
    pub max_part_bytes: usize,
    /// The most bytes of one `message` member, as sent.
    pub max_message_bytes: usize,
    /// The most JSON values (scalars, arrays, objects and object keys) in the whole body.
    pub max_values: usize,
}

impl DecodeBudget {
    /// The default of `DecodeBudget::max_parts`: 100.
    pub const DEFAULT_MAX_PARTS: usize = 100;
    /// The default of [`DecodeBudget::max_part_bytes`]: 512 KiB.
    pub const DEFAULT_MAX_PART_BYTES: usize = 512 * 1024;
    /// The default of [`DecodeBudget::max_message_bytes`]: 1 MiB.
    pub const DEFAULT_MAX_MESSAGE_BYTES: usize = 1024 * 1024;
    /// The default of `DecodeBudget::max_values`: 20,000.
    pub const DEFAULT_MAX_VALUES: usize = 20_000;
}

impl Default for DecodeBudget {
    fn default() -> Self {
        Self {
            max_parts: Self::DEFAULT_MAX_PARTS,
            max_part_bytes: Self::DEFAULT_MAX_PART_BYTES,
            max_message_bytes: Self::DEFAULT_MAX_MESSAGE_BYTES,
            max_values: Self::DEFAULT_MAX_VALUES,
        }
    }
}

/// Why a body was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RefusalKind {
    /// The body is not JSON.
    Syntax,
    /// An object has the same key twice.
    DuplicateKey,
    /// The body breaks a budget.
    OverBudget,
}

/// A body [`check`] refused: why, where, and a message for the client.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct Refusal {
    /// Why.
    pub kind: RefusalKind,
    /// How deep the fault is: 0 for the body's own members (the JSON-RPC envelope).
    pub depth: usize,
    /// What to tell the client.
    pub message: String,
}

impl Refusal {
    /// The JSON-RPC error: -32700 for a syntax error, -32600 for a duplicate key among the
    /// members of a JSON-RPC `envelope`, -32602 otherwise (a duplicate key or a budget
    /// broken in what the method reads).
    ///
    /// # Example
    ///
    /// ```
    /// # #[cfg(feature = "unstable-internals")] {
    /// use a2ui_agent::a2a::budget::{DecodeBudget, check};
    /// use a2ui_agent::a2a::jsonrpc::ErrorCode;
    ///
    /// let refusal = check(br#"{"id":1,"id":2}"#, &DecodeBudget::default()).unwrap_err();
    /// assert_eq!(refusal.to_rpc(true).code, ErrorCode::InvalidRequest);
    /// assert_eq!(refusal.to_rpc(false).code, ErrorCode::InvalidParams);
    /// # }
    /// ```
    pub fn to_rpc(&self, envelope: bool) -> RpcError {
        let code = match self.kind {
            RefusalKind::Syntax => ErrorCode::ParseError,
            RefusalKind::DuplicateKey if envelope && self.depth == 0 => ErrorCode::InvalidRequest,
            RefusalKind::DuplicateKey | RefusalKind::OverBudget => ErrorCode::InvalidParams,
        };
        let prefix = match code {
            ErrorCode::ParseError => "Parse error",
            ErrorCode::InvalidRequest => "Invalid request",
            _ => "Invalid params",
        };
        RpcError::new(code, format!("{prefix}: {}", self.message))
    }
}

/// Walks `body` within `budget`; see the [module](self) documentation.
///
/// # Errors
///
/// The first [`Refusal`]: the body is not one JSON value, repeats a key, or breaks a budget.
pub fn check(body: &[u8], budget: &DecodeBudget) -> Result<(), Refusal> {
    let mut scan = Scan {
        budget: *budget,
        values: 0,
        refusal: None,
    };
    let mut deserializer = serde_json::Deserializer::from_slice(body);
    let walked = Node::any(&mut scan, 0)
        .deserialize(&mut deserializer)
        .and_then(|()| deserializer.end());
    match (walked, scan.refusal) {
        (_, Some(refusal)) => Err(refusal),
        (Ok(()), None) => Ok(()),
        (Err(error), None) => Err(Refusal {
            kind: RefusalKind::Syntax,
            depth: 0,
            message: error.to_string(),
        }),
    }
}

/// The walk's running totals, and the refusal once there is one.
struct Scan {
    budget: DecodeBudget,
    values: usize,
    refusal: Option<Refusal>,
}

impl Scan {
    /// Records a refusal; the returned error stops the walk (its text is never shown).
    fn refuse<E: de::Error>(&mut self, kind: RefusalKind, depth: usize, message: String) -> E {
        if self.refusal.is_none() {
            self.refusal = Some(Refusal {
                kind,
                depth,
                message,
            });
        }
        E::custom("refused")
    }

    /// Counts one value.
    fn count<E: de::Error>(&mut self, depth: usize) -> Result<(), E> {
        self.values += 1;
        if self.values > self.budget.max_values {
            let message = format!(
                "the body holds more than {} JSON values",
                self.budget.max_values
            );
            return Err(self.refuse(RefusalKind::OverBudget, depth, message));
        }
        Ok(())
    }

    /// Enters a container at `depth`.
    fn enter<E: de::Error>(&mut self, depth: usize) -> Result<(), E> {
        self.count(depth)?;
        if depth >= MAX_DEPTH {
            let message = format!("the body nests deeper than {MAX_DEPTH} levels");
            return Err(self.refuse(RefusalKind::OverBudget, depth, message));
        }
        Ok(())
    }

    /// Walks `raw`, a value found inside the body, as a new body at `depth`.
    fn walk_raw<E: de::Error>(&mut self, raw: &RawValue, depth: usize) -> Result<(), E> {
        let mut deserializer = serde_json::Deserializer::from_str(raw.get());
        Node::any(self, depth)
            .deserialize(&mut deserializer)
            .map_err(E::custom)
    }
}

/// A value at `depth`; `parts` when it is the value of a `parts` member, whose elements (when
/// it is an array) are parts: measured as sent, counted, and walked.
struct Node<'s> {
    scan: &'s mut Scan,
    depth: usize,
    parts: bool,
}

impl<'s> Node<'s> {
    fn any(scan: &'s mut Scan, depth: usize) -> Self {
        Self {
            scan,
            depth,
            parts: false,
        }
    }

    /// The elements of a `parts` array.
    fn visit_parts<'de, A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let DecodeBudget {
            max_parts,
            max_part_bytes,
            ..
        } = self.scan.budget;
        let mut count = 0usize;
        while let Some(part) = seq.next_element::<&RawValue>()? {
            count += 1;
            if count > max_parts {
                let message = format!("a message has more than {max_parts} parts");
                return Err(self
                    .scan
                    .refuse(RefusalKind::OverBudget, self.depth, message));
            }
            if part.get().len() > max_part_bytes {
                let message = format!("a part is longer than {max_part_bytes} bytes");
                return Err(self
                    .scan
                    .refuse(RefusalKind::OverBudget, self.depth, message));
            }
            self.scan.walk_raw(part, self.depth + 1)?;
        }
        Ok(())
    }
}

impl<'de> DeserializeSeed<'de> for Node<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Node<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        self.scan.count(self.depth)
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
        self.scan.count(self.depth)
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
        self.scan.count(self.depth)
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<(), E> {
        self.scan.count(self.depth)
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<(), E> {
        self.scan.count(self.depth)
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        self.scan.count(self.depth)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        self.scan.enter(self.depth)?;
        if self.parts {
            return self.visit_parts(seq);
        }
        while seq
            .next_element_seed(Node::any(&mut *self.scan, self.depth + 1))?
            .is_some()
        {}
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        self.scan.enter(self.depth)?;
        let inner = self.depth + 1;
        let mut keys: HashSet<Cow<'de, str>> = HashSet::new();
        while let Some(key) = map.next_key_seed(Key)? {
            self.scan.count(inner)?;
            if keys.contains(&key) {
                let message = format!("duplicate key \"{}\"", shown(&key));
                return Err(self
                    .scan
                    .refuse(RefusalKind::DuplicateKey, self.depth, message));
            }
            match key.as_ref() {
                "parts" => map.next_value_seed(Node {
                    scan: &mut *self.scan,
                    depth: inner,
                    parts: true,
                })?,
                "message" => {
                    let raw: &RawValue = map.next_value()?;
                    let limit = self.scan.budget.max_message_bytes;
                    if raw.get().len() > limit {
                        let message = format!("a message is longer than {limit} bytes");
                        return Err(self.scan.refuse(RefusalKind::OverBudget, inner, message));
                    }
                    self.scan.walk_raw(raw, inner)?;
                }
                _ => map.next_value_seed(Node::any(&mut *self.scan, inner))?,
            }
            keys.insert(key);
        }
        Ok(())
    }
}

/// A key as the client may see it in an error: at most 64 characters.
fn shown(key: &str) -> String {
    key.chars().take(64).collect()
}

/// An object key, borrowed from the body unless it holds escapes.
struct Key;

impl<'de> DeserializeSeed<'de> for Key {
    type Value = Cow<'de, str>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for Key {
    type Value = Cow<'de, str>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object key")
    }

    fn visit_borrowed_str<E: de::Error>(self, key: &'de str) -> Result<Self::Value, E> {
        Ok(Cow::Borrowed(key))
    }

    fn visit_str<E: de::Error>(self, key: &str) -> Result<Self::Value, E> {
        Ok(Cow::Owned(key.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refusal(body: &str, budget: &DecodeBudget) -> Refusal {
        check(body.as_bytes(), budget).unwrap_err()
    }

    fn parts(count: usize) -> String {
        let part = r#"{"kind":"text","text":"a"}"#;
        format!("[{}]", vec![part; count].join(","))
    }

    #[test]
    fn parts_are_counted_per_array_up_to_the_cap() {
        let budget = DecodeBudget {
            max_parts: 3,
            ..DecodeBudget::default()
        };
        let three = format!(r#"{{"params":{{"message":{{"parts":{}}}}}}}"#, parts(3));
        assert_eq!(check(three.as_bytes(), &budget), Ok(()));
        let four = format!(r#"{{"params":{{"message":{{"parts":{}}}}}}}"#, parts(4));
        let refused = refusal(&four, &budget);
        assert_eq!(refused.kind, RefusalKind::OverBudget);
        assert_eq!(refused.message, "a message has more than 3 parts");
        assert_eq!(refused.to_rpc(true).code, ErrorCode::InvalidParams);
    }

    #[test]
    fn a_part_and_a_message_are_measured_as_sent() {
        let budget = DecodeBudget {
            max_part_bytes: 30,
            max_message_bytes: 100,
            ..DecodeBudget::default()
        };
        let part = |text: &str| format!(r#"{{"message":{{"parts":[{{"text":"{text}"}}]}}}}"#);
        // {"text":"…"} is 11 bytes around the text.
        assert_eq!(check(part(&"a".repeat(19)).as_bytes(), &budget), Ok(()));
        assert_eq!(
            refusal(&part(&"a".repeat(20)), &budget).message,
            "a part is longer than 30 bytes"
        );
        let long = format!(r#"{{"message":{{"note":"{}"}}}}"#, "a".repeat(100));
        assert_eq!(
            refusal(&long, &budget).message,
            "a message is longer than 100 bytes"
        );
    }

    #[test]
    fn values_are_counted_over_the_whole_body() {
        let budget = DecodeBudget {
            max_values: 10,
            ..DecodeBudget::default()
        };
        // The object, its key, the array and 7 numbers: 10.
        assert_eq!(check(br#"{"pad":[0,0,0,0,0,0,0]}"#, &budget), Ok(()));
        let refused = check(br#"{"pad":[0,0,0,0,0,0,0,0]}"#, &budget).unwrap_err();
        assert_eq!(
            refused.message,
            "the body holds more than 10 JSON values"
        );
    }

    #[test]
    fn duplicate_keys_are_refused_at_any_depth_with_their_depth() {
        let budget = DecodeBudget::default();
        let envelope = refusal(r#"{"method":"a","id":1,"method":"b"}"#, &budget);
        assert_eq!(
            (envelope.kind, envelope.depth, envelope.message.as_str()),
            (RefusalKind::DuplicateKey, 0, "duplicate key \"method\"")
        );
        let inner = refusal(
            r#"{"params":{"message":{"parts":[{"text":"a","text":"b"}]}}}"#,
            &budget,
        );
        assert_eq!(inner.kind, RefusalKind::DuplicateKey);
        assert!(inner.depth > 0);
        assert_eq!(inner.to_rpc(true).code, ErrorCode::InvalidParams);
        // Escapes name the same key.
        let escaped = refusal(r#"{"id":1,"\u0069d":2}"#, &budget);
        assert_eq!(escaped.kind, RefusalKind::DuplicateKey);
        // The same key in sibling objects is fine.
        assert_eq!(check(br#"[{"a":1},{"a":2}]"#, &budget), Ok(()));
    }

    #[test]
    fn nesting_is_bounded() {
        let deep = format!("{}{}", "[".repeat(MAX_DEPTH + 1), "]".repeat(MAX_DEPTH + 1));
        let refused = refusal(&deep, &DecodeBudget::default());
        assert_eq!(refused.kind, RefusalKind::OverBudget);
        let nested_messages = format!(
            "{}1{}",
            r#"{"message":"#.repeat(MAX_DEPTH + 1),
            "}".repeat(MAX_DEPTH + 1)
        );
        assert_eq!(
            refusal(&nested_messages, &DecodeBudget::default()).kind,
            RefusalKind::OverBudget
        );
    }

    #[test]
    fn syntax_errors_are_parse_errors() {
        for body in ["", "{", r#"{"a":1} x"#, r#"{"parts":[1,}"#] {
            let refused = refusal(body, &DecodeBudget::default());
            assert_eq!(refused.kind, RefusalKind::Syntax, "{body}");
            assert_eq!(refused.to_rpc(true).code, ErrorCode::ParseError);
        }
    }

    proptest::proptest! {
        /// Whatever JSON a body holds, the walk agrees with serde_json on whether it is JSON
        /// when no budget is in the way and no key repeats.
        #[test]
        fn the_walk_accepts_what_serde_json_reads(body in "[\\[\\]{}:,\"a-c0-9 ]{0,40}") {
            let roomy = DecodeBudget { max_values: usize::MAX, ..DecodeBudget::default() };
            let parsed = serde_json::from_str::<serde_json::Value>(&body);
            match check(body.as_bytes(), &roomy) {
                Ok(()) => proptest::prop_assert!(parsed.is_ok()),
                Err(refusal) if refusal.kind == RefusalKind::Syntax => proptest::prop_assert!(parsed.is_err()),
                Err(_) => {}
            }
        }
    }
}
