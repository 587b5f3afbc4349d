//! Property tests of the streaming parser over generated responses: text around blocks of
//! realistic A2UI messages (v0.8 and v0.9 shapes, built from random component trees), cut into
//! random chunks from one byte to whole.
//!
//! (a) applying the emitted messages in order (components upserted by id, the value at each
//!     data model path replaced) gives the same final state as a single-shot parse;
//! (b) the text parts concatenate to the single-shot text;
//! (c) in delta mode no emission repeats an unchanged message or component;
//! (d) arbitrary input never panics, and chunking never changes whether it parses.

mod model_order;

use std::collections::{BTreeMap, BTreeSet};

use a2ui_agent::parser::{EmitMode, ParsedPart, ParserConfig, StreamParser, parse_with};
use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;
use serde_json::{Value, json};

use model_order::model_order_json;

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(
            "proptest-regressions/parser_properties.txt",
        ))),
        ..ProptestConfig::default()
    }
}

// ---- Generators ----

#[derive(Debug, Clone)]
enum Node {
    Text(String),
    Container(&'static str, Vec<Node>),
    Card(Box<Node>),
}

fn prose() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-zA-Z0-9 ,.!?'\"\\\\/<>éü日本🎉\n]{0,24}",
        Just("</a2ui-json> inside a string".to_owned()),
        Just("a \"quoted\" word and a \\ backslash".to_owned()),
    ]
}

fn tree() -> impl Strategy<Value = Node> {
    let leaf = prose().prop_map(Node::Text);
    leaf.prop_recursive(3, 24, 5, |inner| {
        prop_oneof![
            (
                prop_oneof![Just("Column"), Just("Row")],
                prop::collection::vec(inner.clone(), 1..5)
            )
                .prop_map(|(kind, children)| Node::Container(kind, children)),
            inner.prop_map(|child| Node::Card(Box::new(child))),
        ]
    })
}

/// Flattens a tree into components; returns the root id.
fn flatten(node: &Node, v08: bool, out: &mut Vec<Value>) -> String {
    let id = format!("c{}", out.len());
    out.push(Value::Null);
    let slot = out.len() - 1;
    let component = match node {
        Node::Text(text) if v08 => {
            json!({"id": id, "component": {"Text": {"text": {"literalString": text}}}})
        }
        Node::Text(text) => json!({"id": id, "component": "Text", "text": text}),
        Node::Container(kind, children) => {
            let ids: Vec<String> = children.iter().map(|c| flatten(c, v08, out)).collect();
            if v08 {
                json!({"id": id, "component": {*kind: {"children": {"explicitList": ids}}}})
            } else {
                json!({"id": id, "component": kind, "children": ids})
            }
        }
        Node::Card(child) => {
            let child = flatten(child, v08, out);
            if v08 {
                json!({"id": id, "component": {"Card": {"child": child}}})
            } else {
                json!({"id": id, "component": "Card", "child": child})
            }
        }
    };
    if let Some(s) = out.get_mut(slot) {
        *s = component;
    }
    id
}

fn data_value() -> impl Strategy<Value = Value> {
    prop_oneof![
        prose().prop_map(Value::from),
        any::<i32>().prop_map(Value::from),
        prop::collection::btree_map("[a-z]{1,6}", prose(), 0..4).prop_map(|m| json!(m)),
    ]
}

/// The messages of one surface.
fn surface(v08: bool) -> impl Strategy<Value = Vec<Value>> {
    (tree(), prop::collection::vec(data_value(), 0..3)).prop_map(move |(tree, data)| {
        let mut components = Vec::new();
        let root = flatten(&tree, v08, &mut components);
        let sid = "SURFACE";
        let mut messages = Vec::new();
        if v08 {
            messages.push(json!({"surfaceUpdate": {"surfaceId": sid, "components": components}}));
            for (k, value) in data.iter().enumerate() {
                messages.push(json!({"dataModelUpdate": {"surfaceId": sid, "path": format!("/p{k}"),
                    "contents": [{"key": "v", "valueString": value.to_string()}]}}));
            }
            messages.push(json!({"beginRendering": {"surfaceId": sid, "root": root}}));
        } else {
            messages.push(json!({"version": "v0.9", "createSurface": {"surfaceId": sid, "catalogId": "basic"}}));
            messages.push(json!({"version": "v0.9", "updateComponents": {"surfaceId": sid, "components": components}}));
            for (k, value) in data.iter().enumerate() {
                messages.push(json!({"version": "v0.9", "updateDataModel": {"surfaceId": sid, "path": format!("/p{k}"), "value": value}}));
            }
        }
        messages
    })
}

#[derive(Debug, Clone)]
enum Segment {
    Text(String),
    Block {
        surfaces: Vec<Vec<Value>>,
        style: u8,
    },
}

fn segment() -> impl Strategy<Value = Segment> {
    prop_oneof![
        "[a-zA-Z0-9 ,.!?<>é日🎉\n]{0,30}".prop_map(Segment::Text),
        any::<bool>().prop_flat_map(|v08| {
            (prop::collection::vec(surface(v08), 1..3), any::<u8>())
                .prop_map(move |(surfaces, style)| Segment::Block { surfaces, style })
        }),
    ]
}

