//! What a catalog says of a component's properties and a function's parameters, read the
//! way the official compiler reads it, and the small helpers the compiler shares.

use serde_json::{Value, json};

use super::error::{CompileError, invalid};
use crate::a2ui::Catalog;
use crate::format::express::tree::{Call, Expr, ExprKind};

/// A component's signature: its own properties in document order, then those of the
/// catalog's local mixins (`#/$defs/CatalogComponentCommon`: `weight`), then `checks` when
/// it is checkable. `component`, `id` and `catalogId` are no arguments.
pub(in crate::format::express) fn signature(catalog: &Catalog, component: &str) -> Vec<String> {
    let mut out: Vec<String> = catalog
        .property_order(component)
        .iter()
        .filter(|p| !matches!(p.as_str(), "component" | "id" | "catalogId"))
        .cloned()
        .collect();
    let schema = catalog.schema();
    let Some(definition) = schema.get("components").and_then(|c| c.get(component)) else {
        return out;
    };
    let branches = definition
        .get("allOf")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    let mut checkable = false;
    for branch in branches {
        let Some(target) = branch.get("$ref").and_then(Value::as_str) else {
            continue;
        };
        checkable |= target.contains("Checkable");
        let Some(name) = target.strip_prefix("#/$defs/") else {
            continue;
        };
        let properties = schema
            .get("$defs")
            .and_then(|d| d.get(name))
            .and_then(|d| d.get("properties"))
            .and_then(Value::as_object);
        for key in properties.into_iter().flat_map(|p| p.keys()) {
            if !out.contains(key) && !matches!(key.as_str(), "component" | "id" | "catalogId") {
                out.push(key.clone());
            }
        }
    }
    if checkable && !out.iter().any(|p| p == "checks") {
        out.push("checks".to_owned());
    }
    out
}

/// The schema of `property` of `component`: in the component schema, an `allOf` branch, or
/// a local mixin it refers to.
pub(in crate::format::express) fn property_schema<'c>(
    catalog: &'c Catalog,
    component: &str,
    property: &str,
) -> Option<&'c Value> {
    let schema = catalog.schema();
    let definition = schema.get("components")?.get(component)?;
    let in_branch = |branch: &'c Value| {
        let branch = match branch.get("$ref").and_then(Value::as_str) {
            Some(target) => schema.get("$defs")?.get(target.strip_prefix("#/$defs/")?)?,
            None => branch,
        };
        branch.get("properties")?.get(property)
    };
    definition
        .get("properties")
        .and_then(|p| p.get(property))
        .or_else(|| {
            definition
                .get("allOf")?
                .as_array()?
                .iter()
                .find_map(in_branch)
        })
}

/// The schema of parameter `param` of `function`.
pub(super) fn parameter_schema<'c>(
    catalog: &'c Catalog,
    function: &str,
    param: &str,
) -> Option<&'c Value> {
    let definition = catalog.schema().get("functions")?.get(function)?;
    let args = |d: &'c Value| {
        d.get("properties")?
            .get("args")?
            .get("properties")?
            .get(param)
    };
    args(definition).or_else(|| definition.get("allOf")?.as_array()?.iter().find_map(args))
}

/// Where a value goes, which decides how it compiles.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Slot {
    Child,
    ChildList,
    Action,
    Dynamic,
    Other,
}

pub(super) fn slot_of(schema: Option<&Value>) -> Slot {
    let Some(target) = schema.and_then(|s| s.get("$ref")).and_then(Value::as_str) else {
        return Slot::Other;
    };
    match target.rsplit('/').next().unwrap_or_default() {
        "Child" | "ComponentId" => Slot::Child,
        "ChildList" => Slot::ChildList,
        "Action" => Slot::Action,
        n if n.starts_with("Dynamic") || n == "DataBinding" => Slot::Dynamic,
        _ => Slot::Other,
    }
}

/// Whether a property's schema admits a data binding: a `Dynamic*` or `DataBinding`
/// reference, a binding object, or either in its items or branches.
pub(super) fn allows_binding(schema: &Value) -> bool {
    if let Some(target) = schema.get("$ref").and_then(Value::as_str)
        && (target.contains("DataBinding") || target.contains("Dynamic"))
    {
        return true;
    }
    if let Some(properties) = schema.get("properties").and_then(Value::as_object)
        && (properties.contains_key("path") || properties.contains_key("@path"))
        && !properties.contains_key("componentId")
    {
        return true;
    }
    if schema.get("items").is_some_and(allows_binding) {
        return true;
    }
    ["allOf", "oneOf", "anyOf"].iter().any(|key| {
        schema
            .get(*key)
            .and_then(Value::as_array)
            .is_some_and(|branches| branches.iter().any(allows_binding))
    })
}

