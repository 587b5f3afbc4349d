//! Runs the agent-side conformance suites of A2UI against the generator and its request
//! processor: `agent/request_processor.yaml`, `agent/catalog_resolution.yaml`,
//! `agent/direct_json/prompt_generator.yaml` and `agent/express/prompt_generator.yaml`, read
//! from `../shared/reference` at run time.
//!
//! Prompt cases assert substrings, never whole texts (the suites say the wording is an
//! implementation's own). A case whose `format` (or `format_override`) is `express` builds
//! its generator with [`Express`]. Without the reference folder the tests say they skipped,
//! unless `A2UI_REQUIRE_REFERENCE=1`, when they fail.

mod shared_reference;

use std::collections::BTreeSet;
use std::path::Path;

use a2ui_agent::a2ui::{Catalog, ClientCapabilities, ProtocolVersion};
use a2ui_agent::format::express::Express;
use a2ui_agent::generator::{
    Generator, GeneratorError, NegotiationErrorKind, ResolveError, resolve_catalogs,
};
use a2ui_agent::parser::ParsedPart;
use a2ui_agent::processor::RequestProcessor;
use serde_json::{Value, json};

fn cases(dir: &Path, suite: &str) -> Vec<Value> {
    let text = std::fs::read_to_string(dir.join(suite)).unwrap();
    serde_norway::from_str(&text).unwrap()
}

/// The verdict on one case.
enum Outcome {
    Pass,
    Fail(String),
}

/// Runs `run` over every case of a suite, prints the tally and fails on any failure.
/// Returns (cases, passed).
fn run_suite(dir: &Path, suite: &str, run: impl Fn(&Path, &Value) -> Outcome) -> (usize, usize) {
    let mut passed = 0;
    let mut failures = Vec::new();
    let all = cases(dir, suite);
    for case in &all {
        let name = case["name"].as_str().unwrap_or("?");
        match run(dir, case) {
            Outcome::Pass => passed += 1,
            Outcome::Fail(why) => failures.push(format!("{suite}::{name}: FAILED: {why}")),
        }
    }
    println!(
        "{suite}: {} cases, {passed} passed, {} failed",
        all.len(),
        failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    (all.len(), passed)
}

/// The version a conformance catalog file is written for, from its name.
fn version_of(path: &str) -> ProtocolVersion {
    if path.contains("v0_8") {
        ProtocolVersion::V0_8
    } else if path.contains("v0_9") {
        ProtocolVersion::V0_9
    } else {
        ProtocolVersion::V1_0
    }
}

fn strings(value: &Value) -> Vec<&str> {
    value
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect()
}

/// A registration: the catalog file with its transformers applied (component and function
/// pruning).
fn registration(dir: &Path, entry: &Value) -> Catalog {
    let file = entry["catalog"].as_str().unwrap();
    let mut catalog = Catalog::from_path(version_of(file), &dir.join(file)).unwrap();
    for transformer in entry["transformers"].as_array().into_iter().flatten() {
        if let Some(keep) = transformer.get("component_pruning") {
            catalog = catalog.subset(&strings(keep)).unwrap();
        }
        if let Some(keep) = transformer.get("function_pruning") {
            catalog = catalog.subset_functions(&strings(keep)).unwrap();
        }
    }
    catalog
}

/// The generator a case's `args` describe, or the error category building it gives.
fn generator(dir: &Path, args: &Value) -> Result<Generator, &'static str> {
    let entries = args["catalogs"].as_array().cloned().unwrap_or_default();
    let catalogs: Vec<Catalog> = entries.iter().map(|e| registration(dir, e)).collect();
    let version = catalogs
        .first()
        .map_or(ProtocolVersion::V1_0, Catalog::version);
    let mut builder = Generator::builder(version)
        .catalogs(catalogs)
        .accept_inline_catalogs(args["accepts_inline_catalogs"] == json!(true));
    if args["format"] == "express" {
        builder = builder.format(Express::new());
    }
    for example in strings(&args["examples"]) {
        let text = std::fs::read_to_string(dir.join(example)).unwrap();
        builder = builder.example(example, text);
    }
    if let Some(kinds) = args["allowed_messages"].as_array() {
        let kinds: Vec<&str> = kinds.iter().filter_map(Value::as_str).collect();
        builder = builder.messages(&kinds);
    }
    builder.build().map_err(|e| match e {
        GeneratorError::Example { .. } => "ValidationError",
        _ => "CatalogError",
    })
}

