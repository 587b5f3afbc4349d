//! The lean prompt's schema sections: each message kind as one line, the shared types as
//! aliases described once, each component and function as one signature line.
//!
//! The full schemas are most of a prompt's tokens, and a model reads them on every turn
//! (the v0.9 basic catalog's came to about 11,600 tokens, more than the official SDK's
//! 9,586). What a model needs to write A2UI that validates is less: which messages exist
//! and their keys, each component's properties with their types, which are required and
//! which strings an enum allows, and what the shared types look like. All of it is read from
//! the message schema, the common types and the catalogs at run time, so a custom catalog is
//! described the same way as the basic one.

use std::fmt::Write as _;

use serde_json::Value;

use super::schema_text::{Doc, TypeText, required};
use crate::a2ui::{Catalog, ProtocolVersion, call_key, schema_documents};

/// Properties every component has a place for in the message itself, said in the envelope.
const ENVELOPE: [&str; 2] = ["id", "component"];

/// `createSurface` → `CreateSurfaceMessage`, the `$defs` entry of a message kind.
pub(super) fn def_name(kind: &str) -> String {
    let mut chars = kind.chars();
    let first = chars.next().map(|c| c.to_ascii_uppercase());
    first
        .into_iter()
        .chain(chars)
        .chain("Message".chars())
        .collect()
}

/// One property as a signature lists it.
struct Property<'a> {
    name: String,
    required: bool,
    schema: &'a Value,
    doc: Doc<'a>,
}

/// Writes the message shapes, the types and the catalogs of a lean prompt for the allowed
/// message `kinds` of `version`; descriptions that mention a `withheld` name are left out.
pub(super) fn write(
    out: &mut String,
    version: ProtocolVersion,
    kinds: &[&str],
    catalogs: &[Catalog],
    withheld: &[String],
) {
    let Ok(docs) = schema_documents(version) else {
        return;
    };
    let Some(first) = catalogs.first() else {
        return;
    };
    let mut types = TypeText::new(
        &docs.message,
        docs.common_types.as_ref(),
        first.schema(),
        withheld,
    );
    let messages = message_lines(&mut types, version, &docs.message, kinds);
    let mut sections = String::new();
    for catalog in catalogs {
        describe(&mut sections, &mut types, version, catalog);
    }
    let definitions = types.definitions();
    out.push_str(
        "## Message shapes\n\nOne line per message. `\"key\"?:` marks an optional key, \
         `\"a\"|\"b\"` one of these values, `[T]` a list of T, `{string: T}` an object whose \
         values are T",
    );
    if messages.iter().any(|line| line.contains("AnyComponent")) {
        out.push_str(", `AnyComponent` one of the catalog's components (below)");
    }
    out.push_str(".\n\n");
    for line in messages {
        let _ = writeln!(out, "{line}");
    }
    if !definitions.is_empty() {
        out.push_str("\n## Types\n\n");
        for line in definitions {
            let _ = writeln!(out, "- {line}");
        }
    }
    out.push('\n');
    out.push_str(&sections);
}

/// Each allowed message kind's shape, as one line.
fn message_lines<'a>(
    types: &mut TypeText<'a>,
    version: ProtocolVersion,
    message: &'a Value,
    kinds: &[&str],
) -> Vec<String> {
    kinds
        .iter()
        .filter_map(|kind| {
            if version == ProtocolVersion::V0_8 {
                let body = message.get("properties")?.get(*kind)?;
                Some(format!("{{\"{kind}\": {}}}", types.of(body, Doc::Message)))
            } else {
                let def = message.get("$defs")?.get(def_name(kind))?;
                Some(types.of(def, Doc::Message))
            }
        })
        .collect()
}

