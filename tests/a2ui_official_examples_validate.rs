//! Every official example UI (v0.8 and v0.9 basic catalogs) is valid against this crate's
//! own schemas and catalogs: schema, and the whole-response tree checks.

use std::path::{Path, PathBuf};

use a2ui_agent::a2ui::{ProtocolVersion, Validator};
use serde_json::Value;

/// `../shared/reference/a2ui`, or `None` (after saying so) when it is absent; with
/// `A2UI_REQUIRE_REFERENCE=1` its absence fails the test.
fn reference() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/reference/a2ui");
    if dir.is_dir() {
        return Some(dir);
    }
    assert!(
        std::env::var("A2UI_REQUIRE_REFERENCE").as_deref() != Ok("1"),
        "A2UI_REQUIRE_REFERENCE=1 but {} is absent",
        dir.display()
    );
    eprintln!("skipped: {} is absent", dir.display());
    None
}

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
    let Some(reference) = reference() else { return };
    let count = check_all(
        ProtocolVersion::V0_8,
        &reference.join("v0_8/json/catalogs/basic/examples"),
    );
    assert_eq!(count, 30);
}

#[test]
fn every_v0_9_example_is_valid_against_our_basic_catalog() {
    let Some(reference) = reference() else { return };
    let count = check_all(
        ProtocolVersion::V0_9,
        &reference.join("v0_9/catalogs/basic/examples"),
    );
    assert_eq!(count, 36);
}

#[test]
fn every_v0_9_example_is_valid_as_v0_9_1() {
    let Some(reference) = reference() else { return };
    check_all(
        ProtocolVersion::V0_9_1,
        &reference.join("v0_9/catalogs/basic/examples"),
    );
}