/// Negotiates a case's capabilities; `Err` is the error category.
fn negotiate(generator: &Generator, args: &Value) -> Result<RequestProcessor, &'static str> {
    let capabilities = match args.get("renderer_capabilities") {
        Some(value) => Some(ClientCapabilities::parse(value).map_err(|_| "ValidationError")?),
        None => None,
    };
    let negotiated = match args["format_override"].as_str() {
        Some("express") => generator.negotiate_with_format(capabilities.as_ref(), Express::new()),
        _ => generator.negotiate(capabilities.as_ref()),
    };
    negotiated.map_err(|e| match e.kind() {
        NegotiationErrorKind::VersionNotDescribed | NegotiationErrorKind::Example => {
            "ValidationError"
        }
        _ => "CatalogError",
    })
}

fn ids(catalogs: &[Catalog]) -> Vec<String> {
    catalogs.iter().map(|c| c.id().to_owned()).collect()
}

/// Checks `expect.catalogs` (components and functions of each active catalog, exhaustive).
fn check_catalogs(active: &[Catalog], expect: &Value) -> Result<(), String> {
    for expected in expect["catalogs"].as_array().into_iter().flatten() {
        let id = expected["catalog_id"].as_str().unwrap_or_default();
        let catalog = active
            .iter()
            .find(|c| c.id() == id)
            .ok_or_else(|| format!("{id} not active"))?;
        let components: BTreeSet<&str> = catalog.component_names().collect();
        let want: BTreeSet<&str> = strings(&expected["components"]).into_iter().collect();
        if components != want {
            return Err(format!("{id}: components {components:?}, want {want:?}"));
        }
        if expected.get("functions").is_some() {
            let functions: BTreeSet<&str> = catalog.function_names().collect();
            let want: BTreeSet<&str> = strings(&expected["functions"]).into_iter().collect();
            if functions != want {
                return Err(format!("{id}: functions {functions:?}, want {want:?}"));
            }
        }
    }
    Ok(())
}

fn check_prompt(prompt: &str, contains: &Value, absent: &Value) -> Result<(), String> {
    for needle in strings(contains) {
        if !prompt.contains(needle) {
            return Err(format!("prompt lacks {needle:?}"));
        }
    }
    for needle in strings(absent) {
        if let Some(at) = prompt.find(needle) {
            let context: String = prompt[at..].chars().take(80).collect();
            return Err(format!("prompt has {needle:?}: {context}..."));
        }
    }
    Ok(())
}

fn expect_error(outcome: Result<impl Sized, &'static str>, category: &str) -> Outcome {
    match outcome {
        Err(got) if got == category => Outcome::Pass,
        Err(got) => Outcome::Fail(format!("expected {category}, got {got}")),
        Ok(_) => Outcome::Fail(format!("expected {category}, got success")),
    }
}

fn verdict(result: Result<(), String>) -> Outcome {
    match result {
        Ok(()) => Outcome::Pass,
        Err(why) => Outcome::Fail(why),
    }
}

// --- catalog_resolution.yaml ---------------------------------------------------------------

