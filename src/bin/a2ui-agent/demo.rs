//! The demo agent behind `a2ui-agent serve`: a scripted restaurant finder.
//!
//! It exists so the product can be seen working with no model, no network and no key. It
//! answers the way an LLM does — conversational text with A2UI messages in `<a2ui-json>`
//! blocks, streamed a few characters at a time with short pauses — so everything downstream
//! (parser, validation, streaming, the client) runs as it would with a real model:
//!
//! 1. any text: a list of restaurants, each with a **Book** button (action `select`);
//! 2. action `select`: a booking form for that restaurant (action `book`);
//! 3. action `book`: a confirmation surface built from the form's values.
//!
//! It writes v0.8 or v0.9 messages as the request negotiated, and plain text when no A2UI
//! was negotiated.
//!
//! It lives with the binary, not in the library's API. The tests and benchmarks that need a
//! scripted LLM-like agent include this file with `#[path = "../src/bin/a2ui-agent/demo.rs"]`.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use futures::StreamExt;
use futures::future::BoxFuture;
use serde_json::Value;

use a2ui_agent::a2ui::ProtocolVersion;
use a2ui_agent::agent::{Agent, AgentError, Reply};
use a2ui_agent::request::{Request, UserActionKind};

// A path of its own so the file resolves the same from the binary and from the tests and
// benches that include this one with `#[path]`.
#[path = "demo_surfaces.rs"]
mod surfaces;

use surfaces::{Booking, booking_form, confirmation, results};

/// How the demo streams: chunk sizes and the pause before each chunk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DemoConfig {
    /// Shortest chunk, in characters (at least 1).
    pub min_chunk: usize,
    /// Longest chunk, in characters.
    pub max_chunk: usize,
    /// Shortest pause before a chunk.
    pub min_delay: Duration,
    /// Longest pause before a chunk.
    pub max_delay: Duration,
}

impl Default for DemoConfig {
    /// Token-sized chunks of 3–8 characters, 10–30 ms apart, as a fast model streams.
    fn default() -> Self {
        Self {
            min_chunk: 3,
            max_chunk: 8,
            min_delay: Duration::from_millis(10),
            max_delay: Duration::from_millis(30),
        }
    }
}

impl DemoConfig {
    /// The same chunking with no pauses (each chunk still arrives on its own, after a yield
    /// to the runtime): for tests and benchmarks.
    #[must_use]
    #[allow(dead_code)] // the tests that include this file use it; the binary does not
    pub fn without_delays(self) -> Self {
        Self {
            min_delay: Duration::ZERO,
            max_delay: Duration::ZERO,
            ..self
        }
    }
}

/// The scripted restaurant-finder agent. See the [module docs](self).
#[derive(Debug, Clone, Default)]
pub struct RestaurantFinder {
    config: DemoConfig,
}

impl RestaurantFinder {
    /// The agent, streaming as `config` says.
    pub fn new(config: DemoConfig) -> Self {
        Self { config }
    }
}

impl Agent for RestaurantFinder {
    fn call(&self, request: Request) -> BoxFuture<'static, Result<Reply, AgentError>> {
        let text = script(&request);
        let seed = request
            .message_id()
            .bytes()
            .fold(0x9e37_79b9_7f4a_7c15_u64, |h, b| {
                (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
            });
        let config = self.config;
        Box::pin(async move { Ok(stream_text(text, config, seed)) })
    }
}

/// The restaurants the demo knows.
const RESTAURANTS: [(&str, &str, &str); 3] = [
    ("Trattoria Alba", "Italian", "4.7"),
    ("Sakura House", "Japanese", "4.5"),
    ("Casa Verde", "Mexican", "4.3"),
];

