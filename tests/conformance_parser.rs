//! Runs every case of the A2UI Direct JSON parser suites (`response_parser.yaml`,
//! `response_streaming.yaml`) from `../shared/reference` against `a2ui_agent::parser`.
//!
//! The suites are read at run time, never copied. Without the reference folder the test says
//! it skipped, unless `A2UI_REQUIRE_REFERENCE=1`, when it fails. A case whose verdict needs
//! catalog validation is listed as not run, with the reason, unless a [`CatalogSupport`] is
//! given: `run_suites` takes one so the catalog validator can be plugged in later.

mod shared_reference;

use std::path::Path;
use std::sync::Arc;

use a2ui_agent::parser::{
    EmitMode, ParseError, ParsedPart, ParserConfig, StreamParser, parse_with,
};
use serde_json::{Value, json};

/// A readiness check for the parser, as the catalog validator would supply it.
type Readiness = Arc<dyn Fn(&Value) -> bool + Send + Sync>;
/// Builds the readiness check for the catalog at a path.
type ReadinessFor = Box<dyn Fn(&Path) -> Option<Readiness>>;
/// Validates compiled messages against the catalog at a path; `Err` is a `ValidationError`.
type ValidateWith = Box<dyn Fn(&Path, &[Value]) -> Result<(), String>>;

/// What a catalog-aware harness supplies for cases that name a catalog.
struct CatalogSupport {
    /// The parser's readiness check for the catalog at this path.
    readiness: ReadinessFor,
    /// Validates compiled messages against the catalog.
    validate: ValidateWith,
}

/// The verdict on one case.
enum Outcome {
    Pass,
    NotRun(String),
    Fail(String),
}

const SUITES: [&str; 2] = ["response_parser.yaml", "response_streaming.yaml"];
const NEEDS_CATALOG: &str = "needs catalog validation";

