//! A catalog document brought to the one layout the compiler expects, whatever version and
//! publisher wrote it: its id found, its component and function lists normalised, and its
//! references to `common_types.json` pointed at this crate's copy.

use serde_json::{Map, Value, json};

use crate::a2ui::error::CatalogError;
use crate::a2ui::{ProtocolVersion, schema, tree};

/// The keys of the `field` object of `schema` (its component or function names).
pub(super) fn names(schema: &Value, field: &str) -> Vec<String> {
    schema
        .get(field)
        .and_then(Value::as_object)
        .map(|m| m.keys().cloned().collect())
        .unwrap_or_default()
}

fn malformed(pointer: &str, message: impl Into<String>) -> CatalogError {
    CatalogError::Malformed {
        pointer: pointer.to_owned(),
        message: message.into(),
    }
}

/// Brings a catalog document to the layout the compiler expects and returns its id.
pub(super) fn normalize(
    version: ProtocolVersion,
    document: Value,
) -> Result<(String, Value), CatalogError> {
    let Value::Object(mut map) = document else {
        return Err(malformed("", "a catalog is a JSON object"));
    };
    let id = catalog_id(&map)?;
    check_components(&mut map)?;
    if version == ProtocolVersion::V0_8 {
        if map.get("styles").is_some_and(|s| !s.is_object()) {
            return Err(malformed("/styles", "must be an object of style schemas"));
        }
        return Ok((id, Value::Object(map)));
    }
    let call_key = schema::call_key(version);
    let functions = function_entries(map.remove("functions"), call_key)?;
    map.insert("functions".into(), Value::Object(functions));
    let mut document = Value::Object(map);
    if let Some(common) = schema::common_types_uri(version) {
        rewrite_common_refs(&mut document, common, 0);
    }
    add_theme_def(&mut document)?;
    add_any_defs(&mut document, call_key);
    Ok((id, document))
}

/// The catalog's id, from `catalogId` or else `$id`; it must be a non-empty string.
fn catalog_id(map: &Map<String, Value>) -> Result<String, CatalogError> {
    let id = match (map.get("catalogId"), map.get("$id")) {
        (Some(Value::String(id)), _) | (None, Some(Value::String(id))) => id.clone(),
        (Some(_), _) => return Err(malformed("/catalogId", "must be a string")),
        (None, _) => return Err(malformed("", "missing 'catalogId'")),
    };
    if id.is_empty() {
        return Err(malformed("/catalogId", "must not be empty"));
    }
    Ok(id)
}

/// Checks the `components` object (named schemas), adding an empty one when it is missing.
fn check_components(map: &mut Map<String, Value>) -> Result<(), CatalogError> {
    match map.get("components") {
        None => {
            map.insert("components".into(), json!({}));
        }
        Some(Value::Object(components)) => {
            for (name, schema) in components {
                if name.is_empty() {
                    return Err(malformed("/components", "a component name is empty"));
                }
                if !schema.is_object() && !schema.is_boolean() {
                    return Err(malformed(
                        &format!("/components/{}", tree::escape(name)),
                        "a component definition is a JSON Schema object",
                    ));
                }
            }
        }
        Some(_) => {
            return Err(malformed(
                "/components",
                "must be an object of component schemas",
            ));
        }
    }
    Ok(())
}

/// The `functions` field as an object keyed by name, whether it was absent, an object or a list.
fn function_entries(
    functions: Option<Value>,
    call_key: &str,
) -> Result<Map<String, Value>, CatalogError> {
    match functions {
        None => Ok(Map::new()),
        Some(Value::Object(functions)) => Ok(functions),
        Some(Value::Array(definitions)) => function_map(&definitions, call_key),
        Some(_) => Err(malformed(
            "/functions",
            "must be an object or a list of function definitions",
        )),
    }
}

/// Adds `$defs/theme` when missing, from the top-level `theme` properties if any.
fn add_theme_def(document: &mut Value) -> Result<(), CatalogError> {
    let defs = document
        .as_object_mut()
        .map(|m| m.entry("$defs").or_insert_with(|| json!({})));
    let Some(Value::Object(defs)) = defs else {
        return Err(malformed("/$defs", "must be an object"));
    };
    if !defs.contains_key("theme") {
        // v0.9's createSurface refers to `catalog.json#/$defs/theme`; an inline catalog states
        // its theme properties at the top level, a minimal one states none.
        let theme = match document.get("theme") {
            Some(Value::Object(properties)) => {
                json!({"type": "object", "properties": properties, "additionalProperties": true})
            }
            _ => json!({"type": "object"}),
        };
        if let Some(Value::Object(defs)) = document.get_mut("$defs") {
            defs.insert("theme".into(), theme);
        }
    }
    Ok(())
}

