//! A name the block defines, called like a component: `Row([PlusButton(), MinusButton()])`.
//!
//! Qwen2.5-Coder-1.5B, asked for a counter with Plus and Minus buttons, wrote
//! `buttons = Row([PlusButton(), MinusButton()])` and then `PlusButton = Button("+", ..)`:
//! the names it defined, each with a pair of empty parentheses. Read as written,
//! `PlusButton()` is a component no catalog has, and both repair turns wrote the block the
//! same way again. What the model meant is the component it defined: a call without
//! arguments, whose name the same surface's part of the block defines and that names no
//! component or function of a catalog, is a reference to that definition.
//!
//! A call with arguments stays a call (`Header("Hi")` with `Header = Text(..)` defined is
//! no reference the model could have meant), and so does one of a catalog's own names.

use std::borrow::Cow;
use std::collections::HashSet;

use super::super::tree::{Expr, ExprKind, Statement};
use super::names::per_scope;
use crate::a2ui::Catalog;

/// `statements` with each argument-less call of a name the scope defines read as the name.
pub(crate) fn read<'s>(statements: &'s [Statement], catalogs: &[Catalog]) -> Cow<'s, [Statement]> {
    let is_catalogs = |name: &str| {
        matches!(name, "Event" | "_template" | "surface" | "deleteSurface")
            || catalogs.iter().any(|catalog| {
                catalog.has_component(name) || catalog.function_names().any(|f| f == name)
            })
    };
    per_scope(statements, |scope| read_scope(scope, &is_catalogs))
}

/// The scope with its calls of defined names read as names, or `None` when it has none.
fn read_scope(scope: &[Statement], is_catalogs: &impl Fn(&str) -> bool) -> Option<Vec<Statement>> {
    let defined: HashSet<&str> = scope
        .iter()
        .filter_map(|statement| match statement {
            Statement::Assign { name, .. } if !is_catalogs(name) => Some(name.as_str()),
            _ => None,
        })
        .collect();
    let mut calls = false;
    for statement in scope {
        statement.each_value(|value| calls = calls || holds_call(value, &defined));
    }
    if !calls {
        return None;
    }
    let mut out = scope.to_vec();
    for statement in &mut out {
        statement.each_value_mut(|value| rewrite(value, &defined));
    }
    Some(out)
}

/// Whether `expr` is, or holds, an argument-less call of one of `defined`.
fn holds_call(expr: &Expr, defined: &HashSet<&str>) -> bool {
    if is_call_of(expr, defined) {
        return true;
    }
    let mut found = false;
    expr.each_child(|child, _| found = found || holds_call(child, defined));
    found
}

/// `expr` with each argument-less call of one of `defined` made a reference to it.
fn rewrite(expr: &mut Expr, defined: &HashSet<&str>) {
    if is_call_of(expr, defined) {
        if let ExprKind::Call(call) = &mut expr.kind {
            expr.kind = ExprKind::Name(std::mem::take(&mut call.name));
        }
        return;
    }
    expr.each_child_mut(|child, _| rewrite(child, defined));
}

fn is_call_of(expr: &Expr, defined: &HashSet<&str>) -> bool {
    matches!(&expr.kind, ExprKind::Call(call)
        if call.args.is_empty() && defined.contains(call.name.as_str()))
}

#[cfg(test)]
mod tests {
    use crate::a2ui::{Catalog, ProtocolVersion};
    use crate::format::express::{Express, Redefined};

    fn express() -> Express {
        let v = ProtocolVersion::V0_9;
        Express::bound(v, vec![Catalog::basic(v)]).unwrap()
    }

    const COUNTER: &str = r#"root = Column([counter, buttons])
counter = Text("7", "h1")
buttons = Row([PlusButton(), MinusButton()])
PlusButton = Button(Text("+"), "primary", Event("increment"))
MinusButton = Button(Text("-"), "primary", Event("decrement"))"#;

    #[test]
    fn a_defined_name_called_without_arguments_is_that_component() {
        let messages = express().compile(COUNTER).unwrap();
        let components = messages[1]["updateComponents"]["components"]
            .as_array()
            .unwrap();
        let row = components.iter().find(|c| c["id"] == "buttons").unwrap();
        assert_eq!(
            row["children"],
            serde_json::json!(["PlusButton", "MinusButton"])
        );
        let plus = components.iter().find(|c| c["id"] == "PlusButton").unwrap();
        assert_eq!(plus["action"]["event"]["name"], "increment", "{plus}");
        // Listed once: the orphan pass sees the reference.
        assert_eq!(
            components
                .iter()
                .filter(|c| c["id"] == "PlusButton")
                .count(),
            1
        );
    }

    #[test]
    fn the_official_reading_and_calls_with_arguments_stay_calls() {
        let official = express()
            .redefined_names(Redefined::Replace)
            .compile(COUNTER);
        let error = official.unwrap_err().to_string();
        assert!(error.contains("'PlusButton' is not in catalog"), "{error}");
        let with_args = r#"root = Column([Header("Hi")])
Header = Text("Hello")"#;
        let error = express().compile(with_args).unwrap_err().to_string();
        assert!(error.contains("'Header' is not in catalog"), "{error}");
        // A catalog's own component called without arguments is that component.
        let own = express().compile("root = Column([Divider()])").unwrap();
        let divider = &own[1]["updateComponents"]["components"][1];
        assert_eq!(divider["component"], "Divider", "{divider}");
    }
}
