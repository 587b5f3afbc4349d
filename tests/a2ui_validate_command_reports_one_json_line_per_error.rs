//! `a2ui-agent validate`: exit 0 for valid messages, 1 with one JSON line per problem, 2 when
//! the input cannot be read; input as a JSON array, JSON lines, stdin or a file.

use std::process::Output;

mod cli;
use cli::json_lines as lines;

/// `a2ui-agent validate ARGS…` reading `stdin`.
fn validate(args: &[&str], stdin: &str) -> Output {
    cli::run_with_stdin(&[&["validate"], args].concat(), stdin)
}

const CREATE: &str = r#"{"version":"v0.9","createSurface":{"surfaceId":"s","catalogId":"https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json"}}"#;

#[test]
fn valid_json_lines_on_stdin_exit_zero_and_print_nothing() {
    let input = format!(
        "{CREATE}\n{}\n",
        r#"{"version":"v0.9","updateComponents":{"surfaceId":"s","components":[{"id":"root","component":"Text","text":"hi"}]}}"#
    );
    let output = validate(&[], &input);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stdout)
    );
    assert!(output.stdout.is_empty());
}

#[test]
fn each_problem_is_one_json_line_with_its_message_and_path() {
    let input = format!(
        "[{CREATE}, {}]",
        r#"{"version":"v0.9","updateComponents":{"surfaceId":"s","components":[{"id":"root","component":"Card","child":"x"},{"id":"y","component":"Txt"}]}}"#
    );
    let output = validate(&[], &input);
    assert_eq!(output.status.code(), Some(1));
    let errors = lines(&output);
    let paths: Vec<&str> = errors.iter().map(|e| e["path"].as_str().unwrap()).collect();
    assert!(
        paths.contains(&"/updateComponents/components/1/component"),
        "{paths:?}"
    );
    assert!(
        paths.contains(&"/updateComponents/components/0/child"),
        "{paths:?}"
    );
    assert!(
        errors
            .iter()
            .all(|e| e["messageIndex"] == 1 && e["surfaceId"] == "s")
    );
}

#[test]
fn feedback_lines_are_protocol_error_messages() {
    let input = r#"{"version":"v0.9","updateComponents":{"surfaceId":"s","components":[{"id":"root","component":"Text"}]}}"#;
    let output = validate(&["--feedback", "--version", "v0.9"], input);
    assert_eq!(output.status.code(), Some(1));
    let errors = lines(&output);
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0]["version"], "v0.9");
    assert_eq!(errors[0]["error"]["code"], "VALIDATION_FAILED");
}

#[test]
fn per_message_mode_checks_the_schema_only() {
    let input = r#"{"version":"v0.9","updateComponents":{"surfaceId":"s","components":[{"id":"root","component":"Card","child":"later"}]}}"#;
    assert_eq!(validate(&["--per-message"], input).status.code(), Some(0));
}

#[test]
fn a_custom_catalog_file_is_used_for_surfaces_that_name_it() {
    let dir = std::env::temp_dir().join(format!("a2ui-validate-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let catalog = dir.join("gauge.json");
    std::fs::write(
        &catalog,
        r#"{"catalogId": "example.com:gauges", "components": {"Gauge": {"type": "object",
            "properties": {"component": {"const": "Gauge"}, "value": {"type": "number"}},
            "required": ["component", "value"]}}}"#,
    )
    .unwrap();
    let input = r#"{"version":"v1.0","createSurface":{"surfaceId":"g","catalogId":"example.com:gauges","components":[{"id":"root","component":"Gauge","value":"high"}]}}"#;
    let output = validate(
        &["--version", "1.0", "--catalog", catalog.to_str().unwrap()],
        input,
    );
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        lines(&output)[0]["path"],
        "/createSurface/components/0/value"
    );
}

#[test]
fn input_that_is_not_json_exits_two() {
    let output = validate(&[], "not json");
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("not JSON"));
}