/// The whole reply text for `request`, before chunking. The list of restaurants, the same
/// for every request of a version, is written once and shared: a model's answer is not
/// held by the server while it streams, and 800 demo streams holding a copy each of an
/// 8 KB reply made it a tenth of what a stream cost.
pub(crate) fn script(request: &Request) -> Arc<str> {
    let action = request
        .actions()
        .iter()
        .find(|a| a.kind == UserActionKind::Action);
    let Some(version) = request.a2ui_version() else {
        return plain_text(action.map(|a| a.name.as_str())).into();
    };
    // The id the renderer knows the basic catalog by (it may name it by an alias).
    let catalog = request
        .a2ui()
        .and_then(|a2ui| a2ui.catalogs().first())
        .map_or(version.basic_catalog_id(), |c| c.id());
    match action {
        Some(action) if action.name == "book" => {
            let field = |key: &str| {
                action
                    .context
                    .get(key)
                    .map(|v| match v {
                        Value::String(s) => s.clone(),
                        other => other.to_string(),
                    })
                    .unwrap_or_default()
            };
            let booking = Booking {
                restaurant: or_default(field("restaurant"), RESTAURANTS[0].0),
                name: or_default(field("name"), "Guest"),
                party: or_default(field("partySize"), "2"),
                time: or_default(field("time"), "19:30"),
            };
            reply(
                &format!("All set! Your table at {} is booked.", booking.restaurant),
                &in_catalog(confirmation(version, &booking), catalog),
                "Enjoy your meal. Ask me if you want to find another place.",
            )
            .into()
        }
        Some(action) if action.name == "select" => {
            let restaurant = action
                .context
                .get("restaurant")
                .and_then(Value::as_str)
                .unwrap_or(RESTAURANTS[0].0)
                .to_owned();
            reply(
                &format!("Great choice. Let's book a table at {restaurant}."),
                &in_catalog(booking_form(version, &restaurant), catalog),
                "Fill in the form and press Confirm.",
            )
            .into()
        }
        _ if catalog == version.basic_catalog_id() => results_reply(version),
        _ => reply(
            RESULTS_BEFORE,
            &in_catalog(results(version), catalog),
            RESULTS_AFTER,
        )
        .into(),
    }
}

const RESULTS_BEFORE: &str = "Here are three restaurants near you with tables tonight:";
const RESULTS_AFTER: &str = "Press Book on the one you like.";

/// `messages` with the surface created in `catalog`.
fn in_catalog(mut messages: Vec<Value>, catalog: &str) -> Vec<Value> {
    for message in &mut messages {
        if let Some(id) = message.pointer_mut("/createSurface/catalogId") {
            *id = Value::from(catalog);
        }
    }
    messages
}

/// The first reply, a list of restaurants: written once per version.
fn results_reply(version: ProtocolVersion) -> Arc<str> {
    static WRITTEN: [OnceLock<Arc<str>>; 4] = [const { OnceLock::new() }; 4];
    let slot = match version {
        ProtocolVersion::V0_8 => &WRITTEN[0],
        ProtocolVersion::V0_9 => &WRITTEN[1],
        ProtocolVersion::V0_9_1 => &WRITTEN[2],
        ProtocolVersion::V1_0 => &WRITTEN[3],
    };
    slot.get_or_init(|| reply(RESULTS_BEFORE, &results(version), RESULTS_AFTER).into())
        .clone()
}

fn or_default(value: String, default: &str) -> String {
    if value.trim().is_empty() {
        default.to_owned()
    } else {
        value
    }
}

fn plain_text(action: Option<&str>) -> String {
    let mut text = String::from("Here are three restaurants near you with tables tonight:\n");
    for (name, cuisine, rating) in RESTAURANTS {
        text.push_str(&format!("- {name} ({cuisine}, rated {rating})\n"));
    }
    if action.is_some() {
        text.push_str("(This client did not activate A2UI, so I cannot show a form.)\n");
    }
    text.push_str("Tell me which one you would like to book.");
    text
}

/// Text, a block of `messages`, text: how a model answers.
fn reply(before: &str, messages: &[Value], after: &str) -> String {
    let mut block = String::new();
    write_json(&mut block, &Value::Array(messages.to_vec()), 0);
    format!("{before}\n<a2ui-json>\n{block}\n</a2ui-json>\n{after}")
}

/// Keys a model writes first, in this order: what a message is and which surface it is
/// for come before its bulk, so a streaming reader can send each component as it closes.
const LEADING_KEYS: [&str; 6] = [
    "version",
    "id",
    "component",
    "surfaceId",
    "catalogId",
    "root",
];

