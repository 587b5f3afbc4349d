//! The capabilities and catalog-id cases of the conformance suite
//! `conformance/agent/catalog_resolution.yaml`: which catalogs a renderer's capabilities
//! leave active, and which capabilities are errors. The suite's catalogs are v1.0 custom
//! catalogs that refer to `common_types.json` relatively, so loading them also shows that
//! custom catalogs resolve to this crate's v1.0 common types.

mod shared_reference;

use std::collections::BTreeSet;
use std::path::Path;

use a2ui_agent::a2ui::{Catalog, ClientCapabilities, ProtocolVersion};
use a2ui_agent::generator::{ResolveError, resolve_catalogs};
use serde_json::Value;

fn strings(value: &Value) -> Vec<&str> {
    value
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect()
}

/// Loads a registration: the catalog file, then its transformers (component and function
/// pruning).
fn registration(conformance: &Path, entry: &Value) -> Catalog {
    let path = conformance.join(entry["catalog"].as_str().unwrap());
    let mut catalog = Catalog::from_path(ProtocolVersion::V1_0, &path).unwrap();
    for transformer in entry
        .get("transformers")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        if let Some(keep) = transformer.get("component_pruning") {
            catalog = catalog.subset(&strings(keep)).unwrap();
        }
        if let Some(keep) = transformer.get("function_pruning") {
            catalog = catalog.subset_functions(&strings(keep)).unwrap();
        }
    }
    catalog
}

/// Runs one case; `Err` holds the error category.
fn run(conformance: &Path, args: &Value) -> Result<Vec<Catalog>, &'static str> {
    let registered: Vec<Catalog> = args["catalogs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| registration(conformance, entry))
        .collect();
    let capabilities = match args.get("renderer_capabilities") {
        Some(value) => Some(ClientCapabilities::parse(value).map_err(|_| "ValidationError")?),
        None => None,
    };
    let accepts_inline = args
        .get("accepts_inline_catalogs")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    resolve_catalogs(
        ProtocolVersion::V1_0,
        &registered,
        capabilities.as_ref(),
        accepts_inline,
    )
    .map_err(|e| match e {
        ResolveError::Capabilities(_) => "ValidationError",
        ResolveError::Catalog(_) => "CatalogError",
        _ => "other",
    })
}

#[test]
fn every_catalog_resolution_case_passes() {
    let Some(reference) = shared_reference::a2ui() else {
        return;
    };
    let conformance = reference.join("conformance");
    let text = std::fs::read_to_string(conformance.join("agent/catalog_resolution.yaml")).unwrap();
    let cases: Vec<Value> = serde_norway::from_str(&text).unwrap();
    let mut failures = Vec::new();
    let mut ran = 0;
    for case in &cases {
        if case["action"] != "resolve_catalogs" {
            continue;
        }
        ran += 1;
        let name = case["name"].as_str().unwrap();
        let outcome = run(&conformance, &case["args"]);
        if let Some(error) = case.get("expect_error") {
            let category = error["category"].as_str().unwrap();
            match outcome {
                Err(got) if got == category => {}
                other => failures.push(format!(
                    "{name}: expected {category}, got {:?}",
                    other.map(|c| ids(&c))
                )),
            }
            continue;
        }
        let expect = &case["expect"];
        let active = match outcome {
            Ok(active) => active,
            Err(category) => {
                failures.push(format!("{name}: unexpected {category}"));
                continue;
            }
        };
        let want: BTreeSet<&str> = strings(&expect["active_catalog_ids"]).into_iter().collect();
        let got: BTreeSet<String> = ids(&active).into_iter().collect();
        if got.iter().map(String::as_str).collect::<BTreeSet<_>>() != want {
            failures.push(format!("{name}: active {got:?}, expected {want:?}"));
        }
        for expected in expect
            .get("catalogs")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let id = expected["catalog_id"].as_str().unwrap();
            let Some(catalog) = active.iter().find(|c| c.id() == id) else {
                failures.push(format!("{name}: {id} not active"));
                continue;
            };
            let components: BTreeSet<&str> = catalog.component_names().collect();
            if components != strings(&expected["components"]).into_iter().collect() {
                failures.push(format!("{name}: {id} has components {components:?}"));
            }
            if let Some(functions) = expected.get("functions") {
                let got: BTreeSet<&str> = catalog.function_names().collect();
                if got != strings(functions).into_iter().collect() {
                    failures.push(format!("{name}: {id} has functions {got:?}"));
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(ran >= 18, "only {ran} cases ran");
}

fn ids(catalogs: &[Catalog]) -> Vec<String> {
    catalogs.iter().map(|c| c.id().to_owned()).collect()
}

#[test]
fn every_conformance_test_catalog_loads_as_a_custom_catalog() {
    let Some(reference) = shared_reference::a2ui() else {
        return;
    };
    let dir = reference.join("conformance/test_data/catalogs");
    for (file, version) in [
        ("custom_catalog_v1_0.json", ProtocolVersion::V1_0),
        ("forms_catalog_v1_0.json", ProtocolVersion::V1_0),
        ("simplified_catalog_v1_0.json", ProtocolVersion::V1_0),
        ("streaming_catalog_v0_9.json", ProtocolVersion::V0_9),
        ("streaming_catalog_v0_8.json", ProtocolVersion::V0_8),
    ] {
        let catalog =
            Catalog::from_path(version, &dir.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert!(catalog.component_names().count() > 0, "{file}");
    }
}
