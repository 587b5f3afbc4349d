//! Finding Express blocks in a response and putting them back.
//!
//! An Express payload sits between `<a2ui>` tags (the Express specification's spelling; an
//! open tag may carry attributes). The close tag ends a block only outside string literals
//! and comments, so `Text("</a2ui>")` is content. Text around the blocks is trimmed and a run
//! left empty is dropped, and a Markdown fence the model carried over from an example is
//! removed from the payload.
//!
//! A Markdown fence labelled `a2ui` (` ```a2ui `) stands for the tags: Qwen2.5-Coder-1.5B,
//! asked to write a block again, wrote it that way, the payload right but no tag, and
//! nothing reached the client. Its payload runs to the fence's closing line.

/// A piece of a response: text, or the source of one block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RawPart {
    /// Conversational text, trimmed.
    Text(String),
    /// The payload of one block, trimmed and without a Markdown fence.
    Block {
        /// The Express source.
        source: String,
        /// Byte offset of `source` in the response, for error positions.
        offset: usize,
        /// `false`: the response ended before the close tag.
        closed: bool,
    },
}

/// The tag that opens an Express block.
pub const OPEN_TAG: &str = "<a2ui>";
/// The tag that closes an Express block.
pub const CLOSE_TAG: &str = "</a2ui>";

/// Splits `response` into text and block parts, in order.
pub fn unwrap(response: &str) -> Vec<RawPart> {
    unwrap_with_ends(response)
        .into_iter()
        .map(|(part, _)| part)
        .collect()
}

/// [`unwrap`], each part with the byte offset in `response` where it ends (a block: after
/// its close tag or fence), so that a streamed response is read on from there.
pub(super) fn unwrap_with_ends(response: &str) -> Vec<(RawPart, usize)> {
    let mut parts = Vec::new();
    let mut rest_at = 0;
    loop {
        let rest = response.get(rest_at..).unwrap_or_default();
        let tag = find_open(rest);
        // A fence before the first tag (only that part is searched), with no tag inside (a
        // fenced tagged block is read by its tags, as before).
        let before_tag = rest.get(..tag.map_or(rest.len(), |(open, _)| open));
        let fence = find_fence(before_tag.unwrap_or_default()).filter(|(_, body_at)| {
            rest.get(*body_at..)
                .is_some_and(|body| !fence_holds_tag(body))
        });
        let Some((open_at, body_at)) = fence.or(tag) else {
            push_text(&mut parts, rest, response.len());
            return parts;
        };
        push_text(
            &mut parts,
            rest.get(..open_at).unwrap_or_default(),
            rest_at + open_at,
        );
        let body = rest.get(body_at..).unwrap_or_default();
        let close = if fence.is_some() {
            find_fence_close(body)
        } else {
            find_close(body)
        };
        let (payload, closed, after) = match close {
            Some((close_at, close_end)) => {
                (body.get(..close_at).unwrap_or_default(), true, close_end)
            }
            None => (body, false, body.len()),
        };
        let source = strip_fence(payload);
        rest_at += body_at + after;
        parts.push((
            RawPart::Block {
                source: source.to_owned(),
                offset: offset_in(response, source),
                closed,
            },
            rest_at,
        ));
        if !closed {
            return parts;
        }
    }
}

/// Writes parts back out as a model would have: text as it is, blocks inside tags.
pub fn wrap(parts: &[RawPart]) -> String {
    let mut out = String::new();
    for part in parts {
        if !out.is_empty() {
            out.push('\n');
        }
        match part {
            RawPart::Text(text) => out.push_str(text),
            RawPart::Block { source, .. } => {
                out.push_str(OPEN_TAG);
                out.push('\n');
                out.push_str(source);
                out.push('\n');
                out.push_str(CLOSE_TAG);
            }
        }
    }
    out
}

fn push_text(parts: &mut Vec<(RawPart, usize)>, text: &str, end: usize) {
    let text = text.trim();
    if !text.is_empty() {
        parts.push((RawPart::Text(text.to_owned()), end));
    }
}

/// Byte offset of `part` (a subslice) in `whole`.
fn offset_in(whole: &str, part: &str) -> usize {
    (part.as_ptr() as usize)
        .saturating_sub(whole.as_ptr() as usize)
        .min(whole.len())
}