/// A response: text and blocks; surface ids made unique.
fn response() -> impl Strategy<Value = String> {
    prop::collection::vec(segment(), 1..5).prop_map(|segments| {
        let mut out = String::new();
        let mut surfaces = 0;
        for segment in segments {
            match segment {
                Segment::Text(text) => out.push_str(&text),
                Segment::Block {
                    surfaces: list,
                    style,
                    ..
                } => {
                    let mut messages = Vec::new();
                    for messages_of_surface in list {
                        surfaces += 1;
                        let id = format!("s{surfaces}");
                        messages.extend(
                            messages_of_surface.into_iter().map(|m| {
                                Value::from(m.to_string().replace("SURFACE", &id).as_str())
                            }),
                        );
                    }
                    let messages: Vec<Value> = messages
                        .iter()
                        .map(|m| serde_json::from_str(m.as_str().unwrap()).unwrap())
                        .collect();
                    let json = if style & 1 == 0 {
                        model_order_json(&Value::Array(messages))
                    } else {
                        serde_json::to_string_pretty(&messages).unwrap()
                    };
                    let open = match style & 6 {
                        0 => "<a2ui-json>",
                        2 => "<A2UI-JSON version=\"x\">",
                        _ => "<a2ui-json >",
                    };
                    if style & 8 == 0 {
                        out.push_str(&format!("{open}{json}</a2ui-json>"));
                    } else {
                        out.push_str(&format!("{open}\n```json\n{json}\n```\n</a2ui-json>"));
                    }
                }
            }
            out.push('\n');
        }
        out
    })
}

/// Cuts `text` into chunks of the given sizes (cycled), never inside a character.
fn chunk<'a>(text: &'a str, sizes: &[usize]) -> Vec<&'a str> {
    let mut chunks = Vec::new();
    let mut start = 0;
    let mut k = 0;
    while start < text.len() {
        let size = sizes
            .get(k % sizes.len().max(1))
            .copied()
            .unwrap_or(text.len());
        k += 1;
        let mut end = (start + size.max(1)).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        chunks.push(&text[start..end]);
        start = end;
    }
    chunks
}

fn chunk_sizes() -> impl Strategy<Value = Vec<usize>> {
    prop_oneof![
        Just(vec![1]),
        Just(vec![usize::MAX / 2]),
        prop::collection::vec(1usize..40, 1..20),
        prop::collection::vec(1usize..400, 1..5),
    ]
}

fn run_chunks(
    config: ParserConfig,
    chunks: &[&str],
) -> Result<Vec<ParsedPart>, a2ui_agent::parser::ParseError> {
    let mut parser = StreamParser::new(config);
    let mut parts = Vec::new();
    for c in chunks {
        parts.extend(parser.feed(c));
    }
    parts.extend(parser.finish()?);
    Ok(parts)
}

// ---- The renderer's view ----

#[derive(Debug, Default, PartialEq)]
struct Surface {
    messages: BTreeMap<String, Value>,
    components: BTreeMap<String, Value>,
    data: BTreeMap<String, Value>,
    /// The v0.9 data model, updated as a renderer does: the value at `path` replaced.
    model: Value,
}

/// Replaces the value at the JSON Pointer `path` of `root`, creating objects on the way.
fn set_pointer(root: &mut Value, path: &str, value: Value) {
    let mut at = root;
    let segments: Vec<String> = path
        .split('/')
        .skip(1)
        .filter(|s| !s.is_empty())
        .map(|s| s.replace("~1", "/").replace("~0", "~"))
        .collect();
    for segment in &segments {
        if !at.is_object() {
            *at = json!({});
        }
        at = at
            .as_object_mut()
            .unwrap()
            .entry(segment.clone())
            .or_insert(Value::Null);
    }
    *at = value;
}

/// Applies messages as a renderer would: components upserted by id, data by path.
fn apply(parts: &[ParsedPart]) -> BTreeMap<String, Surface> {
    let mut state: BTreeMap<String, Surface> = BTreeMap::new();
    for part in parts {
        let ParsedPart::A2ui(messages) = part else {
            continue;
        };
        for m in messages {
            let (action, body) = m
                .as_object()
                .unwrap()
                .iter()
                .find(|(k, _)| *k != "version")
                .unwrap();
            let sid = body["surfaceId"].as_str().unwrap().to_owned();
            let surface = state.entry(sid).or_default();
            match action.as_str() {
                "updateComponents" | "surfaceUpdate" => {
                    for c in body["components"].as_array().unwrap() {
                        surface
                            .components
                            .insert(c["id"].as_str().unwrap().to_owned(), c.clone());
                    }
                }
                "updateDataModel" => {
                    let path = body["path"].as_str().unwrap_or("/");
                    set_pointer(&mut surface.model, path, body["value"].clone());
                }
                "dataModelUpdate" => {
                    let path = body["path"].as_str().unwrap_or("/");
                    for entry in body["contents"].as_array().unwrap() {
                        let key = format!("{path}/{}", entry["key"].as_str().unwrap());
                        surface.data.insert(key, entry.clone());
                    }
                }
                other => {
                    surface.messages.insert(other.to_owned(), m.clone());
                }
            }
        }
    }
    state
}

