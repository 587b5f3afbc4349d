//! Every case of the official v0.9 schema test suite (`v0_9/test/cases/`) gets the official
//! verdict, valid or invalid, from this crate's own schemas.

mod shared_reference;

use std::path::PathBuf;

use a2ui_agent::a2ui::{ProtocolVersion, Validator, check_client_message};
use serde_json::Value;

fn check(schema: &str, validator: &Validator, data: &Value) -> Result<(), String> {
    match schema {
        "server_to_client.json" => validator.check_message(data).map_err(|e| e.to_string()),
        "client_to_server.json" => {
            check_client_message(ProtocolVersion::V0_9, data).map_err(|e| e.to_string())
        }
        other => panic!("a case for an unknown schema {other}"),
    }
}

#[test]
fn every_v0_9_schema_case_gets_the_official_verdict() {
    let Some(reference) = shared_reference::a2ui() else {
        return;
    };
    let validator = Validator::basic(ProtocolVersion::V0_9);
    let dir = reference.join("v0_9/test/cases");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    let (mut cases, mut wrong) = (0, Vec::new());
    for file in &files {
        let suite: Value = serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
        let schema = suite["schema"].as_str().unwrap();
        for case in suite["tests"].as_array().unwrap() {
            cases += 1;
            let expected = case["valid"].as_bool().unwrap();
            let verdict = check(schema, &validator, &case["data"]);
            if verdict.is_ok() != expected {
                wrong.push(format!(
                    "{} / {}: expected {}, got {verdict:?}",
                    file.file_name().unwrap().to_string_lossy(),
                    case["description"],
                    if expected { "valid" } else { "invalid" },
                ));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "{} of {cases} cases disagree:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
    assert!(cases > 50, "only {cases} cases found");
}

#[test]
fn the_contact_form_stream_is_valid_line_by_line_and_as_a_whole() {
    let Some(reference) = shared_reference::a2ui() else {
        return;
    };
    let text =
        std::fs::read_to_string(reference.join("v0_9/test/cases/contact_form_example.jsonl"))
            .unwrap();
    let messages: Vec<Value> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let validator = Validator::basic(ProtocolVersion::V0_9);
    for message in &messages {
        validator.check_message(message).unwrap();
    }
    validator.check_response(&messages).unwrap();
}
