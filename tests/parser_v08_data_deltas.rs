//! A v0.8 `dataModelUpdate` still arriving is sent entry by entry; applied in order by a v0.8
//! renderer, the deltas give the model the whole message gives.
//!
//! The renderer is modelled on the official one (`A2uiMessageProcessor.setDataByPath` of the
//! A2UI web renderers, v0.8): `contents` replace the value at `path` (the whole model at `/`),
//! keys and paths split on `/` and `.` (`[n]` read as `.n`), `valueMap`s become maps, strings
//! that look like JSON objects or arrays are parsed, a lone entry keyed `.` sets the value at
//! `path` itself, and writes under a parsed (plain) object are lost.

use std::collections::BTreeMap;

use a2ui_agent::a2ui::{ProtocolVersion, Validator};
use a2ui_agent::parser::{ParsedPart, ParserConfig, StreamParser};
use proptest::prelude::*;
use serde_json::{Value, json};

// ---- The renderer's data model ----

/// A value of the renderer's model: its own maps, or what `JSON.parse` made (plain objects,
/// which it never writes into; arrays, which it does).
#[derive(Debug, Clone, PartialEq)]
enum M {
    Map(BTreeMap<String, M>),
    Plain(Value),
    Arr(Vec<Option<M>>),
}

impl M {
    fn from_json(value: &Value) -> M {
        match value {
            Value::Array(items) => M::Arr(items.iter().map(|v| Some(M::from_json(v))).collect()),
            other => M::Plain(other.clone()),
        }
    }

    /// JavaScript's `typeof v === "object" && v !== null`.
    fn is_object(&self) -> bool {
        match self {
            M::Map(_) | M::Arr(_) => true,
            M::Plain(value) => value.is_object() || value.is_array(),
        }
    }
}

/// `[n]` as `.n`, then the segments between `/` and `.`.
fn segments(path: &str) -> Vec<String> {
    let mut dotted = String::new();
    let mut rest = path;
    while let Some(open) = rest.find('[') {
        dotted.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let digits = after.len() - after.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        if digits > 0 && after[digits..].starts_with(']') {
            dotted.push('.');
            dotted.push_str(&after[..digits]);
            rest = &after[digits + 1..];
        } else {
            dotted.push('[');
            rest = after;
        }
    }
    dotted.push_str(rest);
    dotted
        .split(['.', '/'])
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect()
}

fn value_key(item: &serde_json::Map<String, Value>) -> Option<&String> {
    item.keys().find(|k| k.starts_with("value"))
}

fn parse_if_json(text: &str) -> M {
    let trimmed = text.trim_matches(|c: char| c.is_whitespace() || c == '\u{feff}');
    let looks = (trimmed.starts_with('{') && trimmed.ends_with('}'))
        || (trimmed.starts_with('[') && trimmed.ends_with(']'));
    match serde_json::from_str::<Value>(text) {
        Ok(value) if looks => M::from_json(&value),
        _ => M::Plain(Value::String(text.to_owned())),
    }
}

/// An entry's value as the renderer reads it.
fn entry_value(name: &str, value: &Value) -> M {
    match value {
        Value::Array(items) if name == "valueMap" => convert(items),
        Value::String(text) => parse_if_json(text),
        other => M::from_json(other),
    }
}

fn convert(items: &[Value]) -> M {
    let mut map = M::Map(BTreeMap::new());
    for item in items {
        let Some(object) = item.as_object() else {
            continue;
        };
        let Some(key) = object.get("key").and_then(Value::as_str) else {
            continue;
        };
        let Some(name) = value_key(object) else {
            continue;
        };
        let value = entry_value(name, &object[name]);
        set(&mut map, key, value);
    }
    map
}

/// Whether `value` is in the key/value list format (`[]` or a first item with a `key`).
fn kv_list(value: &M) -> Option<Vec<Value>> {
    let items: Vec<Value> = match value {
        M::Plain(Value::Array(items)) => items.clone(),
        M::Arr(items) => {
            let mut out = Vec::new();
            for item in items {
                match item {
                    Some(M::Plain(v)) => out.push(v.clone()),
                    _ => return None,
                }
            }
            out
        }
        _ => return None,
    };
    match items.first() {
        None => Some(items),
        Some(Value::Object(first)) if first.contains_key("key") => Some(items),
        _ => None,
    }
}

