//! Runs the Express suites of A2UI against `format::express`, read from
//! `../shared/reference` at run time: `agent/express/compiler.yaml`, `decompiler.yaml` and
//! `response_parser.yaml` (the agent suites, [`Dialect::Conformance`]), and
//! `inference_formats/express/compile.yaml` and `decompile.yaml` (the proposal's suites,
//! [`Dialect::Proposal`], against the basic catalog of the case's version).
//! `agent/express/prompt_generator.yaml` runs through the generator in
//! `conformance_agent.rs`.
//!
//! A case's error category is checked as the suites define it: `ParseError` for text that
//! cannot be read, `ValidationError` for a block naming what the catalogs do not declare; the
//! proposal's suites say `CompileError` for both. Without the reference folder the tests say
//! they skipped, unless `A2UI_REQUIRE_REFERENCE=1`, when they fail.

mod shared_reference;

use std::path::Path;

use a2ui_agent::a2ui::{Catalog, ProtocolVersion};
use a2ui_agent::format::express::{Dialect, Express, ExpressError, RawPart, unwrap, wrap};
use a2ui_agent::parser::ParsedPart;
use serde_json::{Value, json};

fn cases(dir: &Path, suite: &str) -> Vec<Value> {
    let text = std::fs::read_to_string(dir.join(suite)).unwrap();
    serde_norway::from_str(&text).unwrap()
}

