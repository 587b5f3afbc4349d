//! What to send for the open message, and when: the delta and cumulative emission rules.
//!
//! An `updateComponents` (v0.9+) or `surfaceUpdate` (v0.8) message is sent while it arrives,
//! once components in it have closed. In [`EmitMode::Delta`] each emission carries only the
//! components that closed since the last one (renderers upsert components by id); in
//! [`EmitMode::Cumulative`] it carries all of them. Every other message is compared with what
//! was last sent for it and sent only if it changed.

use serde_json::Value;

use super::context::Cx;
use crate::parser::config::EmitMode;

/// How a message is streamed, by its action name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum ActionKind {
    /// Carries a `components` list, sent as its components close.
    Components,
    /// A data model update, healed and sent as it grows.
    DataModel,
    /// Anything else (`createSurface`, `beginRendering`, `deleteSurface`, unknown actions):
    /// sent once its object closes. A v0.8 `dataModelUpdate` whose `path` came before its
    /// `contents` is streamed per entry (see `data`).
    Whole,
}

impl ActionKind {
    pub(super) fn of(action: &str) -> Self {
        match action {
            "updateComponents" | "surfaceUpdate" => Self::Components,
            "updateDataModel" => Self::DataModel,
            _ => Self::Whole,
        }
    }
}

/// The signature of the healable state of the open message: equal signatures heal alike.
pub(super) type Signature = (usize, u8, usize, u8);

/// Emission state of the open message. Only the open message is tracked.
#[derive(Debug, Default)]
pub(super) struct Tracker {
    /// Closed components not yet sent (delta) or all closed components (cumulative).
    components: Vec<Value>,
    /// JSON bytes of the components not yet sent.
    unsent_bytes: usize,
    /// In cumulative mode, how many of `components` the last emission carried.
    sent_components: usize,
    /// The last envelope sent (a components message without its components), when it is no
    /// longer the cached one, or the last whole message sent.
    last: Option<Value>,
    /// The signature of the cached envelope, if it is the last one sent (so sending does not
    /// copy it a second time).
    last_sig: Option<Signature>,
    /// Whether anything of this message was sent.
    sent: bool,
    /// The healed envelope (and its length) for a signature, if it healed.
    envelope: Option<(Signature, Option<(Value, usize)>)>,
}

impl Tracker {
    pub(super) fn reset(&mut self) {
        self.components.clear();
        self.unsent_bytes = 0;
        self.sent_components = 0;
        self.last = None;
        self.last_sig = None;
        self.sent = false;
        self.envelope = None;
    }

    /// The last envelope or whole message sent.
    fn last_sent(&self) -> Option<&Value> {
        match (&self.envelope, self.last_sig) {
            (Some((sig, Some((envelope, _)))), Some(last)) if *sig == last => Some(envelope),
            _ => self.last.as_ref(),
        }
    }

    /// A component of the open message closed; `bytes` is the length of its JSON.
    pub(super) fn component(&mut self, component: Value, bytes: usize) {
        self.components.push(component);
        self.unsent_bytes += bytes;
    }

    /// Whether closed components wait to be sent.
    #[inline]
    pub(super) fn has_unsent(&self, mode: EmitMode) -> bool {
        match mode {
            EmitMode::Delta => !self.components.is_empty(),
            EmitMode::Cumulative => self.components.len() > self.sent_components,
        }
    }

    /// Whether, in delta mode, the components waiting are still too few to outweigh the last
    /// healed envelope by the batch ratio (so there is nothing to do this chunk).
    #[inline]
    pub(super) fn below_batch(&self, cx: &Cx<'_>) -> bool {
        match &self.envelope {
            Some((_, Some((_, len)))) => {
                cx.config.mode == EmitMode::Delta
                    && self.unsent_bytes < len.saturating_mul(cx.config.batch_ratio())
            }
            _ => false,
        }
    }

    /// Whether the envelope healed at `sig` is cached.
    pub(super) fn has_envelope(&self, sig: Signature) -> bool {
        matches!(&self.envelope, Some((cached, _)) if *cached == sig)
    }