fn text_of(parts: &[ParsedPart]) -> String {
    parts
        .iter()
        .filter_map(|p| match p {
            ParsedPart::Text(t) => Some(t.as_str()),
            ParsedPart::A2ui(_) => None,
        })
        .collect()
}

fn any_config() -> impl Strategy<Value = ParserConfig> {
    (any::<bool>(), any::<bool>(), 0usize..12).prop_map(|(cumulative, heal, batch)| {
        let mut config = ParserConfig::default().delta_batch(batch);
        if cumulative {
            config = config.mode(EmitMode::Cumulative);
        }
        if heal {
            config = config.progressive_keys(["text", "value", "label"]);
        }
        config
    })
}

proptest! {
    #![proptest_config(config(160))]

    #[test]
    fn any_chunking_reaches_the_single_shot_state_and_text(
        text in response(),
        sizes in chunk_sizes(),
        config in any_config(),
    ) {
        let whole = parse_with(&text, config.clone()).unwrap();
        let blocks = text.to_lowercase().matches("<a2ui-json").count();
        let payloads = whole.iter().filter(|p| matches!(p, ParsedPart::A2ui(_))).count();
        prop_assert_eq!(payloads, blocks, "each block is one payload part when parsed whole");
        let chunked = run_chunks(config, &chunk(&text, &sizes)).unwrap();
        prop_assert_eq!(apply(&chunked), apply(&whole));
        prop_assert_eq!(text_of(&chunked), text_of(&whole));
    }

    #[test]
    fn delta_mode_never_resends_an_unchanged_message_or_component(
        text in response(),
        sizes in chunk_sizes(),
    ) {
        let config = ParserConfig::default()
            .progressive_keys(["text", "value"])
            .delta_batch(0);
        let parts = run_chunks(config, &chunk(&text, &sizes)).unwrap();
        let mut components = BTreeSet::new();
        let mut last: BTreeMap<String, Value> = BTreeMap::new();
        for part in &parts {
            let ParsedPart::A2ui(messages) = part else { continue };
            for m in messages {
                let (action, body) = m.as_object().unwrap().iter().find(|(k, _)| *k != "version").unwrap();
                let sid = body["surfaceId"].as_str().unwrap();
                if let Some(list) = body.get("components") {
                    let list = list.as_array().unwrap();
                    prop_assert!(!list.is_empty(), "empty component delta {}", m);
                    for c in list {
                        let key = (sid.to_owned(), c.to_string());
                        prop_assert!(components.insert(key), "component sent twice: {}", c);
                    }
                } else {
                    let key = format!("{sid}/{action}/{}", body["path"]);
                    prop_assert!(last.get(&key) != Some(m), "message sent twice unchanged: {}", m);
                    last.insert(key, m.clone());
                }
            }
        }
    }
}

/// Fragments of the format, so arbitrary input reaches deep into blocks.
fn fragments() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            Just("<a2ui-json>"),
            Just("</a2ui-json>"),
            Just("<A2UI-json x>"),
            Just("<a2ui"),
            Just("["),
            Just("]"),
            Just("{"),
            Just("}"),
            Just(","),
            Just(":"),
            Just("\""),
            Just("\\"),
            Just("“"),
            Just("”"),
            Just("```json\n"),
            Just("```"),
            Just(" "),
            Just("\n"),
            Just("é"),
            Just("🎉"),
            Just("true"),
            Just("-1.5e3"),
            Just("nul"),
            Just("\"updateComponents\""),
            Just("\"components\""),
            Just("\"updateDataModel\""),
            Just("\"version\""),
            Just("\"v0.9\""),
            Just("\"surfaceId\""),
            Just("\"value\""),
            Just("\"text\""),
            Just("\"id\""),
            Just("x"),
            Just("\u{1}"),
        ],
        0..80,
    )
    .prop_map(|parts| parts.concat())
}

proptest! {
    #![proptest_config(config(400))]

    #[test]
    fn arbitrary_input_never_panics_and_chunking_does_not_change_the_verdict(
        text in prop_oneof![any::<String>(), fragments()],
        sizes in chunk_sizes(),
        config in any_config(),
        wrapped in any::<bool>(),
    ) {
        let config = config.wrapped(wrapped);
        let whole = parse_with(&text, config.clone());
        let chunked = run_chunks(config, &chunk(&text, &sizes));
        prop_assert_eq!(whole.is_ok(), chunked.is_ok(), "{:?} vs {:?}", whole, chunked);
        if let (Ok(whole), Ok(chunked)) = (whole, chunked) {
            prop_assert_eq!(text_of(&chunked), text_of(&whole));
        }
    }
}
