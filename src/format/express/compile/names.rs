//! Names defined again in one block: each definition its own component.
//!
//! The prompt asks for one name per component, and small models write a block the way they
//! write code, reusing a name for each card's parts. Qwen2.5-Coder-1.5B, asked for three
//! restaurant cards, wrote `root = Card(content)`, `content = Column([baan_thai, ...])`, then
//! for each card `baan_thai = Card(content)`, `content = Column([title, rating, details])`,
//! `title = Text("Baan Thai", "h2")` and so on. The official compiler keeps the last
//! definition of a name ([`Redefined::Replace`]): the first two cards lose their children,
//! and the block fails as unreachable components. Read as the model meant it
//! ([`Redefined::Separate`], the default), each definition after the first is a component of
//! its own (`content_2`, `title_3`, …), and each reference means one of them:
//!
//! - In a block written top-down (most references come before what they name, as in the
//!   example), a reference means the next definition of its name, or the last one before it
//!   when none follows; written bottom-up, the last definition at or before it, or the first
//!   after it.
//! - A definition no reference means goes where the one before it is used, when that is a
//!   list of children: `content = List([product, price])` followed by three `product` and
//!   three `price` definitions lists all six, in the order written.
//! - Otherwise it replaces the one before it, as the official compiler would have it (and a
//!   first definition nothing means gives way to a later one that is used).
//!
//! A block that defines each name once is read unchanged (and without a copy).

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

use super::super::tree::{Expr, ExprKind, Statement};

/// How a block that defines a name more than once is read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Redefined {
    /// Each definition is a component of its own (see the module docs of `names`), a
    /// component nothing refers to is listed after the one written before it, where that
    /// is an item of a list of children (module `orphans`), a name the block defines called
    /// without arguments (`PlusButton()`) is that name (module `called`), a definition
    /// named `item1.content` is what `content` means in `item1` (module `dotted`), and an `Event`
    /// written where the next positional argument takes no action is the component's
    /// action (one written where the property named takes none is refused there, rather
    /// than by the validator): the block read as the model meant it.
    #[default]
    Separate,
    /// The last definition replaces the earlier ones, in the first one's place, a component
    /// nothing refers to stays unplaced, and every positional argument takes the next
    /// property (the official compiler's reading).
    Replace,
}

/// `statements` with every name defined again in one surface's part of the block made
/// separate, as [`Redefined::Separate`] reads them.
pub(crate) fn separate(statements: &[Statement]) -> Cow<'_, [Statement]> {
    per_scope(statements, separate_scope)
}

/// `statements` with each surface's part replaced by what `rewrite` makes of it (`None`:
/// kept as it is), copied only when some part changes.
pub(super) fn per_scope<'s>(
    statements: &'s [Statement],
    mut rewrite: impl FnMut(&[Statement]) -> Option<Vec<Statement>>,
) -> Cow<'s, [Statement]> {
    let mut out: Option<Vec<Statement>> = None;
    let mut start = 0;
    for end in scope_ends(statements) {
        if let Some(scope) = rewrite(&statements[start..end]) {
            let out = out.get_or_insert_with(|| statements[..start].to_vec());
            out.extend(scope);
        } else if let Some(out) = out.as_mut() {
            out.extend_from_slice(&statements[start..end]);
        }
        start = end;
    }
    match out {
        Some(out) => Cow::Owned(out),
        None => Cow::Borrowed(statements),
    }
}

/// Where each surface's statements end: before every `surface(..)` line, and at the end.
fn scope_ends(statements: &[Statement]) -> Vec<usize> {
    let mut ends: Vec<usize> = statements
        .iter()
        .enumerate()
        .skip(1)
        .filter(|(_, s)| matches!(s, Statement::Call(call) if call.name == "surface"))
        .map(|(at, _)| at)
        .collect();
    ends.push(statements.len());
    ends
}

/// One definition of a redefined name, as the block will read it.
struct Definition {
    /// Its statement's index in the scope.
    at: usize,
    /// The name it goes by (the first keeps the name written).
    name: String,
    /// Some reference means it.
    used: bool,
    /// Some reference that means it is an item of a list.
    listed: bool,
    /// Left out: a later definition replaced it.
    dropped: bool,
}

