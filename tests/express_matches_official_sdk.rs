//! Our Express compiler against the official one (`a2ui-agent-sdk` 0.9.0 from PyPI, module
//! `a2ui.inference_formats.express`, installed in `.venv` by `scripts/install-test-deps.sh`).
//!
//! The official prompt shows models examples written by the official decompiler, so models
//! write what it writes: `main_column = Column([...], id="main-column")`, keyword arguments,
//! the common `weight` positionally. A program the official compiler reads must read here to
//! the same messages, and one it refuses must be refused here. Two sources of programs:
//! every official v0.9 example decompiled by the official decompiler (and by ours), and
//! generated programs (proptest), with the SDK as the oracle over a pipe.
//!
//! Where the official compiler is wrong we differ on purpose; each such case is named in
//! README.md ("Express and the official SDK") and recognised in [`known_official_bug`].
//! Skipped (with a message) when the SDK is absent, unless `A2UI_REQUIRE_INTEROP=1`.

mod shared_reference;

#[path = "interop/express/oracle.rs"]
mod oracle;
#[path = "interop/express/programs.rs"]
mod programs;

use std::path::Path;
use std::time::{Duration, Instant};

use a2ui_agent::a2ui::{Catalog, ProtocolVersion};
use a2ui_agent::format::express::{Express, ExpressError};
use oracle::{Oracle, Verdict};
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use serde_json::Value;

/// How many generated programs the differential run checks (`EXPRESS_DIFF_CASES` overrides).
const CASES: u32 = 10_000;

/// The difference between what we and the official compiler made of `source`, if any.
fn difference(
    oracle: &mut Oracle,
    ours: &Result<Vec<Value>, ExpressError>,
    theirs: &Verdict,
) -> Option<String> {
    match (ours, theirs) {
        (Ok(ours), Verdict::Messages(theirs)) if ours == theirs => None,
        (Err(_), Verdict::Refused { kind, .. }) if kind != "other" => None,
        (Ok(ours), Verdict::Messages(theirs)) => Some(format!(
            "different messages\n  ours:   {}\n  theirs: {}",
            serde_json::to_string(ours).unwrap_or_default(),
            serde_json::to_string(theirs).unwrap_or_default()
        )),
        (Ok(ours), Verdict::Refused { error, .. }) => Some(format!(
            "we read it, they refuse it ({error})\n  ours:   {}",
            serde_json::to_string(ours).unwrap_or_default()
        )),
        (Err(e), Verdict::Messages(theirs)) => {
            if known_official_bug(oracle, e, theirs).is_some() {
                return None;
            }
            Some(format!(
                "they read it, we refuse it ({e})\n  theirs: {}",
                serde_json::to_string(theirs).unwrap_or_default()
            ))
        }
        (Err(e), Verdict::Refused { error, .. }) => {
            Some(format!("their compiler crashed ({error}); we said: {e}"))
        }
    }
}

/// A program the official compiler reads and we refuse because of its bug (README.md,
/// "Express and the official SDK"), by name.
fn known_official_bug(
    oracle: &mut Oracle,
    ours: &ExpressError,
    theirs: &[Value],
) -> Option<&'static str> {
    // It does not check what it writes against the catalog's schemas (a string `weight`, a
    // number for a text): its own validator refuses the messages, as ours does.
    if oracle.refuses(theirs).is_some() {
        return Some("writes messages its own validator refuses");
    }
    // JSON Schema's `format` is an annotation unless a validator asserts it; ours asserts
    // it (`openUrl("")` is no URI), the official validator does not.
    if let ExpressError::Invalid(errors) = ours {
        if errors
            .iter()
            .all(|e| e.to_string().contains("fails 'format'"))
        {
            return Some("a value that fails its schema's format");
        }
    }
    None
}

struct Setup {
    express: Express,
    oracle: Oracle,
}

fn setup(reference: &Path, catalog: &str) -> Option<Setup> {
    let python = oracle::python()?;
    let path = reference.join(format!("v0_9/catalogs/{catalog}/catalog.json"));
    let version = ProtocolVersion::V0_9;
    let catalog = Catalog::from_path(version, &path).expect("the official catalog loads");
    let express = Express::bound(version, vec![catalog]).expect("the catalog binds");
    Some(Setup {
        express,
        oracle: Oracle::start(&python, &path, "v0.9"),
    })
}

