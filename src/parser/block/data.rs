//! Per-path deltas of a data model update still arriving.
//!
//! An `updateDataModel` replaces the value at its `path`. Re-sending the whole message each
//! time its `value` grows costs bytes and time in proportion to its size per chunk, so in
//! [`EmitMode::Delta`](crate::parser::EmitMode::Delta), once the message has named its surface
//! and path and its `value` object opens, each member of that object is sent once, as soon as
//! it is finished:
//!
//! - the first emission replaces the value at `path` with an object of the members finished
//!   so far (so whatever was at `path` before is gone, as the whole message would do);
//! - each later member `k` is sent as its own update at `path/k` (a JSON Pointer, `~` and `/`
//!   escaped).
//!
//! Applied in order, these reach the state the whole message reaches.
//!
//! A v0.8 `dataModelUpdate` is streamed the same way, entry by entry of its `contents` array
//! (`{"key": .., "valueString"|"valueNumber"|"valueBoolean"|"valueMap": ..}`), as the
//! official v0.8 renderer (`A2uiMessageProcessor` of the A2UI web renderers) applies it: the
//! contents replace the value at `path` (the whole model at `/` or without a path), and a
//! single entry keyed `.` sets the value at `path` itself ("set primitive at path"). So:
//!
//! - the first emission is the message with the entries finished so far (held while it
//!   would be a lone entry whose key names no path segment, like `.`, which the renderer
//!   would read as that convention);
//! - each later entry `k` is sent at `path/k` as `[{"key": ".", <its value>}]` (v0.8 paths are
//!   not JSON Pointers: the renderer splits them on `/` and `.`, as it splits the keys of
//!   `contents`, so `k` is appended as written);
//! - a later entry that form would not reproduce (a key naming no segment, an entry without
//!   a value, a value the renderer would re-read as a key/value list, like the string `"[]"`)
//!   re-sends the entries finished so far at `path`, which replaces what the earlier
//!   emissions built with the same state.
//!
//! A v0.8 update without a `path` before its `contents` is sent the old way (once it
//! closes), since a `path` arriving later would move it. With
//! [`ParserConfig::delta_batch`](crate::parser::ParserConfig::delta_batch) above 0, finished
//! members wait until they outweigh the envelope by that ratio (a small data model is then
//! sent whole when it closes, as written). A string member under a
//! progressive key is also sent healed while it grows. Nothing of the message is sent again
//! when it closes. A message whose `path` comes after its `value`, or whose `value` is not an
//! object, is sent the old way (healed whole, or once it closes).

use serde_json::{Map, Value};

use super::context::Cx;
use super::data_stream::{DataStream, Shape};
use super::{Block, Expect, Lit, Role};

impl Block {
    /// The `value` object (v0.8: `contents` array) of a data model update opened after the
    /// key at buffer index `key_start` (its bracket is not pushed yet): stream it if the
    /// envelope names its surface and path. Returns its role.
    pub(super) fn data_opened(&mut self, key_start: usize, v08: bool, cx: &Cx<'_>) -> Role {
        if self.frames.len() != 2 || cx.config.mode != crate::parser::EmitMode::Delta {
            return Role::Other;
        }
        let Some(action) = self.action.clone() else {
            return Role::Other;
        };
        // The envelope is the buffer before `"value"` (and its comma), closed.
        let mut end = key_start.saturating_sub(1);
        if self.buf.get(end.saturating_sub(1)) == Some(&b',') {
            end -= 1;
        }
        let mut bytes = self.buf.get(..end).unwrap_or_default().to_vec();
        bytes.extend_from_slice(b"}}");
        let Ok(envelope) = serde_json::from_slice::<Value>(&bytes) else {
            return Role::Other;
        };
        if !self.envelope_ok(&envelope) {
            return Role::Other;
        }
        let Some(path) = envelope
            .get(&action)
            .and_then(|body| body.get("path"))
            .and_then(Value::as_str)
        else {
            return Role::Other;
        };
        let base = path.trim_end_matches('/').to_owned();
        self.data = Some(DataStream {
            shape: if v08 { Shape::Contents } else { Shape::Value },
            envelope,
            envelope_len: bytes.len(),
            action,
            base,
            depth: self.frames.len(),
            start: self.buf.len() + 1,
            sent_to: self.buf.len() + 1,
            finished_to: self.buf.len() + 1,
            started: false,
            healed_at: 0,
        });
        Role::Data
    }

