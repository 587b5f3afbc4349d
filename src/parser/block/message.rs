//! The bytes of a message: objects, arrays, keys, strings and literals, each copied once into
//! the normalized buffer, and the component and message slices handed to `serde_json` as they
//! close.

use serde_json::Value;

use super::context::Cx;
use super::data_stream::DataStream;
use super::emit::ActionKind;
use super::{Block, Expect, Frame, Kind, Lit, OpenComponent, Phase, Role, Step};

impl Block {
    pub(super) fn message_byte(&mut self, input: &str, i: usize, b: u8, cx: &mut Cx<'_>) -> Step {
        if let Lit::Token { start } = self.lit {
            if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'+' | b'.') {
                self.buf.push(b);
                return Step::Next(i + 1);
            }
            if !valid_token(self.buf.get(start..).unwrap_or_default()) {
                return self.fail(input, i, cx, "expected a JSON value");
            }
            self.lit = Lit::None;
        }
        match b {
            b' ' | b'\t' | b'\n' | b'\r' => Step::Next(i + 1),
            b'{' => self.open(Kind::Obj, input, i, cx),
            b'[' => self.open(Kind::Arr, input, i, cx),
            b'}' | b']' => self.close(b, input, i, cx),
            b',' => {
                if self.frames.last().is_some_and(|f| f.role == Role::Data) {
                    let end = self.buf.len();
                    if let Some(data) = &mut self.data {
                        data.member_finished(end);
                    }
                }
                self.comma(input, i, cx)
            }
            b':' => match self.frames.last_mut() {
                Some(f) if f.expect == Expect::Colon => {
                    f.expect = Expect::Value;
                    self.buf.push(b':');
                    Step::Next(i + 1)
                }
                _ => self.fail(input, i, cx, "unexpected `:`"),
            },
            b'"' => self.open_string(false, input, i, 1, cx),
            0xE2 if is_smart_quote(input.as_bytes().get(i..)) => {
                self.open_string(true, input, i, 3, cx)
            }
            b'<' => self.close_tag(
                input,
                i,
                cx,
                Some("the a2ui-json block closed inside an unfinished message"),
            ),
            b'-' | b'0'..=b'9' | b'a'..=b'z' | b'A'..=b'Z' => {
                if let Err(message) = self.begin_value() {
                    return self.fail(input, i, cx, message);
                }
                self.lit = Lit::Token {
                    start: self.buf.len(),
                };
                self.buf.push(b);
                Step::Next(i + 1)
            }
            _ => self.fail(input, i, cx, "unexpected character"),
        }
    }

    fn comma(&mut self, input: &str, i: usize, cx: &mut Cx<'_>) -> Step {
        match self.frames.last_mut() {
            Some(f) if f.expect == Expect::CommaOrEnd => {
                f.expect = match f.kind {
                    Kind::Obj => Expect::KeyOrEnd,
                    Kind::Arr => Expect::ValueOrEnd,
                };
                Step::Next(i + 1)
            }
            _ => self.fail(input, i, cx, "unexpected `,`"),
        }
    }

    /// Accounts for a value starting in the innermost frame, writing its separator.
    fn begin_value(&mut self) -> Result<(), &'static str> {
        let Some(f) = self.frames.last_mut() else {
            return Err("expected a message");
        };
        match f.expect {
            Expect::Value => {}
            Expect::ValueOrEnd => {
                if f.nonempty {
                    self.buf.push(b',');
                }
                f.nonempty = true;
            }
            Expect::KeyOrEnd => return Err("expected a key or `}`"),
            Expect::Colon => return Err("expected `:`"),
            Expect::CommaOrEnd => return Err("expected `,` or a closing bracket"),
        }
        f.expect = Expect::CommaOrEnd;
        Ok(())
    }

    fn open_string(
        &mut self,
        smart: bool,
        input: &str,
        i: usize,
        width: usize,
        cx: &mut Cx<'_>,
    ) -> Step {
        let key = match self.frames.last_mut() {
            Some(f) if f.expect == Expect::KeyOrEnd => {
                if f.nonempty {
                    self.buf.push(b',');
                }
                f.nonempty = true;
                true
            }
            _ => {
                if let Err(message) = self.begin_value() {
                    return self.fail(input, i, cx, message);
                }
                false
            }
        };
        self.str_start = self.buf.len();
        self.buf.push(b'"');
        self.lit = Lit::Str { key };
        self.smart = smart;
        self.esc = false;
        Step::Next(i + width)
    }

    fn open(&mut self, kind: Kind, input: &str, i: usize, cx: &mut Cx<'_>) -> Step {
        if kind == Kind::Obj && self.one_brace_short() {
            return self.close_short(input, i, cx);
        }
        if self.frames.len() + 1 + usize::from(self.in_array) > cx.config.limits.max_depth {
            return self.depth_error(input, i, cx);
        }
        let Some(&parent) = self.frames.last() else {
            return self.fail(input, i, cx, "expected a message");
        };
        let trunc = self.buf.len();
        if let Err(message) = self.begin_value() {
            return self.fail(input, i, cx, message);
        }
        let key = self.buf.get(parent.key.0..parent.key.1).unwrap_or_default();
        let role = match (kind, parent.role) {
            (Kind::Obj, Role::Message) if self.action.is_none() && key != b"version" => {
                let action = String::from_utf8_lossy(key).into_owned();
                self.kind = Some(ActionKind::of(&action));
                self.action = Some(action);
                Role::Action
            }
            (Kind::Arr, Role::Action) if key == b"components" => Role::Components,
            (Kind::Obj, Role::Action)
                if key == b"value" && self.kind == Some(ActionKind::DataModel) =>
            {
                self.data_opened(parent.key.0, false, cx)
            }
            (Kind::Arr, Role::Action)
                if key == b"contents" && self.action.as_deref() == Some("dataModelUpdate") =>
            {
                self.data_opened(parent.key.0, true, cx)
            }
            (Kind::Obj, Role::Components) => {
                self.comp = Some(OpenComponent {
                    trunc,
                    start: self.buf.len(),
                    prev_nonempty: parent.nonempty,
                });
                Role::Component
            }
            _ => Role::Other,
        };
        let (byte, expect) = match kind {
            Kind::Obj => (b'{', Expect::KeyOrEnd),
            Kind::Arr => (b'[', Expect::ValueOrEnd),
        };
        self.buf.push(byte);
        self.frames.push(Frame {
            kind,
            expect,
            nonempty: false,
            key: (0, 0),
            role,
        });
        Step::Next(i + 1)
    }

    /// Whether the innermost frame is a message or a component one `}` short: a `{` came
    /// where, after a comma, its next key belongs. Small models that write one message per
    /// line lose count of their braces (`{"version":..,"updateComponents":{..}},` and the
    /// next message on the next line); no key starts with `{`, so it can only be the next
    /// message or component of the list around it.
    fn one_brace_short(&self) -> bool {
        let Some(f) = self.frames.last() else {
            return false;
        };
        let listed = match f.role {
            Role::Message => self.in_array,
            Role::Component => true,
            _ => false,
        };
        listed && f.kind == Kind::Obj && f.expect == Expect::KeyOrEnd && f.nonempty
    }

    /// Closes the object [`one_brace_short`](Self::one_brace_short) found, as if its `}`
    /// had come before the comma, and reads the `{` again as the start of the next item.
    fn close_short(&mut self, input: &str, i: usize, cx: &mut Cx<'_>) -> Step {
        let step = self.close(b'}', input, i, cx);
        if self.phase == Phase::Bad || !matches!(step, Step::Next(_)) {
            return step;
        }
        // The comma after the object was read as its own.
        match self.frames.last_mut() {
            Some(list) => list.expect = Expect::ValueOrEnd,
            None => self.top = Expect::ValueOrEnd,
        }
        Step::Next(i)
    }

    fn close(&mut self, b: u8, input: &str, i: usize, cx: &mut Cx<'_>) -> Step {
        // A `}` too many after a component (`{"id":"a",..,"text":{"path":"/x"}}}`): an
        // object's bracket cannot close the components list, and the list goes on after it.
        if b == b'}'
            && self
                .frames
                .last()
                .is_some_and(|f| f.role == Role::Components && f.expect == Expect::CommaOrEnd)
        {
            return Step::Next(i + 1);
        }
        let fits = match self.frames.last() {
            Some(f) => matches!(
                (b, f.kind, f.expect),
                (b'}', Kind::Obj, Expect::KeyOrEnd | Expect::CommaOrEnd)
                    | (b']', Kind::Arr, Expect::ValueOrEnd | Expect::CommaOrEnd)
            ),
            None => false,
        };
        if fits
            && self.frames.last().is_some_and(|f| f.role == Role::Data)
            && self.data.as_ref().is_some_and(DataStream::started)
        {
            self.data_members(true, cx);
        }
        let Some(frame) = self.frames.pop().filter(|_| fits) else {
            return self.fail(input, i, cx, "unexpected closing bracket");
        };
        self.buf.push(b);
        match frame.role {
            Role::Component => self.component_closed(input, i, cx),
            Role::Message => self.message_closed(input, i, cx),
            _ => Step::Next(i + 1),
        }
    }

    fn component_closed(&mut self, input: &str, i: usize, cx: &mut Cx<'_>) -> Step {
        let Some(comp) = self.comp.take() else {
            return Step::Next(i + 1);
        };
        let slice = self.buf.get(comp.start..).unwrap_or_default();
        match serde_json::from_slice::<Value>(slice) {
            Ok(component) => {
                self.tracker.component(component, slice.len());
                self.buf.truncate(comp.trunc);
                if let Some(f) = self.frames.last_mut() {
                    f.nonempty = comp.prev_nonempty;
                }
                Step::Next(i + 1)
            }
            Err(e) => self.fail(input, i, cx, &format!("unreadable component: {e}")),
        }
    }

    fn message_closed(&mut self, input: &str, i: usize, cx: &mut Cx<'_>) -> Step {
        match serde_json::from_slice::<Value>(&self.buf) {
            Ok(message) => {
                let action = self.action.take();
                self.kind = None;
                if self.data.take().is_some_and(|data| data.started()) {
                    self.tracker.reset();
                } else {
                    self.tracker.close(message, action.as_deref(), cx);
                }
                self.buf.clear();
                self.phase = if self.in_array {
                    Phase::Between
                } else {
                    Phase::Post
                };
                Step::Next(i + 1)
            }
            Err(e) => self.fail(input, i, cx, &format!("unreadable message: {e}")),
        }
    }
}

/// Whether `bytes` starts with a curly double quote (U+201C or U+201D).
fn is_smart_quote(bytes: Option<&[u8]>) -> bool {
    matches!(bytes, Some([0xE2, 0x80, 0x9C | 0x9D, ..]))
}

/// Whether a bare token is `true`, `false`, `null` or shaped like a number (`serde_json`
/// checks the number itself when its value closes).
fn valid_token(token: &[u8]) -> bool {
    match token {
        b"true" | b"false" | b"null" => true,
        [first, rest @ ..] => {
            (first.is_ascii_digit() || *first == b'-')
                && rest
                    .iter()
                    .all(|c| c.is_ascii_digit() || matches!(c, b'.' | b'e' | b'E' | b'+' | b'-'))
        }
        [] => false,
    }
}