/// Pretty JSON with [`LEADING_KEYS`] first (`serde_json` would sort them alphabetically,
/// putting `surfaceId` after `components` and `version` last).
fn write_json(out: &mut String, value: &Value, depth: usize) {
    let indent = |out: &mut String, depth: usize| {
        out.push('\n');
        out.extend(std::iter::repeat_n("  ", depth));
    };
    match value {
        Value::Array(items) if !items.is_empty() => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                indent(out, depth + 1);
                write_json(out, item, depth + 1);
            }
            indent(out, depth);
            out.push(']');
        }
        Value::Object(map) if !map.is_empty() => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort_by_key(|k| {
                LEADING_KEYS
                    .iter()
                    .position(|lead| lead == k)
                    .unwrap_or(LEADING_KEYS.len())
            });
            out.push('{');
            for (i, key) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                indent(out, depth + 1);
                out.push_str(&Value::String(key.clone()).to_string());
                out.push_str(": ");
                if let Some(item) = map.get(key) {
                    write_json(out, item, depth + 1);
                }
            }
            indent(out, depth);
            out.push('}');
        }
        other => out.push_str(&other.to_string()),
    }
}

/// `text` as a stream of chunks of the configured sizes, each after a pause.
fn stream_text(text: Arc<str>, config: DemoConfig, seed: u64) -> Reply {
    let stream =
        futures::stream::iter(Chunks::new(text, config, seed)).then(|(chunk, delay)| async move {
            if delay.is_zero() {
                // Still one chunk at a time, as from a socket: the server joins only chunks
                // that are already waiting.
                tokio::task::yield_now().await;
            } else {
                tokio::time::sleep(delay).await;
            }
            chunk
        });
    Reply::stream(stream)
}

/// Splits `text` into chunks of `min_chunk..=max_chunk` characters (on char boundaries),
/// each with its pause, from a small deterministic generator.
#[cfg(test)]
pub(crate) fn chunk(text: &str, config: DemoConfig, seed: u64) -> Vec<(String, Duration)> {
    Chunks::new(text.into(), config, seed).collect()
}

/// The chunks of a reply, cut one at a time as the stream asks for them: a reply waiting
/// to be written holds its text once, not a string per chunk (at 800 streams the chunks
/// cut up front were the demo's largest cost per stream).
struct Chunks {
    text: Arc<str>,
    /// The byte offset of the next chunk.
    at: usize,
    /// The xorshift generator's state.
    state: u64,
    min: usize,
    max: usize,
    low: Duration,
    spread: u64,
}

impl Chunks {
    fn new(text: Arc<str>, config: DemoConfig, seed: u64) -> Self {
        let min = config.min_chunk.max(1);
        let (low, high) = (config.min_delay, config.max_delay.max(config.min_delay));
        Self {
            text,
            at: 0,
            state: seed | 1,
            min,
            max: config.max_chunk.max(min),
            low,
            spread: u64::try_from((high - low).as_micros()).unwrap_or(u64::MAX),
        }
    }

    fn next_below(&mut self, bound: u64) -> u64 {
        self.state ^= self.state << 13;
        self.state ^= self.state >> 7;
        self.state ^= self.state << 17;
        if bound == 0 { 0 } else { self.state % bound }
    }
}

impl Iterator for Chunks {
    type Item = (String, Duration);

    fn next(&mut self) -> Option<Self::Item> {
        if self.at >= self.text.len() {
            return None;
        }
        let span = (self.max - self.min + 1) as u64;
        let size = self.min + usize::try_from(self.next_below(span)).unwrap_or(0);
        let rest = self.text.get(self.at..)?;
        let end = rest.char_indices().nth(size).map_or(rest.len(), |(i, _)| i);
        let piece = rest[..end].to_owned();
        self.at += end;
        let delay =
            self.low + Duration::from_micros(self.next_below(self.spread.saturating_add(1)));
        Some((piece, delay))
    }
}

#[cfg(test)]
mod tests {
    use a2ui_agent::a2ui::ProtocolVersion;
    use serde_json::{Map, json};

    use super::*;
    use a2ui_agent::a2a::{Message, Part};
    use a2ui_agent::a2ui::Validator;
    use a2ui_agent::generator::Generator;
    use a2ui_agent::parser::ParsedPart;

    fn request(version: Option<ProtocolVersion>, parts: Vec<Part>) -> Request {
        let request = Request::new(Message::user("m-1", parts), "t", "c");
        match version {
            Some(version) => {
                let generator = match version {
                    ProtocolVersion::V0_8 => Generator::v0_8(),
                    ProtocolVersion::V1_0 => Generator::built_in(ProtocolVersion::V1_0),
                    _ => Generator::v0_9(),
                };
                request.with_a2ui(generator.negotiate(None).unwrap())
            }
            None => request,
        }
    }