fn set(root: &mut M, path: &str, value: M) {
    let mut value = value;
    if let Some(items) = kv_list(&value) {
        let dot = match items.as_slice() {
            [Value::Object(only)] if only.get("key") == Some(&json!(".")) => Some(only.clone()),
            _ => None,
        };
        value = match dot.as_ref().and_then(|o| value_key(o).map(|n| (o, n))) {
            Some((only, name)) => entry_value(name, &only[name]),
            None => convert(&items),
        };
    }
    let segs = segments(path);
    let Some((last, parents)) = segs.split_last() else {
        let entries = match value {
            M::Map(map) => map,
            M::Plain(Value::Object(object)) => object
                .iter()
                .map(|(k, v)| (k.clone(), M::Plain(v.clone())))
                .collect(),
            _ => return,
        };
        *root = M::Map(entries);
        return;
    };
    let mut current: &mut M = root;
    for seg in parents {
        let index = seg
            .bytes()
            .all(|b| b.is_ascii_digit())
            .then(|| seg.parse::<usize>().ok())
            .flatten();
        let exists = match (&*current, index) {
            (M::Map(map), _) => map.get(seg).is_some_and(M::is_object),
            (M::Arr(items), Some(i)) => items
                .get(i)
                .and_then(Option::as_ref)
                .is_some_and(M::is_object),
            _ => false,
        };
        current = match current {
            M::Map(map) => {
                if !exists {
                    map.insert(seg.clone(), M::Map(BTreeMap::new()));
                }
                map.get_mut(seg).unwrap()
            }
            M::Arr(items) if index.is_some() => {
                let i = index.unwrap();
                if !exists {
                    if items.len() <= i {
                        items.resize(i + 1, None);
                    }
                    items[i] = Some(M::Map(BTreeMap::new()));
                }
                items[i].as_mut().unwrap()
            }
            // A new map nothing holds: whatever is written under it is lost.
            _ => return,
        };
    }
    match current {
        M::Map(map) => {
            map.insert(last.clone(), value);
        }
        M::Arr(items) => {
            if let Some(i) = last
                .bytes()
                .all(|b| b.is_ascii_digit())
                .then(|| last.parse::<usize>().ok())
                .flatten()
            {
                if items.len() <= i {
                    items.resize(i + 1, None);
                }
                items[i] = Some(value);
            }
        }
        M::Plain(_) => {}
    }
}

/// Applies v0.8 `dataModelUpdate`s in order, from `model`.
fn apply(model: &M, messages: &[Value]) -> M {
    let mut model = model.clone();
    for message in messages {
        let body = &message["dataModelUpdate"];
        let path = body["path"].as_str().unwrap_or("/");
        set(&mut model, path, M::from_json(&body["contents"]));
    }
    model
}

// ---- Generators ----

fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => "[a-c]{1,2}",
        1 => Just(".".to_owned()),
        1 => Just(String::new()),
        1 => Just("a.b".to_owned()),
        1 => Just("a/b".to_owned()),
        1 => Just("[0]".to_owned()),
        1 => Just("/".to_owned()),
        1 => Just("x[1]".to_owned()),
    ]
}

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => "[a-z \"\\\\é]{0,8}",
        1 => Just("[]".to_owned()),
        1 => Just(" [1, 2] ".to_owned()),
        1 => Just("[{\"key\": \"q\", \"valueString\": \"r\"}]".to_owned()),
        1 => Just("{\"z\": 1}".to_owned()),
    ]
}

fn scalar() -> impl Strategy<Value = (String, Value)> {
    prop_oneof![
        text().prop_map(|t| ("valueString".to_owned(), json!(t))),
        any::<i32>().prop_map(|n| ("valueNumber".to_owned(), json!(n))),
        (-1e6f64..1e6).prop_map(|n| ("valueNumber".to_owned(), json!(n))),
        any::<bool>().prop_map(|b| ("valueBoolean".to_owned(), json!(b))),
    ]
}

fn entry() -> impl Strategy<Value = Value> {
    let inner = (key(), scalar()).prop_map(|(key, (name, value))| {
        let mut entry = serde_json::Map::new();
        entry.insert("key".into(), json!(key));
        entry.insert(name, value);
        Value::Object(entry)
    });
    let value = prop_oneof![
        5 => scalar().prop_map(Some),
        2 => prop::collection::vec(inner, 0..4).prop_map(|m| Some(("valueMap".to_owned(), Value::Array(m)))),
        1 => Just(None),
    ];
    (key(), value).prop_map(|(key, value)| {
        let mut entry = serde_json::Map::new();
        entry.insert("key".into(), json!(key));
        if let Some((name, value)) = value {
            entry.insert(name, value);
        }
        Value::Object(entry)
    })
}

fn path() -> impl Strategy<Value = Option<String>> {
    prop_oneof![
        Just(Some("/".to_owned())),
        Just(Some(String::new())),
        Just(Some("/a".to_owned())),
        Just(Some("a".to_owned())),
        Just(Some("/a/b/".to_owned())),
        Just(Some("/l/1".to_owned())),
        Just(Some("user.name".to_owned())),
        Just(None),
    ]
}

/// The message as a model writes it: `path` before `contents` unless `path_last`.
fn written(path: &Option<String>, contents: &[Value], path_last: bool) -> String {
    let contents = serde_json::to_string(contents).unwrap();
    let path = path
        .as_ref()
        .map(|p| format!(", \"path\": {}", json!(p)))
        .unwrap_or_default();
    if path_last {
        format!("{{\"dataModelUpdate\": {{\"surfaceId\": \"s\", \"contents\": {contents}{path}}}}}")
    } else {
        format!("{{\"dataModelUpdate\": {{\"surfaceId\": \"s\"{path}, \"contents\": {contents}}}}}")
    }
}

