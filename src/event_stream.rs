//! The SSE framing of a streamed answer, decoded in place: the one decoder the model
//! connector (`llm`, chat-completion chunks) and the A2A client (`client`, stream events)
//! both read with. It sits below both, and knows neither.
//!
//! A model streams one small event per token, so the decoder runs once per token on the
//! connector's path. `eventsource-stream`, which this replaces, copied its whole buffer for
//! every line; this one reads each line where it lies in the body's chunk and copies only
//! what a chunk leaves unfinished (a line split across two chunks) and the `data` it hands
//! on. It follows the framing of the HTML standard's "interpreting an event stream": lines
//! end with CRLF, LF or CR; a leading BOM is dropped; `data` lines join with LF; a blank line
//! dispatches the event (none when it had no `data`); comments and the other fields (`event`,
//! `id`, `retry`: the chat-completions API uses none) are skipped; an event the stream ends
//! inside is dropped. An event longer than the decoder's limit ([`MAX_EVENT_BYTES`] unless
//! [`Decoder::with_limit`] sets another) is an error rather than memory without bound.

use std::collections::VecDeque;

/// The longest event (its `data`, or a line) the decoder holds: far above any chunk a model
/// sends.
pub(crate) const MAX_EVENT_BYTES: usize = 16 * 1024 * 1024;

const BOM: &[u8] = "\u{feff}".as_bytes();

/// Why the event stream cannot be read on.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum SseError {
    /// An event's data is not UTF-8.
    #[error("an event is not UTF-8 text")]
    NotUtf8,
    /// A line or an event is longer than the decoder's limit (the number).
    #[error("an event is longer than {0} bytes")]
    TooLong(usize),
}

/// Decodes an event stream fed chunk by chunk into the `data` of its events.
#[derive(Debug, Default)]
pub(crate) struct Decoder {
    /// The start of a line the last chunk left unfinished.
    line: Vec<u8>,
    /// The data of the event being read, its lines joined with LF.
    data: Vec<u8>,
    /// Whether the event being read had a `data` line (its data may still be empty).
    has_data: bool,
    /// Whether the last byte was a CR: an LF right after it ends no second line.
    after_cr: bool,
    /// How many bytes of a leading BOM have been seen; `None` once the start is past.
    bom: Option<usize>,
    /// Set once the stream could not be read on: nothing more is decoded.
    failed: Option<SseError>,
    /// The longest line or event held.
    limit: usize,
}

impl Decoder {
    /// A decoder at the start of a stream, holding events of up to [`MAX_EVENT_BYTES`].
    pub(crate) fn new() -> Self {
        Self::with_limit(MAX_EVENT_BYTES)
    }

    /// A decoder at the start of a stream that refuses a line or an event longer than
    /// `limit` bytes.
    pub(crate) fn with_limit(limit: usize) -> Self {
        Decoder {
            bom: Some(0),
            limit,
            ..Decoder::default()
        }
    }

    /// Reads `bytes`, the next piece of the stream, appending the data of each event it
    /// completes to `events`; after an error, every later call returns it again.
    pub(crate) fn feed(
        &mut self,
        mut bytes: &[u8],
        events: &mut VecDeque<String>,
    ) -> Result<(), SseError> {
        if let Some(error) = &self.failed {
            return Err(error.clone());
        }
        if let Some(seen) = self.bom {
            let (rest, seen) = skip_bom(bytes, seen, &mut self.line);
            bytes = rest;
            self.bom = seen;
        }
        while !bytes.is_empty() {
            if self.after_cr {
                self.after_cr = false;
                if bytes[0] == b'\n' {
                    bytes = &bytes[1..];
                    continue;
                }
            }
            let Some(end) = bytes.iter().position(|&b| b == b'\n' || b == b'\r') else {
                self.line.extend_from_slice(bytes);
                if self.line.len() > self.limit {
                    return self.fail(SseError::TooLong(self.limit));
                }
                break;
            };
            self.after_cr = bytes[end] == b'\r';
            let result = if self.line.is_empty() {
                self.read_line(&bytes[..end], events)
            } else {
                let mut line = std::mem::take(&mut self.line);
                line.extend_from_slice(&bytes[..end]);
                let result = self.read_line(&line, events);
                line.clear();
                self.line = line;
                result
            };
            if let Err(error) = result {
                return self.fail(error);
            }
            bytes = &bytes[end + 1..];
        }
        Ok(())
    }

    fn fail(&mut self, error: SseError) -> Result<(), SseError> {
        self.failed = Some(error.clone());
        self.line = Vec::new();
        self.data = Vec::new();
        Err(error)
    }

    /// One whole line (without its end).
    fn read_line(&mut self, line: &[u8], events: &mut VecDeque<String>) -> Result<(), SseError> {
        if line.is_empty() {
            if std::mem::take(&mut self.has_data) {
                let data = std::mem::take(&mut self.data);
                events.push_back(String::from_utf8(data).map_err(|_| SseError::NotUtf8)?);
            }
            return Ok(());
        }
        let (field, value) = match line.iter().position(|&b| b == b':') {
            Some(0) => return Ok(()), // a comment
            Some(colon) => {
                let value = &line[colon + 1..];
                (&line[..colon], value.strip_prefix(b" ").unwrap_or(value))
            }
            None => (line, &[][..]),
        };
        if field == b"data" {
            if self.has_data {
                self.data.push(b'\n');
            }
            self.has_data = true;
            self.data.extend_from_slice(value);
            if self.data.len() > self.limit {
                return Err(SseError::TooLong(self.limit));
            }
        }
        Ok(())
    }
}