    /// Sends the members finished since the last emission. Called once per chunk (so a
    /// message that closes in the chunk it opened in is sent whole, as written) and, with
    /// `force` (past the readiness check), when the `value` object closes after a first
    /// emission.
    pub(super) fn data_members(&mut self, force: bool, cx: &mut Cx<'_>) {
        let Some(data) = &self.data else { return };
        let last_done = self.frames.len() == data.depth + 1
            && self.lit == Lit::None
            && self.frames.last().map(|f| f.expect) == Some(Expect::CommaOrEnd);
        let end = if last_done {
            self.buf.len()
        } else {
            data.finished_to
        };
        let Some(pending) = self.buf.get(data.sent_to..end) else {
            return;
        };
        let pending = pending.strip_prefix(b",").unwrap_or(pending);
        if pending.is_empty() {
            return;
        }
        let batch = data.envelope_len.saturating_mul(cx.config.batch_ratio());
        if !force && pending.len() < batch {
            return;
        }
        let sent = match data.shape {
            Shape::Value => {
                let Ok(Value::Object(members)) = serde_json::from_slice(&wrap(b'{', pending, b'}'))
                else {
                    return;
                };
                self.send_members(members, force, cx)
            }
            Shape::Contents => {
                let Ok(entries) = serde_json::from_slice::<Vec<Value>>(&wrap(b'[', pending, b']'))
                else {
                    return;
                };
                self.send_entries(entries, end, force, cx)
            }
        };
        if sent && let Some(data) = &mut self.data {
            data.sent_to = end;
        }
    }

    /// Sends a healed copy of the member string still arriving, if its key is progressive.
    pub(super) fn data_heal(&mut self, cx: &mut Cx<'_>) {
        let Some(data) = &self.data else { return };
        let Some(frame) = self.frames.last() else {
            return;
        };
        if data.shape != Shape::Value
            || self.frames.len() != data.depth + 1
            || self.lit != (Lit::Str { key: false })
            || data.healed_at == self.buf.len()
        {
            return;
        }
        let Some(key) = self.buf.get(frame.key.0..frame.key.1) else {
            return;
        };
        if !cx.config.is_progressive(key) {
            return;
        }
        let Some(value) = self.buf.get(frame.key.1 + 2..) else {
            return;
        };
        let mut string = value.to_vec();
        if self.esc {
            string.pop();
        }
        string.push(b'"');
        let (Ok(key), Ok(value)) = (
            serde_json::from_slice::<String>(&[b"\"", key, b"\""].concat()),
            serde_json::from_slice::<Value>(&string),
        ) else {
            return;
        };
        let healed_at = self.buf.len();
        let mut member = Map::new();
        member.insert(key, value);
        if self.send_members(member, false, cx)
            && let Some(data) = &mut self.data
        {
            data.healed_at = healed_at;
        }
    }

    /// Sends `members`: replacing the value at `path` the first time, one update per member
    /// after. Returns whether they went out.
    fn send_members(&mut self, members: Map<String, Value>, force: bool, cx: &mut Cx<'_>) -> bool {
        let Some(data) = &mut self.data else {
            return false;
        };
        let messages: Vec<Value> = if data.started {
            members
                .into_iter()
                .map(|(key, value)| {
                    let path = format!("{}/{}", data.base, escape(&key));
                    with_value(&data.envelope, &data.action, Value::String(path), value)
                })
                .collect()
        } else {
            let path = data
                .envelope
                .get(&data.action)
                .and_then(|body| body.get("path"))
                .cloned()
                .unwrap_or_else(|| Value::String("/".to_owned()));
            vec![with_value(
                &data.envelope,
                &data.action,
                path,
                Value::Object(members),
            )]
        };
        deliver(data, messages, force, cx)
    }

