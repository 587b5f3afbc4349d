//! Every official example UI (v0.8 and v0.9 basic catalogs) is valid against this crate's
//! own schemas and catalogs: schema, and the whole-response tree checks.

mod shared_reference;

use std::path::{Path, PathBuf};

use a2ui_agent::a2ui::{ProtocolVersion, Validator};
use serde_json::Value;

fn json_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    files
}

/// An example file holds a list of messages, or `{"messages": [...]}` with a name.
fn messages(path: &Path) -> Vec<Value> {
    let value: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    match value {
        Value::Array(messages) => messages,
        Value::Object(mut map) => match map.remove("messages") {
            Some(Value::Array(messages)) => messages,
            _ => panic!("{}: no messages", path.display()),
        },
        _ => panic!("{}: not a list or an object", path.display()),
    }
}

fn check_all(version: ProtocolVersion, dir: &Path) -> usize {
    let validator = Validator::basic(version);
    let files = json_files(dir);
    let mut failures = Vec::new();
    for file in &files {
        let messages = messages(file);
        for message in &messages {
            if let Err(e) = validator.check_message(message) {
                failures.push(format!("{}: per message: {e}", file.display()));
            }
        }
        if let Err(errors) = validator.check_response(&messages) {
            for e in errors {
                failures.push(format!("{}: {e}", file.display()));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} problems:\n{}",
        failures.len(),
        failures.join("\n")
    );
    files.len()
}

#[test]
fn every_v0_8_example_is_valid_against_our_standard_catalog() {
    let Some(reference) = shared_reference::a2ui() else {
        return;
    };
    let count = check_all(
        ProtocolVersion::V0_8,
        &reference.join("v0_8/json/catalogs/basic/examples"),
    );
    assert_eq!(count, 30);
}

#[test]
fn every_v0_9_example_is_valid_against_our_basic_catalog() {
    let Some(reference) = shared_reference::a2ui() else {
        return;
    };
    let count = check_all(
        ProtocolVersion::V0_9,
        &reference.join("v0_9/catalogs/basic/examples"),
    );
    assert_eq!(count, 36);
}

#[test]
fn every_v0_9_example_is_valid_as_v0_9_1() {
    let Some(reference) = shared_reference::a2ui() else {
        return;
    };
    check_all(
        ProtocolVersion::V0_9_1,
        &reference.join("v0_9/catalogs/basic/examples"),
    );
}

/// The examples our catalogs show the model in their `instructions` must themselves be valid:
/// a model copies what it is shown.
#[test]
fn the_examples_in_our_catalog_instructions_are_valid() {
    let mut checked = 0;
    for version in ProtocolVersion::ALL {
        let catalog = a2ui_agent::a2ui::Catalog::basic(version);
        let Some(instructions) = catalog.schema().get("instructions").and_then(Value::as_str)
        else {
            continue;
        };
        let validator = Validator::basic(version);
        let mut rest = instructions;
        while let Some(start) = rest.find("[{") {
            let tail = &rest[start..];
            let mut stream = serde_json::Deserializer::from_str(tail).into_iter::<Value>();
            match stream.next() {
                Some(Ok(Value::Array(messages))) => {
                    if let Err(errors) = validator.check_response(&messages) {
                        panic!("{version} instructions example: {errors:#?}");
                    }
                    checked += 1;
                    rest = &tail[stream.byte_offset()..];
                }
                _ => rest = &tail[2..],
            }
        }
    }
    eprintln!("{checked} instruction examples checked");
}
