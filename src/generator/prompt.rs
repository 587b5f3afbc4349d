//! The system prompt that teaches a model to write A2UI for one set of catalogs.
//!
//! A model can only draw with what it is told about, and a renderer can only draw what its
//! catalogs define, so the prompt is written from the catalogs a negotiation left active
//! (after any pruning the agent asked for): the output format's instructions, the workflow
//! rules of the protocol version, then the messages and catalogs in the generator's
//! [`PromptStyle`] (one signature line per component, or the whole schemas) and the agent's
//! examples. It is assembled once per catalog set (the
//! [`Generator`](crate::generator::Generator) caches the processor that holds it) and is
//! deterministic: the same inputs give the same bytes, because keys are written sorted, and
//! nothing in it depends on a request, so a model server's prompt cache keeps hitting.

use serde_json::Value;

use super::signatures::{self, def_name};
use crate::a2ui::{Catalog, ProtocolVersion, message_kinds, schema_documents};
use crate::format::OutputFormat;

/// How a Direct JSON prompt describes the messages and the catalogs.
///
/// [`Signatures`](Self::Signatures), the default, writes each message kind as one line, the
/// shared types once, and each component and function as one signature line with its
/// required marks and enum values, all read from the catalogs at run time: for the v0.9 basic
/// catalog about a third of the official SDK's prompt. [`Schemas`](Self::Schemas) writes the
/// message schema, the common types and each catalog's JSON Schema whole, for a model that
/// does better with every keyword in front of it. Formats that describe the catalogs in their
/// own notation (Express) ignore it.
///
/// # Example
///
/// ```
/// use a2ui_agent::a2ui::ProtocolVersion;
/// use a2ui_agent::generator::{Generator, PromptStyle};
///
/// let lean = Generator::v0_9().negotiate(None)?.prompt().len();
/// let full = Generator::builder(ProtocolVersion::V0_9)
///     .built_in_example()
///     .prompt_style(PromptStyle::Schemas)
///     .build()?
///     .negotiate(None)?
///     .prompt()
///     .len();
/// assert!(lean * 2 < full);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum PromptStyle {
    /// Message shapes, type aliases and one signature line per component and function.
    #[default]
    Signatures,
    /// The message schema, the common types and the catalogs' JSON Schemas, whole.
    Schemas,
}

/// Whether `key` is a message kind of any version.
pub(crate) fn message_kinds_any(key: &str) -> bool {
    ProtocolVersion::ALL
        .iter()
        .any(|v| message_kinds(*v).contains(&key))
}

/// An example turn for the prompt: its messages, and the model's whole answer when the
/// example was given as one.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Example {
    pub(crate) name: String,
    pub(crate) messages: Vec<Value>,
    /// The example as the model would write it (text and blocks), if given that way.
    pub(crate) response: Option<String>,
}

/// Everything a prompt is written from.
pub(crate) struct PromptInput<'a> {
    pub(crate) version: ProtocolVersion,
    pub(crate) catalogs: &'a [Catalog],
    pub(crate) examples: &'a [Example],
    pub(crate) format: &'a dyn OutputFormat,
    /// The message kinds the agent allows, `None` for all of the version's.
    pub(crate) allowed: Option<&'a [String]>,
    /// How the messages and catalogs are described.
    pub(crate) style: PromptStyle,
}

/// Writes the system prompt. `None` when no catalog is active: there is nothing the model
/// could be told to draw with.
pub(crate) fn build(input: &PromptInput<'_>) -> Option<String> {
    if input.catalogs.is_empty() {
        return None;
    }
    let version = input.version;
    let kinds = allowed_kinds(version, input.allowed);
    let mut out = String::with_capacity(64 * 1024);
    out.push_str(&format!(
        "# Drawing user interfaces with A2UI {version}\n\n\
         Besides answering in text, you can show the user interactive interfaces (surfaces) \
         by writing A2UI {version} messages. The user's renderer draws them with the \
         components of the catalog{} described below, and sends the user's actions back to \
         you as messages.\n\n",
        if input.catalogs.len() > 1 { "s" } else { "" }
    ));
    out.push_str(input.format.instructions().trim_end());
    out.push_str("\n\n");
    if input.format.describes_catalogs() {
        examples(&mut out, input.examples, input.format);
        return Some(out);
    }
    let withheld = withheld_names(version, input.catalogs, &kinds);
    workflow(&mut out, version, &kinds, input.catalogs, input.style);
    match input.style {
        PromptStyle::Signatures => {
            signatures::write(&mut out, version, &kinds, input.catalogs, &withheld);
        }
        PromptStyle::Schemas => {
            schemas(&mut out, version, &kinds, &withheld);
            catalogs(&mut out, input.catalogs, &withheld);
        }
    }
    examples(&mut out, input.examples, input.format);
    Some(out)
}

