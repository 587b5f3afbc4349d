//! The lean (signatures) prompt still tells a model everything a catalog says a value must
//! be: every component and function, every property with its required mark, every enum
//! value. The expectations are read from each catalog's own JSON at test time (ours under
//! `catalogs/`, the official ones under the shared reference, and small catalogs generated
//! by proptest), so the prompt is checked against the catalog, never against a copy of a
//! prompt. Its example validates, and it is smaller than the full-schema prompt.

mod shared_reference;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use a2ui_agent::a2ui::{Catalog, ProtocolVersion, Validator};
use a2ui_agent::generator::{Generator, PromptStyle};
use a2ui_agent::parser::{self, ParsedPart};
use proptest::prelude::*;
use serde_json::{Value, json};

/// Properties or arguments: each name with whether it is required.
type Fields = Vec<(String, bool)>;

/// What a catalog document says, read from its JSON without this crate's help.
struct Expected {
    /// Component name → its properties and the enum values under it.
    components: BTreeMap<String, (Fields, Vec<String>)>,
    /// Function name → its arguments.
    functions: BTreeMap<String, Fields>,
}

/// The properties and required names of a schema and its inline `allOf` parts (references
/// are not followed: what they hold is the common types', said once elsewhere).
fn own_properties(schema: &Value) -> Vec<(String, bool)> {
    let mut parts = vec![schema];
    parts.extend(schema["allOf"].as_array().into_iter().flatten());
    let required: Vec<&str> = parts
        .iter()
        .flat_map(|p| p["required"].as_array().into_iter().flatten())
        .filter_map(Value::as_str)
        .collect();
    let mut found: Vec<(String, bool)> = Vec::new();
    for part in parts {
        for key in part["properties"]
            .as_object()
            .into_iter()
            .flat_map(|m| m.keys())
        {
            if key != "component" && key != "id" && !found.iter().any(|(k, _)| k == key) {
                found.push((key.clone(), required.contains(&key.as_str())));
            }
        }
    }
    found
}

/// Every string of every `enum` under `value`.
fn enum_values(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            if let Some(choices) = map.get("enum").and_then(Value::as_array) {
                out.extend(choices.iter().filter_map(Value::as_str).map(str::to_owned));
            }
            map.values().for_each(|v| enum_values(v, out));
        }
        Value::Array(items) => items.iter().for_each(|v| enum_values(v, out)),
        _ => {}
    }
}

fn expected(document: &Value) -> Expected {
    let mut components = BTreeMap::new();
    for (name, schema) in document["components"].as_object().into_iter().flatten() {
        let mut enums = Vec::new();
        enum_values(schema, &mut enums);
        components.insert(name.clone(), (own_properties(schema), enums));
    }
    let mut functions = BTreeMap::new();
    if let Some(map) = document["functions"].as_object() {
        for (name, schema) in map {
            let mut parts = vec![schema];
            parts.extend(schema["allOf"].as_array().into_iter().flatten());
            let args = parts
                .iter()
                .find_map(|p| p["properties"].get("args"))
                .map(own_properties)
                .unwrap_or_default();
            functions.insert(name.clone(), args);
        }
    }
    Expected {
        components,
        functions,
    }
}

/// The line of `prompt` that starts with `prefix`.
fn line<'p>(prompt: &'p str, prefix: &str) -> Option<&'p str> {
    prompt.lines().find(|l| l.starts_with(prefix))
}

/// Whether `line` lists `name` with the right mark: `(name: ` or `, name?: `.
fn lists(line: &str, name: &str, required: bool) -> bool {
    let mark = if required { ": " } else { "?: " };
    ["(", ", ", "takes "]
        .iter()
        .any(|before| line.contains(&format!("{before}{name}{mark}")))
}