    pub(super) fn cache_envelope(&mut self, sig: Signature, value: Option<(Value, usize)>) {
        if let Some((old, Some((envelope, _)))) = self.envelope.take()
            && self.last_sig == Some(old)
        {
            self.last = Some(envelope);
            self.last_sig = None;
        }
        self.envelope = Some((sig, value));
    }

    /// The signature the data model was last healed at, to skip unchanged chunks.
    pub(super) fn same_signature(&mut self, sig: Signature) -> bool {
        let same = matches!(&self.envelope, Some((cached, _)) if *cached == sig);
        self.envelope = Some((sig, None));
        same
    }

    /// Sends the cached envelope with the components waiting, if the readiness check allows
    /// and, in delta mode, they outweigh the envelope by the configured batch ratio.
    pub(super) fn send_components(&mut self, action: &str, cx: &mut Cx<'_>) {
        let Some((sig, Some((envelope, envelope_len)))) = &self.envelope else {
            return;
        };
        let sig = *sig;
        if cx.config.mode == EmitMode::Delta
            && self.unsent_bytes < envelope_len.saturating_mul(cx.config.batch_ratio())
        {
            return;
        }
        let mut message = envelope.clone();
        let carried = self.take_components(cx.config.mode);
        let count = carried.len();
        put_components(&mut message, action, carried);
        if let Some(check) = &cx.config.readiness
            && !check.is_ready(&message)
        {
            if cx.config.mode == EmitMode::Delta {
                self.components = take_last_components(&mut message, action, count);
            }
            return;
        }
        self.sent_components = count;
        self.unsent_bytes = 0;
        self.sent = true;
        self.last = None;
        self.last_sig = Some(sig);
        cx.out.push(message);
    }

    /// Sends `message`, a healed snapshot of a data model update, if it changed and is ready.
    pub(super) fn send_snapshot(&mut self, message: Value, cx: &mut Cx<'_>) {
        if self.last_sent() == Some(&message) {
            return;
        }
        if let Some(check) = &cx.config.readiness
            && !check.is_ready(&message)
        {
            return;
        }
        self.sent = true;
        cx.out.push(message.clone());
        self.last = Some(message);
    }

    /// The open message closed as `message` (minus its components, which were taken out as
    /// they closed): send what the renderer has not seen.
    pub(super) fn close(&mut self, message: Value, action: Option<&str>, cx: &mut Cx<'_>) {
        match action {
            Some(action) if ActionKind::of(action) == ActionKind::Components => {
                let changed = self.last_sent() != Some(&message);
                if !self.sent || changed || self.has_unsent(cx.config.mode) {
                    let mut message = message;
                    let carried = self.take_components(cx.config.mode);
                    put_components(&mut message, action, carried);
                    cx.out.push(message);
                }
            }
            _ => {
                if self.last_sent() != Some(&message) {
                    cx.out.push(message);
                }
            }
        }
        self.reset();
    }

    fn take_components(&mut self, mode: EmitMode) -> Vec<Value> {
        match mode {
            EmitMode::Delta => std::mem::take(&mut self.components),
            EmitMode::Cumulative => self.components.clone(),
        }
    }
}

/// Appends `components` to `message[action].components`.
fn put_components(message: &mut Value, action: &str, components: Vec<Value>) {
    let Some(body) = message.get_mut(action).and_then(Value::as_object_mut) else {
        return;
    };
    match body.get_mut("components").and_then(Value::as_array_mut) {
        // The healed envelope's list is empty: take the components' own vector.
        Some(list) if list.is_empty() => *list = components,
        Some(list) => list.extend(components),
        None if !components.is_empty() => {
            body.insert("components".to_owned(), Value::Array(components));
        }
        None => {}
    }
}

/// Takes back the last `count` components `put_components` appended.
fn take_last_components(message: &mut Value, action: &str, count: usize) -> Vec<Value> {
    message
        .get_mut(action)
        .and_then(|body| body.get_mut("components"))
        .and_then(Value::as_array_mut)
        .map(|list| list.split_off(list.len().saturating_sub(count)))
        .unwrap_or_default()
}
