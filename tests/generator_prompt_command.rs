//! `a2ui-agent prompt` and `a2ui-agent parse --version` run as a user would: the built
//! binary, real files.
#![cfg(feature = "cli")]

use serde_json::{Value, json};

mod cli;
use cli::{run, stdout, temp_file};

#[test]
fn prompt_prints_the_same_prompt_every_time() {
    let first = run(&["prompt", "--version", "v0.9"]);
    assert!(first.status.success());
    let text = stdout(&first);
    assert!(text.contains("<a2ui-json>") && text.contains("createSurface"));
    assert!(text.contains("DateTimeInput"));
    assert_eq!(stdout(&run(&["prompt", "--version", "0.9"])), text);
}

#[test]
fn prompt_with_components_describes_only_those() {
    let output = run(&["prompt", "--version", "v0.9", "--components", "Text,Button"]);
    assert!(output.status.success());
    let text = stdout(&output);
    assert!(text.contains("Components: Button, Text."));
    assert!(!text.contains("DateTimeInput") && !text.contains("Slider"));
}

#[test]
fn prompt_with_a_custom_catalog_offers_it_alone_or_beside_the_basic_one() {
    let catalog = temp_file(
        "acme.json",
        &json!({"catalogId": "acme/ui", "components": {"Gauge": {"type": "object",
            "properties": {"component": {"const": "Gauge"}, "percent": {"type": "number"}},
            "required": ["component", "percent"]}}})
        .to_string(),
    );
    let path = catalog.to_str().unwrap();
    let alone = stdout(&run(&["prompt", "--version", "v0.9", "--catalog", path]));
    assert!(alone.contains("acme/ui") && alone.contains("Gauge"));
    assert!(!alone.contains("DateTimeInput"));
    let both = stdout(&run(&[
        "prompt",
        "--version",
        "v0.9",
        "--catalog",
        path,
        "--catalog",
        "basic",
    ]));
    assert!(both.contains("acme/ui") && both.contains("DateTimeInput"));
}

#[test]
fn prompt_negotiates_with_capabilities_and_says_why_it_cannot() {
    let caps = temp_file(
        "caps.json",
        r#"{"v0.9": {"supportedCatalogIds": ["acme/unknown"]}}"#,
    );
    let output = run(&[
        "prompt",
        "--version",
        "v0.9",
        "--capabilities",
        caps.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(2));
    let err = String::from_utf8(output.stderr).unwrap();
    assert!(err.contains("acme/unknown"), "{err}");
}

#[test]
fn prompt_refuses_an_unknown_component_or_version() {
    let output = run(&["prompt", "--version", "v0.9", "--components", "Marquee"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        String::from_utf8(output.stderr)
            .unwrap()
            .contains("Marquee")
    );
    assert!(!run(&["prompt", "--version", "v2"]).status.success());
}

#[test]
fn parse_with_a_version_reports_messages_the_catalog_rejects() {
    let answer = temp_file(
        "answer.txt",
        r#"Hi.<a2ui-json>[{"version": "v0.9", "updateComponents": {"surfaceId": "s", "components": [{"id": "root", "component": "Marquee"}]}}]</a2ui-json>"#,
    );
    let path = answer.to_str().unwrap();
    let checked = run(&["parse", "--version", "v0.9", path]);
    assert_eq!(checked.status.code(), Some(1));
    let lines: Vec<Value> = stdout(&checked)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let invalid = lines.iter().find(|l| l.get("invalid").is_some()).unwrap();
    assert_eq!(invalid["invalid"]["messageIndex"], 0);
    assert!(
        invalid["invalid"]["message"]
            .as_str()
            .unwrap()
            .contains("Marquee")
    );
    assert!(
        run(&["parse", path]).status.success(),
        "no version: no catalog check"
    );
}

#[test]
fn parse_with_a_custom_catalog_accepts_its_components() {
    let catalog = temp_file(
        "marquee.json",
        &json!({"catalogId": "acme/m", "components": {"Marquee": {"type": "object",
            "properties": {"component": {"const": "Marquee"}, "text": {"type": "string"}},
            "required": ["component", "text"]}}})
        .to_string(),
    );
    let answer = temp_file(
        "marquee.txt",
        r#"<a2ui-json>[{"version": "v0.9", "createSurface": {"surfaceId": "s", "catalogId": "acme/m"}}, {"version": "v0.9", "updateComponents": {"surfaceId": "s", "components": [{"id": "root", "component": "Marquee", "text": "Sale"}]}}]</a2ui-json>"#,
    );
    let output = run(&[
        "parse",
        "--version",
        "v0.9",
        "--catalog",
        catalog.to_str().unwrap(),
        answer.to_str().unwrap(),
    ]);
    assert!(output.status.success(), "{}", stdout(&output));
}

#[test]
fn prompt_grammar_prints_the_express_grammar_of_the_catalogs_named() {
    let pruned = run(&[
        "prompt",
        "--version",
        "v0.9",
        "--format",
        "express",
        "--components",
        "Text,Button",
        "--grammar",
    ]);
    assert!(pruned.status.success());
    let grammar = stdout(&pruned);
    assert!(grammar.starts_with("root ::= "), "{grammar}");
    assert!(grammar.contains("\"Text(\"") && grammar.contains("\"Button(\""));
    assert!(
        !grammar.contains("\"Slider(\""),
        "only the components named"
    );
    // Direct JSON has none: a clear error, no grammar.
    let direct = run(&["prompt", "--version", "v0.9", "--grammar"]);
    assert_eq!(direct.status.code(), Some(2));
    assert!(stdout(&direct).is_empty());
    assert!(String::from_utf8_lossy(&direct.stderr).contains("no grammar"));
}