#[test]
fn every_official_example_decompiled_compiles_as_the_official_compiler_compiles_it() {
    let Some(reference) = shared_reference::a2ui() else {
        return;
    };
    let mut failures = Vec::new();
    let mut examples = 0;
    for catalog in ["basic", "minimal"] {
        let Some(mut setup) = setup(&reference, catalog) else {
            return;
        };
        let dir = reference.join(format!("v0_9/catalogs/{catalog}/examples"));
        let mut paths: Vec<_> = std::fs::read_dir(&dir)
            .expect("the examples folder reads")
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "json"))
            .collect();
        paths.sort();
        for path in paths {
            let text = std::fs::read_to_string(&path).expect("an example reads");
            let example: Value = serde_json::from_str(&text).expect("an example is JSON");
            let Some(messages) = example["messages"].as_array() else {
                failures.push(format!("{}: no messages", path.display()));
                continue;
            };
            examples += 1;
            let theirs = match setup.oracle.decompile(messages) {
                Ok(text) => text,
                Err(e) => {
                    failures.push(format!(
                        "{}: the official decompiler fails: {e}",
                        path.display()
                    ));
                    continue;
                }
            };
            let ours = setup.express.decompile(messages);
            for (writer, source) in [("official", theirs), ("our", ours)] {
                let verdict = setup.oracle.compile(&source);
                if let Verdict::Refused { error, .. } = &verdict {
                    if writer == "official" {
                        failures.push(format!(
                            "{}: the official compiler refuses its own decompiler's output: {error}",
                            path.display()
                        ));
                    }
                }
                let compiled = setup.express.compile(&source);
                if let Some(diff) = difference(&mut setup.oracle, &compiled, &verdict) {
                    failures.push(format!(
                        "{} ({writer} decompiler): {diff}\n{source}",
                        path.display()
                    ));
                }
            }
        }
    }
    println!("{examples} official examples, each decompiled by both decompilers");
    assert!(examples >= 40, "only {examples} official examples");
    assert!(
        failures.is_empty(),
        "{} differences:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

#[test]
fn generated_programs_compile_as_the_official_compiler_compiles_them() {
    let Some(reference) = shared_reference::a2ui() else {
        return;
    };
    let Some(setup) = setup(&reference, "basic") else {
        return;
    };
    let cases = std::env::var("EXPRESS_DIFF_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(CASES);
    let setup = std::cell::RefCell::new(setup);
    let tally = std::cell::Cell::new((0usize, 0usize));
    // Where the time goes, printed (never asserted): the official compiler, ours.
    let spent = std::cell::Cell::new((Duration::ZERO, Duration::ZERO));
    let mut runner = TestRunner::new(Config {
        cases,
        failure_persistence: None,
        // Each step of shrinking asks the oracle again: a few hundred find a small program.
        max_shrink_iters: 300,
        ..Config::default()
    });
    let result = runner.run(&programs::program(), |source| {
        let mut setup = setup.borrow_mut();
        let started = Instant::now();
        let theirs = setup.oracle.compile(&source);
        let between = Instant::now();
        let ours = setup.express.compile(&source);
        let (official, own) = spent.get();
        spent.set((official + (between - started), own + between.elapsed()));
        let (read, refused) = tally.get();
        match &theirs {
            Verdict::Messages(_) => tally.set((read + 1, refused)),
            Verdict::Refused { error, .. } => {
                if std::env::var_os("EXPRESS_DIFF_WHY").is_some() {
                    eprintln!("WHY {}", error.chars().take(90).collect::<String>());
                }
                tally.set((read, refused + 1))
            }
        }
        match difference(&mut setup.oracle, &ours, &theirs) {
            None => Ok(()),
            Some(diff) => Err(TestCaseError::fail(format!(
                "{diff}\n--- program:\n{source}"
            ))),
        }
    });
    let (read, refused) = tally.get();
    let (official, own) = spent.get();
    println!(
        "{cases} generated programs: the official compiler read {read} and refused {refused} \
         (runs include shrinking); {:.1} s in the official compiler, {:.1} s in ours",
        official.as_secs_f64(),
        own.as_secs_f64()
    );
    if let Err(e) = result {
        panic!("{e}");
    }
}
