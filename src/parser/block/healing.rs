//! Snapshots of the message still arriving: what may be emitted before it closes.
//!
//! A snapshot is built from the recorded structure, not by re-reading the block: the
//! normalized buffer of [`Block`] already holds the open message minus its closed components,
//! so healing appends a closing quote (only for a string value under a progressive key) and one
//! closing bracket per open frame. A component still arriving is left out (the buffer is cut
//! where it began). Anything else still arriving (an id, a path, a component name, a child
//! reference, a number, a key without its value) makes the message not ready.
//!
//! Snapshots are taken once per chunk and only when the healable state changed.

use serde_json::Value;

use super::context::Cx;
use super::emit::{ActionKind, Signature};
use super::{Block, Expect, Kind, Lit, Phase, Role};
use crate::parser::config::EmitMode;

impl Block {
    /// Emits what of the open message is ready, if anything changed since the last snapshot.
    ///
    /// Everything it emits has passed the readiness check (the driver reports those messages
    /// as checked, [`StreamParser::feed_checked`](crate::parser::StreamParser::feed_checked)).
    pub(in crate::parser) fn snapshot(&mut self, cx: &mut Cx<'_>) {
        let Some(kind) = self.kind.filter(|_| self.may_snapshot(cx.config.mode)) else {
            return;
        };
        match kind {
            // A v0.8 `dataModelUpdate` streamed entry by entry (`may_snapshot`: only that
            // kind of whole message gets here).
            ActionKind::Whole => self.data_members(false, cx),
            ActionKind::Components => {
                if self.tracker.below_batch(cx) {
                    return;
                }
                let sig = self.signature();
                if !self.tracker.has_envelope(sig) {
                    let envelope = self.heal(cx).filter(|(v, _)| self.envelope_ok(v));
                    self.tracker.cache_envelope(sig, envelope);
                }
                if let Some(action) = self.action.as_deref() {
                    self.tracker.send_components(action, cx);
                }
            }
            ActionKind::DataModel if self.data.is_some() => {
                self.data_members(false, cx);
                self.data_heal(cx);
            }
            ActionKind::DataModel => {
                if self.tracker.same_signature(self.signature()) {
                    return;
                }
                let Some((message, _)) = self.heal(cx).filter(|(v, _)| self.envelope_ok(v)) else {
                    return;
                };
                let action = self.action.as_deref().unwrap_or_default();
                if message.get(action).and_then(|b| b.get("value")).is_some() {
                    self.tracker.send_snapshot(message, cx);
                }
            }
        }
    }

    /// Whether [`snapshot`](Self::snapshot) may send anything now, the one place its cheap
    /// checks live. The driver asks after every chunk and skips the snapshot on most of them:
    /// a components message with no closed component waiting sends nothing, nor does a
    /// message with no action yet, nor a whole message that is not streamed per entry.
    #[inline]
    pub(in crate::parser) fn may_snapshot(&self, mode: EmitMode) -> bool {
        match self.kind {
            _ if self.phase != Phase::Message => false,
            None | Some(ActionKind::Whole) if self.data.is_none() => false,
            Some(ActionKind::Components) => self.tracker.has_unsent(mode),
            _ => true,
        }
    }

    /// What the healed snapshot depends on: buffer length, literal state, depth.
    fn signature(&self) -> Signature {
        let expect = self.frames.last().map_or(0, |f| f.expect as u8);
        match &self.comp {
            Some(comp) => (comp.trunc, 0, 0, 0),
            // Between two components the snapshot is the one taken inside the next (the
            // buffer ends where that component will begin): one signature, so a chunk that
            // ends between components does not heal the envelope again, twice.
            None if self.lit == Lit::None
                && self
                    .frames
                    .last()
                    .is_some_and(|f| f.role == Role::Components) =>
            {
                (self.buf.len(), 0, 0, 0)
            }
            None => {
                let lit = match self.lit {
                    Lit::None => 0,
                    Lit::Str { .. } => 1 + u8::from(self.esc),
                    Lit::Token { .. } => 3,
                };
                (self.buf.len(), lit, self.frames.len(), expect)
            }
        }
    }

    /// The open message closed where it stands, with its length in bytes, or `None` if it
    /// cannot be yet.
    fn heal(&self, cx: &Cx<'_>) -> Option<(Value, usize)> {
        let (end, frames) = match &self.comp {
            Some(comp) => {
                let at = self
                    .frames
                    .iter()
                    .position(|f| f.role == Role::Components)?;
                (comp.trunc, self.frames.get(..=at)?)
            }
            None => (self.buf.len(), &self.frames[..]),
        };
        let mut out = Vec::with_capacity(end + frames.len() + 1);
        out.extend_from_slice(self.buf.get(..end)?);
        if self.comp.is_none() {
            let innermost = frames.last()?;
            match self.lit {
                Lit::Str { key: false } => {
                    let key = self.buf.get(innermost.key.0..innermost.key.1)?;
                    if innermost.kind != Kind::Obj || !cx.config.is_progressive(key) {
                        return None;
                    }
                    if self.esc {
                        out.pop();
                    }
                    out.push(b'"');
                }
                Lit::Str { key: true } | Lit::Token { .. } => return None,
                Lit::None => {
                    if matches!(innermost.expect, Expect::Colon | Expect::Value) {
                        return None;
                    }
                }
            }
        }
        for frame in frames.iter().rev() {
            out.push(match frame.kind {
                Kind::Obj => b'}',
                Kind::Arr => b']',
            });
        }
        let value = serde_json::from_slice(&out).ok()?;
        Some((value, out.len()))
    }

    /// Whether a healed message names its surface (and, for v0.9+ actions, its version), so a
    /// renderer can apply it.
    pub(super) fn envelope_ok(&self, message: &Value) -> bool {
        let Some(action) = self.action.as_deref() else {
            return false;
        };
        let versioned = matches!(action, "updateComponents" | "updateDataModel");
        (!versioned || message.get("version").is_some_and(Value::is_string))
            && message
                .get(action)
                .and_then(|body| body.get("surfaceId"))
                .is_some_and(Value::is_string)
    }
}