/// One catalog: its id, its components' names, how a component is written, the properties
/// every component shares, a signature per component and per function.
fn describe<'a>(
    out: &mut String,
    types: &mut TypeText<'a>,
    version: ProtocolVersion,
    catalog: &'a Catalog,
) {
    let schema = catalog.schema();
    let doc = Doc::Catalog(schema);
    let names: Vec<&str> = catalog.component_names().collect();
    let _ = writeln!(
        out,
        "## Catalog `{}`\n\nComponents: {}.",
        catalog.id(),
        if names.is_empty() {
            "none".into()
        } else {
            names.join(", ")
        }
    );
    if let Some(text) = schema.get("instructions").and_then(Value::as_str)
        && let Some(text) = types.summary(text)
    {
        let _ = writeln!(out, "\n{text}");
    }
    let _ = writeln!(out, "\n{}", component_form(version));
    let listed: Vec<(&str, Vec<Property<'a>>)> = names
        .iter()
        .map(|name| (*name, properties(&*types, catalog, name, doc)))
        .collect();
    let shared = shared_properties(&listed);
    if !shared.is_empty() {
        let text: Vec<String> = shared.iter().map(|p| parameter(types, p)).collect();
        let _ = writeln!(out, "Every component also takes {}.", text.join(", "));
    }
    out.push('\n');
    for (name, props) in &listed {
        let params: Vec<String> = props
            .iter()
            .filter(|p| !shared.iter().any(|s| s.name == p.name))
            .map(|p| parameter(types, p))
            .collect();
        let about = component_schema(catalog, name)
            .and_then(|s| types.description(s))
            .map(|d| format!(" — {d}"))
            .unwrap_or_default();
        let _ = writeln!(out, "- {name}({}){about}", params.join(", "));
    }
    styles(out, types, catalog, doc);
    functions(out, types, version, catalog, doc);
    out.push('\n');
}

/// A v0.8 catalog's surface styles (`beginRendering.styles`), as one line.
fn styles<'a>(out: &mut String, types: &mut TypeText<'a>, catalog: &'a Catalog, doc: Doc<'a>) {
    let Some(map) = catalog.schema().get("styles").and_then(Value::as_object) else {
        return;
    };
    if map.is_empty() {
        return;
    }
    let fields: Vec<String> = map
        .iter()
        .map(|(key, schema)| format!("{}?: {}", Value::String(key.clone()), types.of(schema, doc)))
        .collect();
    let _ = writeln!(
        out,
        "\nStyles (`styles` of a surface): {{{}}}",
        fields.join(", ")
    );
}

/// How one component is written in a message, in the version's layout.
fn component_form(version: ProtocolVersion) -> &'static str {
    if version == ProtocolVersion::V0_8 {
        "A component is {\"id\": \"<unique id>\", \"component\": {\"<Name>\": {<its properties>}}}; \
         its properties are listed as Name(property: type, optional?: type)."
    } else {
        "A component is one flat object: {\"id\": \"<unique id>\", \"component\": \"<Name>\", \
         <its properties>}; they are listed as Name(property: type, optional?: type)."
    }
}

fn component_schema<'a>(catalog: &'a Catalog, name: &str) -> Option<&'a Value> {
    catalog.schema().get("components")?.get(name)
}

/// `name: type`, or `name?: type` when optional.
fn parameter<'a>(types: &mut TypeText<'a>, property: &Property<'a>) -> String {
    let mark = if property.required { "" } else { "?" };
    let ty = types.of(property.schema, property.doc);
    format!("{}{mark}: {ty}", property.name)
}

/// A component's properties, its own and those of the definitions its `allOf` refers to,
/// in the catalog document's order, without `id` and `component`.
fn properties<'a>(
    types: &TypeText<'a>,
    catalog: &'a Catalog,
    name: &str,
    doc: Doc<'a>,
) -> Vec<Property<'a>> {
    let Some(schema) = component_schema(catalog, name) else {
        return Vec::new();
    };
    let mut found: Vec<Property<'a>> = Vec::new();
    let mut needed: Vec<&'a str> = Vec::new();
    collect(types, schema, doc, 0, &mut found, &mut needed);
    found.retain(|p| !ENVELOPE.contains(&p.name.as_str()));
    for property in &mut found {
        property.required = needed.contains(&property.name.as_str());
    }
    let order = catalog.property_order(name);
    let position = |p: &Property<'_>| {
        order
            .iter()
            .position(|o| *o == p.name)
            .unwrap_or(usize::MAX)
    };
    found.sort_by_key(position);
    found
}

