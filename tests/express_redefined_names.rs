//! Names defined twice in one Express block (`format::express::Redefined`), over generated
//! programs: reading each definition as its own component never panics and always answers
//! messages or an error inside the block, and a block that defines each name once reads the
//! same either way, but for a component placed nowhere, which the official reading leaves
//! unreachable and Separate lists after the one written before it.

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
        if let Some((name, _)) = line.split_once(" = ") {
            if !name.starts_with('$') && !seen.insert(name.trim()) {
                return true;
            }
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
            // The same, or a component Replace leaves unplaced (so its reading is refused)
            // listed by Separate.
            let replaced = express(Redefined::Replace).compile(&program);
            let unreachable = matches!(&replaced, Err(ExpressError::Invalid(errors))
                if errors.iter().any(|e| e.to_string().contains("not reachable")));
            let (separate, replace) = (outcome(separate), outcome(replaced));
            prop_assert!(
                separate == replace || unreachable,
                "{}\nseparate: {}\nreplace: {}",
                program,
                separate,
                replace
            );
        }
    }
}
