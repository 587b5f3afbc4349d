//! Names defined twice in one Express block (`format::express::Redefined`), over generated
//! programs: reading each definition as its own component never panics and always answers
//! messages or an error inside the block, and a block that defines each name once reads the
//! same either way, but for what the official reading refuses and Separate reads as meant (a
//! component placed nowhere, listed after the one written before it) or refuses sooner (an
//! `Event` where no action goes).

#[path = "interop/express/programs.rs"]
mod programs;

use std::collections::HashSet;

use a2ui_agent::a2ui::{Catalog, ProtocolVersion};
use a2ui_agent::format::express::{Express, ExpressError, Redefined};
use proptest::prelude::*;

fn express(redefined: Redefined) -> Express {
    let v = ProtocolVersion::V0_9;
    Express::bound(v, vec![Catalog::basic(v)])
        .unwrap()
        .redefined_names(redefined)
}

/// Whether some surface's part of `program` assigns a name twice.
fn redefines(program: &str) -> bool {
    let mut seen = HashSet::new();
    for line in program.lines() {
        if line.starts_with("surface(") {
            seen.clear();
        }
        if let Some((name, _)) = line.split_once(" = ")
            && !name.starts_with('$')
            && !seen.insert(name.trim())
        {
            return true;
        }
    }
    false
}

fn outcome(result: Result<Vec<serde_json::Value>, ExpressError>) -> String {
    match result {
        Ok(messages) => serde_json::to_string(&messages).unwrap(),
        Err(e) => format!("error: {e}"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn separate_names_read_every_program_and_change_only_redefinitions(
        program in programs::program()
    ) {
        let separate = express(Redefined::Separate).compile(&program);
        if let Err(ExpressError::Parse(e)) = &separate {
            prop_assert!(e.offset() <= program.len());
        }
        if let Err(ExpressError::Invalid(errors)) = &separate {
            prop_assert!(!errors.is_empty());
        }
        if !redefines(&program) {
            // The same, or Replace's reading refused where Separate reads what was meant
            // (a component Replace leaves unplaced, listed), or both refused, Separate
            // where an Event stands for a property that takes none, before the validator.
            let replaced = express(Redefined::Replace).compile(&program);
            let refused_for = |result: &Result<_, ExpressError>, why: &[&str]| {
                matches!(result, Err(ExpressError::Invalid(errors))
                    if errors.iter().any(|e| why.iter().any(|w| e.to_string().contains(w))))
            };
            let meant = refused_for(&replaced, &["not reachable"]);
            let event = replaced.is_err()
                && matches!(&separate, Err(e) if e.to_string().contains("which takes no Event"));
            let (separate, replace) = (outcome(separate), outcome(replaced));
            prop_assert!(
                separate == replace || meant || event,
                "{}\nseparate: {}\nreplace: {}",
                program,
                separate,
                replace
            );
        }
    }
}