fn resolution_case(dir: &Path, case: &Value) -> Outcome {
    let args = &case["args"];
    let expect = &case["expect"];
    if args["catalogs"].as_array().is_some_and(Vec::is_empty)
        && args.get("renderer_capabilities").is_none()
    {
        // A generator always offers a catalog, so "nothing registered, no preference" is a
        // question for the resolution function the generator delegates to.
        let got = resolve_catalogs(ProtocolVersion::V1_0, &[], None, false);
        return verdict(match got {
            Ok(active)
                if strings(&expect["active_catalog_ids"]).is_empty() && active.is_empty() =>
            {
                Ok(())
            }
            Ok(active) => Err(format!("active {:?}", ids(&active))),
            Err(ResolveError::Catalog(e)) => Err(format!("unexpected {e}")),
            Err(e) => Err(format!("unexpected {e}")),
        });
    }
    let processor = generator(dir, args).and_then(|g| negotiate(&g, args));
    if let Some(category) = case["expect_error"]["category"].as_str() {
        return expect_error(processor, category);
    }
    let processor = match processor {
        Ok(p) => p,
        Err(category) => return Outcome::Fail(format!("unexpected {category}")),
    };
    let got: BTreeSet<String> = ids(processor.catalogs()).into_iter().collect();
    let want: BTreeSet<String> = strings(&expect["active_catalog_ids"])
        .into_iter()
        .map(str::to_owned)
        .collect();
    if got != want {
        return Outcome::Fail(format!("active {got:?}, want {want:?}"));
    }
    verdict(check_catalogs(processor.catalogs(), expect))
}

#[test]
fn every_catalog_resolution_case_passes_through_the_generator() {
    let Some(dir) = shared_reference::conformance() else {
        return;
    };
    let (ran, passed) = run_suite(&dir, "agent/catalog_resolution.yaml", resolution_case);
    assert!(ran >= 18 && passed == ran, "{passed}/{ran}");
}

// --- direct_json/prompt_generator.yaml -----------------------------------------------------

fn prompt_case(dir: &Path, case: &Value) -> Outcome {
    let args = &case["args"];
    let processor = generator(dir, args).and_then(|g| negotiate(&g, args));
    if let Some(category) = case["expect_error"]["category"].as_str() {
        return expect_error(processor, category);
    }
    let processor = match processor {
        Ok(p) => p,
        Err(category) => return Outcome::Fail(format!("unexpected {category}")),
    };
    let prompt = processor.prompt();
    if let Err(why) = check_prompt(prompt, &case["expect_contains"], &case["expect_absent"]) {
        return Outcome::Fail(why);
    }
    if case["expect_deterministic"] == json!(true) {
        // A second generator built from the same inputs, not the first one's cache.
        let again = generator(dir, args).and_then(|g| negotiate(&g, args));
        match again {
            Ok(other) if other.prompt() == prompt => {}
            Ok(_) => return Outcome::Fail("two generators wrote different prompts".into()),
            Err(category) => return Outcome::Fail(format!("second run: {category}")),
        }
    }
    Outcome::Pass
}

#[test]
fn every_direct_json_prompt_generator_case_passes() {
    let Some(dir) = shared_reference::conformance() else {
        return;
    };
    let (ran, passed) = run_suite(&dir, "agent/direct_json/prompt_generator.yaml", prompt_case);
    assert!(ran >= 12 && passed == ran, "{passed}/{ran}");
}

#[test]
fn every_express_prompt_generator_case_passes() {
    let Some(dir) = shared_reference::conformance() else {
        return;
    };
    let (ran, passed) = run_suite(&dir, "agent/express/prompt_generator.yaml", prompt_case);
    assert!(ran >= 12 && passed == ran, "{passed}/{ran}");
}

// --- request_processor.yaml ----------------------------------------------------------------

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

/// Everything a reader yields for `chunks`, fed in order.
fn read_all(processor: &RequestProcessor, chunks: &[&str]) -> Result<Value, String> {
    let mut reader = processor.parser();
    let mut parts = Vec::new();
    for chunk in chunks {
        parts.extend(reader.feed(chunk));
    }
    parts.extend(reader.finish().map_err(|e| e.to_string())?);
    Ok(parts_json(&parts))
}

