//! The prompt section of the Express format: the output contract, the statements the agent
//! allows, and each active catalog as call signatures.
//!
//! Express omits property names, so the model has to be told each component's argument
//! order: a component is listed as `Text(text, variant?)`, with each parameter's kind, in
//! the order the catalog document gives (the order the compiler maps arguments in).

use std::fmt::Write as _;

use serde_json::Value;

use super::{CLOSE_TAG, OPEN_TAG};
use crate::a2ui::{Catalog, ProtocolVersion, message_kinds};

/// The section for `catalogs` under `version`, describing only the `allowed` message kinds
/// (`None`: all of them).
pub(crate) fn write(
    version: ProtocolVersion,
    catalogs: &[Catalog],
    allowed: Option<&[String]>,
    default_surface: &str,
) -> String {
    let kinds = allowed_kinds(version, allowed);
    let mut out = String::with_capacity(8 * 1024);
    let _ = write!(
        out,
        "# A2UI Express DSL Output Contract\n\n\
         Write conversational text as usual. To show or change a user interface, write a block \
         that starts with {OPEN_TAG} and ends with {CLOSE_TAG}, holding statements in the A2UI \
         Express notation described here (not JSON). Text outside the blocks is shown to the \
         user as it is. Each block is compiled when your answer is complete.\n\n\
         ## Statements\n\n"
    );
    for rule in statement_rules(&kinds, catalogs, default_surface) {
        let _ = writeln!(out, "- {rule}");
    }
    write_values(&mut out, catalogs);
    for catalog in catalogs {
        describe(&mut out, catalog);
    }
    out
}

/// The statements the allowed message `kinds` permit, each described in one line.
fn statement_rules(kinds: &[&str], catalogs: &[Catalog], default_surface: &str) -> Vec<String> {
    let has = |kind: &str| kinds.contains(&kind);
    let mut rules: Vec<String> = Vec::new();
    if has("createSurface") || has("updateComponents") {
        rules.extend(surface_rules(catalogs, default_surface));
    }
    if has("updateDataModel") || has("createSurface") {
        rules.push(
            "`$/path/to/key = value` sets a value in the surface's data model; with `root` in \
             the same block it is the initial data."
                .into(),
        );
    }
    if has("deleteSurface") {
        rules.push("`deleteSurface(\"orders\")` removes a surface.".into());
    }
    if has("callRendererFunction") {
        rules.push(
            "`function(arguments)` on its own, with a function of the catalog, asks the renderer \
             to run it."
                .into(),
        );
    }
    rules.push(
        "`name = value` with a map, an `Event` or a check defines a value that is substituted \
         wherever `name` is used."
            .into(),
    );
    rules
}

/// The rules of `surface(..)` and of `name = Component(..)`, for an agent that defines
/// components.
fn surface_rules(catalogs: &[Catalog], default_surface: &str) -> Vec<String> {
    let ids: Vec<String> = catalogs.iter().map(|c| format!("\"{}\"", c.id())).collect();
    let catalog_rule = if catalogs.len() > 1 {
        format!(
            " Add the catalog as a second argument, `surface(\"orders\", {})`, to use one \
             other than the first; the catalogs are {}.",
            ids.get(1).cloned().unwrap_or_default(),
            ids.join(", ")
        )
    } else {
        String::new()
    };
    let surface = format!(
        "`surface(\"orders\")` starts the statements about one surface (its id).{catalog_rule} \
         Without it, statements are about the surface `{default_surface}`."
    );
    let define = String::from(
        "`name = Component(arguments)` defines a component whose id is `name`; each \
         component needs its own name. A block \
         that defines `root` creates the surface with `root` as its top component; a block \
         without `root` updates components of a surface that exists.",
    );
    vec![surface, define]
}