/// Whether a compiled value holds a data binding (a function call, an event or an action
/// being no binding of the property's own).
pub(super) fn has_binding(value: &Value) -> bool {
    match value {
        Value::Object(map) => {
            if ["call", "@call", "event", "functionCall"]
                .iter()
                .any(|k| map.contains_key(*k))
            {
                return false;
            }
            if !map.contains_key("componentId")
                && ["@path", "path"]
                    .iter()
                    .any(|k| map.get(*k).is_some_and(Value::is_string))
            {
                return true;
            }
            map.values().any(has_binding)
        }
        Value::Array(items) => items.iter().any(has_binding),
        _ => false,
    }
}

/// The first `enum` of a schema or its branches.
pub(super) fn choices(schema: &Value) -> Option<&Vec<Value>> {
    if let Some(choices) = schema.get("enum").and_then(Value::as_array) {
        return Some(choices);
    }
    ["oneOf", "anyOf", "allOf"].iter().find_map(|key| {
        schema
            .get(*key)?
            .as_array()?
            .iter()
            .find_map(choices)
            .filter(|c| !c.is_empty())
    })
}

/// Whether a property is a list of `{label, value}` options (which strings stand for).
pub(super) fn option_objects(schema: &Value) -> bool {
    fn has_label_value(schema: &Value) -> bool {
        let direct = schema
            .get("properties")
            .and_then(Value::as_object)
            .is_some_and(|p| p.contains_key("label") && p.contains_key("value"));
        direct
            || ["allOf", "oneOf", "anyOf"].iter().any(|key| {
                schema
                    .get(*key)
                    .and_then(Value::as_array)
                    .is_some_and(|b| b.iter().any(has_label_value))
            })
    }
    if let Some(items) = schema.get("items") {
        return has_label_value(items);
    }
    ["allOf", "oneOf", "anyOf"].iter().any(|key| {
        schema
            .get(*key)
            .and_then(Value::as_array)
            .is_some_and(|b| b.iter().any(option_objects))
    })
}

/// `Required check failed` for `required`, `Formatdate check failed` for `formatDate`: the
/// name capitalised as Python's `str.capitalize` does, which the official messages use.
pub(super) fn default_message(name: &str) -> String {
    let mut chars = name.chars();
    let first: String = chars
        .next()
        .map(|c| c.to_uppercase().collect())
        .unwrap_or_default();
    format!("{first}{} check failed", chars.as_str().to_lowercase())
}

/// A `?check`, or a non-empty list of them.
pub(super) fn is_checks(expr: &Expr) -> bool {
    match &expr.kind {
        ExprKind::Check(_) => true,
        ExprKind::Array(items) => {
            !items.is_empty() && items.iter().all(|i| matches!(i.kind, ExprKind::Check(_)))
        }
        _ => false,
    }
}

/// The arguments of a helper call by parameter: positional in `params` order, or keywords.
pub(super) fn keyword_args<'e>(
    call: &'e Call,
    params: &[&str],
) -> Result<Vec<Option<&'e Expr>>, CompileError> {
    let mut out = vec![None; params.len()];
    let mut position = 0;
    for arg in &call.args {
        let slot = match &arg.name {
            Some(name) => params.iter().position(|p| p == name).ok_or_else(|| {
                invalid(
                    arg.value.at,
                    format!("{}(..) has no argument '{name}'", call.name),
                )
            })?,
            None => {
                position += 1;
                position - 1
            }
        };
        let Some(entry) = out.get_mut(slot) else {
            return Err(invalid(
                arg.value.at,
                format!("{}(..) takes at most {} arguments", call.name, params.len()),
            ));
        };
        if entry.is_some() {
            return Err(invalid(arg.value.at, "an argument is given twice"));
        }
        if arg.value.kind != ExprKind::Skip {
            *entry = Some(&arg.value);
        }
    }
    Ok(out)
}

/// A string literal argument of a helper, if given.
pub(super) fn string_arg(
    call: &Call,
    arg: Option<&Expr>,
    what: &str,
) -> Result<Option<String>, CompileError> {
    match arg.map(|e| &e.kind) {
        None => Ok(None),
        Some(ExprKind::Str(s)) => Ok(Some(s.clone())),
        Some(_) => Err(invalid(
            arg.map_or(call.at, |e| e.at),
            format!("{}(..): {what} is a string", call.name),
        )),
    }
}

/// Sets `path` (`/a/b`, `a/b`, `/` or empty: the whole model) in `model` to `value`.
pub(in crate::format::express) fn set_path(model: &mut Value, path: &str, value: Value) {
    let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    let Some((last, parents)) = segments.split_last() else {
        *model = value;
        return;
    };
    let mut here = model;
    for segment in parents {
        if !here.is_object() {
            *here = json!({});
        }
        let Value::Object(map) = here else {
            return;
        };
        here = map.entry(*segment).or_insert_with(|| json!({}));
    }
    if !here.is_object() {
        *here = json!({});
    }
    if let Value::Object(map) = here {
        map.insert((*last).to_owned(), value);
    }
}
