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
//! docs/formats.md ("Express and the official SDK") and recognised in [`known_official_bug`].
//! Skipped (with a message) when the SDK is absent, unless `A2UI_REQUIRE_INTEROP=1`.

mod shared_reference;

#[path = "interop/express/oracle.rs"]
mod oracle;
#[path = "interop/express/programs.rs"]
mod programs;

use std::path::Path;
use std::time::Instant;

use a2ui_agent::a2ui::{Catalog, ProtocolVersion};
use a2ui_agent::format::express::{Express, ExpressError, Redefined};
use oracle::{Oracle, Verdict};
use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use serde_json::Value;

/// How many generated programs the differential run checks (`EXPRESS_DIFF_CASES` overrides).
const CASES: u32 = 10_000;

/// The difference between what we and the official compiler made of `source`, if any.
///
/// `refused` says whether the SDK's own validator refuses messages (asked only when needed).
fn difference(
    ours: &Result<Vec<Value>, ExpressError>,
    theirs: &Verdict,
    refused: &mut dyn FnMut(&[Value]) -> bool,
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
            if known_official_bug(e, theirs, refused).is_some() {
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

/// A program the official compiler reads and we refuse because of its bug (docs/formats.md,
/// "Express and the official SDK"), by name.
fn known_official_bug(
    ours: &ExpressError,
    theirs: &[Value],
    refused: &mut dyn FnMut(&[Value]) -> bool,
) -> Option<&'static str> {
    // It does not check what it writes against the catalog's schemas (a string `weight`, a
    // number for a text): its own validator refuses the messages, as ours does.
    if refused(theirs) {
        return Some("writes messages its own validator refuses");
    }
    // JSON Schema's `format` is an annotation unless a validator asserts it; ours asserts
    // it (`openUrl("")` is no URI), the official validator does not.
    if let ExpressError::Invalid(errors) = ours
        && errors
            .iter()
            .all(|e| e.to_string().contains("fails 'format'"))
    {
        return Some("a value that fails its schema's format");
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
    // The official compiler keeps a name's last definition; ours, by default, reads each as
    // a component of its own (what a model means), so the comparison uses its reading.
    let express = Express::bound(version, vec![catalog])
        .expect("the catalog binds")
        .redefined_names(Redefined::Replace);
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
                if let Verdict::Refused { error, .. } = &verdict
                    && writer == "official"
                {
                    failures.push(format!(
                        "{}: the official compiler refuses its own decompiler's output: {error}",
                        path.display()
                    ));
                }
                let compiled = setup.express.compile(&source);
                let oracle = &mut setup.oracle;
                let mut refused = |m: &[Value]| oracle.refuses(m).is_some();
                if let Some(diff) = difference(&compiled, &verdict, &mut refused) {
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
    let mut setup = setup;
    let seed: [u8; 32] = match std::env::var("EXPRESS_DIFF_SEED") {
        Ok(hex) => seed_from(&hex),
        Err(_) => rand_seed(),
    };
    let runner = |cases| {
        let config = Config {
            cases,
            failure_persistence: None,
            // Each step of shrinking asks the oracle again: a few hundred find a small program.
            max_shrink_iters: 300,
            ..Config::default()
        };
        TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &seed))
    };
    // Pass 1, pipelined: every program to the official compiler while ours compiles the
    // one before; a program whose answers differ is kept by its index.
    let started = Instant::now();
    let (mut read, mut refused, mut index) = (0usize, 0usize, 0usize);
    type Suspect = (usize, String, Result<Vec<Value>, ExpressError>, Verdict);
    let mut suspects: Vec<Suspect> = Vec::new();
    let express = &setup.express;
    setup.oracle.compile_stream(
        |write| {
            let mut runner = runner(cases);
            let strategy = programs::program();
            for _ in 0..cases {
                let tree = strategy.new_tree(&mut runner).expect("a program generates");
                write(tree.current());
            }
        },
        |source, theirs| {
            let ours = express.compile(&source);
            match &theirs {
                Verdict::Messages(_) => read += 1,
                Verdict::Refused { error, .. } => {
                    if std::env::var_os("EXPRESS_DIFF_WHY").is_some() {
                        eprintln!("WHY {}", error.chars().take(90).collect::<String>());
                    }
                    refused += 1;
                }
            }
            let agree = match (&ours, &theirs) {
                (Ok(ours), Verdict::Messages(theirs)) => ours == theirs,
                (Err(_), Verdict::Refused { kind, .. }) => kind != "other",
                _ => false,
            };
            if !agree {
                suspects.push((index, source, ours, theirs));
            }
            index += 1;
        },
    );
    let elapsed = started.elapsed();
    // Pass 2: a suspect differs unless it is a named bug of the official compiler; the
    // official validator's verdicts on what it compiled, pipelined too.
    let batches: Vec<Vec<Value>> = suspects
        .iter()
        .filter_map(|(_, _, ours, theirs)| match (ours, theirs) {
            (Err(_), Verdict::Messages(messages)) => Some(messages.clone()),
            _ => None,
        })
        .collect();
    let mut verdicts = setup.oracle.refuses_all(&batches).into_iter();
    let mut first = None;
    for (at, _, ours, theirs) in &suspects {
        // The verdicts come in the order of the suspects that needed one.
        let needed = matches!((ours, theirs), (Err(_), Verdict::Messages(_)));
        let verdict = if needed {
            verdicts.next().flatten()
        } else {
            None
        };
        let mut refused = |_: &[Value]| verdict.is_some();
        if difference(ours, theirs, &mut refused).is_some() {
            first = Some(*at);
            break;
        }
    }
    println!(
        "{cases} generated programs in {:.1} s (seed {}): the official compiler read {read} and \
         refused {refused}; {} differed at first sight, {} of them named bugs of the official \
         compiler",
        elapsed.as_secs_f64(),
        hex(&seed),
        suspects.len(),
        suspects.len() - usize::from(first.is_some()),
    );
    let Some(at) = first else {
        return;
    };
    // Pass 3: shrink the first difference, program by program through the oracle.
    let mut runner = runner(cases);
    let strategy = programs::program();
    let mut tree = strategy.new_tree(&mut runner).expect("a program generates");
    for _ in 0..at {
        tree = strategy.new_tree(&mut runner).expect("a program generates");
    }
    let mut fails = |source: &str| {
        let theirs = setup.oracle.compile(source);
        let ours = setup.express.compile(source);
        let oracle = &mut setup.oracle;
        difference(&ours, &theirs, &mut |m: &[Value]| {
            oracle.refuses(m).is_some()
        })
    };
    let mut smallest = (tree.current(), fails(&tree.current()).unwrap_or_default());
    let mut steps = 0;
    while steps < 300 && tree.simplify() {
        steps += 1;
        if let Some(diff) = fails(&tree.current()) {
            smallest = (tree.current(), diff);
            continue;
        }
        while steps < 300 && tree.complicate() {
            steps += 1;
            if let Some(diff) = fails(&tree.current()) {
                smallest = (tree.current(), diff);
                break;
            }
        }
    }
    panic!(
        "a generated program compiles differently (seed {}, shrunk in {steps} steps):\n{}\n--- program:\n{}",
        hex(&seed),
        smallest.1,
        smallest.0
    );
}

/// A fresh seed for this run (printed, and given back with `EXPRESS_DIFF_SEED`): the clock
/// and the process id, spread by splitmix64.
fn rand_seed() -> [u8; 32] {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    let mut state = nanos ^ (u64::from(std::process::id()) << 32);
    let mut seed = [0u8; 32];
    for chunk in seed.chunks_mut(8) {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        chunk.copy_from_slice(&(z ^ (z >> 31)).to_le_bytes());
    }
    seed
}

fn seed_from(hex: &str) -> [u8; 32] {
    let mut seed = [0u8; 32];
    for (i, byte) in seed.iter_mut().enumerate() {
        *byte = hex
            .get(2 * i..2 * i + 2)
            .and_then(|h| u8::from_str_radix(h, 16).ok())
            .unwrap_or(0);
    }
    seed
}

fn hex(seed: &[u8; 32]) -> String {
    seed.iter().map(|b| format!("{b:02x}")).collect()
}
