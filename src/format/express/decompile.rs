//! Writing A2UI messages back into Express, the inverse of [`super::compile`].
//!
//! It exists so that a prompt example authored as messages reaches the model in the notation
//! the model is asked to write. The spelling is chosen to recompile to the same messages:
//! positional arguments in the catalog's order with `_` for a gap, child ids as names, a
//! data model as one assignment per leaf path, quoted map keys where a key is not a name,
//! raw strings for backslashes and triple quotes for newlines.

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;

use serde_json::{Map, Value};

use crate::a2ui::Catalog;

/// Writes `messages` as one Express block (without its tags). `catalogs[0]` is the default
/// catalog: a surface on another one names its catalog.
pub(crate) fn decompile(messages: &[Value], catalogs: &[Catalog]) -> String {
    let mut out = String::new();
    let mut scope = Scope::default();
    for message in messages {
        let Some((kind, body)) = message
            .as_object()
            .and_then(|m| m.iter().find(|(k, _)| *k != "version"))
        else {
            continue;
        };
        let surface_id = body.get("surfaceId").and_then(Value::as_str);
        let catalog_id = body.get("catalogId").and_then(Value::as_str);
        let catalog = catalog_id
            .and_then(|id| catalogs.iter().find(|c| c.answers_to(id)))
            .or_else(|| catalogs.first());
        match kind.as_str() {
            "createSurface" | "updateComponents" | "updateDataModel" => {
                scope.open(&mut out, kind, body, catalogs);
                scope.write_content(&mut out, kind, body, catalog);
            }
            "deleteSurface" => {
                let _ = writeln!(out, "deleteSurface({})", string(surface_id.unwrap_or("")));
            }
            "callRendererFunction" => {
                if let Some(function) = body.get("callFunction") {
                    out.push_str(&call(function, catalog, 0));
                    out.push('\n');
                }
            }
            "callFunction" => {
                out.push_str(&call(body, catalog, 0));
                out.push('\n');
            }
            _ => {}
        }
    }
    out.truncate(out.trim_end().len());
    out
}

/// The current `surface(..)` scope and what it holds: a second message of the same kind for
/// the same surface starts a scope of its own, so that it compiles to a message of its own.
#[derive(Default)]
struct Scope {
    surface: Option<String>,
    has_components: bool,
    has_data: bool,
}

impl Scope {
    /// Opens a `surface(..)` scope for a surface message, unless the current scope is its
    /// surface's and holds nothing of its kind yet.
    fn open(&mut self, out: &mut String, kind: &str, body: &Value, catalogs: &[Catalog]) {
        let again = match kind {
            "updateComponents" => self.has_components,
            "updateDataModel" => self.has_data,
            _ => true,
        };
        let Some(id) = body.get("surfaceId").and_then(Value::as_str) else {
            return;
        };
        if self.surface.as_deref() != Some(id) || again {
            self.has_components = false;
            self.has_data = false;
            write_surface(out, id, body, catalogs);
            self.surface = Some(id.to_owned());
        }
    }

    /// Writes the data and the components a surface message holds into the scope.
    fn write_content(
        &mut self,
        out: &mut String,
        kind: &str,
        body: &Value,
        catalog: Option<&Catalog>,
    ) {
        let data = match kind {
            "updateDataModel" => body.get("value").map(|v| {
                let path = body.get("path").and_then(Value::as_str).unwrap_or("/");
                (path.trim_end_matches('/').to_owned(), v)
            }),
            _ => body.get("dataModel").map(|v| (String::new(), v)),
        };
        if let Some((path, value)) = data {
            data_model(out, &path, value, catalog);
            self.has_data = true;
        }
        self.has_components |= body.get("components").is_some();
        let components = body
            .get("components")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default();
        let names = variable_names(components);
        for component in components {
            if let Some(catalog) = catalog {
                write_component(out, component, catalog, &names);
            }
        }
    }
}

/// The `surface(id, catalog, sendDataModel=..)` line that opens a scope; the catalog only
/// when it is not the default one.
fn write_surface(out: &mut String, id: &str, body: &Value, catalogs: &[Catalog]) {
    out.push_str("surface(");
    out.push_str(&string(id));
    let default = catalogs.first().map(Catalog::id);
    let catalog_id = body.get("catalogId").and_then(Value::as_str);
    if let Some(named) = catalog_id.filter(|c| Some(*c) != default) {
        out.push_str(", ");
        out.push_str(&string(named));
    }
    if let Some(send) = body.get("sendDataModel").and_then(Value::as_bool) {
        let _ = write!(out, ", sendDataModel={send}");
    }
    out.push_str(")\n");
}

