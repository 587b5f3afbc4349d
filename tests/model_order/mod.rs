//! Model-like JSON text for parser fixtures, shared by the parser's tests and benchmark.
//!
//! serde_json writes object keys alphabetically, which puts `surfaceId` after `components`
//! and `version` last; a model writes them the other way round, and only that order lets the
//! parser send components before their message closes.

use serde_json::Value;

/// Writes `value` as compact JSON with keys in the order a model writes them (`version`, the
/// action, `surfaceId`, `id`, `component` first), not serde_json's alphabetical order, so
/// messages stream as they would from a model.
pub fn model_order_json(value: &Value) -> String {
    const FIRST: [&str; 15] = [
        "version",
        "createSurface",
        "surfaceUpdate",
        "updateComponents",
        "updateDataModel",
        "dataModelUpdate",
        "beginRendering",
        "deleteSurface",
        "surfaceId",
        "catalogId",
        "root",
        "path",
        "id",
        "component",
        "key",
    ];
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort_by_key(|k| (FIRST.iter().position(|f| f == k).unwrap_or(FIRST.len()), *k));
            let fields: Vec<String> = keys
                .iter()
                .map(|k| format!("{}:{}", Value::from(k.as_str()), model_order_json(&map[*k])))
                .collect();
            format!("{{{}}}", fields.join(","))
        }
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(model_order_json).collect();
            format!("[{}]", items.join(","))
        }
        other => other.to_string(),
    }
}
