//! Our catalogs are our own text, but what a renderer relies on is not ours to change: each
//! version's catalog declares exactly the official component and function names, and for
//! each one the same property names, types, enums, constants, references and required
//! sets. Descriptions differ by design.
//!
//! v1.0 follows the conformance suites, which key function calls `@call` and data bindings
//! `@path` where the `reference/a2ui/v1_0` snapshot says `call` and `path` (a child-list
//! template keeps `path`); the comparison maps those names, so it still pins every other
//! fact.

mod shared_reference;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde_json::Value;

fn load(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn ours(file: &str) -> Value {
    load(
        &Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("catalogs")
            .join(file),
    )
}

/// The v1.0 drafts' renames, applied to the official snapshot.
fn rename(name: &str) -> String {
    match name {
        "call" => "@call".into(),
        "path" => "@path".into(),
        other => other.into(),
    }
}

/// Every interop fact of `schema`, as `path keyword value` lines.
fn facts(schema: &Value, path: &str, at_names: bool, out: &mut BTreeSet<String>) {
    let Some(map) = schema.as_object() else {
        if let Some(b) = schema.as_bool() {
            out.insert(format!("{path} schema {b}"));
        }
        return;
    };
    let name = |n: &str| if at_names { rename(n) } else { n.to_owned() };
    for keyword in [
        "type", "enum", "const", "format", "pattern", "minItems", "maxItems",
    ] {
        if let Some(value) = map.get(keyword) {
            out.insert(format!("{path} {keyword} {value}"));
        }
    }
    if let Some(required) = map.get("required").and_then(Value::as_array) {
        let mut names: Vec<String> = required.iter().map(|r| name(r.as_str().unwrap())).collect();
        names.sort();
        out.insert(format!("{path} required {names:?}"));
    }
    if let Some(reference) = map.get("$ref").and_then(Value::as_str) {
        let target = reference.rsplit('/').next().unwrap();
        out.insert(format!("{path} ref {target}"));
    }
    for keyword in ["additionalProperties", "unevaluatedProperties"] {
        match map.get(keyword) {
            Some(Value::Bool(b)) => {
                out.insert(format!("{path} {keyword} {b}"));
            }
            Some(other) => facts(other, &format!("{path}/*"), at_names, out),
            None => {}
        }
    }
    if let Some(properties) = map.get("properties").and_then(Value::as_object) {
        for (key, sub) in properties {
            facts(sub, &format!("{path}/{}", name(key)), at_names, out);
        }
    }
    if let Some(items) = map.get("items") {
        facts(items, &format!("{path}[]"), at_names, out);
    }
    for keyword in ["allOf", "oneOf", "anyOf"] {
        for sub in map
            .get(keyword)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            facts(sub, path, at_names, out);
        }
    }
    for keyword in ["not", "if", "then", "else"] {
        if let Some(sub) = map.get(keyword) {
            facts(sub, &format!("{path}!{keyword}"), at_names, out);
        }
    }
}

/// Facts per entry of the object at `pointer`, renaming official names when `at_names`.
fn entries(document: &Value, pointer: &str, at_names: bool) -> BTreeMap<String, BTreeSet<String>> {
    let mut out = BTreeMap::new();
    for (name, schema) in document
        .pointer(pointer)
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        let mut set = BTreeSet::new();
        // A child-list template keeps `path` in the suites too.
        facts(schema, "", at_names && name != "ChildList", &mut set);
        out.insert(name.clone(), set);
    }
    out
}

fn assert_same(
    what: &str,
    ours: BTreeMap<String, BTreeSet<String>>,
    official: BTreeMap<String, BTreeSet<String>>,
) {
    assert!(!official.is_empty(), "{what}: nothing to compare");
    assert_eq!(
        ours.keys().collect::<Vec<_>>(),
        official.keys().collect::<Vec<_>>(),
        "{what}: names"
    );
    let mut problems = Vec::new();
    for (name, want) in &official {
        let got = &ours[name];
        for missing in want.difference(got) {
            problems.push(format!("{what} {name}: missing {missing}"));
        }
        for extra in got.difference(want) {
            problems.push(format!("{what} {name}: extra {extra}"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn v0_8_standard_catalog_declares_the_official_components_and_styles() {
    let Some(reference) = shared_reference::a2ui() else {
        return;
    };
    let official = load(&reference.join("v0_8/json/standard_catalog_definition.json"));
    let ours = ours("v0_8/standard_catalog.json");
    assert_same(
        "component",
        entries(&ours, "/components", false),
        entries(&official, "/components", false),
    );
    assert_same(
        "style",
        entries(&ours, "/styles", false),
        entries(&official, "/styles", false),
    );
}

#[test]
fn v0_9_basic_catalog_declares_the_official_components_functions_and_theme() {
    let Some(reference) = shared_reference::a2ui() else {
        return;
    };
    let official = load(&reference.join("v0_9/catalogs/basic/catalog.json"));
    let ours = ours("v0_9/basic_catalog.json");
    assert_eq!(
        ours.pointer("/components")
            .unwrap()
            .as_object()
            .unwrap()
            .len(),
        18
    );
    assert_eq!(
        ours.pointer("/functions")
            .unwrap()
            .as_object()
            .unwrap()
            .len(),
        14
    );
    assert_same(
        "component",
        entries(&ours, "/components", false),
        entries(&official, "/components", false),
    );
    assert_same(
        "function",
        entries(&ours, "/functions", false),
        entries(&official, "/functions", false),
    );
    assert_same(
        "$defs",
        entries(&ours, "/$defs", false),
        entries(&official, "/$defs", false),
    );
}

#[test]
fn v0_9_common_types_declare_the_official_definitions() {
    let Some(reference) = shared_reference::a2ui() else {
        return;
    };
    let official = load(&reference.join("v0_9/json/common_types.json"));
    let ours = ours("v0_9/common_types.json");
    assert_same(
        "common type",
        entries(&ours, "/$defs", false),
        entries(&official, "/$defs", false),
    );
}

#[test]
fn v1_0_basic_catalog_declares_the_official_components_and_functions() {
    let Some(reference) = shared_reference::a2ui() else {
        return;
    };
    let official = load(&reference.join("v1_0/catalogs/basic/catalog.json"));
    let ours = ours("v1_0/basic_catalog.json");
    assert_same(
        "component",
        entries(&ours, "/components", false),
        entries(&official, "/components", true),
    );
    assert_same(
        "function",
        entries(&ours, "/functions", false),
        entries(&official, "/functions", true),
    );
}

#[test]
fn v1_0_common_types_declare_the_official_definitions() {
    let Some(reference) = shared_reference::a2ui() else {
        return;
    };
    let official = load(&reference.join("v1_0/json/common_types.json"));
    let ours = ours("v1_0/common_types.json");
    assert_same(
        "common type",
        entries(&ours, "/$defs", false),
        entries(&official, "/$defs", true),
    );
}