/// `(start of the tag, start of the payload)` of the first open tag: `<a2ui>` or
/// `<a2ui attributes>`, any letter case.
fn find_open(text: &str) -> Option<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut from = 0;
    while let Some(found) = text.get(from..)?.find('<') {
        let at = from + found;
        let name_end = at + 5;
        if bytes
            .get(at + 1..name_end)
            .is_some_and(|name| name.eq_ignore_ascii_case(b"a2ui"))
        {
            match bytes.get(name_end) {
                Some(b'>') => return Some((at, name_end + 1)),
                Some(c) if c.is_ascii_whitespace() => {
                    let tail = text.get(name_end..)?;
                    if let Some(end) = tail.find(['>', '<'])
                        && tail.as_bytes().get(end) == Some(&b'>')
                    {
                        return Some((at, name_end + end + 1));
                    }
                }
                _ => {}
            }
        }
        from = at + 1;
    }
    None
}

/// `(start of the fence, start of its payload)` of the first line that opens a fence
/// labelled `a2ui` (any case, indented or not).
fn find_fence(text: &str) -> Option<(usize, usize)> {
    let mut line_at = 0;
    for line in text.split_inclusive('\n') {
        let indent = line.len() - line.trim_start().len();
        let label = line.trim().strip_prefix("```");
        if label.is_some_and(|label| label.trim().eq_ignore_ascii_case("a2ui")) {
            return Some((line_at + indent, line_at + line.len()));
        }
        line_at += line.len();
    }
    None
}

/// Whether the fence whose payload starts `body` holds an open tag before it closes.
fn fence_holds_tag(body: &str) -> bool {
    let end = find_fence_close(body).map_or(body.len(), |(close_at, _)| close_at);
    find_open(body.get(..end).unwrap_or_default()).is_some()
}

/// `(start, end)` of the line that closes a fence: ` ``` ` alone on it.
fn find_fence_close(body: &str) -> Option<(usize, usize)> {
    let mut line_at = 0;
    for line in body.split_inclusive('\n') {
        if line.trim() == "```" {
            return Some((line_at, line_at + line.len()));
        }
        line_at += line.len();
    }
    None
}

/// `(start, end)` of the close tag outside strings and comments; failing that (a string
/// left open), the first close tag anywhere, so that the compiler reports the string.
fn find_close(body: &str) -> Option<(usize, usize)> {
    let bytes = body.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let rest = body.get(i..).unwrap_or_default();
        if let Some(end) = close_tag(rest) {
            return Some((i, i + end));
        }
        let skip = if rest.starts_with("\"\"\"") {
            rest.get(3..).and_then(|r| r.find("\"\"\"")).map(|e| e + 6)
        } else if rest.starts_with("r\"") && !ident_before(bytes, i) {
            rest.get(2..).and_then(|r| r.find('"')).map(|e| e + 3)
        } else if rest.starts_with('"') {
            string_end(rest)
        } else if rest.starts_with('#') || rest.starts_with("//") {
            Some(rest.find('\n').unwrap_or(rest.len()))
        } else if rest.starts_with("/*") {
            rest.get(2..).and_then(|r| r.find("*/")).map(|e| e + 4)
        } else {
            Some(rest.chars().next().map_or(1, char::len_utf8))
        };
        match skip {
            Some(n) => i += n.max(1),
            None => break,
        }
    }
    let lower = body.to_ascii_lowercase();
    let at = lower.find("</a2ui")?;
    close_tag(body.get(at..)?).map(|end| (at, at + end))
}

fn ident_before(bytes: &[u8], i: usize) -> bool {
    i > 0
        && bytes
            .get(i - 1)
            .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_')
}

/// The length of a standard string literal at the start of `text`, quotes included.
fn string_end(text: &str) -> Option<usize> {
    let mut escaped = false;
    for (i, c) in text.char_indices().skip(1) {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            '"' => return Some(i + 1),
            _ => {}
        }
    }
    None
}

/// The length of `</a2ui>` (any case, spaces before `>`) at the start of `text`.
fn close_tag(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    if !bytes.get(..6)?.eq_ignore_ascii_case(b"</a2ui") {
        return None;
    }
    let spaces = bytes
        .get(6..)?
        .iter()
        .take_while(|b| b.is_ascii_whitespace())
        .count();
    (bytes.get(6 + spaces) == Some(&b'>')).then_some(6 + spaces + 1)
}