/// Names the model must not hear of: the message kinds the agent does not allow, and the
/// components and functions of the version's basic catalog that no active catalog has (the
/// shared schemas' descriptions mention some of them as examples).
fn withheld_names(version: ProtocolVersion, active: &[Catalog], kinds: &[&str]) -> Vec<String> {
    let mut names: Vec<String> = message_kinds(version)
        .iter()
        .filter(|k| !kinds.contains(k))
        .map(|k| (*k).to_owned())
        .collect();
    if let Ok(basic) = Catalog::try_basic(version) {
        let offered = |name: &str| {
            active
                .iter()
                .any(|c| c.has_component(name) || c.function_names().any(|n| n == name))
        };
        names.extend(
            basic
                .component_names()
                .chain(basic.function_names())
                .filter(|name| !offered(name))
                .map(str::to_owned),
        );
    }
    names
}

fn allowed_kinds(version: ProtocolVersion, allowed: Option<&[String]>) -> Vec<&'static str> {
    message_kinds(version)
        .iter()
        .copied()
        .filter(|kind| allowed.is_none_or(|list| list.iter().any(|a| a == kind)))
        .collect()
}

/// The section on the message kinds allowed and the order and rules of writing them.
fn workflow(
    out: &mut String,
    version: ProtocolVersion,
    kinds: &[&str],
    catalogs: &[Catalog],
    style: PromptStyle,
) {
    out.push_str("## Messages and workflow\n\n");
    out.push_str(&format!(
        "Each block is a JSON array of messages. You may send these messages: {}.\n\n",
        kinds
            .iter()
            .map(|k| format!("`{k}`"))
            .collect::<Vec<_>>()
            .join(", ")
    ));
    let ids = catalogs
        .iter()
        .map(|c| format!("`{}`", c.id()))
        .collect::<Vec<_>>()
        .join(", ");
    let mut rules = if version == ProtocolVersion::V0_8 {
        message_rules_v0_8(kinds, catalogs, &ids)
    } else {
        message_rules(version, kinds, &ids)
    };
    rules.extend(tree_rules(version, kinds));
    if style == PromptStyle::Signatures {
        rules.push(
            "Show every value the user gave (names, numbers, dates, times, places, \
             statuses) on the surface as written; never drop one or replace it with a \
             placeholder."
                .into(),
        );
    }
    for (i, rule) in rules.iter().enumerate() {
        out.push_str(&format!("{}. {rule}\n", i + 1));
    }
    out.push('\n');
}

/// The rules of v0.8's messages (`beginRendering`, `surfaceUpdate`, `dataModelUpdate`) the
/// agent allows; `ids` lists the catalogs.
fn message_rules_v0_8(kinds: &[&str], catalogs: &[Catalog], ids: &str) -> Vec<String> {
    let has = |kind: &str| kinds.contains(&kind);
    let mut rules: Vec<String> = Vec::new();
    if has("beginRendering") {
        let catalog = if catalogs.len() > 1 {
            format!(" and the `catalogId` whose components it uses (one of {ids})")
        } else {
            String::new()
        };
        rules.push(format!(
            "Start each new surface with `beginRendering`: its `surfaceId`, the id of \
             its `root` component{catalog}. The renderer then draws components as they \
             arrive."
        ));
    }
    if has("surfaceUpdate") {
        rules.push(
            "Send components in `surfaceUpdate`: a flat list where each item is \
             `{\"id\": ..., \"component\": {\"<Type>\": {<properties>}}}`. Containers \
             refer to their children by id (`{\"explicitList\": [ids]}` or a template)."
                .into(),
        );
    }
    if has("dataModelUpdate") {
        rules.push(
            "Send data in `dataModelUpdate`; components read it through bindings such \
             as `{\"path\": \"/a/b\"}`."
                .into(),
        );
    }
    rules
}

