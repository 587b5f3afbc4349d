//! The Express notation as a grammar a model server can sample under (GBNF).
//!
//! A small model writes Express that does not parse (a backtick, a label without quotes)
//! or that names what the catalog lacks (`Title(..)`, `Slider(.., step=1)`), and a repair
//! turn costs it a minute. llama.cpp's server, and the servers built on xgrammar, can
//! restrict each sampled token to those a grammar allows: the answer then cannot hold such
//! a block. This module writes that grammar for one negotiated catalog set, in GBNF
//! (llama.cpp's notation, which xgrammar also reads).
//!
//! The grammar admits a subset of what [`syntax`](super::syntax) reads, shaped by the
//! catalogs:
//!
//! - text before the block is free, except that `<a` opens a block and a Markdown fence
//!   (```` ``` ````) cannot open at all, so no block escapes the grammar; an answer holds
//!   at most one block (one block holds every surface) and one line of text after it,
//!   and an answer without a block is not blank;
//! - a block is one statement per line: `surface(..)`, `name = Component(..)`, `name =`
//!   an `Event`, a map or a check, `$/absolute/path = value`, `deleteSurface(..)`, as the agent's
//!   allowed message kinds permit;
//! - a component is one of the catalogs', its positional arguments of the kinds its
//!   properties take (a child, a list of children or a template, a string or a binding,
//!   one of an enum's values, an action), then keyword arguments naming only properties
//!   it has and did not get by position, then checks when it is checkable;
//! - names start with a lower-case letter and components with an upper-case one, so a
//!   reference is never read as a component or the reverse.
//!
//! What a grammar cannot say is left to the compiler and the validator: a name used and
//! never defined, one property given twice by keyword, a required property left out.
//!
//! # Example
//!
//! ```
//! use a2ui_agent::a2ui::{Catalog, ProtocolVersion};
//! use a2ui_agent::format::OutputFormat;
//! use a2ui_agent::format::express::Express;
//!
//! let express = Express::bound(ProtocolVersion::V0_9, vec![Catalog::basic(ProtocolVersion::V0_9)])?;
//! let grammar = express.grammar().expect("Express has a grammar once bound");
//! assert!(grammar.starts_with("root ::= "));
//! assert!(grammar.contains("\"Text(\""));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde_json::Value;

use super::compile::schema::{property_schema, signature};
use super::instructions::{allowed_kinds, required_of};
use super::{CLOSE_TAG, OPEN_TAG};
use crate::a2ui::{Catalog, ProtocolVersion};
use crate::generator::grammar::literal;

/// The GBNF grammar of an answer: text and Express blocks for `catalogs` under `version`,
/// with the statements the `allowed` message kinds permit (`None`: all of them).
pub(crate) fn write(
    version: ProtocolVersion,
    catalogs: &[Catalog],
    allowed: Option<&[String]>,
) -> String {
    let kinds = allowed_kinds(version, allowed);
    let mut g = Rules::default();
    answer_rules(&mut g);
    let functions = function_names(catalogs);
    let calls = !functions.is_empty();
    let component_names = component_names(catalogs);
    let components = !component_names.is_empty();
    statement_rules(&mut g, &kinds, components, calls);
    token_rules(&mut g);
    value_rules(&mut g, components, calls);
    if calls {
        function_rules(&mut g, catalogs, &functions);
    }
    argument_rules(&mut g, components, calls);
    component_rules(&mut g, component_names, calls);
    g.finish()
}