/// The scope's statements made separate, or `None` when no name is defined twice.
fn separate_scope(scope: &[Statement]) -> Option<Vec<Statement>> {
    let mut defined: HashMap<&str, Vec<usize>> = HashMap::new();
    for (at, statement) in scope.iter().enumerate() {
        if let Statement::Assign { name, .. } = statement {
            defined.entry(name.as_str()).or_default().push(at);
        }
    }
    if defined.values().all(|at| at.len() < 2) {
        return None;
    }
    let top_down = is_top_down(scope, &defined);
    let mut definitions = redefinitions(&defined);

    // Each reference to a redefined name means one definition of it.
    let mut out: Vec<Statement> = scope.to_vec();
    for (at, statement) in out.iter_mut().enumerate() {
        statement.each_value_mut(|value| bind(value, at, top_down, &mut definitions));
    }

    let appended = settle_unused(&mut definitions);
    Some(rename_and_drop(out, &definitions, &appended))
}

/// Each name defined more than once, with its definitions: the first keeps the name, each
/// later one gets a fresh `name_N` no other name takes.
fn redefinitions(defined: &HashMap<&str, Vec<usize>>) -> HashMap<String, Vec<Definition>> {
    let mut taken: HashSet<String> = defined.keys().map(|name| (*name).to_owned()).collect();
    let mut definitions: HashMap<String, Vec<Definition>> = HashMap::new();
    for (name, at) in defined.iter().filter(|(_, at)| at.len() > 1) {
        let mut fresh = 2;
        let list = at
            .iter()
            .enumerate()
            .map(|(i, &at)| {
                let name = if i == 0 {
                    (*name).to_owned()
                } else {
                    fresh_name(name, &mut fresh, &mut taken)
                };
                Definition {
                    at,
                    name,
                    used: false,
                    listed: false,
                    dropped: false,
                }
            })
            .collect();
        definitions.insert((*name).to_owned(), list);
    }
    definitions
}

/// The first `name_N` from `fresh` on that is not taken, taking it.
fn fresh_name(name: &str, fresh: &mut usize, taken: &mut HashSet<String>) -> String {
    loop {
        let candidate = format!("{name}_{fresh}");
        *fresh += 1;
        if taken.insert(candidate.clone()) {
            return candidate;
        }
    }
}

/// Settles the definitions no reference means: each is listed beside the one before it
/// (returned, by that one's name) or replaces it; and a first definition no reference means
/// is replaced by a later one that is used.
fn settle_unused(
    definitions: &mut HashMap<String, Vec<Definition>>,
) -> HashMap<String, Vec<(usize, String)>> {
    let mut appended: HashMap<String, Vec<(usize, String)>> = HashMap::new();
    for list in definitions.values_mut() {
        for i in 1..list.len() {
            if list[i].used {
                continue;
            }
            let Some(before) = (0..i).rev().find(|&j| !list[j].dropped) else {
                continue;
            };
            if list[before].listed {
                let next = (list[i].at, list[i].name.clone());
                appended
                    .entry(list[before].name.clone())
                    .or_default()
                    .push(next);
                list[i].listed = true;
            } else {
                list[i].name = list[before].name.clone();
                list[i].used = list[before].used;
                list[before].dropped = true;
            }
        }
    }
    for list in definitions.values_mut() {
        if !list[0].used && list[1..].iter().any(|d| d.used && !d.dropped) {
            list[0].dropped = true;
        }
    }
    appended
}

/// The statements with each definition under its new name, the definitions listed beside
/// another appended to it, and the dropped definitions left out.
fn rename_and_drop(
    mut out: Vec<Statement>,
    definitions: &HashMap<String, Vec<Definition>>,
    appended: &HashMap<String, Vec<(usize, String)>>,
) -> Vec<Statement> {
    let dropped: HashSet<usize> = definitions
        .values()
        .flatten()
        .filter(|definition| definition.dropped)
        .map(|definition| definition.at)
        .collect();
    for (at, statement) in out.iter_mut().enumerate() {
        if let Statement::Assign { name, value } = statement {
            if let Some(new) = definitions
                .get(name.as_str())
                .and_then(|list| list.iter().find(|definition| definition.at == at))
            {
                *name = new.name.clone();
            }
            append(value, appended);
        }
    }
    out.into_iter()
        .enumerate()
        .filter(|(at, _)| !dropped.contains(at))
        .map(|(_, statement)| statement)
        .collect()
}