/// The payload without surrounding whitespace and a Markdown fence around it.
fn strip_fence(payload: &str) -> &str {
    let mut text = payload.trim();
    if let Some(after) = text.strip_prefix("```") {
        let line_end = after.find('\n').unwrap_or(after.len());
        if after
            .get(..line_end)
            .is_some_and(|lang| lang.trim().chars().all(|c| c.is_ascii_alphanumeric()))
        {
            text = after.get(line_end..).unwrap_or_default();
            text = text.trim_end();
            text = text.strip_suffix("```").unwrap_or(text);
            text = text.trim();
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blocks(response: &str) -> Vec<(String, bool)> {
        unwrap(response)
            .into_iter()
            .filter_map(|p| match p {
                RawPart::Block { source, closed, .. } => Some((source, closed)),
                RawPart::Text(_) => None,
            })
            .collect()
    }

    #[test]
    fn a_direct_json_tag_is_not_an_express_tag() {
        assert_eq!(
            unwrap("<a2ui-json>[]</a2ui-json>"),
            vec![RawPart::Text("<a2ui-json>[]</a2ui-json>".into())]
        );
    }

    #[test]
    fn close_tags_in_strings_and_comments_are_content() {
        let got = blocks("<a2ui>x = Text(\"</a2ui>\") # </a2ui>\n</a2ui> after");
        assert_eq!(
            got,
            vec![("x = Text(\"</a2ui>\") # </a2ui>".to_owned(), true)]
        );
    }

    #[test]
    fn a_fence_labelled_a2ui_stands_for_the_tags() {
        let response = "Here it is:\n\n```a2ui\nroot = Text(\"x\")\n```\n\nDone.";
        let parts = unwrap(response);
        assert_eq!(parts.len(), 3, "{parts:?}");
        assert_eq!(parts[0], RawPart::Text("Here it is:".into()));
        let RawPart::Block {
            source,
            offset,
            closed: true,
        } = &parts[1]
        else {
            panic!("{parts:?}");
        };
        assert_eq!(source, "root = Text(\"x\")");
        assert_eq!(&response[*offset..*offset + source.len()], source);
        assert_eq!(parts[2], RawPart::Text("Done.".into()));
        // Tags first, then a fence; one left open is a block the response ended inside.
        let both = blocks("<a2ui>a = Text(\"1\")</a2ui>\n```A2UI\nb = Text(\"2\")");
        assert_eq!(
            both,
            vec![
                ("a = Text(\"1\")".to_owned(), true),
                ("b = Text(\"2\")".to_owned(), false)
            ]
        );
        // Other fences are text, and one inside the tags is stripped as before.
        assert!(blocks("```json\n{}\n```\n```\nroot = Text(\"x\")\n```").is_empty());
        let inside = blocks("<a2ui>\n```a2ui\nroot = Text(\"x\")\n```\n</a2ui>");
        assert_eq!(inside, vec![("root = Text(\"x\")".to_owned(), true)]);
        // A fence around a tagged block is read by its tags, as the 1.5B model wrote one.
        let around = blocks("```a2ui\n<a2ui>\nroot = Text(\"x\")\n</a2ui>\n```");
        assert_eq!(around, vec![("root = Text(\"x\")".to_owned(), true)]);
    }

    #[test]
    fn offsets_point_into_the_response() {
        let response = "Hi <A2UI version=\"v1.0\">\n```\nroot = Text(\"x\")\n```\n</a2ui >";
        let parts = unwrap(response);
        let RawPart::Block {
            source,
            offset,
            closed,
        } = &parts[1]
        else {
            panic!("{parts:?}");
        };
        assert!(*closed);
        assert_eq!(&response[*offset..*offset + source.len()], source);
    }

    #[test]
    fn wrapping_and_unwrapping_round_trip() {
        let parts = vec![
            RawPart::Text("Hello.".into()),
            RawPart::Block {
                source: "root = Text(\"x\")".into(),
                offset: 0,
                closed: true,
            },
        ];
        let again: Vec<RawPart> = unwrap(&wrap(&parts))
            .into_iter()
            .map(|p| match p {
                RawPart::Block { source, closed, .. } => RawPart::Block {
                    source,
                    offset: 0,
                    closed,
                },
                text => text,
            })
            .collect();
        assert_eq!(again, parts);
    }
}
