//! Compiling a version's message schema against one catalog.
//!
//! The v0.9 and v1.0 message schemas refer to `catalog.json` and `common_types.json` relative
//! to their own `$id`. Registering the catalog and the common types under those URIs in a
//! `jsonschema` registry lets one compiled validator check a whole message against that
//! catalog. v0.8's message schema has no such reference, so the catalog's components are
//! spliced into a copy of it instead. Compiling takes milliseconds, so it happens once per
//! catalog and the result is shared.
//!
//! `format` is enforced (the official v0.9 test cases expect a non-URI `openUrl` argument to
//! fail), and nothing is ever fetched: a `$ref` outside the registry fails to compile.

use std::sync::OnceLock;

use jsonschema::{Draft, Registry};
use serde_json::{Map, Value, json};

use super::ProtocolVersion;
use super::embedded;

/// The embedded documents of one schema family, parsed.
#[derive(Debug)]
pub(crate) struct Parsed {
    pub(crate) message: Value,
    pub(crate) common_types: Option<Value>,
    pub(crate) basic_catalog: Value,
    pub(crate) client_message: Option<Value>,
}

/// The parsed embedded documents for `version`'s schema family.
///
/// # Errors
///
/// A message naming the file that does not parse (a build defect the tests catch).
pub(crate) fn parsed(version: ProtocolVersion) -> Result<&'static Parsed, String> {
    static V0_8: OnceLock<Result<Parsed, String>> = OnceLock::new();
    static V0_9: OnceLock<Result<Parsed, String>> = OnceLock::new();
    static V1_0: OnceLock<Result<Parsed, String>> = OnceLock::new();
    let family = version.schema_family();
    let cell = match family {
        ProtocolVersion::V0_8 => &V0_8,
        ProtocolVersion::V0_9 | ProtocolVersion::V0_9_1 => &V0_9,
        ProtocolVersion::V1_0 => &V1_0,
    };
    cell.get_or_init(|| parse_documents(family))
        .as_ref()
        .map_err(Clone::clone)
}

fn parse_documents(version: ProtocolVersion) -> Result<Parsed, String> {
    let docs = embedded::documents(version);
    let parse = |name: &str, text: &str| -> Result<Value, String> {
        serde_json::from_str(text).map_err(|e| format!("embedded {version} {name}: {e}"))
    };
    Ok(Parsed {
        message: parse("message schema", docs.message)?,
        common_types: docs
            .common_types
            .map(|t| parse("common types", t))
            .transpose()?,
        basic_catalog: parse("basic catalog", docs.basic_catalog)?,
        client_message: docs
            .client_message
            .map(|t| parse("client message schema", t))
            .transpose()?,
    })
}

/// The URI the message schema of `version` resolves `catalog.json` to.
pub(crate) fn catalog_slot(version: ProtocolVersion) -> &'static str {
    match version.schema_family() {
        ProtocolVersion::V0_8 => "https://a2ui.org/specification/v0_8/catalog.json",
        ProtocolVersion::V0_9 | ProtocolVersion::V0_9_1 => {
            "https://a2ui.org/specification/v0_9/catalog.json"
        }
        ProtocolVersion::V1_0 => "https://a2ui.org/specification/v1_0/catalog.json",
    }
}

/// The URI of `version`'s common types (`None` for v0.8).
pub(crate) fn common_types_uri(version: ProtocolVersion) -> Option<&'static str> {
    match version.schema_family() {
        ProtocolVersion::V0_8 => None,
        ProtocolVersion::V0_9 | ProtocolVersion::V0_9_1 => {
            Some("https://a2ui.org/specification/v0_9/common_types.json")
        }
        ProtocolVersion::V1_0 => Some("https://a2ui.org/specification/v1_0/common_types.json"),
    }
}

/// The key that names the function in a function call: `call`, or `@call` in the newer v1.0
/// drafts the conformance suites use. Read from the embedded common types.
pub(crate) fn call_key(version: ProtocolVersion) -> &'static str {
    let uses_at = parsed(version).ok().and_then(|p| {
        p.common_types
            .as_ref()?
            .pointer("/$defs/FunctionCall/properties")?
            .as_object()
            .map(|props| props.contains_key("@call"))
    });
    if uses_at == Some(true) {
        "@call"
    } else {
        "call"
    }
}

/// The key of a data binding: `path`, or `@path` where the embedded common types use
/// `@call` for calls (the v1.0 drafts the conformance suites use).
pub(crate) fn path_key(version: ProtocolVersion) -> &'static str {
    if call_key(version) == "@call" {
        "@path"
    } else {
        "path"
    }
}