/// The answer: text, then at most one block and one line after it.
fn answer_rules(g: &mut Rules) {
    // Text never holds `<a`, so a block opens with the tag, nor a fence, in which a model
    // would write a block the grammar misses. One block holds every surface of the answer;
    // the line after it ends the answer, where Qwen2.5-Coder-1.5B went on to write examples
    // of its own (`### A form to ..`, a block, ..) until `max_tokens`. An answer without a
    // block says something: a blank one, which a model may end at once, answers nobody.
    g.rule("root", "text block after | [ \\t\\n]* word text");
    g.rule("text", r#"([^<`] | "<" [^a<`] | "`" [^`<] | "``" [^`<])*"#);
    g.rule(
        "word",
        r#"[^<` \t\n] | "<" [^a<`] | "`" [^`<] | "``" [^`<]"#,
    );
    g.rule(
        "after",
        r#"("\n" "\n"? ([^<`\n] | "<" [^a<`\n] | "`" [^`<\n] | "``" [^`<\n])*)?"#,
    );
}

/// The block and the statements in it, as the allowed message `kinds` permit.
fn statement_rules(g: &mut Rules, kinds: &[&str], components: bool, calls: bool) {
    let has = |kind: &str| kinds.contains(&kind);
    let mut statements = vec!["define"];
    let defines_components = has("createSurface") || has("updateComponents");
    if defines_components {
        statements.push("surface");
        g.rule("surface", "\"surface(\" str (sep str)? \")\"");
    }
    g.rule(
        "define",
        &format!(
            "name \" = \" ({})",
            one_of(&[
                ("component", components && defines_components),
                ("event | map", true),
                ("check", calls),
            ])
        ),
    );
    if has("updateDataModel") || has("createSurface") {
        statements.push("data");
        g.rule("data", "\"$/\" [a-zA-Z0-9_/]{0,63} \" = \" json");
    }
    if has("deleteSurface") {
        statements.push("delete");
        g.rule("delete", "\"deleteSurface(\" str \")\"");
    }
    if has("callRendererFunction") && calls {
        statements.push("fncall");
    }
    g.rule(
        "block",
        &format!(
            "{} \"\\n\" (statement [ ]? \"\\n\")+ {}",
            literal(OPEN_TAG),
            literal(CLOSE_TAG)
        ),
    );
    g.rule("statement", &statements.join(" | "));
}

/// The tokens: names, keys, paths, strings, numbers and booleans.
fn token_rules(g: &mut Rules) {
    g.rule("ws", "[ \\t\\n]{0,24}");
    g.rule("sep", "\",\" ws");
    g.rule("name", "[a-z] [a-zA-Z0-9_]{0,39}");
    g.rule("key", "[a-zA-Z_] [a-zA-Z0-9_]{0,39} | str");
    g.rule("path", "\"$\" [a-zA-Z0-9_/]{0,63}");
    g.rule("str", r#""\"" ([^"\\\n] | "\\" ["\\nrt])* "\"""#);
    g.rule("rawstr", r#""r\"" [^"\n]* "\"""#);
    g.rule("num", "\"-\"? [0-9]{1,15} (\".\" [0-9]{1,15})?");
    g.rule("bool", "\"true\" | \"false\"");
}

/// Values: data (JSON-like), anything an argument may be, maps and events.
fn value_rules(g: &mut Rules, components: bool, calls: bool) {
    // Calls of functions and checks exist only when some catalog has functions.
    g.rule(
        "json",
        "str | num | bool | \"null\" | \"[\" ws (json (sep json)*)? ws \"]\" | \"{\" ws (key \": \" json (sep key \": \" json)*)? ws \"}\"",
    );
    g.rule(
        "value",
        &one_of(&[
            (
                "str | rawstr | num | bool | \"null\" | path | list | map | event",
                true,
            ),
            ("check | fncall", calls),
            ("template | component", components),
            ("name", true),
        ]),
    );
    g.rule("list", "\"[\" ws (value (sep value)*)? ws \"]\"");
    g.rule(
        "map",
        "\"{\" ws (key \": \" value (sep key \": \" value)*)? ws \"}\"",
    );
    g.rule("event", "\"Event(\" str (sep (map | name))? \")\"");
}

/// The calls of the catalogs' functions and the checks, for catalogs that have functions.
fn function_rules(g: &mut Rules, catalogs: &[Catalog], functions: &[&str]) {
    let names: Vec<String> = functions.iter().map(|f| literal(f)).collect();
    g.rule("fname", &names.join(" | "));
    // A call takes at most as many arguments as the function has parameters; a check
    // may add its message.
    let mut calls = Vec::new();
    for name in functions {
        let most = catalogs
            .iter()
            .map(|c| c.parameter_order(name).len())
            .max()
            .unwrap_or(0);
        let rule = format!("f-{}", rule_name(name));
        g.rule(
            &rule,
            &format!(
                "{} ws {} ws \")\"",
                literal(&format!("{name}(")),
                at_most(most, "value")
            ),
        );
        calls.push(rule);
    }
    g.rule("fncall", &calls.join(" | "));
    g.rule("args", "(value (sep value)*)?");
    g.rule("check", "\"?\" fname (\"(\" ws args ws \")\")?");
}

/// What a component's arguments take: children, templates, actions and dynamic values.
fn argument_rules(g: &mut Rules, components: bool, calls: bool) {
    g.rule(
        "child",
        &one_of(&[("name", true), ("component", components)]),
    );
    g.rule("template", "\"_template(\" path sep child \")\"");
    g.rule(
        "children",
        "\"[\" ws (child (sep child)*)? ws \"]\" | template",
    );
    g.rule(
        "action",
        &one_of(&[("event", true), ("fncall", calls), ("name", true)]),
    );
    g.rule("dstr", &one_of(&[("str | path", true), ("fncall", calls)]));
    g.rule("dnum", &one_of(&[("num | path", true), ("fncall", calls)]));
    g.rule(
        "dbool",
        &one_of(&[("bool | path", true), ("fncall", calls)]),
    );
    g.rule(
        "dstrs",
        &one_of(&[
            ("\"[\" ws (str (sep str)*)? ws \"]\" | path", true),
            ("fncall", calls),
        ]),
    );
}

/// The components: one rule each, with its arguments, and `component` for any of them.
fn component_rules(g: &mut Rules, component_names: Vec<(&Catalog, &str)>, calls: bool) {
    let mut rules = Vec::new();
    for (catalog, name) in component_names {
        let rule = format!("c-{}", rule_name(name));
        component(g, catalog, name, &rule, calls);
        rules.push(rule);
    }
    if !rules.is_empty() {
        g.rule("component", &rules.join(" | "));
    }
}

/// The rules of `component` of `catalog`: `rule ::= "Name(" arguments ")"`.
///
/// With parameters p0..pn-1 in signature order, `rule-aI` follows the first I positional
/// arguments: the next positional one, or keywords (`rule-kI`). Keywords come in signature
/// order, each after the last one given (`rule-tJ` follows keyword J-1), so none is given
/// twice or again after its position; checks end the list when the component is
/// checkable.
fn component(g: &mut Rules, catalog: &Catalog, name: &str, rule: &str, calls: bool) {
    let definition = catalog.schema().get("components").and_then(|c| c.get(name));
    let required = required_of(definition);
    let signature = signature(catalog, name);
    let checks = signature.iter().any(|p| p == "checks") && calls;
    let params: Vec<(String, String, bool)> = signature
        .iter()
        .filter(|p| *p != "checks")
        .map(|p| {
            let kind = kind(g, property_schema(catalog, name, p));
            (p.clone(), kind, required.contains(&p.as_str()))
        })
        .collect();
    let n = params.len();
    g.rule(
        rule,
        &format!("{} ws {rule}-a0 ws \")\"", literal(&format!("{name}("))),
    );
    if checks {
        g.rule(&format!("{rule}-checks"), "check (sep check)*");
    }
    // `rule-kJ`: a keyword for parameter J or a later one, or the checks; `rule-tJ`: what may
    // follow keyword J-1.
    let keywords = |j: usize| -> Vec<String> {
        let mut out: Vec<String> = params[j..]
            .iter()
            .enumerate()
            .map(|(m, (p, kind, _))| {
                format!("{} {kind} {rule}-t{}", literal(&format!("{p}=")), j + m + 1)
            })
            .collect();
        if checks {
            out.push(format!("{rule}-checks"));
        }
        out
    };
    for j in 0..=n {
        let alternatives = keywords(j);
        if alternatives.is_empty() {
            g.rule(&format!("{rule}-t{j}"), "\"\"");
        } else {
            g.rule(&format!("{rule}-k{j}"), &alternatives.join(" | "));
            g.rule(&format!("{rule}-t{j}"), &format!("(sep {rule}-k{j})?"));
        }
    }
    for i in 0..=n {
        let mut next = Vec::new();
        if let Some((_, kind, required)) = params.get(i) {
            let kind = if *required {
                kind.clone()
            } else {
                format!("({kind} | \"_\")")
            };
            next.push(format!("{kind} {rule}-a{}", i + 1));
        }
        if !keywords(i).is_empty() {
            next.push(format!("{rule}-k{i}"));
        }
        let body = match (i, next.is_empty()) {
            (_, true) => "\"\"".to_owned(),
            (0, false) => format!("({})?", next.join(" | ")),
            (_, false) => format!("(sep ({}))?", next.join(" | ")),
        };
        g.rule(&format!("{rule}-a{i}"), &body);
    }
}

/// The rule that says what a property with `schema` takes: a shared one (`child`, `dstr`),
/// an enum's values, or a list of objects with their keys.
fn kind(g: &mut Rules, schema: Option<&Value>) -> String {
    let Some(schema) = schema else {
        return "value".into();
    };
    if let Some(target) = schema.get("$ref").and_then(Value::as_str) {
        return match target.rsplit('/').next().unwrap_or_default() {
            "Child" | "ComponentId" => "child",
            "ChildList" => "children",
            "Action" => "action",
            "DynamicString" => "dstr",
            "DynamicNumber" => "dnum",
            "DynamicBoolean" => "dbool",
            "DynamicStringList" => "dstrs",
            "DataBinding" => "path",
            _ => "value",
        }
        .into();
    }
    if let Some(choices) = schema.get("enum").and_then(Value::as_array) {
        let choices: Vec<String> = choices
            .iter()
            .filter_map(Value::as_str)
            .map(|c| literal(&format!("\"{c}\"")))
            .collect();
        if !choices.is_empty() {
            return format!("({})", choices.join(" | "));
        }
    }
    match schema.get("type").and_then(Value::as_str) {
        Some("string") => "str".into(),
        Some("number" | "integer") => "num".into(),
        Some("boolean") => "bool".into(),
        Some("array") => {
            let items = schema.get("items");
            let item = match items
                .and_then(|i| i.get("properties"))
                .and_then(Value::as_object)
            {
                Some(properties) => {
                    let entries: Vec<String> = properties
                        .iter()
                        .map(|(key, schema)| {
                            let value = kind(g, Some(schema));
                            format!("{} {value}", literal(&format!("{key}: ")))
                        })
                        .collect();
                    let entry = g.shared(&format!("({})", entries.join(" | ")));
                    format!("\"{{\" ws {entry} (sep {entry})* ws \"}}\"")
                }
                None => kind(g, items),
            };
            format!("\"[\" ws ({item} (sep {item})*)? ws \"]\"")
        }
        _ => "value".into(),
    }
}

/// At most `n` of `item`, separated: `(item (sep item)?)?` for 2.
fn at_most(n: usize, item: &str) -> String {
    let mut out = String::new();
    for i in 0..n {
        out.push_str(if i == 0 { "(" } else { " (sep " });
        out.push_str(item);
    }
    out.push_str(&")?".repeat(n));
    if n == 0 { "\"\"".to_owned() } else { out }
}

/// `alternatives` whose flag is set, joined by `|`.
fn one_of(alternatives: &[(&str, bool)]) -> String {
    let chosen: Vec<&str> = alternatives
        .iter()
        .filter(|(_, on)| *on)
        .map(|(body, _)| *body)
        .collect();
    chosen.join(" | ")
}

/// Each component of the catalogs with the catalog that declares it, the first catalog's
/// where two declare one name; only those a call can name.
fn component_names(catalogs: &[Catalog]) -> Vec<(&Catalog, &str)> {
    let mut out: Vec<(&Catalog, &str)> = Vec::new();
    for catalog in catalogs {
        for name in catalog.component_names() {
            if is_component_name(name) && !out.iter().any(|(_, n)| *n == name) {
                out.push((catalog, name));
            }
        }
    }
    out
}

/// The functions of every catalog, once each, in order.
fn function_names(catalogs: &[Catalog]) -> Vec<&str> {
    let mut names: Vec<&str> = Vec::new();
    for catalog in catalogs {
        for name in catalog.function_names() {
            if !names.contains(&name) && name.starts_with(|c: char| c.is_ascii_lowercase()) {
                names.push(name);
            }
        }
    }
    names
}

/// Whether a catalog's component can be written as a call: an upper-case letter, then
/// letters and digits (a name the grammar keeps apart from references).
fn is_component_name(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_uppercase())
        && name.chars().all(|c| c.is_ascii_alphanumeric())
}

/// `name` as a GBNF rule name (letters, digits and `-`).
fn rule_name(name: &str) -> String {
    name.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

/// The rules, in the order they were first given; a body given twice as a shared rule is
/// one rule.
#[derive(Default)]
struct Rules {
    rules: Vec<(String, String)>,
    shared: BTreeMap<String, String>,
}

impl Rules {
    fn rule(&mut self, name: &str, body: &str) {
        self.rules.push((name.to_owned(), body.to_owned()));
    }

    /// A rule for `body`, named by the order shared bodies came in; the same body gives the
    /// same rule.
    fn shared(&mut self, body: &str) -> String {
        if let Some(name) = self.shared.get(body) {
            return name.clone();
        }
        let name = format!("s{}", self.shared.len());
        self.shared.insert(body.to_owned(), name.clone());
        self.rule(&name, body);
        name
    }

    fn finish(self) -> String {
        let mut out = String::new();
        for (name, body) in self.rules {
            let _ = writeln!(out, "{name} ::= {body}");
        }
        out
    }
}

#[cfg(test)]
mod gbnf;
#[cfg(test)]
mod stream_tests;
#[cfg(test)]
mod tests;
