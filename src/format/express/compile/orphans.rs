//! Components a block defines but never places: listed after the one written before them.
//!
//! Small models write a surface top-down and sometimes forget to name a component where it
//! goes. Qwen2.5-Coder-1.5B, asked for a welcome card with a logout button, wrote
//! `content = Column([title, details])`, then `title`, `details`, and last
//! `logout_button = Button(..)`, which nothing refers to. The validator refuses the block
//! (the button is not reachable from the root), and repair turns write it the same way
//! again. What the model meant is the order it wrote: a component nothing refers to,
//! written right after one that is an item of a list of children, is the next item of that
//! list. Several in a row follow one another.
//!
//! Only in a surface's part of the block that defines `root` and does not say
//! `update=true` (a block that updates some components of a surface the client already
//! holds may define components the surface's earlier ones place, even when it also
//! redefines the root), only for calls of catalog components (values such as `Event`s,
//! maps or templates are substituted where they are used, so an unused one is harmless),
//! and never when listing the component would make it its own ancestor. Any other
//! unreferenced component stays where it is, and the validator says so.

use std::borrow::Cow;
use std::collections::HashSet;

use super::super::tree::{Expr, ExprKind, Statement};
use super::SURFACE_ARGS;
use super::component::explicit_id;
use super::names::{each_name, per_scope};
use super::schema::keyword_args;
use crate::a2ui::Catalog;

/// `statements` with each unplaced component listed after the component written before it,
/// where that one is an item of a list of children.
pub(crate) fn place<'s>(statements: &'s [Statement], catalogs: &[Catalog]) -> Cow<'s, [Statement]> {
    let is_component = |name: &str| catalogs.iter().any(|catalog| catalog.has_component(name));
    per_scope(statements, |scope| place_in_scope(scope, &is_component))
}

/// The scope with its unplaced components listed, or `None` when there is nothing to list.
fn place_in_scope(
    scope: &[Statement],
    is_component: &impl Fn(&str) -> bool,
) -> Option<Vec<Statement>> {
    if updates(scope)
        || !scope
            .iter()
            .filter_map(assigned)
            .any(|(name, _)| name == "root")
    {
        return None;
    }
    // Every name the scope uses, and every string it holds: a component whose id is set
    // (`id="overview-col"`) may be referred to by that id in a string
    // (`Tabs([{child: "overview-col", ..}])`).
    let mut referenced: HashSet<&str> = HashSet::new();
    for statement in scope {
        statement.each_value(|expr| {
            each_name(expr, &mut |name| {
                referenced.insert(name);
            });
            each_string(expr, &mut |text| {
                referenced.insert(text);
            });
        });
    }
    // Each component assignment, in order, and whether nothing refers to it.
    let components: Vec<(&str, bool)> = scope
        .iter()
        .filter_map(assigned)
        .filter_map(|(name, value)| match &value.kind {
            ExprKind::Call(call) if is_component(&call.name) => {
                // A bad `id=` is reported where the component compiles, and such a
                // component stays where it is, so that error is the one the block reads.
                let unplaced = name != "root"
                    && !referenced.contains(name)
                    && explicit_id(call)
                        .is_ok_and(|id| id.is_none_or(|id| !referenced.contains(id.as_str())));
                Some((name, unplaced))
            }
            _ => None,
        })
        .collect();
    if !components.iter().any(|(_, unplaced)| *unplaced) {
        return None;
    }
    let mut out = scope.to_vec();
    let mut placed = false;
    for pair in components.windows(2) {
        let [(before, _), (name, true)] = pair else {
            continue;
        };
        if let Some((owner, owner_name)) = list_holding(&out, before)
            && !reaches(&out, name, &owner_name)
            && let Statement::Assign { value, .. } = &mut out[owner]
        {
            placed |= insert_after(value, before, name);
        }
    }
    placed.then_some(out)
}

/// Calls `f` on every string literal of `expr` but an event's name (`Event("logout")` names
/// no component).
fn each_string<'e>(expr: &'e Expr, f: &mut impl FnMut(&'e str)) {
    match &expr.kind {
        ExprKind::Str(text) => f(text),
        ExprKind::Call(call) if call.name == "Event" => {
            for arg in call.args.iter().skip(1) {
                each_string(&arg.value, f);
            }
        }
        _ => expr.each_child(|child, _| each_string(child, f)),
    }
}

/// Whether the scope's `surface(..)` line says `update=true` (by name or by place), or does
/// not read (its error is reported where it compiles, and nothing is moved meanwhile).
fn updates(scope: &[Statement]) -> bool {
    scope.iter().any(|statement| match statement {
        Statement::Call(call) if call.name == "surface" => keyword_args(call, &SURFACE_ARGS)
            .map_or(true, |args| {
                matches!(args[3].map(|arg| &arg.kind), Some(ExprKind::Bool(true)))
            }),
        _ => false,
    })
}

/// The name and value of an assignment.
fn assigned(statement: &Statement) -> Option<(&str, &Expr)> {
    match statement {
        Statement::Assign { name, value } => Some((name.as_str(), value)),
        _ => None,
    }
}