/// Adds `$defs/anyComponent` and `$defs/anyFunction` when missing, over the catalog's entries.
fn add_any_defs(document: &mut Value, call_key: &str) {
    let defs = document.get("$defs").and_then(Value::as_object);
    if defs.is_none_or(|d| !d.contains_key("anyComponent") || !d.contains_key("anyFunction")) {
        let components = names(document, "components");
        let functions = names(document, "functions");
        if let Some(Value::Object(defs)) = document.get_mut("$defs") {
            defs.entry("anyComponent")
                .or_insert_with(|| any_of_entries("components", "component", &components, true));
            defs.entry("anyFunction")
                .or_insert_with(|| any_of_entries("functions", call_key, &functions, true));
        }
    }
}

/// A `oneOf` over the catalog's `field` entries, discriminated by `key`. `pin` adds the
/// discriminating constant to each branch, for catalogs whose entries do not state it.
pub(super) fn any_of_entries(field: &str, key: &str, names: &[String], pin: bool) -> Value {
    if names.is_empty() {
        return Value::Bool(false);
    }
    let branches: Vec<Value> = names
        .iter()
        .map(|name| {
            let reference = json!({"$ref": schema::fragment_ref("", &[field, name])});
            if pin {
                json!({"allOf": [
                    {"properties": {key: {"const": name}}, "required": [key]},
                    reference
                ]})
            } else {
                reference
            }
        })
        .collect();
    json!({"oneOf": branches, "discriminator": {"propertyName": key}})
}

/// v0.9 inline catalogs list functions as `{name, parameters, returnType}`; the compiler
/// wants the published layout, a schema per function name.
fn function_map(definitions: &[Value], call_key: &str) -> Result<Map<String, Value>, CatalogError> {
    let mut functions = Map::new();
    for (i, definition) in definitions.iter().enumerate() {
        let at = format!("/functions/{i}");
        let name = definition
            .get("name")
            .and_then(Value::as_str)
            .filter(|n| !n.is_empty())
            .ok_or_else(|| malformed(&at, "a function definition needs a 'name'"))?;
        let parameters = definition
            .get("parameters")
            .cloned()
            .unwrap_or_else(|| json!({"type": "object"}));
        if !parameters.is_object() && !parameters.is_boolean() {
            return Err(malformed(
                &format!("{at}/parameters"),
                "must be a JSON Schema",
            ));
        }
        let mut properties = json!({call_key: {"const": name}, "args": parameters});
        if let (Some(return_type), Some(props)) =
            (definition.get("returnType"), properties.as_object_mut())
        {
            props.insert("returnType".into(), json!({"const": return_type}));
        }
        functions.insert(
            name.to_owned(),
            json!({"type": "object", "properties": properties, "required": [call_key]}),
        );
    }
    Ok(functions)
}

const MAX_REWRITE_DEPTH: usize = 256;

/// Points every `$ref` to some `common_types.json` at `common` (keeping the fragment).
pub(super) fn rewrite_common_refs(value: &mut Value, common: &str, depth: usize) {
    if depth > MAX_REWRITE_DEPTH {
        return;
    }
    match value {
        Value::Object(map) => {
            for (key, sub) in map.iter_mut() {
                if key == "$ref" {
                    if let Value::String(reference) = sub {
                        let (target, fragment) = match reference.split_once('#') {
                            Some((t, f)) => (t, Some(f)),
                            None => (reference.as_str(), None),
                        };
                        if target == "common_types.json" || target.ends_with("/common_types.json") {
                            let mut rewritten = common.to_owned();
                            if let Some(fragment) = fragment {
                                rewritten.push('#');
                                rewritten.push_str(fragment);
                            }
                            *reference = rewritten;
                        }
                    }
                } else {
                    rewrite_common_refs(sub, common, depth + 1);
                }
            }
        }
        Value::Array(items) => {
            for item in items {
                rewrite_common_refs(item, common, depth + 1);
            }
        }
        _ => {}
    }
}