/// Whether most references to names defined once come before their definition.
fn is_top_down(scope: &[Statement], defined: &HashMap<&str, Vec<usize>>) -> bool {
    let (mut forward, mut backward) = (0usize, 0usize);
    for (at, statement) in scope.iter().enumerate() {
        let Statement::Assign { value, .. } = statement else {
            continue;
        };
        each_name(value, &mut |name| {
            if let Some([defined_at]) = defined.get(name).map(Vec::as_slice) {
                if *defined_at > at {
                    forward += 1;
                } else if *defined_at < at {
                    backward += 1;
                }
            }
        });
    }
    forward >= backward
}

/// Calls `f` on every name `expr` refers to.
pub(super) fn each_name<'e>(expr: &'e Expr, f: &mut impl FnMut(&'e str)) {
    if let ExprKind::Name(name) = &expr.kind {
        f(name);
    }
    expr.each_child(|child, _| each_name(child, f));
}

/// Calls `f` on every expression of `expr`, each after the ones inside it, saying whether it
/// is an item of a list.
fn walk(expr: &mut Expr, in_list: bool, f: &mut impl FnMut(&mut Expr, bool)) {
    expr.each_child_mut(|child, in_list| walk(child, in_list, f));
    f(expr, in_list);
}

/// Points the references in `expr` (in the statement at `at`) at the definitions they mean.
fn bind(
    expr: &mut Expr,
    at: usize,
    top_down: bool,
    definitions: &mut HashMap<String, Vec<Definition>>,
) {
    walk(expr, false, &mut |expr, in_list| {
        let ExprKind::Name(name) = &mut expr.kind else {
            return;
        };
        let Some(list) = definitions.get_mut(name.as_str()) else {
            return;
        };
        let after = list.iter().position(|definition| definition.at > at);
        let before = list.iter().rposition(|definition| definition.at <= at);
        let meant = if top_down {
            after.or(before)
        } else {
            before.or(after)
        };
        if let Some(meant) = meant {
            let definition = &mut list[meant];
            definition.used = true;
            definition.listed |= in_list;
            name.clone_from(&definition.name);
        }
    });
}

