//! Every official v0.9 example UI (`../shared/reference/a2ui/v0_9/catalogs/basic/examples`)
//! written as Express by the decompiler compiles back to its own messages: real surfaces,
//! not only the suites' small cases, survive the notation a model is shown them in.
//!
//! Two spellings are compared as the protocol reads them rather than byte for byte: an
//! `updateDataModel` without `path` is one at `/` (the compiler writes the `/`), and a
//! function call's `returnType` restates the catalog's declaration (Express writes the call
//! and compiles it back without one).

mod shared_reference;

use a2ui_agent::a2ui::{Catalog, ProtocolVersion};
use a2ui_agent::format::express::Express;
use serde_json::Value;

#[test]
fn every_official_v0_9_example_round_trips_through_express() {
    let Some(dir) = shared_reference::a2ui() else {
        return;
    };
    let version = ProtocolVersion::V0_9;
    let express = Express::bound(version, vec![Catalog::basic(version)]).unwrap();
    let mut paths: Vec<_> = std::fs::read_dir(dir.join("v0_9/catalogs/basic/examples"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    paths.sort();
    assert!(paths.len() >= 30, "{} examples", paths.len());
    let mut failures = Vec::new();
    let (mut json_bytes, mut express_bytes) = (0, 0);
    for path in &paths {
        let example: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let mut messages = example["messages"].as_array().unwrap().clone();
        for message in &mut messages {
            read_as_the_protocol_does(message);
        }
        let text = express.decompile(&messages);
        json_bytes += serde_json::to_string(&messages).unwrap().len();
        express_bytes += text.len();
        match express.compile(&text) {
            Ok(again) if again == messages => {}
            Ok(again) => failures.push(format!(
                "{}: differs\n{text}\n{}\n{}",
                path.display(),
                serde_json::to_string(&again).unwrap(),
                serde_json::to_string(&messages).unwrap()
            )),
            Err(e) => failures.push(format!("{}: {e}\n{text}", path.display())),
        }
    }
    println!(
        "{} examples: {express_bytes} bytes of Express for {json_bytes} bytes of compact JSON ({:.2}x)",
        paths.len(),
        express_bytes as f64 / json_bytes as f64
    );
    assert!(
        failures.is_empty(),
        "{} of {} failed:\n{}",
        failures.len(),
        paths.len(),
        failures.join("\n\n")
    );
}

/// Fills in an omitted `updateDataModel` path and drops `returnType` from calls.
fn read_as_the_protocol_does(message: &mut Value) {
    if let Some(update) = message
        .get_mut("updateDataModel")
        .and_then(Value::as_object_mut)
    {
        update.entry("path").or_insert_with(|| Value::from("/"));
    }
    drop_return_types(message);
}

fn drop_return_types(value: &mut Value) {
    match value {
        Value::Object(map) => {
            if map.contains_key("call") {
                map.remove("returnType");
            }
            map.values_mut().for_each(drop_return_types);
        }
        Value::Array(items) => items.iter_mut().for_each(drop_return_types),
        _ => {}
    }
}