/// The section on values: literals, bindings, arguments, children, templates, events,
/// checks and comments.
fn write_values(out: &mut String, catalogs: &[Catalog]) {
    let child_example = child_example(catalogs).map_or(String::new(), |e| format!(": {e}"));
    out.push_str(
        "\n## Values\n\n\
         - Strings `\"Hello\"` (JSON escapes), raw strings `r\"C:\\path\"` (no escapes), \
         `\"\"\"several lines\"\"\"`; numbers; `true`, `false`, `null`; lists `[a, b]`; maps \
         `{key: value, \"other-key\": value}`.\n\
         - `$/user/name` binds a property to the data model; inside a template, `$name` is \
         relative to the current item and `$` is the item itself.\n\
         - Arguments are positional, in the order of the signatures below; `_` skips one, \
         trailing optional ones may be left out, and `property=value` names one.\n\
         - A child is the name of another component or a component written inline, never a \
         string",
    );
    out.push_str(&child_example);
    out.push_str(
        ".\n\
         - There are no operators: `+` does not join strings; write each text whole.\n\
         - `_template($/items, itemRow)` repeats the component `itemRow` for each item of a \
         list in the data model.\n\
         - `Event(\"submit\", {id: $/order/id})` is an action that sends the event to you.\n\
         - `?required`, `?regex(r\"^[0-9]+$\", \"Digits only\")`: checks on an input's own \
         value; a last string argument is the message shown to the user.\n\
         - `#`, `//` and `/* */` start comments; statements may span lines.\n\n",
    );
}

/// The message kinds of `version` that `allowed` permits (`None`: all of them).
pub(super) fn allowed_kinds(
    version: ProtocolVersion,
    allowed: Option<&[String]>,
) -> Vec<&'static str> {
    message_kinds(version)
        .iter()
        .copied()
        .filter(|k| allowed.is_none_or(|a| a.iter().any(|x| x == k)))
        .collect()
}

/// How the prompt lists `component` of `catalog`: its signature, each parameter with what it
/// takes, in the order the compiler maps positional arguments
/// (`` `Text(text: string | $path | call, variant?: "h1" | ..)` ``). A compile error about a
/// component's arguments repeats it, so that a repair turn shows the model how the call is
/// written rather than only what was wrong with it.
pub(super) fn written(catalog: &Catalog, component: &str) -> String {
    let definition = catalog
        .schema()
        .get("components")
        .and_then(|c| c.get(component));
    let required = required_of(definition);
    let params: Vec<String> = catalog
        .property_order(component)
        .iter()
        .filter(|p| *p != "component" && *p != "id")
        .map(|p| parameter(p, &required, property_schema(definition, p)))
        .collect();
    format!("`{component}({})`", params.join(", "))
}

/// `name: kind`, or `name?: kind` when `required` does not name it.
fn parameter(name: &str, required: &[&str], schema: Option<&Value>) -> String {
    let optional = if required.contains(&name) { "" } else { "?" };
    format!("{name}{optional}: {}", kind(schema))
}

/// One catalog: its id, components as signatures, functions.
fn describe(out: &mut String, catalog: &Catalog) {
    let _ = writeln!(out, "## Catalog \"{}\"\n\nComponents:\n", catalog.id());
    let schema = catalog.schema();
    for name in catalog.component_names() {
        let description = schema
            .get("components")
            .and_then(|c| c.get(name))
            .and_then(|c| c.get("description"))
            .and_then(Value::as_str)
            .map(|d| format!(" — {}", first_sentence(d)))
            .unwrap_or_default();
        let _ = writeln!(out, "- {}{description}", written(catalog, name));
    }
    let functions: Vec<&str> = catalog.function_names().collect();
    if !functions.is_empty() {
        out.push_str("\nFunctions:\n\n");
        for name in functions {
            let function = schema.get("functions").and_then(|f| f.get(name));
            let returns = function
                .and_then(|f| f.get("returnType"))
                .and_then(Value::as_str)
                .map(|r| format!(" → {r}"))
                .unwrap_or_default();
            let description = function
                .and_then(|f| f.get("description"))
                .and_then(Value::as_str)
                .map(|d| format!(" — {}", first_sentence(d)))
                .unwrap_or_default();
            let _ = writeln!(
                out,
                "- `{name}({})`{returns}{description}",
                catalog.parameter_order(name).join(", ")
            );
        }
    }
    out.push('\n');
}