/// The assignment (its index and name) whose value holds `name` as an item of a list.
fn list_holding(statements: &[Statement], name: &str) -> Option<(usize, String)> {
    statements
        .iter()
        .enumerate()
        .find_map(|(at, statement)| match statement {
            Statement::Assign { name: owner, value } if holds_in_list(value, name) => {
                Some((at, owner.clone()))
            }
            _ => None,
        })
}

fn holds_in_list(expr: &Expr, name: &str) -> bool {
    let mut holds = false;
    expr.each_child(|child, in_list| {
        holds = holds || (in_list && child.is_name(name)) || holds_in_list(child, name);
    });
    holds
}

/// Puts `name` right after the first list item `before` in `expr`.
fn insert_after(expr: &mut Expr, before: &str, name: &str) -> bool {
    let at = expr.at;
    if let ExprKind::Array(items) = &mut expr.kind
        && let Some(i) = items.iter().position(|item| item.is_name(before))
    {
        items.insert(
            i + 1,
            Expr {
                at,
                kind: ExprKind::Name(name.to_owned()),
            },
        );
        return true;
    }
    let mut done = false;
    expr.each_child_mut(|child, _| done = done || insert_after(child, before, name));
    done
}

/// Whether the component `from` refers, through the scope's assignments, to `to` (or is
/// it).
fn reaches(statements: &[Statement], from: &str, to: &str) -> bool {
    let mut seen: HashSet<String> = HashSet::new();
    let mut queue = vec![from.to_owned()];
    while let Some(name) = queue.pop() {
        if name == to {
            return true;
        }
        if !seen.insert(name.clone()) {
            continue;
        }
        for statement in statements {
            if let Statement::Assign { name: n, value } = statement
                && *n == name
            {
                each_name(value, &mut |next| queue.push(next.to_owned()));
            }
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use crate::a2ui::{Catalog, ProtocolVersion};
    use crate::format::express::{Express, Redefined};

    /// The children of `id` in the messages `block` compiles to, or its error.
    fn children(block: &str, id: &str, redefined: Redefined) -> Result<Vec<String>, String> {
        let v = ProtocolVersion::V0_9;
        let express = Express::bound(v, vec![Catalog::basic(v)])
            .unwrap()
            .redefined_names(redefined);
        let messages = express.compile(block).map_err(|e| e.to_string())?;
        let component = messages
            .iter()
            .filter_map(|m| m["updateComponents"]["components"].as_array())
            .flatten()
            .find(|c| c["id"] == id)
            .cloned()
            .unwrap_or(Value::Null);
        Ok(component["children"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|c| c.as_str().unwrap_or("?").to_owned())
            .collect())
    }

    const WELCOME: &str = "root = Card(content)\ncontent = Column([title, details])\n\
        title = Text(\"Welcome\")\ndetails = Text(\"Logged in\")\n\
        logout = Button(Text(\"Log out\"), action=Event(\"logout\"))\n\
        help = Button(Text(\"Help\"), action=Event(\"help\"))";

    #[test]
    fn components_written_after_a_listed_one_and_placed_nowhere_follow_it() {
        assert_eq!(
            children(WELCOME, "content", Redefined::Separate).unwrap(),
            ["title", "details", "logout", "help"]
        );
        // The official reading leaves them out, and the validator refuses the block.
        let refused = children(WELCOME, "content", Redefined::Replace).unwrap_err();
        assert!(refused.contains("not reachable"), "{refused}");
    }

    #[test]
    fn only_components_of_a_surface_with_a_root_after_a_listed_one_move() {
        // No root: an update of a surface the client holds, whose components may place it.
        let update = "surface(\"s\", update=true)\ndetails = Text(\"x\")\nrow = Row([details])\n\
                      extra = Text(\"y\")";
        assert_eq!(
            children(update, "row", Redefined::Separate).unwrap(),
            ["details"]
        );
        // An update that also redefines the root: the held components may place `extra`.
        let update = "surface(\"s\", update=true)\nroot = Row([title])\ntitle = Text(\"x\")\n\
                      extra = Text(\"y\")";
        assert_eq!(
            children(update, "root", Redefined::Separate).unwrap(),
            ["title"]
        );
        // The same, `update` given by place.
        let by_place = update.replace("update=true", "_, false, true");
        assert_eq!(
            children(&by_place, "root", Redefined::Separate).unwrap(),
            ["title"]
        );
        // The one before is no item of a list: nothing says where it goes.
        let after_root = "root = Card(body)\nbody = Text(\"x\")\nextra = Text(\"y\")";
        assert!(
            children(after_root, "root", Redefined::Separate)
                .unwrap_err()
                .contains("not reachable")
        );
        // A value is substituted where it is used; an unused one is no component.
        let value = "root = Column([a])\na = Text(\"x\")\nsend = Event(\"send\")";
        assert_eq!(children(value, "root", Redefined::Separate).unwrap(), ["a"]);
    }

    #[test]
    fn a_component_is_never_listed_inside_itself() {
        // `outer` holds the list `a` is in: listing `outer` after `a` would be a cycle.
        let block = "root = Column([head, list])\nhead = Text(\"x\")\nlist = Column([a])\n\
                     a = Text(\"a\")\nouter = Card(list)";
        let refused = children(block, "list", Redefined::Separate).unwrap_err();
        assert!(refused.contains("'outer' is not reachable"), "{refused}");
    }
}