/// `parsers_are_distinct` and `parser_state_isolated`: a parser left halfway through a
/// payload does not affect a second one, and each yields what a lone parser would.
fn check_parsers(processor: &RequestProcessor, case: &Value) -> Result<(), String> {
    let probe = strings(&case["args"]["probe_chunks"]);
    let probe: Vec<&str> = if probe.is_empty() {
        vec!["Hi <a2ui-json>[", "]</a2ui-json>"]
    } else {
        probe
    };
    let alone = read_all(processor, &probe)?;
    let mut first = processor.parser();
    let mut first_parts = first.feed(probe[0]);
    let second = read_all(processor, &probe)?;
    if second != alone {
        return Err(format!(
            "a second parser yields {second}, a lone one {alone}"
        ));
    }
    for chunk in &probe[1..] {
        first_parts.extend(first.feed(chunk));
    }
    first_parts.extend(first.finish().map_err(|e| e.to_string())?);
    if parts_json(&first_parts) != alone {
        return Err("the first parser was disturbed by the second".into());
    }
    Ok(())
}

fn processor_case(dir: &Path, case: &Value) -> Outcome {
    let args = &case["args"];
    let generator = match generator(dir, args) {
        Ok(g) => g,
        Err(category) => {
            return match case["expect_error"]["category"].as_str() {
                Some(want) => expect_error(Err::<(), _>(category), want),
                None => Outcome::Fail(format!("unexpected {category}")),
            };
        }
    };
    let offered_before = generator.supported_catalog_ids().join(" ");
    let processor = negotiate(&generator, args);
    if let Some(category) = case["expect_error"]["category"].as_str() {
        return expect_error(processor, category);
    }
    let processor = match processor {
        Ok(p) => p,
        Err(category) => return Outcome::Fail(format!("unexpected {category}")),
    };
    let expect = &case["expect"];
    let result = (|| {
        if let Some(want) = expect.get("active_catalog_ids") {
            // The renderer's order of preference is part of this suite's contract.
            let want: Vec<&str> = strings(want);
            if ids(processor.catalogs()) != want {
                return Err(format!(
                    "active {:?}, want {want:?}",
                    ids(processor.catalogs())
                ));
            }
        }
        check_catalogs(processor.catalogs(), expect)?;
        if args.get("format_override").is_some() && generator.format().name() != "direct-json" {
            return Err("the override changed the generator's own format".into());
        }
        check_prompt(
            processor.prompt(),
            &expect["prompt_snippet_contains"],
            &expect["prompt_snippet_absent"],
        )?;
        if expect["generator_catalogs_unchanged"] == json!(true)
            && generator.supported_catalog_ids().join(" ") != offered_before
        {
            return Err("negotiating changed the generator's catalogs".into());
        }
        if expect["parsers_are_distinct"] == json!(true)
            || expect["parser_state_isolated"] == json!(true)
        {
            check_parsers(&processor, case)?;
        }
        if let Some(then) = case.get("then_parse") {
            then_parse(&processor, then)?;
        }
        Ok(())
    })();
    verdict(result)
}

fn then_parse(processor: &RequestProcessor, then: &Value) -> Result<(), String> {
    let input = then["input"].as_str().ok_or("no input")?;
    let parts = processor
        .parse(input)
        .map_err(|e| format!("ParseError {e}"))?;
    let messages: Vec<Value> = parts
        .iter()
        .flat_map(|p| match p {
            ParsedPart::A2ui(m) => m.clone(),
            ParsedPart::Text(_) => Vec::new(),
        })
        .collect();
    let validated = processor.validate(&messages);
    match then["expect_error"]["category"].as_str() {
        Some("ValidationError") => match validated {
            Err(_) => Ok(()),
            Ok(()) => Err("expected a ValidationError".into()),
        },
        Some(other) => Err(format!("unhandled category {other}")),
        None => {
            validated.map_err(|e| format!("unexpected ValidationError {e:?}"))?;
            let got = parts_json(&parts);
            if got != then["expect"] {
                return Err(format!("parts {got}, want {}", then["expect"]));
            }
            Ok(())
        }
    }
}

#[test]
fn every_request_processor_case_passes() {
    let Some(dir) = shared_reference::conformance() else {
        return;
    };
    let (ran, passed) = run_suite(&dir, "agent/request_processor.yaml", processor_case);
    assert!(ran >= 18 && passed == ran, "{passed}/{ran}");
}