pub(super) fn required_of(component: Option<&Value>) -> Vec<&str> {
    let Some(component) = component else {
        return Vec::new();
    };
    let mut schemas = vec![component];
    if let Some(branches) = component.get("allOf").and_then(Value::as_array) {
        schemas.extend(branches);
    }
    schemas
        .iter()
        .filter_map(|s| s.get("required").and_then(Value::as_array))
        .flatten()
        .filter_map(Value::as_str)
        .collect()
}

fn property_schema<'a>(component: Option<&'a Value>, property: &str) -> Option<&'a Value> {
    let component = component?;
    component
        .get("properties")
        .and_then(|p| p.get(property))
        .or_else(|| {
            component
                .get("allOf")?
                .as_array()?
                .iter()
                .find_map(|b| b.get("properties").and_then(|p| p.get(property)))
        })
}

/// A short description of what a property takes.
fn kind(schema: Option<&Value>) -> String {
    let Some(schema) = schema else {
        return "value".into();
    };
    if let Some(target) = schema.get("$ref").and_then(Value::as_str) {
        return match target.rsplit('/').next().unwrap_or_default() {
            "Child" | "ComponentId" => "child".into(),
            "ChildList" => "[children] | _template(..)".into(),
            "Action" => "Event(..) | call".into(),
            "DynamicString" => "string | $path | call".into(),
            "DynamicNumber" => "number | $path | call".into(),
            "DynamicBoolean" => "boolean | $path | call".into(),
            "DynamicStringList" => "[strings] | $path | call".into(),
            "DataBinding" => "$path".into(),
            other => other.to_owned(),
        };
    }
    if let Some(choices) = schema.get("enum").and_then(Value::as_array) {
        return choices
            .iter()
            .map(Value::to_string)
            .collect::<Vec<_>>()
            .join(" | ");
    }
    match schema.get("type").and_then(Value::as_str) {
        Some("array") => list_kind(schema.get("items")),
        Some(t) => t.to_owned(),
        None => "value".into(),
    }
}

/// What a list's items take: `[{child: child, title: string | $path | call}]` for objects
/// (a model shown only `[list]` for Tabs wrote `{title, content}` items), `[string]` for
/// plain ones.
fn list_kind(items: Option<&Value>) -> String {
    let Some(items) = items else {
        return "[list]".into();
    };
    let Some(properties) = items.get("properties").and_then(Value::as_object) else {
        return format!("[{}]", kind(Some(items)));
    };
    let required = required_of(Some(items));
    let fields: Vec<String> = properties
        .iter()
        .map(|(key, schema)| parameter(key, &required, Some(schema)))
        .collect();
    format!("[{{{}}}]", fields.join(", "))
}

/// Up to the first full stop followed by a capital letter (so `e.g. x` does not end it).
pub(crate) fn first_sentence(text: &str) -> &str {
    let end = text
        .match_indices(". ")
        .find(|(i, _)| {
            text.get(i + 2..)
                .and_then(|rest| rest.chars().next())
                .is_some_and(char::is_uppercase)
        })
        .map_or(text.len(), |(i, _)| i + 1);
    text.get(..end).unwrap_or(text).trim()
}

/// An inline child, `Button(Text("Send"), action=Event("send"))`, when the catalogs have both
/// components: a pruned catalog's prompt (and its repair turns) name none of the components
/// it left out.
pub(super) fn child_example(catalogs: &[Catalog]) -> Option<&'static str> {
    let offers = |name: &str| catalogs.iter().any(|catalog| catalog.has_component(name));
    // `action=`: the button's second positional argument is its variant.
    (offers("Button") && offers("Text"))
        .then_some("`Button(Text(\"Send\"), action=Event(\"send\"))`")
}