/// The rules of v0.9's and v1.0's messages (`createSurface`, `updateComponents`,
/// `updateDataModel`) the agent allows; `ids` lists the catalogs.
fn message_rules(version: ProtocolVersion, kinds: &[&str], ids: &str) -> Vec<String> {
    let has = |kind: &str| kinds.contains(&kind);
    let mut rules: Vec<String> = Vec::new();
    if has("createSurface") {
        rules.push(format!(
            "Start each new surface with `createSurface`: a new `surfaceId` and the \
             `catalogId` of the catalog whose components it uses (one of {ids}). Put it \
             first in the array, before any message about that surface."
        ));
    }
    if has("updateComponents") {
        rules.push(
            "Send components in `updateComponents`: a flat list where each item has a \
             unique `id`, a `component` type name and that component's properties. \
             Containers refer to their children by id."
                .into(),
        );
    }
    if has("updateDataModel") {
        let binding = if version == ProtocolVersion::V1_0 {
            "{\"@path\": \"/a/b\"}"
        } else {
            "{\"path\": \"/a/b\"}"
        };
        rules.push(format!(
            "Send data in `updateDataModel` (a `path` and a `value`); components read it \
             through bindings such as `{binding}`, and input components write to it."
        ));
    }
    rules
}

/// The rules every version shares: the tree's shape, the catalog, later changes, user
/// actions and removing a surface.
fn tree_rules(version: ProtocolVersion, kinds: &[&str]) -> Vec<String> {
    let has = |kind: &str| kinds.contains(&kind);
    let root = if version == ProtocolVersion::V0_8 {
        "The component named by `root` is the top of the tree. Write the root first and \
         every parent before its children, so the renderer can draw from the top while you \
         write."
    } else {
        "The component with id `root` is the top of the tree. Write the root first and every \
         parent before its children, so the renderer can draw from the top while you write."
    };
    let mut rules: Vec<String> = vec![
        root.into(),
        "Every id a component refers to must be defined in the same surface; no component \
         may be its own ancestor, and every component must be reachable from the root."
            .into(),
        "Use only the components, properties and functions of the catalog the surface \
         names, exactly as its schema spells them, and give every property its schema marks \
         as required."
            .into(),
    ];
    if has("updateComponents") || has("surfaceUpdate") {
        rules.push(
            "To change a surface later, send only the components that change (a component \
             with a known id replaces it) or new data."
                .into(),
        );
    }
    rules.push(format!(
        "When the user acts on a surface (a button's action), your next turn receives an \
         `{}` message with the action's name, the surface and component ids and its \
         context; answer it by updating that surface or creating a new one.",
        if version == ProtocolVersion::V0_8 {
            "userAction"
        } else {
            "action"
        }
    ));
    if has("deleteSurface") {
        rules.push("Remove a surface that is no longer useful with `deleteSurface`.".into());
    }
    rules
}

fn schemas(out: &mut String, version: ProtocolVersion, kinds: &[&str], withheld: &[String]) {
    let Ok(docs) = schema_documents(version) else {
        return;
    };
    let excluded: Vec<&str> = message_kinds(version)
        .iter()
        .copied()
        .filter(|k| !kinds.contains(k))
        .collect();
    let mut message = docs.message.clone();
    prune_messages(&mut message, version, &excluded);
    drop_mentions(&mut message, withheld, 0);
    out.push_str(
        "## Message schema\n\nEvery message you send must match this JSON Schema. \
         `catalog.json` means the catalog the surface uses.\n\n",
    );
    push_json(out, &message);
    if let Some(common) = &docs.common_types {
        out.push_str(
            "## Common types\n\nThe shared definitions the message schema and the catalogs \
             refer to as `common_types.json`.\n\n",
        );
        let mut common = common.clone();
        drop_mentions(&mut common, withheld, 0);
        push_json(out, &common);
    }
}

/// Removes the excluded message kinds from a message schema, and every description that
/// mentions one, so the model is not told about messages it may not send.
fn prune_messages(schema: &mut Value, version: ProtocolVersion, excluded: &[&str]) {
    if excluded.is_empty() {
        return;
    }
    if version == ProtocolVersion::V0_8 {
        if let Some(properties) = schema.get_mut("properties").and_then(Value::as_object_mut) {
            properties.retain(|kind, _| !excluded.contains(&kind.as_str()));
        }
    } else {
        let defs: Vec<String> = excluded.iter().map(|kind| def_name(kind)).collect();
        if let Some(branches) = schema.get_mut("oneOf").and_then(Value::as_array_mut) {
            branches.retain(|branch| {
                let target = branch.get("$ref").and_then(Value::as_str).unwrap_or("");
                !defs.iter().any(|d| target.ends_with(&format!("/{d}")))
            });
        }
        if let Some(map) = schema.get_mut("$defs").and_then(Value::as_object_mut) {
            map.retain(|name, _| !defs.contains(name));
        }
    }
}

