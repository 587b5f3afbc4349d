//! The state of a data model update streamed member by member: its envelope, where its
//! members start in the buffer, and how far they were sent.
//!
//! The scanner ([`super::Block`]) holds one while such a message is open; `data` holds the
//! rules that drive it.

use serde_json::Value;

/// Which data model update shape is streamed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Shape {
    /// v0.9+ `updateDataModel`: members of the `value` object.
    Value,
    /// v0.8 `dataModelUpdate`: entries of the `contents` array.
    Contents,
}

/// The `value` object of a data model update being streamed member by member.
#[derive(Debug)]
pub(super) struct DataStream {
    pub(super) shape: Shape,
    /// The message without its `value`: `{"version":..,"updateDataModel":{"surfaceId":..,"path":..}}`.
    pub(super) envelope: Value,
    /// The action name, to reach the body inside `envelope`.
    pub(super) action: String,
    /// The envelope's length in bytes, what each per-path message adds.
    pub(super) envelope_len: usize,
    /// `path` without a trailing `/` (empty for the root).
    pub(super) base: String,
    /// Index in the frame stack of the `value` object.
    pub(super) depth: usize,
    /// Buffer index of the first member (just after the opening bracket).
    pub(super) start: usize,
    /// Buffer index up to which members were sent (the first unsent member starts after it).
    pub(super) sent_to: usize,
    /// Buffer index where the last member followed by a `,` ended.
    pub(super) finished_to: usize,
    /// Whether the first emission (the replacing one) went out.
    pub(super) started: bool,
    /// Buffer length at the last progressive heal, so an unchanged string is not re-sent.
    pub(super) healed_at: usize,
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