/// Checks `prompt` against what `document` says; the first fact it lacks.
fn check(prompt: &str, document: &Value) -> Result<(), String> {
    let facts = expected(document);
    let shared = line(prompt, "Every component also takes ").unwrap_or("");
    for (name, (properties, enums)) in &facts.components {
        let signature =
            line(prompt, &format!("- {name}(")).ok_or(format!("no signature for {name}"))?;
        for (property, required) in properties {
            if !lists(signature, property, *required) && !lists(shared, property, *required) {
                let mark = if *required { "required" } else { "optional" };
                return Err(format!(
                    "{name}: {property} not listed as {mark}: {signature}"
                ));
            }
        }
        for value in enums {
            if !signature.contains(value.as_str()) && !shared.contains(value.as_str()) {
                return Err(format!("{name}: enum value {value} missing: {signature}"));
            }
        }
    }
    if let Some(styles) = document["styles"].as_object() {
        let line = line(prompt, "Styles ").ok_or("no styles line")?;
        if let Some(key) = styles
            .keys()
            .find(|k| !line.contains(&format!("\"{k}\"?: ")))
        {
            return Err(format!("style {key} missing: {line}"));
        }
    }
    for (name, args) in &facts.functions {
        let signature =
            line(prompt, &format!("- {name}(")).ok_or(format!("no signature for {name}()"))?;
        for (arg, required) in args {
            if !lists(signature, arg, *required) {
                return Err(format!("{name}(): {arg} missing: {signature}"));
            }
        }
    }
    Ok(())
}

fn prompt(generator: &Generator) -> String {
    generator.negotiate(None).unwrap().prompt().to_owned()
}

fn styled(version: ProtocolVersion, catalog: Catalog, style: PromptStyle) -> String {
    let generator = Generator::builder(version)
        .catalog(catalog)
        .prompt_style(style)
        .build()
        .unwrap();
    prompt(&generator)
}

/// The version a catalog file is written for, from its path (`v0_8`, `v0_9`, `v1_0`).
fn version_of(path: &Path) -> Option<ProtocolVersion> {
    let text = path.to_string_lossy();
    [
        ("v0_8", ProtocolVersion::V0_8),
        ("v0_9", ProtocolVersion::V0_9),
        ("v1_0", ProtocolVersion::V1_0),
        ("v10", ProtocolVersion::V1_0),
        ("v09", ProtocolVersion::V0_9),
        ("v08", ProtocolVersion::V0_8),
    ]
    .into_iter()
    .find(|(tag, _)| text.contains(tag))
    .map(|(_, version)| version)
}

/// Our catalogs and, when the reference is there, every official catalog document.
fn catalog_files() -> Vec<PathBuf> {
    let ours = Path::new(env!("CARGO_MANIFEST_DIR")).join("catalogs");
    let mut files = vec![
        ours.join("v0_8/standard_catalog.json"),
        ours.join("v0_9/basic_catalog.json"),
        ours.join("v1_0/basic_catalog.json"),
    ];
    if let Some(reference) = shared_reference::a2ui() {
        for relative in [
            "v0_8/json/standard_catalog_definition.json",
            "v0_9/catalogs/basic/catalog.json",
            "v0_9/catalogs/minimal/catalog.json",
            "v1_0/catalogs/basic/catalog.json",
        ] {
            files.push(reference.join(relative));
        }
        let test_data = reference.join("conformance/test_data");
        for dir in [test_data.join("catalogs"), test_data.clone()] {
            let mut found: Vec<PathBuf> = std::fs::read_dir(&dir)
                .unwrap()
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "json"))
                .filter(|p| p.to_string_lossy().contains("catalog"))
                .collect();
            found.sort();
            files.extend(found);
        }
    }
    files
}

#[test]
fn the_lean_prompt_names_every_component_property_required_mark_and_enum_value() {
    let mut checked = 0;
    for path in catalog_files() {
        let version = version_of(&path).unwrap();
        let document: Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        // v0.8's official standard catalog names no id: it is the version's default.
        let mut loadable = document.clone();
        if loadable.get("catalogId").is_none() && loadable.get("$id").is_none() {
            loadable["catalogId"] = json!(version.basic_catalog_id());
        }
        let catalog = Catalog::from_value(version, loadable)
            .unwrap_or_else(|e| panic!("{} does not load: {e}", path.display()));
        let lean = styled(version, catalog.clone(), PromptStyle::Signatures);
        if let Err(problem) = check(&lean, &document) {
            panic!("{}: {problem}\n{lean}", path.display());
        }
        let full = styled(version, catalog, PromptStyle::Schemas);
        assert!(
            lean.len() < full.len(),
            "{}: lean {} bytes, schemas {} bytes",
            path.display(),
            lean.len(),
            full.len()
        );
        checked += 1;
    }
    println!("{checked} catalogs checked");
}