/// Skips what of a leading BOM `bytes` holds, `seen` bytes of it seen before. Returns the
/// rest, and how much of the BOM has been seen (`None` once the start is past: then a
/// partial BOM that turned out not to be one is put back at the start of `line`).
fn skip_bom<'a>(bytes: &'a [u8], mut seen: usize, line: &mut Vec<u8>) -> (&'a [u8], Option<usize>) {
    let mut rest = bytes;
    while seen < BOM.len() {
        let Some((&first, tail)) = rest.split_first() else {
            return (rest, Some(seen));
        };
        if first != BOM[seen] {
            line.extend_from_slice(&BOM[..seen]);
            return (rest, None);
        }
        seen += 1;
        rest = tail;
    }
    (rest, None)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// The standard's algorithm over the whole stream at once, written plainly: the
    /// reference the decoder is held to.
    fn reference(stream: &[u8]) -> Result<Vec<String>, SseError> {
        let stream = stream.strip_prefix(BOM).unwrap_or(stream);
        let mut lines = Vec::new();
        let mut start = 0;
        let mut i = 0;
        while i < stream.len() {
            match stream[i] {
                b'\r' => {
                    lines.push(&stream[start..i]);
                    if stream.get(i + 1) == Some(&b'\n') {
                        i += 1;
                    }
                    start = i + 1;
                }
                b'\n' => {
                    lines.push(&stream[start..i]);
                    start = i + 1;
                }
                _ => {}
            }
            i += 1;
        }
        // What follows the last line end is an unfinished line: never read.
        let mut events = Vec::new();
        let mut data: Option<Vec<u8>> = None;
        for line in lines {
            if line.is_empty() {
                if let Some(data) = data.take() {
                    events.push(String::from_utf8(data).map_err(|_| SseError::NotUtf8)?);
                }
                continue;
            }
            if line[0] == b':' {
                continue;
            }
            let (field, value) = match line.iter().position(|&b| b == b':') {
                Some(c) => (
                    &line[..c],
                    line[c + 1..].strip_prefix(b" ").unwrap_or(&line[c + 1..]),
                ),
                None => (line, &b""[..]),
            };
            if field == b"data" {
                let buffer = data.get_or_insert_with(Vec::new);
                buffer.push(b'\n');
                buffer.extend_from_slice(value);
            }
        }
        // Each data line was prefixed with LF: drop the first of each event's.
        Ok(events
            .into_iter()
            .map(|e| e.strip_prefix('\n').map(str::to_owned).unwrap_or(e))
            .collect())
    }

    fn decode_in(stream: &[u8], cuts: &[usize]) -> Result<Vec<String>, SseError> {
        let mut decoder = Decoder::new();
        let mut events = VecDeque::new();
        let mut at = 0;
        let mut cuts: Vec<usize> = cuts.iter().map(|c| c % (stream.len() + 1)).collect();
        cuts.sort_unstable();
        for cut in cuts.into_iter().chain([stream.len()]) {
            decoder.feed(&stream[at..cut], &mut events)?;
            at = cut;
        }
        Ok(events.into_iter().collect())
    }

    #[test]
    fn chat_completion_chunks_read_as_their_data() {
        let stream = b"data: {\"a\":1}\n\ndata: {\"b\":2}\r\n\r\n: keep-alive\n\ndata: [DONE]\n\n";
        assert_eq!(
            decode_in(stream, &[]).unwrap(),
            vec!["{\"a\":1}", "{\"b\":2}", "[DONE]"]
        );
    }

    #[test]
    fn data_lines_join_and_other_fields_are_skipped() {
        let stream = "\u{feff}event: x\nid: 7\ndata: one\ndata:two\ndata\n\nretry: 5\n\n";
        assert_eq!(
            decode_in(stream.as_bytes(), &[1, 2, 9]).unwrap(),
            vec!["one\ntwo\n"]
        );
    }

    #[test]
    fn an_event_the_stream_ends_inside_is_dropped() {
        assert_eq!(decode_in(b"data: a\n\ndata: b\n", &[]).unwrap(), vec!["a"]);
    }

    #[test]
    fn an_endless_line_is_an_error_not_memory() {
        let mut decoder = Decoder::new();
        let mut events = VecDeque::new();
        let piece = vec![b'x'; 1024 * 1024];
        let mut result = Ok(());
        for _ in 0..=MAX_EVENT_BYTES / piece.len() {
            result = decoder.feed(&piece, &mut events);
            if result.is_err() {
                break;
            }
        }
        assert_eq!(result, Err(SseError::TooLong(MAX_EVENT_BYTES)));
        assert_eq!(
            decoder.feed(b"\n\n", &mut events),
            Err(SseError::TooLong(MAX_EVENT_BYTES))
        );
    }

    /// Streams built of the pieces that matter to the framing.
    fn stream() -> impl Strategy<Value = Vec<u8>> {
        let piece = prop_oneof![
            Just(b"data: ".to_vec()),
            Just(b"data:".to_vec()),
            Just(b"data".to_vec()),
            Just(b": comment".to_vec()),
            Just(b"event: e".to_vec()),
            Just(b"\n".to_vec()),
            Just(b"\r".to_vec()),
            Just(b"\r\n".to_vec()),
            Just(b" ".to_vec()),
            Just(b":".to_vec()),
            Just("\u{feff}".as_bytes().to_vec()),
            Just("é".as_bytes().to_vec()),
            Just(vec![0xff]),
            "[a-z{}\"]{1,6}".prop_map(String::into_bytes),
        ];
        proptest::collection::vec(piece, 0..40).prop_map(|pieces| pieces.concat())
    }

    proptest! {
        #[test]
        fn split_input_decodes_as_the_standard_reads_it_whole(
            stream in stream(),
            cuts in proptest::collection::vec(any::<usize>(), 0..8),
        ) {
            prop_assert_eq!(decode_in(&stream, &cuts), reference(&stream));
        }
    }
}
