//! A definition named `owner.part`: what `part` means inside `owner`.
//!
//! Qwen2.5-Coder-1.5B, asked for a shopping cart, wrote each item the way code sets an
//! object's field: `item1 = Card(content)`, then `item1.content = Column([item1_name, ..])`.
//! The notation has no such names, so the block could not be read, and repair turns wrote it
//! the same way again. What the model meant is plain: `content` in `item1`'s definition is
//! the component defined as `item1.content`. So such a definition gets a name of its own
//! (`item1_content`, or `item1_content_2` when that one is taken), and the reference to
//! `part` in `owner`'s definition (the last one before it, else the first after it) is made
//! a reference to it. A `part` the owner does not mention leaves the component unplaced,
//! where the orphan pass or the validator finds it.
//!
//! The official reading has no dotted names: under it, one is refused as unreadable.

use std::borrow::Cow;
use std::collections::HashSet;

use super::super::tree::{Expr, ExprKind, Statement};
use super::error::CompileError;
use super::names::per_scope;

/// `statements` with each dotted definition named apart and referred to by its owner.
pub(crate) fn read(statements: &[Statement]) -> Cow<'_, [Statement]> {
    per_scope(statements, read_scope)
}

/// The first dotted definition, refused as the official reading refuses it.
pub(crate) fn refuse(statements: &[Statement]) -> Result<(), CompileError> {
    match statements.iter().find_map(dotted) {
        None => Ok(()),
        Some((name, value)) => Err(CompileError {
            syntax: true,
            message: format!("cannot read a statement at '{name}': a name is one word"),
            at: value.at,
        }),
    }
}

fn dotted(statement: &Statement) -> Option<(&str, &Expr)> {
    match statement {
        Statement::Assign { name, value } if name.contains('.') => Some((name, value)),
        _ => None,
    }
}

fn read_scope(scope: &[Statement]) -> Option<Vec<Statement>> {
    scope.iter().find_map(dotted)?;
    let mut taken: HashSet<String> = scope
        .iter()
        .filter_map(|statement| match statement {
            Statement::Assign { name, .. } => Some(name.clone()),
            _ => None,
        })
        .collect();
    let mut out = scope.to_vec();
    for at in 0..out.len() {
        let Some((owner, part)) = dotted(&out[at])
            .and_then(|(name, _)| name.split_once('.'))
            .map(|(owner, part)| (owner.to_owned(), part.to_owned()))
        else {
            continue;
        };
        let mut fresh = format!("{owner}_{part}");
        for n in 2.. {
            if !taken.contains(&fresh) {
                break;
            }
            fresh = format!("{owner}_{part}_{n}");
        }
        taken.insert(fresh.clone());
        let is_owner =
            |s: &Statement| matches!(s, Statement::Assign { name, .. } if *name == owner);
        let owner_at = (0..at)
            .rev()
            .find(|&j| is_owner(&out[j]))
            .or_else(|| (at + 1..out.len()).find(|&j| is_owner(&out[j])));
        if let Some(Statement::Assign { value, .. }) = owner_at.and_then(|j| out.get_mut(j)) {
            rename(value, &part, &fresh);
        }
        if let Some(Statement::Assign { name, .. }) = out.get_mut(at) {
            *name = fresh;
        }
    }
    Some(out)
}

/// `expr` with each reference to `from` made one to `to`.
fn rename(expr: &mut Expr, from: &str, to: &str) {
    if expr.is_name(from) {
        expr.kind = ExprKind::Name(to.to_owned());
        return;
    }
    expr.each_child_mut(|child, _| rename(child, from, to));
}

#[cfg(test)]
mod tests {
    use crate::a2ui::{Catalog, ProtocolVersion};
    use crate::format::express::{Express, Redefined};

    fn express() -> Express {
        let v = ProtocolVersion::V0_9;
        Express::bound(v, vec![Catalog::basic(v)]).unwrap()
    }

    const CART: &str = r#"root = Card(content)
content = Column([title, item1, item2])
title = Text("Cart")
item1 = Card(content)
item1.content = Column([item1_name])
item1_name = Text("Apples")
item2 = Card(content)
item2.content = Text("Bread")"#;

    #[test]
    fn a_dotted_definition_is_what_its_owner_means_by_the_part() {
        let messages = express().compile(CART).unwrap();
        let components = messages[1]["updateComponents"]["components"]
            .as_array()
            .unwrap();
        let find = |id: &str| components.iter().find(|c| c["id"] == id).unwrap();
        assert_eq!(find("root")["child"], "content");
        assert_eq!(find("item1")["child"], "item1_content");
        assert_eq!(
            find("item1_content")["children"],
            serde_json::json!(["item1_name"])
        );
        assert_eq!(find("item2")["child"], "item2_content");
        assert_eq!(find("item2_content")["text"], "Bread");
    }

    #[test]
    fn a_taken_name_is_not_reused_and_the_official_reading_refuses_dots() {
        let source = r#"root = Card(content)
root_content = Text("taken")
root.content = Column([root_content])"#;
        let messages = express().compile(source).unwrap();
        let components = &messages[1]["updateComponents"]["components"];
        assert_eq!(components[0]["child"], "root_content_2", "{components}");
        let official = express().redefined_names(Redefined::Replace).compile(CART);
        let error = official.unwrap_err().to_string();
        assert!(error.contains("'item1.content'"), "{error}");
    }
}