/// The messages of the `<a2ui-json>` blocks of `text`.
fn blocks(text: &str) -> Vec<Value> {
    parser::parse(text)
        .unwrap()
        .into_iter()
        .flat_map(|part| match part {
            ParsedPart::A2ui(messages) => messages,
            ParsedPart::Text(_) => Vec::new(),
        })
        .collect()
}

#[test]
fn the_example_in_the_lean_prompt_validates_for_every_version() {
    for version in ProtocolVersion::ALL {
        let generator = Generator::built_in(version);
        assert_eq!(generator.prompt_style(), PromptStyle::Signatures);
        let text = prompt(&generator);
        let examples = text
            .split_once("## Examples")
            .map(|(_, rest)| rest)
            .unwrap_or_else(|| panic!("{version}: no example in\n{text}"));
        let messages = blocks(examples);
        assert!(!messages.is_empty(), "{version}: the example has no block");
        let validator = Validator::basic(version);
        if let Err(errors) = validator.check_response(&messages) {
            panic!("{version}: the prompt's example is invalid: {errors:?}");
        }
        assert!(text.contains("Show every value the user gave"), "{version}");
    }
}

#[test]
fn the_lean_prompt_describes_only_the_components_kept() {
    let generator = Generator::builder(ProtocolVersion::V0_9)
        .components(&["Text", "Card"])
        .build()
        .unwrap();
    let text = prompt(&generator);
    assert!(text.contains("- Text(") && text.contains("- Card("));
    for absent in ["Button", "Column", "DateTimeInput"] {
        assert!(!text.contains(absent), "{absent} in\n{text}");
    }
}

/// A property's schema in a generated catalog.
fn property_schema(kind: u8, choices: &[String]) -> Value {
    match kind % 5 {
        0 => json!({"type": "string"}),
        1 => json!({"type": "number"}),
        2 => json!({"type": "boolean"}),
        3 => {
            json!({"$ref": "https://a2ui.org/specification/v0_9/common_types.json#/$defs/DynamicString"})
        }
        _ => json!({"type": "string", "enum": choices}),
    }
}

prop_compose! {
    /// A v0.9 catalog of one to four components, each with one to five properties of the
    /// common kinds, some required, some enums.
    fn small_catalog()(
        components in prop::collection::btree_map(
            "[A-Z][a-z]{2,8}",
            prop::collection::btree_map(
                "[a-z][a-zA-Z]{1,8}",
                (any::<u8>(), any::<bool>(), prop::collection::btree_set("[a-z]{1,6}", 1..4)),
                1..6,
            ),
            1..5,
        )
    ) -> Value {
        let mut map = serde_json::Map::new();
        for (name, properties) in components {
            let mut props = serde_json::Map::new();
            props.insert("component".into(), json!({"const": name}));
            let mut required = vec![json!("component")];
            for (property, (kind, needed, choices)) in properties {
                if property == "component" || property == "id" {
                    continue;
                }
                let choices: Vec<String> = choices.into_iter().collect();
                props.insert(property.clone(), property_schema(kind, &choices));
                if needed {
                    required.push(json!(property));
                }
            }
            map.insert(name, json!({"type": "object", "properties": props,
                "required": required}));
        }
        json!({"catalogId": "generated/catalog", "components": map})
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn the_lean_prompt_of_any_small_catalog_names_all_it_says(document in small_catalog()) {
        let catalog = Catalog::from_value(ProtocolVersion::V0_9, document.clone()).unwrap();
        let lean = styled(ProtocolVersion::V0_9, catalog.clone(), PromptStyle::Signatures);
        if let Err(problem) = check(&lean, &document) {
            return Err(TestCaseError::fail(format!("{problem}\n{lean}")));
        }
        let full = styled(ProtocolVersion::V0_9, catalog, PromptStyle::Schemas);
        prop_assert!(lean.len() < full.len());
    }
}
