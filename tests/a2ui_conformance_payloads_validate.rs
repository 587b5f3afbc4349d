//! The direct-JSON conformance suites (`conformance/agent/direct_json/`) list the A2UI
//! messages a parser must produce for each catalog. Every one of them is valid against that
//! catalog with this crate's schemas, and each payload the suites call a `ValidationError`
//! is invalid: the schema-only check is fit to be the parser's readiness hook.

mod shared_reference;

use std::path::Path;

use a2ui_agent::a2ui::{Catalog, ProtocolVersion, Validator};
use serde_json::Value;

fn version_of(catalog: &str) -> ProtocolVersion {
    if catalog.ends_with("v0_8.json") {
        ProtocolVersion::V0_8
    } else if catalog.ends_with("v0_9.json") {
        ProtocolVersion::V0_9
    } else {
        ProtocolVersion::V1_0
    }
}

fn validator(conformance: &Path, catalog: &str) -> Validator {
    let version = version_of(catalog);
    let catalog = Catalog::from_path(version, &conformance.join(catalog)).unwrap();
    Validator::new(version, &[catalog]).unwrap()
}

/// Every message list under an `a2ui:` key, or an `expect`/`messages` list of messages.
fn messages_in(value: &Value, out: &mut Vec<Value>) {
    match value {
        Value::Object(map) => {
            if let Some(Value::Array(list)) = map.get("a2ui") {
                out.extend(list.iter().cloned());
            }
            for (key, sub) in map {
                if key != "a2ui" {
                    messages_in(sub, out);
                }
            }
        }
        Value::Array(items) => {
            for item in items {
                if item.get("version").is_some() && item.as_object().is_some_and(|m| m.len() == 2) {
                    out.push(item.clone());
                } else {
                    messages_in(item, out);
                }
            }
        }
        _ => {}
    }
}

#[test]
fn every_message_the_direct_json_suites_expect_is_valid_against_its_catalog() {
    let Some(reference) = shared_reference::a2ui() else {
        return;
    };
    let conformance = reference.join("conformance");
    let mut checked = 0;
    let mut failures = Vec::new();
    for suite in ["response_parser.yaml", "response_streaming.yaml"] {
        let text =
            std::fs::read_to_string(conformance.join("agent/direct_json").join(suite)).unwrap();
        let cases: Vec<Value> = serde_norway::from_str(&text).unwrap();
        for case in &cases {
            let Some(catalog) = case["args"]["catalog"].as_str() else {
                continue;
            };
            if case.get("expect_error").is_some() {
                continue;
            }
            let validator = validator(&conformance, catalog);
            let mut messages = Vec::new();
            for key in ["expect", "messages", "steps"] {
                if let Some(value) = case.get(key) {
                    messages_in(value, &mut messages);
                }
            }
            for message in messages {
                checked += 1;
                if let Err(e) = validator.check_message(&message) {
                    failures.push(format!("{suite} {}: {e}\n  {message}", case["name"]));
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {checked}:\n{}",
        failures.len(),
        failures.join("\n")
    );
    eprintln!("{checked} messages checked");
    assert!(checked > 40, "only {checked} messages");
}

#[test]
fn payloads_the_suites_call_validation_errors_are_invalid() {
    let Some(reference) = shared_reference::a2ui() else {
        return;
    };
    let conformance = reference.join("conformance");
    let text = std::fs::read_to_string(conformance.join("agent/direct_json/response_parser.yaml"))
        .unwrap();
    let cases: Vec<Value> = serde_norway::from_str(&text).unwrap();
    let mut checked = 0;
    for case in &cases {
        if case["expect_error"]["category"] != "ValidationError" {
            continue;
        }
        let (Some(catalog), Some(input)) =
            (case["args"]["catalog"].as_str(), case["input"].as_str())
        else {
            continue;
        };
        let Ok(payload) = serde_json::from_str::<Value>(input) else {
            continue;
        };
        let messages = match payload {
            Value::Array(list) => list,
            one => vec![one],
        };
        let validator = validator(&conformance, catalog);
        assert!(
            messages.iter().any(|m| validator.check_message(m).is_err()),
            "{} passed",
            case["name"]
        );
        checked += 1;
    }
    assert!(checked >= 1);
}