/// The data of one update as assignments. A lone assignment below the top level compiles to
/// an update of its own path, so an update at a path is one assignment, and the whole model
/// is one assignment per leaf unless that is one leaf below the top (then one for its key).
fn data_model(out: &mut String, path: &str, value: &Value, catalog: Option<&Catalog>) {
    let mut flat = String::new();
    // Counted, not read off the lines: a string with a newline spans several.
    let assignments = leaves(&mut flat, path, value, catalog);
    let single = value.as_object().filter(|m| m.len() == 1);
    match single.and_then(|m| m.iter().next()) {
        Some((key, item)) if path.is_empty() && assignments == 1 && item.is_object() => {
            let _ = writeln!(out, "$/{key} = {}", literal(item, catalog, 0));
        }
        _ if !path.is_empty() => {
            let _ = writeln!(out, "${path} = {}", literal(value, catalog, 0));
        }
        _ => out.push_str(&flat),
    }
}

/// One assignment per leaf of `value` under `path`; how many.
fn leaves(out: &mut String, path: &str, value: &Value, catalog: Option<&Catalog>) -> usize {
    match value {
        Value::Object(map) if !map.is_empty() && map.keys().all(|k| is_path_segment(k)) => map
            .iter()
            .map(|(key, item)| leaves(out, &format!("{path}/{key}"), item, catalog))
            .sum(),
        _ => {
            let path = if path.is_empty() { "/" } else { path };
            let _ = writeln!(out, "${path} = {}", literal(value, catalog, 0));
            1
        }
    }
}

fn is_path_segment(key: &str) -> bool {
    !key.is_empty() && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The variable each component of a message is written under: its id where that is a
/// name, otherwise a name derived from it (`content-grid`: `content_grid`) that no other
/// component uses, written with `id="content-grid"`, as the official decompiler does.
fn variable_names(components: &[Value]) -> HashMap<String, String> {
    let ids: Vec<&str> = components
        .iter()
        .filter_map(|c| c.get("id").and_then(Value::as_str))
        .collect();
    let mut names: HashMap<String, String> = ids
        .iter()
        .filter(|id| is_name(id))
        .map(|id| ((*id).to_owned(), (*id).to_owned()))
        .collect();
    let mut taken: HashSet<String> = names.values().cloned().collect();
    for id in ids {
        if names.contains_key(id) {
            continue;
        }
        let mut base: String = id
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '_' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        if !is_name(&base) {
            base.insert(0, '_');
        }
        let (mut name, mut suffix) = (base.clone(), 2);
        while taken.contains(&name) {
            name = format!("{base}_{suffix}");
            suffix += 1;
        }
        taken.insert(name.clone());
        names.insert(id.to_owned(), name);
    }
    names
}

/// How a reference to component `id` is written: the variable of a component of the same
/// message, the bare id of one sent before where that is a free name, a string otherwise.
fn reference(id: &str, names: &HashMap<String, String>) -> String {
    match names.get(id) {
        Some(name) => name.clone(),
        None if is_name(id) && !names.values().any(|n| n == id) => id.to_owned(),
        None => string(id),
    }
}

fn write_component(
    out: &mut String,
    component: &Value,
    catalog: &Catalog,
    names: &HashMap<String, String>,
) {
    let (Some(id), Some(name)) = (
        component.get("id").and_then(Value::as_str),
        component.get("component").and_then(Value::as_str),
    ) else {
        return;
    };
    let Some(map) = component.as_object() else {
        return;
    };
    let signature: Vec<&str> = catalog
        .property_order(name)
        .iter()
        .map(String::as_str)
        .filter(|p| *p != "component" && *p != "id" && *p != "checks")
        .collect();
    let mut args: Vec<String> = signature
        .iter()
        .map(|p| {
            map.get(*p).map_or_else(
                || "_".into(),
                |v| property(v, slot(catalog, name, p), catalog, names),
            )
        })
        .collect();
    while args.last().is_some_and(|a| a == "_") {
        args.pop();
    }
    let catalog = Some(catalog);
    for (key, value) in map {
        let known = signature.contains(&key.as_str());
        if !known && !matches!(key.as_str(), "id" | "component" | "checks") {
            args.push(format!("{key}={}", literal(value, catalog, 0)));
        }
    }
    for rule in map
        .get("checks")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        args.push(check(rule, catalog));
    }
    let target = reference(id, names);
    if target != id {
        args.push(format!("id={}", string(id)));
    }
    let _ = writeln!(out, "{target} = {name}({})", args.join(", "));
}