fn chunks(text: &str, sizes: &[usize]) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    let mut i = 0;
    while !rest.is_empty() {
        let mut n = sizes[i % sizes.len()].min(rest.len());
        while !rest.is_char_boundary(n) {
            n += 1;
        }
        out.push(rest[..n].to_owned());
        rest = &rest[n..];
        i += 1;
    }
    out
}

fn streamed(config: ParserConfig, chunks: &[String]) -> Vec<Value> {
    let mut parser = StreamParser::new(config);
    let mut parts = Vec::new();
    for chunk in chunks {
        parts.extend(parser.feed(chunk));
    }
    parts.extend(parser.finish().unwrap());
    parts
        .into_iter()
        .flat_map(|part| match part {
            ParsedPart::A2ui(messages) => messages,
            ParsedPart::Text(_) => Vec::new(),
        })
        .collect()
}

fn block(message: &str) -> String {
    format!("Here.<a2ui-json>[{message}]</a2ui-json>Done.")
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    /// Any v0.8 data model, any chunking: the deltas applied in order give the model the whole
    /// message gives, over a model that held something before; each delta is a valid v0.8
    /// message.
    #[test]
    fn v0_8_deltas_applied_in_order_reach_the_whole_messages_model(
        before in prop::collection::vec(entry(), 0..4),
        path in path(),
        contents in prop::collection::vec(entry(), 0..7),
        path_last in prop::bool::weighted(0.15),
        sizes in prop::collection::vec(1usize..24, 1..6),
        batch in 0usize..3,
    ) {
        let text = block(&written(&path, &contents, path_last));
        let whole: Value = serde_json::from_str(&written(&path, &contents, path_last)).unwrap();
        let start = apply(&M::Map(BTreeMap::new()), &[json!({"dataModelUpdate": {"surfaceId": "s", "contents": before}})]);
        let deltas = streamed(ParserConfig::default().delta_batch(batch), &chunks(&text, &sizes));
        prop_assert!(!deltas.is_empty());
        prop_assert_eq!(apply(&start, &deltas), apply(&start, std::slice::from_ref(&whole)),
            "deltas {:#?}", deltas);
        let validator = Validator::basic(ProtocolVersion::V0_8);
        if validator.check_message(&whole).is_ok() {
            for delta in &deltas {
                prop_assert!(validator.check_message(delta).is_ok(), "{}", delta);
            }
        }
    }
}

#[test]
fn each_finished_entry_is_sent_once_at_its_own_path() {
    let message = r#"{"dataModelUpdate": {"surfaceId": "s", "path": "/user", "contents": [
        {"key": "name", "valueString": "Bob"},
        {"key": "age", "valueNumber": 42},
        {"key": "address", "valueMap": [{"key": "city", "valueString": "Anytown"}]}]}}"#;
    let text = block(message);
    let one_byte: Vec<String> = text.chars().map(String::from).collect();
    let deltas = streamed(ParserConfig::default().delta_batch(0), &one_byte);
    assert_eq!(
        deltas,
        vec![
            json!({"dataModelUpdate": {"surfaceId": "s", "path": "/user",
                "contents": [{"key": "name", "valueString": "Bob"}]}}),
            json!({"dataModelUpdate": {"surfaceId": "s", "path": "/user/age",
                "contents": [{"key": ".", "valueNumber": 42}]}}),
            json!({"dataModelUpdate": {"surfaceId": "s", "path": "/user/address",
                "contents": [{"key": ".", "valueMap": [{"key": "city", "valueString": "Anytown"}]}]}}),
        ]
    );
    let sent: usize = deltas.iter().map(|m| m.to_string().len()).sum();
    let whole: Value = serde_json::from_str(message).unwrap();
    assert!(
        sent < 3 * whole.to_string().len(),
        "each entry once, not the growing message again"
    );
}

#[test]
fn an_entry_the_renderer_would_reread_sends_the_entries_so_far_at_the_path() {
    let message = r#"{"dataModelUpdate": {"surfaceId": "s", "path": "/p", "contents": [
        {"key": "a", "valueString": "x"}, {"key": "b", "valueString": "[]"}]}}"#;
    let one_byte: Vec<String> = block(message).chars().map(String::from).collect();
    let deltas = streamed(ParserConfig::default().delta_batch(0), &one_byte);
    assert_eq!(deltas.len(), 2, "{deltas:?}");
    assert_eq!(deltas[1]["dataModelUpdate"]["path"], "/p");
    assert_eq!(
        deltas[1]["dataModelUpdate"]["contents"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
}

#[test]
fn without_a_path_before_its_contents_the_message_is_sent_whole_once() {
    let message = r#"{"dataModelUpdate": {"surfaceId": "s", "contents": [
        {"key": "a", "valueString": "x"}, {"key": "b", "valueNumber": 1}]}}"#;
    let one_byte: Vec<String> = block(message).chars().map(String::from).collect();
    let deltas = streamed(ParserConfig::default().delta_batch(0), &one_byte);
    assert_eq!(
        deltas,
        vec![serde_json::from_str::<Value>(message).unwrap()]
    );
}