    fn action_part(version: ProtocolVersion, name: &str, context: Value) -> Part {
        let body = json!({"name": name, "surfaceId": "s", "sourceComponentId": "b",
            "timestamp": "2026-01-01T00:00:00Z", "context": context});
        let data = match version {
            ProtocolVersion::V0_8 => json!({"userAction": body}),
            _ => json!({"version": "v0.9", "action": body}),
        };
        let mut metadata = Map::new();
        metadata.insert("mimeType".into(), version.mime_type().into());
        Part::Data {
            data: std::sync::Arc::new(data.as_object().cloned().unwrap()),
            metadata: Some(std::sync::Arc::new(metadata)),
        }
    }

    /// The reply's text and messages, parsed the way the server does and validated.
    fn answer(request: &Request) -> (String, Vec<Value>) {
        let text = script(request);
        let processor = request.a2ui().unwrap();
        let mut prose = String::new();
        let mut messages = Vec::new();
        for part in processor.parse(&text).unwrap() {
            match part {
                ParsedPart::Text(t) => prose.push_str(&t),
                ParsedPart::A2ui(m) => messages.extend(m),
            }
        }
        let validator = Validator::basic(processor.version());
        if let Err(errors) = validator.check_response(&messages) {
            panic!("{:?}: {errors:#?}", processor.version());
        }
        (prose, messages)
    }

    #[test]
    fn every_step_of_the_demo_validates_against_the_basic_catalog_in_every_version() {
        for version in [
            ProtocolVersion::V0_8,
            ProtocolVersion::V0_9,
            ProtocolVersion::V1_0,
        ] {
            let (text, list) = answer(&request(Some(version), vec![Part::text("dinner?")]));
            assert!(text.contains("restaurants"), "{text}");
            assert!(list.len() >= 2);
            let select = action_part(version, "select", json!({"restaurant": "Sakura House"}));
            let (text, form) = answer(&request(Some(version), vec![select]));
            assert!(text.contains("Sakura House"), "{text}");
            assert!(form.iter().any(|m| m.to_string().contains("TextField")));
            let book = action_part(
                version,
                "book",
                json!({"restaurant": "Sakura House", "name": "Ada", "partySize": "4", "time": "20:00"}),
            );
            let (_, confirmation) = answer(&request(Some(version), vec![book]));
            let shown = confirmation
                .iter()
                .map(Value::to_string)
                .collect::<String>();
            assert!(
                shown.contains("Ada at Sakura House, 4 people, 20:00"),
                "{shown}"
            );
        }
    }

    #[test]
    fn components_stream_one_by_one_because_the_surface_comes_before_them() {
        let request = request(Some(ProtocolVersion::V0_9), vec![Part::text("hi")]);
        let text = script(&request);
        assert!(text.find("\"surfaceId\"").unwrap() < text.find("\"components\"").unwrap());
        let mut reader = request.a2ui().unwrap().parser();
        let mut emissions = 0;
        for (piece, _) in chunk(&text, DemoConfig::default(), 7) {
            let parts = reader.feed(&piece);
            emissions += parts
                .iter()
                .filter(|p| matches!(p, ParsedPart::A2ui(_)))
                .count();
        }
        assert!(emissions > 10, "{emissions} emissions");
    }

    #[test]
    fn without_a2ui_the_demo_answers_in_plain_text() {
        let text = script(&request(None, vec![Part::text("dinner?")]));
        assert!(!text.contains("<a2ui-json>"));
        assert!(text.contains("Trattoria Alba"));
    }

    #[test]
    fn chunks_are_token_sized_and_rebuild_the_text() {
        let text = "Here are three restaurants — café, naïve — near you.".repeat(5);
        let config = DemoConfig::default();
        let chunks = chunk(&text, config, 42);
        let rebuilt: String = chunks.iter().map(|(c, _)| c.as_str()).collect();
        assert_eq!(rebuilt, text);
        let (last, rest) = chunks.split_last().unwrap();
        for (piece, delay) in rest {
            let n = piece.chars().count();
            assert!((3..=8).contains(&n), "{piece:?}");
            assert!(*delay >= config.min_delay && *delay <= config.max_delay);
        }
        assert!(last.0.chars().count() <= 8);
    }
}
