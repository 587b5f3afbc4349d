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
//! Applied in order, these reach the state the whole message reaches. With
//! [`ParserConfig::delta_batch`](crate::parser::ParserConfig::delta_batch) above 0, finished
//! members wait until they outweigh the envelope by that ratio (a small data model is then
//! sent whole when it closes, as written). A string member under a
//! progressive key is also sent healed while it grows. Nothing of the message is sent again
//! when it closes. A message whose `path` comes after its `value`, or whose `value` is not an
//! object, is sent the old way (healed whole, or once it closes).

use serde_json::{Map, Value};

use super::{Block, Cx, Expect, Lit, Role};

/// The `value` object of a data model update being streamed member by member.
#[derive(Debug)]
pub(super) struct DataStream {
    /// The message without its `value`: `{"version":..,"updateDataModel":{"surfaceId":..,"path":..}}`.
    envelope: Value,
    /// The action name, to reach the body inside `envelope`.
    action: String,
    /// The envelope's length in bytes, what each per-path message adds.
    envelope_len: usize,
    /// `path` without a trailing `/` (empty for the root).
    base: String,
    /// Index in the frame stack of the `value` object.
    depth: usize,
    /// Buffer index up to which members were sent (the first unsent member starts after it).
    sent_to: usize,
    /// Buffer index where the last member followed by a `,` ended.
    finished_to: usize,
    /// Whether the first emission (the replacing one) went out.
    started: bool,
    /// Buffer length at the last progressive heal, so an unchanged string is not re-sent.
    healed_at: usize,
}

impl DataStream {
    /// Whether anything of the message went out, so its close sends nothing more.
    pub(super) fn started(&self) -> bool {
        self.started
    }

    /// A `,` after a member of the `value` object: the buffer up to `end` holds finished members.
    pub(super) fn member_finished(&mut self, end: usize) {
        self.finished_to = end;
    }
}

impl Block {
    /// The `value` object of a data model update opened at buffer index `open` (its `{` is not
    /// pushed yet): stream it if the envelope names its surface and path. Returns its role.
    pub(super) fn data_opened(&mut self, key_start: usize, cx: &Cx<'_>) -> Role {
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
            envelope,
            envelope_len: bytes.len(),
            action,
            base,
            depth: self.frames.len(),
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
        let mut object = Vec::with_capacity(pending.len() + 2);
        object.push(b'{');
        object.extend_from_slice(pending);
        object.push(b'}');
        let Ok(Value::Object(members)) = serde_json::from_slice::<Value>(&object) else {
            return;
        };
        if self.send_members(members, force, cx) {
            if let Some(data) = &mut self.data {
                data.sent_to = end;
            }
        }
    }

    /// Sends a healed copy of the member string still arriving, if its key is progressive.
    pub(super) fn data_heal(&mut self, cx: &mut Cx<'_>) {
        let Some(data) = &self.data else { return };
        let Some(frame) = self.frames.last() else {
            return;
        };
        if self.frames.len() != data.depth + 1
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
        if self.send_members(member, false, cx) {
            if let Some(data) = &mut self.data {
                data.healed_at = healed_at;
            }
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
        if !force {
            if let Some(check) = &cx.config.readiness {
                if !messages.iter().all(|m| check.is_ready(m)) {
                    return false;
                }
            }
        }
        data.started = true;
        cx.out.extend(messages);
        true
    }
}

/// `envelope` with `path` and `value` set in its body.
fn with_value(envelope: &Value, action: &str, path: Value, value: Value) -> Value {
    let mut message = envelope.clone();
    if let Some(body) = message.get_mut(action).and_then(Value::as_object_mut) {
        body.insert("path".to_owned(), path);
        body.insert("value".to_owned(), value);
    }
    message
}

/// A key as a JSON Pointer segment (RFC 6901): `~` as `~0`, `/` as `~1`.
fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}