/// How a property's value is spelled, by the kind of slot.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Child,
    ChildList,
    Other,
}

fn slot(catalog: &Catalog, component: &str, property: &str) -> Kind {
    let schema = catalog
        .schema()
        .get("components")
        .and_then(|c| c.get(component))
        .and_then(|c| {
            c.get("properties")
                .and_then(|p| p.get(property))
                .or_else(|| {
                    c.get("allOf")?
                        .as_array()?
                        .iter()
                        .find_map(|b| b.get("properties").and_then(|p| p.get(property)))
                })
        });
    match schema
        .and_then(|s| s.get("$ref"))
        .and_then(Value::as_str)
        .and_then(|r| r.rsplit('/').next())
    {
        Some("Child" | "ComponentId") => Kind::Child,
        Some("ChildList") => Kind::ChildList,
        _ => Kind::Other,
    }
}

fn property(
    value: &Value,
    kind: Kind,
    catalog: &Catalog,
    names: &HashMap<String, String>,
) -> String {
    match (kind, value) {
        (Kind::Child, Value::String(id)) => reference(id, names),
        (Kind::ChildList, Value::Array(ids)) => {
            let items: Vec<String> = ids
                .iter()
                .map(|v| property(v, Kind::Child, catalog, names))
                .collect();
            format!("[{}]", items.join(", "))
        }
        (Kind::ChildList, Value::Object(map)) if map.contains_key("componentId") => {
            let path = map.get("path").and_then(Value::as_str).unwrap_or("");
            let component = map
                .get("componentId")
                .map_or_else(String::new, |c| property(c, Kind::Child, catalog, names));
            format!("_template(${path}, {component})")
        }
        _ => literal(value, Some(catalog), 0),
    }
}

/// `?name(args, "message")`.
fn check(rule: &Value, catalog: Option<&Catalog>) -> String {
    let condition = rule.get("condition").unwrap_or(&Value::Null);
    let name = call_name(condition).unwrap_or("");
    let mut args: Vec<String> = Vec::new();
    if let Some(map) = condition.get("args").and_then(Value::as_object) {
        // The checked value is the component's own, which compiling fills in again.
        let mut rest = map.clone();
        rest.remove("value");
        let params: Option<Vec<&String>> = catalog
            .filter(|c| c.function_names().any(|n| n == name))
            .map(|c| {
                c.parameter_order(name)
                    .iter()
                    .filter(|p| *p != "value")
                    .collect()
            });
        let message = rule.get("message").is_some_and(Value::is_string);
        args = match params {
            // A message follows every parameter (`_` for those not given): the compiler
            // reads a last string as the message only past the parameters.
            Some(params) if message => {
                let mut args: Vec<String> = params
                    .iter()
                    .map(|p| {
                        rest.get(p.as_str())
                            .map_or_else(|| "_".into(), |v| literal(v, catalog, 1))
                    })
                    .collect();
                for (key, value) in &rest {
                    if !params.contains(&key) {
                        args.insert(0, format!("{key}={}", literal(value, catalog, 1)));
                    }
                }
                args
            }
            params => positional(&rest, params.as_deref(), catalog, 1),
        };
    }
    if let Some(message) = rule.get("message").and_then(Value::as_str) {
        args.push(string(message));
    }
    if args.is_empty() {
        format!("?{name}")
    } else {
        format!("?{name}({})", args.join(", "))
    }
}