#[test]
fn every_direct_json_parser_case_of_the_conformance_suites_passes() {
    let Some(dir) = shared_reference::conformance() else {
        return;
    };
    let results = run_suites(&dir, None);
    let mut failures = Vec::new();
    let mut passed = 0;
    let mut not_run = Vec::new();
    for (name, outcome) in &results {
        match outcome {
            Outcome::Pass => passed += 1,
            Outcome::NotRun(why) => not_run.push(format!("{name}: not run: {why}")),
            Outcome::Fail(why) => failures.push(format!("{name}: FAILED: {why}")),
        }
    }
    println!("{passed} conformance cases passed");
    for line in not_run.iter().chain(&failures) {
        println!("{line}");
    }
    assert!(passed > 30, "only {passed} cases ran");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The same suites with the request processor's catalog validator plugged in: the
/// parser's readiness check and the validation of compiled messages, as the server runs them.
#[test]
fn every_direct_json_parser_case_passes_with_the_catalog_validator() {
    let Some(dir) = shared_reference::conformance() else {
        return;
    };
    let results = run_suites(&dir, Some(&processor_support()));
    let mut failures = Vec::new();
    let mut passed = 0;
    for (name, outcome) in &results {
        match outcome {
            Outcome::Pass => passed += 1,
            Outcome::NotRun(why) => failures.push(format!("{name}: not run: {why}")),
            Outcome::Fail(why) => failures.push(format!("{name}: FAILED: {why}")),
        }
    }
    println!(
        "{passed} of {} conformance cases passed with the validator",
        results.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A generator offering the case's catalog file (its version read from the file name).
fn processor_for(path: &Path) -> a2ui_agent::processor::RequestProcessor {
    use a2ui_agent::a2ui::{Catalog, ProtocolVersion};
    let name = path.to_string_lossy();
    let version = if name.contains("v0_8") {
        ProtocolVersion::V0_8
    } else if name.contains("v0_9") {
        ProtocolVersion::V0_9
    } else {
        ProtocolVersion::V1_0
    };
    let catalog = Catalog::from_path(version, path).unwrap();
    a2ui_agent::generator::Generator::builder(version)
        .catalog(catalog)
        .build()
        .unwrap()
        .negotiate(None)
        .unwrap()
}

fn processor_support() -> CatalogSupport {
    CatalogSupport {
        readiness: Box::new(|path| {
            let validator = processor_for(path).validator().clone();
            Some(Arc::new(move |m: &Value| {
                validator.check_message(m).is_ok()
            }))
        }),
        validate: Box::new(|path, messages| {
            processor_for(path)
                .validate(messages)
                .map_err(|errors| format!("{errors:?}"))
        }),
    }
}

/// Runs both suites; `catalog` turns the cases that need a catalog on.
fn run_suites(dir: &Path, catalog: Option<&CatalogSupport>) -> Vec<(String, Outcome)> {
    let mut results = Vec::new();
    for suite in SUITES {
        let path = dir.join("agent/direct_json").join(suite);
        let text = std::fs::read_to_string(&path).unwrap();
        let cases: Vec<Value> = serde_norway::from_str(&text).unwrap();
        for case in cases {
            let name = format!("{suite}::{}", case["name"].as_str().unwrap_or("?"));
            results.push((name, run_case(&case, dir, catalog)));
        }
    }
    results
}

fn run_case(case: &Value, dir: &Path, catalog: Option<&CatalogSupport>) -> Outcome {
    let args = &case["args"];
    let catalog_path = args["catalog"].as_str().map(Path::new);
    let wants_validation = error_category(&case["expect_error"]) == Some("ValidationError")
        || case["steps"].as_array().is_some_and(|steps| {
            steps
                .iter()
                .any(|s| error_category(&s["expect_error"]) == Some("ValidationError"))
        });
    let support = match (catalog, catalog_path) {
        (Some(support), Some(path)) => Some((support, dir.join(path))),
        _ => None,
    };
    if wants_validation && support.is_none() {
        return Outcome::NotRun(NEEDS_CATALOG.into());
    }
    let mut config = ParserConfig::default()
        .mode(EmitMode::Cumulative)
        .progressive_keys(
            args["progressive_keys"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .map(str::to_owned),
        )
        .wrapped(args["wrapped"].as_bool() != Some(false));
    if let Some((support, path)) = &support
        && let Some(check) = (support.readiness)(path)
    {
        config = config.readiness(move |m: &Value| check(m));
    }
    let validate = |messages: &[Value]| match &support {
        Some((support, path)) => (support.validate)(path, messages),
        None => Ok(()),
    };
    let result = match case["action"].as_str() {
        Some("unwrap_response") => unwrap_response(case, config),
        Some("wrap_response") => wrap_response(case),
        Some("compile_payload") => compile_payload(case, config.wrapped(false), &validate),
        Some("decompile_payload") => decompile_payload(case),
        Some("parse_response") => parse_response(case, config, &validate),
        Some("parse_chunk") => parse_chunk(case, config),
        other => Err(format!("unknown action {other:?}")),
    };
    match result {
        Ok(()) => Outcome::Pass,
        Err(why) => Outcome::Fail(why),
    }
}

fn error_category(expect_error: &Value) -> Option<&str> {
    expect_error["category"].as_str()
}

/// Parts as the suites write them.
fn parts_json(parts: &[ParsedPart]) -> Value {
    Value::Array(
        parts
            .iter()
            .map(|p| match p {
                ParsedPart::Text(t) => json!({"text": t}),
                ParsedPart::A2ui(m) => json!({"a2ui": m}),
            })
            .collect(),
    )
}

/// Expected parts; `a2ui_raw` payloads are read as JSON (an unterminated one, `is_final:
/// false`, with its list closed) so they compare with the messages the parser emits.
fn expected_parts(expect: &Value) -> Result<Value, String> {
    let mut parts = Vec::new();
    for part in expect.as_array().into_iter().flatten() {
        if let Some(raw) = part["a2ui_raw"].as_str() {
            let text = if part["is_final"] == json!(false) {
                format!("{raw}]")
            } else {
                raw.to_owned()
            };
            let value: Value =
                serde_json::from_str(&text).map_err(|e| format!("bad a2ui_raw {raw}: {e}"))?;
            let list = if value.is_array() {
                value
            } else {
                json!([value])
            };
            parts.push(json!({ "a2ui": list }));
        } else {
            parts.push(part.clone());
        }
    }
    Ok(Value::Array(parts))
}

fn compare(what: &str, got: &Value, want: &Value) -> Result<(), String> {
    if got == want {
        Ok(())
    } else {
        Err(format!("{what}: got {got}, want {want}"))
    }
}

fn expect_parse_error<T>(result: Result<T, ParseError>) -> Result<(), String> {
    match result {
        Err(_) => Ok(()),
        Ok(_) => Err("expected a ParseError, got success".into()),
    }
}

fn unwrap_response(case: &Value, config: ParserConfig) -> Result<(), String> {
    let input = case["input"].as_str().ok_or("no input")?;
    let parts = parse_with(input, config).map_err(|e| e.to_string())?;
    compare(
        "parts",
        &parts_json(&parts),
        &expected_parts(&case["expect"])?,
    )
}

/// The format's own notation: text as is, payloads inside the tags.
fn wrap(parts: &Value) -> String {
    parts
        .as_array()
        .into_iter()
        .flatten()
        .map(|p| match p["a2ui_raw"].as_str() {
            Some(raw) => format!("<a2ui-json>{raw}</a2ui-json>"),
            None => p["text"].as_str().unwrap_or_default().to_owned(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn check_contains(output: &str, case: &Value) -> Result<(), String> {
    for needle in case["expect_contains"].as_array().into_iter().flatten() {
        let needle = needle.as_str().unwrap_or_default();
        if !output.contains(needle) {
            return Err(format!("{output:?} lacks {needle:?}"));
        }
    }
    Ok(())
}

fn wrap_response(case: &Value) -> Result<(), String> {
    let output = wrap(&case["parts"]);
    if let Some(want) = case["expect_output"].as_str() {
        compare("output", &json!(output), &json!(want))?;
    }
    check_contains(&output, case)?;
    if case["expect_round_trip"] == json!(true) {
        let parts = parse_with(&output, ParserConfig::default()).map_err(|e| e.to_string())?;
        compare(
            "round trip",
            &parts_json(&parts),
            &expected_parts(&case["parts"])?,
        )?;
    }
    Ok(())
}

fn compile_payload(
    case: &Value,
    config: ParserConfig,
    validate: &dyn Fn(&[Value]) -> Result<(), String>,
) -> Result<(), String> {
    let input = case["input"].as_str().ok_or("no input")?;
    let result = parse_with(input, config);
    match error_category(&case["expect_error"]) {
        Some("ParseError") => expect_parse_error(result),
        Some("ValidationError") => {
            let messages = messages_of(&result.map_err(|e| e.to_string())?);
            match validate(&messages) {
                Err(_) => Ok(()),
                Ok(()) => Err("expected a ValidationError".into()),
            }
        }
        Some(other) => Err(format!("unhandled error category {other}")),
        None => {
            let messages = messages_of(&result.map_err(|e| e.to_string())?);
            validate(&messages)?;
            compare("messages", &Value::Array(messages), &case["expect"])
        }
    }
}

fn messages_of(parts: &[ParsedPart]) -> Vec<Value> {
    parts
        .iter()
        .flat_map(|p| match p {
            ParsedPart::A2ui(m) => m.clone(),
            ParsedPart::Text(_) => Vec::new(),
        })
        .collect()
}

fn decompile_payload(case: &Value) -> Result<(), String> {
    let output = serde_json::to_string(&case["messages"]).map_err(|e| e.to_string())?;
    check_contains(&output, case)?;
    if case["expect_round_trip"] == json!(true) {
        let parts = parse_with(&output, ParserConfig::default().wrapped(false))
            .map_err(|e| e.to_string())?;
        compare(
            "round trip",
            &Value::Array(messages_of(&parts)),
            &case["messages"],
        )?;
    }
    Ok(())
}

fn parse_response(
    case: &Value,
    config: ParserConfig,
    validate: &dyn Fn(&[Value]) -> Result<(), String>,
) -> Result<(), String> {
    let input = case["input"].as_str().ok_or("no input")?;
    let result = parse_with(input, config);
    match error_category(&case["expect_error"]) {
        Some("ParseError") => expect_parse_error(result),
        Some(other) => Err(format!("unhandled error category {other}")),
        None => {
            let parts = result.map_err(|e| e.to_string())?;
            validate(&messages_of(&parts))?;
            compare("parts", &parts_json(&parts), &case["expect"])
        }
    }
}

fn parse_chunk(case: &Value, config: ParserConfig) -> Result<(), String> {
    let mut parser = StreamParser::new(config.clone());
    let mut all = Vec::new();
    let mut joined = String::new();
    for (n, step) in case["steps"]
        .as_array()
        .ok_or("no steps")?
        .iter()
        .enumerate()
    {
        let input = step["input"].as_str().ok_or("step without input")?;
        joined.push_str(input);
        let parts = parser.feed(input);
        match error_category(&step["expect_error"]) {
            Some("ParseError") => {
                return match parser.error() {
                    Some(_) => Ok(()),
                    None => Err(format!("step {n}: expected a ParseError, got {parts:?}")),
                };
            }
            Some(other) => return Err(format!("unhandled error category {other}")),
            None => {
                if let Some(err) = parser.error() {
                    return Err(format!("step {n}: unexpected error {err}"));
                }
                compare(&format!("step {n}"), &parts_json(&parts), &step["expect"])?;
            }
        }
        all.extend(parts);
    }
    let rest = parser.finish().map_err(|e| format!("finish: {e}"))?;
    compare("finish", &parts_json(&rest), &json!([]))?;
    if case["expect_matches_single_shot"] == json!(true) {
        let whole = parse_with(&joined, config).map_err(|e| e.to_string())?;
        compare("single shot", &parts_json(&whole), &parts_json(&all))?;
    }
    Ok(())
}