/// Gathers the properties and required names of `schema` and its `allOf` parts.
fn collect<'a>(
    types: &TypeText<'a>,
    schema: &'a Value,
    doc: Doc<'a>,
    depth: usize,
    found: &mut Vec<Property<'a>>,
    needed: &mut Vec<&'a str>,
) {
    if depth > 8 {
        return;
    }
    if let Some(reference) = schema.get("$ref").and_then(Value::as_str) {
        if let Some((target_doc, target)) = types.resolve(reference, doc) {
            collect(types, target, target_doc, depth + 1, found, needed);
        }
        return;
    }
    needed.extend(required(schema));
    if let Some(map) = schema.get("properties").and_then(Value::as_object) {
        for (key, property) in map {
            if !found.iter().any(|p| p.name == *key) {
                found.push(Property {
                    name: key.clone(),
                    required: false,
                    schema: property,
                    doc,
                });
            }
        }
    }
    for part in schema
        .get("allOf")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        collect(types, part, doc, depth + 1, found, needed);
    }
}

/// The properties every component of a catalog (two or more) has, with the same schema and
/// the same required mark: said once rather than on each line.
fn shared_properties<'a>(listed: &[(&str, Vec<Property<'a>>)]) -> Vec<Property<'a>> {
    let Some((_, first)) = listed.first() else {
        return Vec::new();
    };
    if listed.len() < 2 {
        return Vec::new();
    }
    first
        .iter()
        .filter(|p| {
            listed.iter().all(|(_, props)| {
                props
                    .iter()
                    .any(|q| q.name == p.name && q.required == p.required && q.schema == p.schema)
            })
        })
        .map(|p| Property {
            name: p.name.clone(),
            required: p.required,
            schema: p.schema,
            doc: p.doc,
        })
        .collect()
}

/// The catalog's functions as signatures, `name(argument: type) → type — what it does.`
fn functions<'a>(
    out: &mut String,
    types: &mut TypeText<'a>,
    version: ProtocolVersion,
    catalog: &'a Catalog,
    doc: Doc<'a>,
) {
    let Some(map) = catalog.schema().get("functions").and_then(Value::as_object) else {
        return;
    };
    if map.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "\nFunctions, called as {{\"{}\": \"<name>\", \"args\": {{<arguments>}}}}:\n",
        call_key(version)
    );
    for (name, function) in map {
        let mut args: Vec<Property<'a>> = Vec::new();
        let mut needed: Vec<&'a str> = Vec::new();
        if let Some(schema) = member(function, "args") {
            collect(types, schema, doc, 0, &mut args, &mut needed);
        }
        let order = catalog.parameter_order(name);
        args.sort_by_key(|p| {
            order
                .iter()
                .position(|o| *o == p.name)
                .unwrap_or(usize::MAX)
        });
        let params: Vec<String> = args
            .iter_mut()
            .map(|p| {
                p.required = needed.contains(&p.name.as_str());
                parameter(types, p)
            })
            .collect();
        let returns = return_type(function)
            .map(|r| format!(" → {r}"))
            .unwrap_or_default();
        let about = types
            .description(function)
            .map(|d| format!(" — {d}"))
            .unwrap_or_default();
        let _ = writeln!(out, "- {name}({}){returns}{about}", params.join(", "));
    }
}

/// The schema of property `key` of `schema` or of one of its `allOf` parts.
fn member<'a>(schema: &'a Value, key: &str) -> Option<&'a Value> {
    schema
        .get("properties")
        .and_then(|p| p.get(key))
        .or_else(|| {
            schema
                .get("allOf")?
                .as_array()?
                .iter()
                .find_map(|part| part.get("properties").and_then(|p| p.get(key)))
        })
}

/// What a function returns: its `returnType`, or the constant of its `returnType` property.
fn return_type(function: &Value) -> Option<String> {
    if let Some(kind) = function.get("returnType").and_then(Value::as_str) {
        return Some(kind.to_owned());
    }
    let constant = member(function, "returnType")?.get("const")?;
    Some(
        constant
            .as_str()
            .map_or_else(|| constant.to_string(), str::to_owned),
    )
}