/// Runs every case of a suite; prints the tally and the cases not run, fails on failures.
/// Returns (cases, not run).
fn run_suite(
    dir: &Path,
    suite: &str,
    run: impl Fn(&Path, &Value) -> Result<(), String>,
) -> (usize, usize) {
    let all = cases(dir, suite);
    let mut failures = Vec::new();
    let mut not_run = Vec::new();
    for case in &all {
        let name = case["name"].as_str().unwrap_or("?");
        match run(dir, case) {
            Ok(()) => {}
            Err(why) if why.starts_with("not run: ") => not_run.push(format!("{name}: {why}")),
            Err(why) => failures.push(format!("{suite}::{name}: FAILED: {why}")),
        }
    }
    println!(
        "{suite}: {} cases, {} passed, {} not run, {} failed",
        all.len(),
        all.len() - failures.len() - not_run.len(),
        not_run.len(),
        failures.len()
    );
    for line in &not_run {
        println!("{suite}::{line}");
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    (all.len(), not_run.len())
}

fn version_of(path: &str) -> ProtocolVersion {
    if path.contains("v0_9") {
        ProtocolVersion::V0_9
    } else {
        ProtocolVersion::V1_0
    }
}

/// The Express format an agent-suite case's `args` describe (one catalog or several).
fn agent_format(dir: &Path, args: &Value) -> Express {
    let files: Vec<&str> = match (&args["catalog"], &args["catalogs"]) {
        (Value::String(file), _) => vec![file.as_str()],
        (_, Value::Array(files)) => files.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    let version = files
        .first()
        .map_or(ProtocolVersion::V1_0, |f| version_of(f));
    let catalogs = files
        .iter()
        .map(|f| Catalog::from_path(version, &dir.join(f)).unwrap())
        .collect();
    Express::bound(version, catalogs).unwrap()
}

/// The error category of an Express error.
fn category(error: &ExpressError) -> &'static str {
    match error {
        ExpressError::Parse(_) => "ParseError",
        ExpressError::Invalid(_) => "ValidationError",
    }
}

/// Compares a result with `expect`, `expect_error` and `expect_present`.
fn check_compiled(
    case: &Value,
    got: Result<Vec<Value>, ExpressError>,
    any_error: bool,
) -> Result<(), String> {
    if let Some(want) = case.get("expect_error") {
        let error = match got {
            Ok(messages) => return Err(format!("expected an error, got {}", json!(messages))),
            Err(e) => e,
        };
        let want_category = want["category"].as_str().unwrap_or("");
        if !any_error && category(&error) != want_category {
            return Err(format!(
                "expected {want_category}, got {}: {error}",
                category(&error)
            ));
        }
        if let Some(message) = want["message"].as_str()
            && !error.to_string().contains(message)
        {
            return Err(format!("error {error:?} lacks {message:?}"));
        }
        return Ok(());
    }
    let got = Value::Array(got.map_err(|e| format!("{}: {e}", category(&e)))?);
    for pointer in case["expect_present"].as_array().into_iter().flatten() {
        let pointer = pointer.as_str().unwrap_or("");
        if got.pointer(pointer).is_none() {
            return Err(format!("{pointer} absent from {got}"));
        }
    }
    let mut want = as_written(&case["expect"]);
    if !case["expect_present"].is_null() {
        // The suite leaves the filled-in check message free: compare without it.
        strip_messages(&mut want);
        let mut got = got.clone();
        strip_messages(&mut got);
        return same(&got, &want);
    }
    same(&got, &want)
}

fn strip_messages(value: &mut Value) {
    for component in value
        .pointer_mut("/0/createSurface/components")
        .and_then(Value::as_array_mut)
        .into_iter()
        .flatten()
    {
        for check in component
            .get_mut("checks")
            .and_then(Value::as_array_mut)
            .into_iter()
            .flatten()
        {
            check.as_object_mut().map(|c| c.remove("message"));
        }
    }
}

/// The suites write v1.0 bindings and calls as `{"path": ..}` and `{"call": ..}`, as the
/// published v1.0 schemas do; this crate's v1.0 schemas spell them `@path` and `@call`, as
/// the direct JSON streaming suite and the conformance catalogs do. Expected v1.0 messages
/// are respelled before comparing, nothing else about them.
fn respell(value: &mut Value) {
    match value {
        Value::Object(map) => {
            let binding = map.len() == 1 && map.get("path").is_some_and(Value::is_string);
            if binding && let Some(path) = map.remove("path") {
                map.insert("@path".into(), path);
            }
            if map.get("call").is_some_and(Value::is_string)
                && let Some(name) = map.remove("call")
            {
                map.insert("@call".into(), name);
            }
            map.values_mut().for_each(respell);
        }
        Value::Array(items) => items.iter_mut().for_each(respell),
        _ => {}
    }
}

/// `messages` as this crate writes them: v1.0 ones respelled.
fn as_written(messages: &Value) -> Value {
    let mut out = messages.clone();
    for message in out.as_array_mut().into_iter().flatten() {
        if message["version"] == "v1.0" {
            respell(message);
        }
    }
    out
}

fn same(got: &Value, want: &Value) -> Result<(), String> {
    if got == want {
        Ok(())
    } else {
        Err(format!("got  {got}\nwant {want}"))
    }
}

fn contains_all(text: &str, case: &Value) -> Result<(), String> {
    for needle in case["expect_contains"].as_array().into_iter().flatten() {
        let needle = needle.as_str().unwrap_or("");
        if !text.contains(needle) {
            return Err(format!("{text:?} lacks {needle:?}"));
        }
    }
    if let Some(exact) = case["expect"].as_str()
        && text != exact
    {
        return Err(format!("{text:?} is not {exact:?}"));
    }
    Ok(())
}

/// Decompiles `messages`, checks the text and, when asked, that it recompiles to them.
fn decompile_case(express: &Express, case: &Value, messages: &[Value]) -> Result<(), String> {
    let text = express.decompile(messages);
    contains_all(&text, case)?;
    if case["expect_round_trip"] == json!(true) {
        let again = express
            .compile(&text)
            .map_err(|e| format!("{text:?} does not recompile: {e}"))?;
        same(
            &Value::Array(again),
            &as_written(&Value::Array(messages.to_vec())),
        )
        .map_err(|e| format!("round trip of {text:?}: {e}"))?;
    }
    Ok(())
}

fn parts_json(parts: &[ParsedPart]) -> Value {
    parts
        .iter()
        .map(|p| match p {
            ParsedPart::Text(t) => json!({"text": t}),
            ParsedPart::A2ui(m) => json!({"a2ui": m}),
        })
        .collect()
}

fn raw_json(parts: &[RawPart]) -> Value {
    parts
        .iter()
        .map(|p| match p {
            RawPart::Text(t) => json!({"text": t}),
            RawPart::Block {
                source,
                closed: true,
                ..
            } => json!({"a2ui_raw": source}),
            RawPart::Block { source, .. } => json!({"a2ui_raw": source, "is_final": false}),
        })
        .collect()
}

fn raw_parts(value: &Value) -> Vec<RawPart> {
    value
        .as_array()
        .into_iter()
        .flatten()
        .map(|p| match (p["text"].as_str(), p["a2ui_raw"].as_str()) {
            (Some(t), _) => RawPart::Text(t.to_owned()),
            (_, Some(source)) => RawPart::Block {
                source: source.to_owned(),
                offset: 0,
                closed: true,
            },
            _ => RawPart::Text(String::new()),
        })
        .collect()
}

/// One case of the agent suites (compiler, decompiler, response parser).
fn agent_case(dir: &Path, case: &Value) -> Result<(), String> {
    let args = &case["args"];
    if args["format"] != "express" {
        return Err(format!("not run: format {}", args["format"]));
    }
    let input = case["input"].as_str().unwrap_or("");
    match case["action"].as_str().unwrap_or("") {
        "compile" | "compile_payload" => {
            check_compiled(case, agent_format(dir, args).compile(input), false)
        }
        "decompile" | "decompile_payload" => {
            let messages = case["messages"].as_array().cloned().unwrap_or_default();
            decompile_case(&agent_format(dir, args), case, &messages)
        }
        "unwrap_response" => same(&raw_json(&unwrap(input)), &case["expect"]),
        "wrap_response" => {
            let parts = raw_parts(&case["parts"]);
            let text = wrap(&parts);
            if let Some(exact) = case["expect_output"].as_str() {
                same(&json!(text), &json!(exact))?;
            }
            contains_all(&text, case)?;
            if case["expect_round_trip"] == json!(true) {
                same(&raw_json(&unwrap(&text)), &raw_json(&parts))?;
            }
            Ok(())
        }
        "parse_response" => {
            let express = agent_format(dir, args);
            let wrapped = args["wrapped"] != json!(false);
            let parsed = express.parse_response(input, wrapped);
            match (case.get("expect_error"), parsed) {
                (Some(want), Err(e)) if category(&e) == want["category"] => Ok(()),
                (Some(want), other) => Err(format!("expected {}, got {other:?}", want["category"])),
                (None, Ok(parts)) => {
                    let mut want = case["expect"].clone();
                    for part in want.as_array_mut().into_iter().flatten() {
                        if let Some(messages) = part.get_mut("a2ui") {
                            *messages = as_written(messages);
                        }
                    }
                    same(&parts_json(&parts), &want)
                }
                (None, Err(e)) => Err(format!("{}: {e}", category(&e))),
            }
        }
        other => Err(format!("unknown action {other}")),
    }
}

#[test]
fn every_express_compiler_case_passes() {
    let Some(dir) = shared_reference::conformance() else {
        return;
    };
    let (all, not_run) = run_suite(&dir, "agent/express/compiler.yaml", agent_case);
    assert!(all >= 40 && not_run == 0, "{all} cases, {not_run} not run");
}

#[test]
fn every_express_decompiler_case_passes() {
    let Some(dir) = shared_reference::conformance() else {
        return;
    };
    let (all, not_run) = run_suite(&dir, "agent/express/decompiler.yaml", agent_case);
    assert!(all >= 11 && not_run == 0, "{all} cases, {not_run} not run");
}

#[test]
fn every_express_response_parser_case_passes() {
    let Some(dir) = shared_reference::conformance() else {
        return;
    };
    let (all, not_run) = run_suite(&dir, "agent/express/response_parser.yaml", agent_case);
    assert!(all >= 35 && not_run == 0, "{all} cases, {not_run} not run");
}

// --- The proposal's suites -------------------------------------------------------------------

/// The format for a proposal-suite case: the basic catalog of its version, its surface id.
fn proposal_format(case: &Value) -> Express {
    let version = match case["version"].as_str() {
        Some("v0.9") => ProtocolVersion::V0_9,
        Some("v0.9.1") => ProtocolVersion::V0_9_1,
        _ => ProtocolVersion::V1_0,
    };
    let express = Express::bound(version, vec![Catalog::basic(version)])
        .unwrap()
        .dialect(Dialect::Proposal);
    match case["surface_id"].as_str() {
        Some(id) => express.default_surface(id),
        None => express,
    }
}

fn proposal_case(_dir: &Path, case: &Value) -> Result<(), String> {
    let express = proposal_format(case);
    match case["action"].as_str().unwrap_or("") {
        "compile" => {
            let input = case["input"].as_str().unwrap_or("");
            check_compiled(case, express.compile(input), true)
        }
        "decompile" => {
            let message = case["input"].clone();
            decompile_case(&express, case, &[message])
        }
        other => Err(format!("unknown action {other}")),
    }
}

#[test]
fn every_express_proposal_compile_case_passes() {
    let Some(dir) = shared_reference::conformance() else {
        return;
    };
    let (all, not_run) = run_suite(
        &dir,
        "inference_formats/express/compile.yaml",
        proposal_case,
    );
    assert!(all >= 40 && not_run == 0, "{all} cases, {not_run} not run");
}

#[test]
fn every_express_proposal_decompile_case_passes() {
    let Some(dir) = shared_reference::conformance() else {
        return;
    };
    let (all, not_run) = run_suite(
        &dir,
        "inference_formats/express/decompile.yaml",
        proposal_case,
    );
    assert!(all >= 9 && not_run == 0, "{all} cases, {not_run} not run");
}

/// `examples.yaml` compiles the proposal's example files, which live in the upstream tree
/// (`specification/proposals/express/examples/`) and not in the reference folder: each case
/// runs if its files are present beside the suite, and says why not otherwise.
#[test]
fn the_proposal_example_cases_run_where_their_files_are() {
    let Some(dir) = shared_reference::conformance() else {
        return;
    };
    let (all, _) = run_suite(
        &dir,
        "inference_formats/express/examples.yaml",
        |dir, case| {
            let input = dir.join(case["input_file"].as_str().unwrap_or(""));
            let expect = dir.join(case["expect_file"].as_str().unwrap_or(""));
            let (Ok(input), Ok(expect)) = (
                std::fs::read_to_string(&input),
                std::fs::read_to_string(&expect),
            ) else {
                return Err(
                    "not run: its input and golden files are not in the reference folder".into(),
                );
            };
            let want: Value = serde_json::from_str(&expect).map_err(|e| e.to_string())?;
            let got = proposal_format(case)
                .compile(&input)
                .map_err(|e| e.to_string())?;
            same(&Value::Array(got), &as_written(&want))
        },
    );
    assert!(all >= 36);
}