/// A `$ref` to `base#/seg/seg...`, each segment escaped as a JSON pointer token and
/// percent-encoded for the URI fragment.
pub(crate) fn fragment_ref(base: &str, segments: &[&str]) -> String {
    let mut out = String::from(base);
    out.push('#');
    for segment in segments {
        out.push('/');
        for byte in segment.replace('~', "~0").replace('/', "~1").bytes() {
            if byte.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=:@".contains(&byte) {
                out.push(char::from(byte));
            } else {
                out.push_str(&format!("%{byte:02X}"));
            }
        }
    }
    out
}

/// Compiles the agent-to-renderer message schema of `version` with `catalog` (already
/// normalised, see `catalog.rs`) as the catalog.
///
/// # Errors
///
/// The compiler's message when a schema does not compile or a reference does not resolve.
pub(crate) fn compile_message(
    version: ProtocolVersion,
    catalog: &Value,
) -> Result<jsonschema::Validator, String> {
    let docs = parsed(version)?;
    match version.schema_family() {
        ProtocolVersion::V0_8 => compile_v0_8(&docs.message, catalog),
        _ => {
            let mut root = docs.message.clone();
            if version == ProtocolVersion::V0_9_1 {
                accept_v0_9_1_version(&mut root);
            }
            compile_with_registry(version, &root, catalog)
        }
    }
}

/// Compiles the renderer-to-agent message schema of `version` with its basic catalog, or
/// `None` when this crate ships none for that version (v0.8).
///
/// # Errors
///
/// As [`compile_message`].
pub(crate) fn compile_client_message(
    version: ProtocolVersion,
    catalog: &Value,
) -> Result<Option<jsonschema::Validator>, String> {
    let docs = parsed(version)?;
    let Some(schema) = &docs.client_message else {
        return Ok(None);
    };
    let mut root = schema.clone();
    if version == ProtocolVersion::V0_9_1
        && let Some(version_schema) = root.pointer_mut("/properties/version")
    {
        *version_schema = json!({"enum": ["v0.9", "v0.9.1"]});
    }
    compile_with_registry(version, &root, catalog).map(Some)
}

/// Compiles `version`'s message schema against the union of `catalogs`: each is registered
/// under a URI of its own, and `catalog.json` offers any of their components and functions.
///
/// # Errors
///
/// As [`compile_message`].
pub(crate) fn compile_union(
    version: ProtocolVersion,
    catalogs: &[&Value],
) -> Result<jsonschema::Validator, String> {
    let docs = parsed(version)?;
    let mut resources = union_resources(version, catalogs);
    add_common_types(version, &mut resources)?;
    build(&docs.message, resources)
}

/// The documents that make `catalogs` one catalog: each under a URI of its own, and, at
/// `catalog.json`, definitions offering any of their components and functions.
fn union_resources(version: ProtocolVersion, catalogs: &[&Value]) -> Vec<(String, Value)> {
    let slot = catalog_slot(version);
    let base = slot.trim_end_matches("catalog.json");
    let mut resources: Vec<(String, Value)> = Vec::new();
    let (mut components, mut functions) = (Vec::new(), Vec::new());
    for (i, catalog) in catalogs.iter().enumerate() {
        let uri = format!("{base}active_catalogs/{i}.json");
        let mut document = (*catalog).clone();
        if let Some(map) = document.as_object_mut() {
            // Registered under its own URI, so two catalogs cannot collide on an `$id`.
            map.remove("$id");
        }
        components.push(json!({"$ref": fragment_ref(&uri, &["$defs", "anyComponent"])}));
        functions.push(json!({"$ref": fragment_ref(&uri, &["$defs", "anyFunction"])}));
        resources.push((uri, document));
    }
    resources.push((
        slot.to_owned(),
        json!({"$defs": {"anyComponent": {"anyOf": components}, "anyFunction": {"anyOf": functions}}}),
    ));
    resources
}