/// `name(args)` for a function call object `{call, args}`.
fn call(function: &Value, catalog: Option<&Catalog>, depth: usize) -> String {
    let name = call_name(function).unwrap_or("");
    let args = match function.get("args") {
        Some(Value::Object(map)) => {
            let params: Option<Vec<&String>> = catalog
                .filter(|c| c.function_names().any(|n| n == name))
                .map(|c| c.parameter_order(name).iter().collect());
            positional(map, params.as_deref(), catalog, depth)
        }
        Some(Value::Array(items)) => items
            .iter()
            .map(|v| literal(v, catalog, depth + 1))
            .collect(),
        _ => Vec::new(),
    };
    format!("{name}({})", args.join(", "))
}

/// Arguments in parameter order (`_` for a gap), then any the parameters do not list as
/// keywords; `params` `None` (a function the catalog does not declare): in the map's order.
fn positional(
    map: &Map<String, Value>,
    params: Option<&[&String]>,
    catalog: Option<&Catalog>,
    depth: usize,
) -> Vec<String> {
    let Some(params) = params else {
        return map
            .values()
            .map(|v| literal(v, catalog, depth + 1))
            .collect();
    };
    let mut args: Vec<String> = {
        params
            .iter()
            .map(|p| {
                map.get(p.as_str())
                    .map_or_else(|| "_".into(), |v| literal(v, catalog, depth + 1))
            })
            .collect()
    };
    while args.last().is_some_and(|a| a == "_") {
        args.pop();
    }
    for (key, value) in map {
        if !params.contains(&key) {
            args.push(format!("{key}={}", literal(value, catalog, depth + 1)));
        }
    }
    args
}

/// A value in Express: bindings as `$path`, calls, events and templates as helpers, the rest
/// as literals.
fn literal(value: &Value, catalog: Option<&Catalog>, depth: usize) -> String {
    if depth > 64 {
        return "null".into();
    }
    match value {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => string(s),
        Value::Array(items) => {
            let items: Vec<String> = items
                .iter()
                .map(|v| literal(v, catalog, depth + 1))
                .collect();
            format!("[{}]", items.join(", "))
        }
        Value::Object(map) => {
            let binding = map.get("path").or_else(|| map.get("@path"));
            if let Some(Value::String(path)) = binding.filter(|_| map.len() == 1)
                && path
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '/')
            {
                return format!("${path}");
            }
            // `returnType` restates what the catalog declares for the function: a call is
            // written as one, and compiles back without it.
            let plain = map
                .keys()
                .all(|k| matches!(k.as_str(), "call" | "@call" | "args" | "returnType"));
            if call_name(value).is_some() && plain {
                return call(value, catalog, depth);
            }
            if let (Some(Value::Object(event)), 1) = (map.get("event"), map.len())
                && let Some(name) = event.get("name").and_then(Value::as_str)
            {
                // An empty context is written (`{}`) so that it comes back.
                return match event.get("context") {
                    Some(context) if context.is_object() => {
                        format!(
                            "Event({}, {})",
                            string(name),
                            literal(context, catalog, depth + 1)
                        )
                    }
                    _ => format!("Event({})", string(name)),
                };
            }
            if let (Some(function), 1) = (map.get("functionCall"), map.len()) {
                return literal(function, catalog, depth);
            }
            let entries: Vec<String> = map
                .iter()
                .map(|(k, v)| {
                    let key = if is_name(k) { k.clone() } else { string(k) };
                    format!("{key}: {}", literal(v, catalog, depth + 1))
                })
                .collect();
            format!("{{{}}}", entries.join(", "))
        }
    }
}

/// The function a call object names (`call`, or `@call` in v1.0 drafts).
fn call_name(value: &Value) -> Option<&str> {
    value
        .get("call")
        .or_else(|| value.get("@call"))
        .and_then(Value::as_str)
}

/// A name the grammar reads as a name (not a keyword, not a raw string's `r`).
fn is_name(text: &str) -> bool {
    let mut chars = text.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !matches!(text, "true" | "false" | "null" | "_")
}

/// A string literal: raw for backslashes, triple-quoted for newlines (a triple-quoted
/// string processes escapes too, so only where it has neither a backslash nor a quote),
/// escaped otherwise.
fn string(text: &str) -> String {
    if text.contains('\\') && !text.contains('"') && !text.contains('\n') {
        return format!("r\"{text}\"");
    }
    if text.contains('\n') && !text.contains(['\\', '"']) {
        return format!("\"\"\"{text}\"\"\"");
    }
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}