/// Adds to every list of `expr` that names a definition in `appended` the definitions
/// listed beside it (and beside those), in the order written.
fn append(expr: &mut Expr, appended: &HashMap<String, Vec<(usize, String)>>) {
    walk(expr, false, &mut |expr, _| {
        let at = expr.at;
        let ExprKind::Array(items) = &mut expr.kind else {
            return;
        };
        let mut more: Vec<(usize, String)> = Vec::new();
        let mut queue: Vec<String> = items
            .iter()
            .filter_map(|item| match &item.kind {
                ExprKind::Name(name) => Some(name.clone()),
                _ => None,
            })
            .collect();
        while let Some(name) = queue.pop() {
            for (at, next) in appended.get(&name).into_iter().flatten() {
                if !more.iter().any(|(_, seen)| seen == next) {
                    more.push((*at, next.clone()));
                    queue.push(next.clone());
                }
            }
        }
        more.sort();
        items.extend(more.into_iter().map(|(_, name)| Expr {
            at,
            kind: ExprKind::Name(name),
        }));
    });
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use crate::a2ui::{Catalog, ProtocolVersion};
    use crate::format::express::{Express, Redefined};

    /// Each component of `block`'s messages as `id: what it shows or holds`.
    fn read(block: &str, redefined: Redefined) -> Vec<String> {
        let v = ProtocolVersion::V0_9;
        let express = Express::bound(v, vec![Catalog::basic(v)])
            .unwrap()
            .redefined_names(redefined);
        let messages = express.compile(block).unwrap();
        messages
            .iter()
            .filter_map(|m| m["updateComponents"]["components"].as_array())
            .flatten()
            .map(|c| {
                let shown = match (&c["text"], &c["child"], &c["children"]) {
                    (Value::String(text), _, _) => text.clone(),
                    (_, Value::String(child), _) => child.clone(),
                    (_, _, Value::Array(children)) => children
                        .iter()
                        .map(|c| c.as_str().unwrap_or("?"))
                        .collect::<Vec<_>>()
                        .join(","),
                    _ => String::new(),
                };
                format!("{}: {shown}", c["id"].as_str().unwrap())
            })
            .collect()
    }

    #[test]
    fn written_top_down_a_reference_means_the_next_definition() {
        let block = "root = Column([a, b])\na = Card(body)\nbody = Text(\"one\")\n\
                     b = Card(body)\nbody = Text(\"two\")";
        assert_eq!(
            read(block, Redefined::Separate),
            [
                "root: a,b",
                "a: body",
                "body: one",
                "b: body_2",
                "body_2: two"
            ]
        );
        // The official reading: both cards show the last.
        assert_eq!(
            read(block, Redefined::Replace),
            ["root: a,b", "a: body", "body: two", "b: body"]
        );
    }

    #[test]
    fn written_bottom_up_a_reference_means_the_last_definition_before_it() {
        let block = "label = Text(\"one\")\na = Card(label)\nlabel = Text(\"two\")\n\
                     b = Card(label)\nroot = Column([a, b])";
        assert_eq!(
            read(block, Redefined::Separate),
            [
                "label: one",
                "a: label",
                "label_2: two",
                "b: label_2",
                "root: a,b"
            ]
        );
    }

    #[test]
    fn an_unused_definition_is_listed_beside_the_one_before_it_or_replaces_it() {
        let listed = "root = List([item, price])\nitem = Text(\"Pen\")\nprice = Text(\"3\")\n\
                      item = Text(\"Bag\")\nprice = Text(\"30\")";
        assert_eq!(
            read(listed, Redefined::Separate),
            [
                "root: item,price,item_2,price_2",
                "item: Pen",
                "price: 3",
                "item_2: Bag",
                "price_2: 30"
            ]
        );
        // Not in a list: the last one replaces the first, as the official compiler reads it.
        let single = "root = Card(title)\ntitle = Text(\"Draft\")\ntitle = Text(\"Final\")";
        assert_eq!(
            read(single, Redefined::Separate),
            read(single, Redefined::Replace)
        );
        assert_eq!(
            read(single, Redefined::Separate),
            ["root: title", "title: Final"]
        );
        // `root` itself, defined twice: the last.
        let roots = "root = Text(\"first\")\nroot = Text(\"second\")";
        assert_eq!(read(roots, Redefined::Separate), ["root: second"]);
        // Defined before and after its only use, top-down: the one after, the first dropped.
        let around = "title = Text(\"Draft\")\nroot = Card(title)\ntitle = Text(\"Final\")";
        assert_eq!(
            read(around, Redefined::Separate),
            ["root: title_2", "title_2: Final"]
        );
    }

    #[test]
    fn each_surface_reads_its_own_names() {
        let block = "surface(\"a\")\nroot = Card(t)\nt = Text(\"A\")\n\
                     surface(\"b\")\nroot = Card(t)\nt = Text(\"B\")";
        assert_eq!(
            read(block, Redefined::Separate),
            read(block, Redefined::Replace)
        );
    }

    #[test]
    fn a_fresh_name_never_takes_one_the_block_uses() {
        let block = "root = Column([a, b, t_2])\na = Card(t)\nt = Text(\"one\")\n\
                     b = Card(t)\nt = Text(\"two\")\nt_2 = Text(\"mine\")";
        assert_eq!(
            read(block, Redefined::Separate),
            [
                "root: a,b,t_2",
                "a: t",
                "t: one",
                "b: t_3",
                "t_3: two",
                "t_2: mine"
            ]
        );
    }
}