/// The schema of one agent-to-renderer message of `version` whose components come from
/// any of `catalogs`, self-contained: every definition it uses from the catalogs and the
/// common types copied into its `$defs` (see `schema_bundle`), for a model provider that
/// constrains a tool's arguments to it.
///
/// # Errors
///
/// As [`compile_message`], and for no catalog at all.
pub(crate) fn message_schema(
    version: ProtocolVersion,
    catalogs: &[&Value],
) -> Result<Value, String> {
    let docs = parsed(version)?;
    let first = catalogs.first().ok_or("no catalog is active")?;
    let slot = catalog_slot(version);
    let (root, mut resources) = match version.schema_family() {
        ProtocolVersion::V0_8 => (
            v0_8_root(&docs.message, first)?,
            vec![(slot.to_owned(), (*first).clone())],
        ),
        _ => {
            let mut root = docs.message.clone();
            if version == ProtocolVersion::V0_9_1 {
                accept_v0_9_1_version(&mut root);
            }
            let resources = match catalogs {
                [one] => vec![(slot.to_owned(), (*one).clone())],
                _ => union_resources(version, catalogs),
            };
            (root, resources)
        }
    };
    add_common_types(version, &mut resources)?;
    let base = root.get("$id").and_then(Value::as_str).map_or_else(
        || slot.replace("catalog.json", "message.json"),
        str::to_owned,
    );
    super::schema_bundle::bundle(&base, &root, &resources)
}

fn compile_with_registry(
    version: ProtocolVersion,
    root: &Value,
    catalog: &Value,
) -> Result<jsonschema::Validator, String> {
    let mut resources = vec![(catalog_slot(version).to_owned(), catalog.clone())];
    add_common_types(version, &mut resources)?;
    build(root, resources)
}

fn add_common_types(
    version: ProtocolVersion,
    resources: &mut Vec<(String, Value)>,
) -> Result<(), String> {
    if let (Some(uri), Some(common)) = (common_types_uri(version), &parsed(version)?.common_types) {
        resources.push((uri.to_owned(), common.clone()));
    }
    Ok(())
}

/// Compiles `root` with `resources` (URI, document) in its registry: draft 2020-12, formats
/// enforced, nothing fetched.
fn build(root: &Value, resources: Vec<(String, Value)>) -> Result<jsonschema::Validator, String> {
    let registry = Registry::new()
        .draft(Draft::Draft202012)
        .extend(resources)
        .and_then(|builder| builder.prepare())
        .map_err(|e| e.to_string())?;
    jsonschema::options()
        .with_draft(Draft::Draft202012)
        .should_validate_formats(true)
        .with_registry(&registry)
        .build(root)
        .map_err(|e| e.to_string())
}

/// v0.9.1 messages say `"v0.9"` or `"v0.9.1"`; the v0.9 schema allows only the former.
fn accept_v0_9_1_version(root: &mut Value) {
    let Some(defs) = root.get_mut("$defs").and_then(Value::as_object_mut) else {
        return;
    };
    for def in defs.values_mut() {
        if let Some(version) = def.pointer_mut("/properties/version") {
            *version = json!({"enum": ["v0.9", "v0.9.1"]});
        }
    }
}

fn compile_v0_8(message: &Value, catalog: &Value) -> Result<jsonschema::Validator, String> {
    let slot = catalog_slot(ProtocolVersion::V0_8);
    let root = v0_8_root(message, catalog)?;
    build(&root, vec![(slot.to_owned(), catalog.clone())])
}

/// v0.8's message schema with `catalog`'s components spliced into its component slot.
fn v0_8_root(message: &Value, catalog: &Value) -> Result<Value, String> {
    let slot = catalog_slot(ProtocolVersion::V0_8);
    let mut root = message.clone();
    let names: Vec<&str> = catalog
        .get("components")
        .and_then(Value::as_object)
        .map(|m| m.keys().map(String::as_str).collect())
        .unwrap_or_default();
    let mut properties = Map::new();
    for name in &names {
        properties.insert(
            (*name).to_owned(),
            json!({"$ref": fragment_ref(slot, &["components", name])}),
        );
    }
    let component = root
        .pointer_mut("/properties/surfaceUpdate/properties/components/items/properties/component")
        .ok_or("the v0.8 message schema has no surfaceUpdate component slot")?;
    *component = json!({
        "type": "object",
        "minProperties": 1,
        "maxProperties": 1,
        "properties": properties,
        "additionalProperties": false,
    });
    if let Some(styles) = catalog.get("styles").filter(|s| s.is_object())
        && let Some(slot_schema) = root.pointer_mut("/properties/beginRendering/properties/styles")
    {
        *slot_schema = json!({
            "type": "object",
            "properties": styles,
            "additionalProperties": false,
        });
    }
    Ok(root)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fragment_refs_escape_pointer_and_uri_characters() {
        assert_eq!(
            fragment_ref("u", &["components", "a/b~c d"]),
            "u#/components/a~1b~0c%20d"
        );
    }

    #[test]
    fn every_embedded_document_parses() {
        for v in ProtocolVersion::ALL {
            assert!(parsed(v).is_ok(), "{v}: {:?}", parsed(v).err());
        }
    }
}