    /// Sends v0.8 `contents` entries finished up to buffer index `end`: the message with
    /// them the first time, then one update per entry at `path/key` (or, for an entry that
    /// form would not reproduce, the entries so far again at `path`). Returns whether they
    /// went out.
    fn send_entries(
        &mut self,
        entries: Vec<Value>,
        end: usize,
        force: bool,
        cx: &mut Cx<'_>,
    ) -> bool {
        let Some(data) = &self.data else {
            return false;
        };
        let path = data
            .envelope
            .get(&data.action)
            .and_then(|body| body.get("path"))
            .cloned()
            .unwrap_or_else(|| Value::String("/".to_owned()));
        let whole = |entries: Vec<Value>| {
            with_member(
                &data.envelope,
                &data.action,
                path.clone(),
                "contents",
                Value::Array(entries),
            )
        };
        let messages = if !data.started {
            if let [lone] = entries.as_slice()
                && !force
                && entry_key(lone).is_none_or(|key| !names_segment(key))
            {
                return false;
            }
            vec![whole(entries)]
        } else {
            let mut messages = Vec::with_capacity(entries.len());
            for entry in &entries {
                match at_own_path(entry) {
                    Some((key, entry)) => messages.push(with_member(
                        &data.envelope,
                        &data.action,
                        Value::String(format!("{}/{key}", data.base)),
                        "contents",
                        Value::Array(vec![entry]),
                    )),
                    None => {
                        // Everything finished so far, at `path`: replaces what went before.
                        let so_far = self.buf.get(data.start..end).unwrap_or_default();
                        let Ok(all) =
                            serde_json::from_slice::<Vec<Value>>(&wrap(b'[', so_far, b']'))
                        else {
                            return false;
                        };
                        messages = vec![whole(all)];
                        break;
                    }
                }
            }
            messages
        };
        match &mut self.data {
            Some(data) => deliver(data, messages, force, cx),
            None => false,
        }
    }
}

/// Sends `messages` of the stream `data` if they are ready (or `force`d). Returns whether they
/// went out.
fn deliver(data: &mut DataStream, messages: Vec<Value>, force: bool, cx: &mut Cx<'_>) -> bool {
    if !force
        && let Some(check) = &cx.config.readiness
        && !messages.iter().all(|m| check.is_ready(m))
    {
        return false;
    }
    data.started = true;
    cx.out.extend(messages);
    true
}

/// `open`, `inner`, `close` in one buffer: a list of members made a JSON object or array.
fn wrap(open: u8, inner: &[u8], close: u8) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(inner.len() + 2);
    bytes.push(open);
    bytes.extend_from_slice(inner);
    bytes.push(close);
    bytes
}

/// The `key` of a v0.8 `contents` entry.
fn entry_key(entry: &Value) -> Option<&str> {
    entry.get("key").and_then(Value::as_str)
}

/// Whether a v0.8 key names at least one path segment: the renderer splits keys and paths on
/// `/` and `.`, so a key made of those alone (or empty) names the path it is under.
fn names_segment(key: &str) -> bool {
    key.chars().any(|c| c != '/' && c != '.')
}

/// A v0.8 `contents` entry as the lone entry of an update at `path/key`: its key and the
/// entry keyed `.`, when the renderer reads that the way it reads the entry in the list.
///
/// Not when the key names no segment, the entry has no value, or its value is one the
/// renderer would read again as a key/value list (an array outside `valueMap`, or a string
/// holding a JSON array, which it parses).
fn at_own_path(entry: &Value) -> Option<(&str, Value)> {
    let object = entry.as_object()?;
    let key = entry_key(entry).filter(|key| names_segment(key))?;
    // The renderer reads the first member whose name starts with `value`.
    let (name, value) = object.iter().find(|(name, _)| name.starts_with("value"))?;
    let reread = match value {
        Value::Array(_) => name != "valueMap",
        Value::String(text) => {
            let text = text.trim_matches(|c: char| c.is_whitespace() || c == '\u{feff}');
            text.starts_with('[') && text.ends_with(']')
        }
        _ => false,
    };
    if reread {
        return None;
    }
    let mut own = object.clone();
    own.insert("key".to_owned(), Value::String(".".to_owned()));
    Some((key, Value::Object(own)))
}

/// `envelope` with `path` and `value` set in its body.
fn with_value(envelope: &Value, action: &str, path: Value, value: Value) -> Value {
    with_member(envelope, action, path, "value", value)
}

/// `envelope` with `path` and the member `name` (`value`, v0.8 `contents`) set in its body.
fn with_member(envelope: &Value, action: &str, path: Value, name: &str, value: Value) -> Value {
    let mut message = envelope.clone();
    if let Some(body) = message.get_mut(action).and_then(Value::as_object_mut) {
        body.insert("path".to_owned(), path);
        body.insert(name.to_owned(), value);
    }
    message
}

/// A key as a JSON Pointer segment (RFC 6901): `~` as `~0`, `/` as `~1`.
fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}