/// Removes every `description` that mentions one of `words`.
fn drop_mentions(value: &mut Value, words: &[String], depth: usize) {
    if words.is_empty() {
        return;
    }
    if depth > 128 {
        return;
    }
    match value {
        Value::Object(map) => {
            map.retain(|key, v| {
                !(key == "description"
                    && v.as_str()
                        .is_some_and(|d| words.iter().any(|w| d.contains(w))))
            });
            for v in map.values_mut() {
                drop_mentions(v, words, depth + 1);
            }
        }
        Value::Array(items) => {
            for v in items {
                drop_mentions(v, words, depth + 1);
            }
        }
        _ => {}
    }
}

fn catalogs(out: &mut String, catalogs: &[Catalog], withheld: &[String]) {
    out.push_str("## Catalogs\n\n");
    if catalogs.len() > 1 {
        out.push_str(
            "The renderer supports these catalogs, in its order of preference. A surface \
             uses the components of the one its `catalogId` names.\n\n",
        );
    }
    for catalog in catalogs {
        out.push_str(&format!("### Catalog `{}`\n\n", catalog.id()));
        let components: Vec<&str> = catalog.component_names().collect();
        out.push_str(&format!("Components: {}.\n", list(&components)));
        let functions: Vec<&str> = catalog.function_names().collect();
        if !functions.is_empty() {
            out.push_str(&format!("Functions: {}.\n", list(&functions)));
        }
        out.push_str("\nSchema:\n\n");
        let mut schema = catalog.schema().clone();
        drop_mentions(&mut schema, withheld, 0);
        push_json(out, &schema);
    }
}

fn list(names: &[&str]) -> String {
    if names.is_empty() {
        return "none".into();
    }
    names.join(", ")
}

fn examples(out: &mut String, examples: &[Example], format: &dyn OutputFormat) {
    if examples.is_empty() {
        return;
    }
    out.push_str("## Examples\n\nAnswers written the way you should write yours.\n\n");
    for example in examples {
        out.push_str(&format!("### {}\n\n", example.name));
        match &example.response {
            Some(text) => out.push_str(text.trim()),
            None => out.push_str(&format.example(&example.messages)),
        }
        out.push_str("\n\n");
    }
}

/// Compact JSON with sorted keys (serde_json's map is ordered), in a fenced block.
fn push_json(out: &mut String, value: &Value) {
    out.push_str("```json\n");
    out.push_str(&value.to_string());
    out.push_str("\n```\n\n");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::DirectJson;

    fn prompt(version: ProtocolVersion, allowed: Option<&[String]>, style: PromptStyle) -> String {
        let catalogs = [Catalog::basic(version)];
        build(&PromptInput {
            version,
            catalogs: &catalogs,
            examples: &[],
            format: &DirectJson,
            allowed,
            style,
        })
        .unwrap()
    }

    #[test]
    fn the_message_kind_def_names_follow_the_schema() {
        assert_eq!(def_name("createSurface"), "CreateSurfaceMessage");
        let docs = schema_documents(ProtocolVersion::V1_0).unwrap();
        for kind in message_kinds(ProtocolVersion::V1_0) {
            assert!(
                docs.message
                    .pointer(&format!("/$defs/{}", def_name(kind)))
                    .is_some(),
                "{kind}"
            );
        }
    }

    #[test]
    fn a_message_the_agent_does_not_allow_is_never_mentioned() {
        for version in ProtocolVersion::ALL {
            let allowed: Vec<String> = message_kinds(version)
                .iter()
                .filter(|k| **k != "deleteSurface")
                .map(|k| (*k).to_owned())
                .collect();
            for style in [PromptStyle::Signatures, PromptStyle::Schemas] {
                let text = prompt(version, Some(&allowed), style);
                assert!(!text.contains("deleteSurface"), "{version} {style:?}");
                let all = prompt(version, None, style);
                assert!(all.contains("deleteSurface"), "{version} {style:?}");
            }
        }
    }

    #[test]
    fn no_catalog_gives_no_prompt() {
        let input = PromptInput {
            version: ProtocolVersion::V0_9,
            catalogs: &[],
            examples: &[],
            format: &DirectJson,
            allowed: None,
            style: PromptStyle::Signatures,
        };
        assert!(build(&input).is_none());
    }
}
