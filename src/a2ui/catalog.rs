//! Catalogs: the components and functions a surface may use, as JSON Schema.
//!
//! A catalog is loaded once, normalised to its version's layout, and compiled with that
//! version's message schema, so that checking a message later costs microseconds. Custom
//! catalogs (a file, a JSON value, or inline in a renderer's capabilities) refer to
//! `common_types.json` relative to wherever they were published; those references are
//! pointed at this crate's copy of that version's common types, so any catalog written for
//! a version loads offline.

use std::collections::HashMap;
use std::fmt;
use std::path::Path;
use std::sync::{Arc, OnceLock};

use serde_json::{Map, Value, json};

use super::ProtocolVersion;
use super::error::CatalogError;
use super::order::PropertyOrder;
use super::schema;
use super::tree::{self, ComponentRefs};

/// A component and function catalog of one protocol version, compiled and ready to check
/// messages. Cloning is cheap (the catalog is shared).
///
/// # Example
///
/// ```
/// use a2ui_agent::a2ui::{Catalog, ProtocolVersion};
///
/// let basic = Catalog::basic(ProtocolVersion::V0_9);
/// assert_eq!(basic.id(), "https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json");
/// assert!(basic.component_names().any(|name| name == "Text"));
/// let small = basic.subset(&["Text", "Column"]).unwrap();
/// assert_eq!(small.component_names().count(), 2);
/// ```
#[derive(Clone)]
pub struct Catalog {
    inner: Arc<Inner>,
}

struct Inner {
    id: String,
    version: ProtocolVersion,
    schema: Value,
    components: Vec<String>,
    functions: Vec<String>,
    refs: HashMap<String, ComponentRefs>,
    compiled: jsonschema::Validator,
    /// The document's property order, for positional notations.
    order: Arc<PropertyOrder>,
}

impl fmt::Debug for Catalog {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Catalog")
            .field("id", &self.inner.id)
            .field("version", &self.inner.version)
            .field("components", &self.inner.components)
            .field("functions", &self.inner.functions)
            .finish_non_exhaustive()
    }
}

impl Catalog {
    /// The basic catalog this crate ships for `version` (v0.8: the standard catalog).
    /// Compiled on first use, then shared.
    ///
    /// # Panics
    ///
    /// Never in a released build: the embedded catalogs load in this crate's tests. Should an
    /// embedded file ever fail to load, this panics with the reason; use
    /// [`Catalog::try_basic`] to get the error instead.
    pub fn basic(version: ProtocolVersion) -> Catalog {
        match Self::try_basic(version) {
            Ok(catalog) => catalog,
            Err(e) => panic!("embedded {version} basic catalog does not load: {e}"),
        }
    }

    /// Like [`Catalog::basic`], returning the error rather than panicking.
    ///
    /// # Errors
    ///
    /// A [`CatalogError`] if the embedded catalog does not load (a build defect).
    pub fn try_basic(version: ProtocolVersion) -> Result<Catalog, CatalogError> {
        static CELLS: [OnceLock<Result<Catalog, String>>; 4] = [
            OnceLock::new(),
            OnceLock::new(),
            OnceLock::new(),
            OnceLock::new(),
        ];
        let slot = match version {
            ProtocolVersion::V0_8 => 0,
            ProtocolVersion::V0_9 => 1,
            ProtocolVersion::V0_9_1 => 2,
            ProtocolVersion::V1_0 => 3,
        };
        let cell = CELLS.get(slot).ok_or_else(|| CatalogError::Malformed {
            pointer: String::new(),
            message: "no such version".into(),
        })?;
        cell.get_or_init(|| {
            let docs = schema::parsed(version)?;
            let mut document = docs.basic_catalog.clone();
            if let Some(map) = document.as_object_mut() {
                map.entry("catalogId")
                    .or_insert_with(|| json!(version.basic_catalog_id()));
            }
            let text = super::embedded::documents(version).basic_catalog;
            Catalog::from_ordered(version, document, PropertyOrder::from_text(text))
                .map_err(|e| e.to_string())
        })
        .clone()
        .map_err(|message| CatalogError::Schema {
            catalog_id: version.basic_catalog_id().to_owned(),
            message,
        })
    }

    /// Loads a catalog document written for `version`: the published catalog layout
    /// (`catalogId`, `components`, `functions`, `$defs`; v0.8: `components`, `styles`), or the
    /// inline layout of `version`'s capabilities (v0.9: `functions` as a list of
    /// definitions). References to `common_types.json` resolve to `version`'s common types.
    ///
    /// # Errors
    ///
    /// [`CatalogError::Malformed`] for a document of the wrong shape (with a pointer into
    /// it), [`CatalogError::Schema`] when its schemas do not compile.
    pub fn from_value(version: ProtocolVersion, document: Value) -> Result<Catalog, CatalogError> {
        Self::from_ordered(version, document, None)
    }

    /// [`from_value`](Self::from_value) with the property order read from the document's
    /// text, where the caller had it.
    fn from_ordered(
        version: ProtocolVersion,
        document: Value,
        order: Option<PropertyOrder>,
    ) -> Result<Catalog, CatalogError> {
        let guessed = PropertyOrder::from_value(&document);
        let order = match order {
            Some(order) => order.or(guessed),
            None => guessed,
        };
        let (id, schema) = normalize(version, document)?;
        Self::from_normalized(version, id, schema, Arc::new(order))
    }

    /// Reads and loads a catalog file (see [`Catalog::from_value`]).
    ///
    /// # Errors
    ///
    /// [`CatalogError::Io`] or [`CatalogError::Json`] when the file cannot be read or parsed,
    /// then as [`Catalog::from_value`].
    pub fn from_path(version: ProtocolVersion, path: &Path) -> Result<Catalog, CatalogError> {
        let text = std::fs::read_to_string(path).map_err(|source| CatalogError::Io {
            path: path.to_owned(),
            source,
        })?;
        let document = serde_json::from_str(&text).map_err(|source| CatalogError::Json {
            path: Some(path.to_owned()),
            source,
        })?;
        Self::from_ordered(version, document, PropertyOrder::from_text(&text))
    }

    fn from_normalized(
        version: ProtocolVersion,
        id: String,
        schema: Value,
        order: Arc<PropertyOrder>,
    ) -> Result<Catalog, CatalogError> {
        let components = names(&schema, "components");
        let functions = names(&schema, "functions");
        let mut refs = HashMap::new();
        for name in &components {
            if let Some(component) = schema.get("components").and_then(|c| c.get(name)) {
                refs.insert(
                    name.clone(),
                    tree::component_refs(version, &schema, component),
                );
            }
        }
        let compiled =
            schema::compile_message(version, &schema).map_err(|message| CatalogError::Schema {
                catalog_id: id.clone(),
                message,
            })?;
        Ok(Catalog {
            inner: Arc::new(Inner {
                id,
                version,
                schema,
                components,
                functions,
                refs,
                compiled,
                order,
            }),
        })
    }

    /// The catalog's id, as renderers list it in `supportedCatalogIds`.
    pub fn id(&self) -> &str {
        &self.inner.id
    }

    /// The protocol version the catalog is written for.
    pub fn version(&self) -> ProtocolVersion {
        self.inner.version
    }

    /// Whether `id` names this catalog: its id, or an alias of a basic catalog's id.
    pub fn answers_to(&self, id: &str) -> bool {
        id == self.inner.id
            || (self.inner.version.is_basic_catalog_id(&self.inner.id)
                && self.inner.version.is_basic_catalog_id(id))
    }

    /// The component names, sorted.
    pub fn component_names(&self) -> impl Iterator<Item = &str> {
        self.inner.components.iter().map(String::as_str)
    }

    /// The function names, sorted (none in v0.8).
    pub fn function_names(&self) -> impl Iterator<Item = &str> {
        self.inner.functions.iter().map(String::as_str)
    }

    /// The normalised catalog document: what the model reads and the validator compiles.
    pub fn schema(&self) -> &Value {
        &self.inner.schema
    }

    /// A catalog with only the named components (and all functions), for a prompt that
    /// should offer less. The id stays the same.
    ///
    /// # Errors
    ///
    /// [`CatalogError::Unknown`] for a name the catalog lacks; [`CatalogError::Schema`] if a
    /// kept component refers to a dropped one.
    pub fn subset(&self, components: &[&str]) -> Result<Catalog, CatalogError> {
        self.prune("components", components)
    }

    /// A catalog with only the named functions (and all components).
    ///
    /// # Errors
    ///
    /// As [`Catalog::subset`].
    pub fn subset_functions(&self, functions: &[&str]) -> Result<Catalog, CatalogError> {
        self.prune("functions", functions)
    }

    fn prune(&self, field: &'static str, keep: &[&str]) -> Result<Catalog, CatalogError> {
        let kind = if field == "components" {
            "component"
        } else {
            "function"
        };
        let mut schema = self.inner.schema.clone();
        let empty = Map::new();
        let present = schema
            .get(field)
            .and_then(Value::as_object)
            .unwrap_or(&empty);
        if let Some(missing) = keep.iter().find(|name| !present.contains_key(**name)) {
            return Err(CatalogError::Unknown {
                kind,
                name: (*missing).to_owned(),
                catalog_id: self.inner.id.clone(),
            });
        }
        if let Some(map) = schema.get_mut(field).and_then(Value::as_object_mut) {
            map.retain(|name, _| keep.contains(&name.as_str()));
        }
        if self.inner.version != ProtocolVersion::V0_8 {
            let call_key = schema::call_key(self.inner.version);
            let (def, discriminator) = if field == "components" {
                ("anyComponent", "component")
            } else {
                ("anyFunction", call_key)
            };
            let names = names(&schema, field);
            let any = any_of_entries(field, discriminator, &names, false);
            if let Some(defs) = schema.get_mut("$defs").and_then(Value::as_object_mut) {
                defs.insert(def.to_owned(), any);
            }
        }
        Self::from_normalized(
            self.inner.version,
            self.inner.id.clone(),
            schema,
            self.inner.order.clone(),
        )
    }

    /// This catalog compiled for `version`: itself, or recompiled for the other version of
    /// its schema family (v0.9 and v0.9.1).
    pub(crate) fn for_version(&self, version: ProtocolVersion) -> Result<Catalog, CatalogError> {
        if self.inner.version == version {
            return Ok(self.clone());
        }
        if self.inner.version.schema_family() == version.schema_family() {
            return Self::from_normalized(
                version,
                self.inner.id.clone(),
                self.inner.schema.clone(),
                self.inner.order.clone(),
            );
        }
        Err(CatalogError::VersionMismatch {
            catalog_id: self.inner.id.clone(),
            catalog: self.inner.version,
            expected: version,
        })
    }

    /// How each component refers to others, by component name.
    /// A component's properties in the order its catalog document writes them (the
    /// argument order of a positional notation such as Express).
    pub(crate) fn property_order(&self, component: &str) -> &[String] {
        self.inner
            .order
            .components
            .get(component)
            .map_or(&[], Vec::as_slice)
    }

    /// A function's parameters (its `args` properties) in document order.
    pub(crate) fn parameter_order(&self, function: &str) -> &[String] {
        self.inner
            .order
            .functions
            .get(function)
            .map_or(&[], Vec::as_slice)
    }

    pub(crate) fn refs(&self, component: &str) -> Option<&ComponentRefs> {
        self.inner.refs.get(component)
    }

    /// The compiled message schema for this catalog.
    pub(crate) fn compiled(&self) -> &jsonschema::Validator {
        &self.inner.compiled
    }
}

fn names(schema: &Value, field: &str) -> Vec<String> {
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
fn normalize(version: ProtocolVersion, document: Value) -> Result<(String, Value), CatalogError> {
    let Value::Object(mut map) = document else {
        return Err(malformed("", "a catalog is a JSON object"));
    };
    let id = match (map.get("catalogId"), map.get("$id")) {
        (Some(Value::String(id)), _) | (None, Some(Value::String(id))) => id.clone(),
        (Some(_), _) => return Err(malformed("/catalogId", "must be a string")),
        (None, _) => return Err(malformed("", "missing 'catalogId'")),
    };
    if id.is_empty() {
        return Err(malformed("/catalogId", "must not be empty"));
    }
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
    if version == ProtocolVersion::V0_8 {
        if map.get("styles").is_some_and(|s| !s.is_object()) {
            return Err(malformed("/styles", "must be an object of style schemas"));
        }
        return Ok((id, Value::Object(map)));
    }
    let call_key = schema::call_key(version);
    let functions = match map.remove("functions") {
        None => Map::new(),
        Some(Value::Object(functions)) => functions,
        Some(Value::Array(definitions)) => function_map(&definitions, call_key)?,
        Some(_) => {
            return Err(malformed(
                "/functions",
                "must be an object or a list of function definitions",
            ));
        }
    };
    map.insert("functions".into(), Value::Object(functions));
    let mut document = Value::Object(map);
    if let Some(common) = schema::common_types_uri(version) {
        rewrite_common_refs(&mut document, common, 0);
    }
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
    let defs = document.get("$defs").and_then(Value::as_object);
    if defs.is_none_or(|d| !d.contains_key("anyComponent") || !d.contains_key("anyFunction")) {
        let components = names(&document, "components");
        let functions = names(&document, "functions");
        if let Some(Value::Object(defs)) = document.get_mut("$defs") {
            defs.entry("anyComponent")
                .or_insert_with(|| any_of_entries("components", "component", &components, true));
            defs.entry("anyFunction")
                .or_insert_with(|| any_of_entries("functions", call_key, &functions, true));
        }
    }
    Ok((id, document))
}

/// A `oneOf` over the catalog's `field` entries, discriminated by `key`. `pin` adds the
/// discriminating constant to each branch, for catalogs whose entries do not state it.
fn any_of_entries(field: &str, key: &str, names: &[String], pin: bool) -> Value {
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
fn rewrite_common_refs(value: &mut Value, common: &str, depth: usize) {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_common_types_refs_point_at_the_versions_common_types() {
        let mut doc = json!({"a": {"$ref": "common_types.json#/$defs/DynamicString"},
                             "b": [{"$ref": "../../common_types.json#/$defs/Child"}],
                             "c": {"$ref": "#/components/Text"}});
        rewrite_common_refs(&mut doc, "https://x/common_types.json", 0);
        assert_eq!(
            doc["a"]["$ref"],
            "https://x/common_types.json#/$defs/DynamicString"
        );
        assert_eq!(
            doc["b"][0]["$ref"],
            "https://x/common_types.json#/$defs/Child"
        );
        assert_eq!(doc["c"]["$ref"], "#/components/Text");
    }

    #[test]
    fn a_catalog_without_an_id_is_malformed() {
        let err =
            Catalog::from_value(ProtocolVersion::V0_9, json!({"components": {}})).unwrap_err();
        assert!(err.to_string().contains("catalogId"), "{err}");
    }

    #[test]
    fn a_reference_to_a_remote_schema_is_an_error_not_a_fetch() {
        let err = Catalog::from_value(
            ProtocolVersion::V0_9,
            json!({"catalogId": "x", "components": {"Remote": {"$ref": "https://example.com/remote.json"}}}),
        )
        .unwrap_err();
        assert!(matches!(err, CatalogError::Schema { .. }), "{err}");
    }

    #[test]
    fn v0_9_inline_function_definitions_become_callable_functions() {
        let catalog = Catalog::from_value(
            ProtocolVersion::V0_9,
            json!({"catalogId": "x", "components": {}, "functions": [
                {"name": "double", "parameters": {"type": "object"}, "returnType": "number"}]}),
        )
        .unwrap();
        assert_eq!(catalog.function_names().collect::<Vec<_>>(), ["double"]);
    }

    #[test]
    fn subset_of_an_unknown_component_names_it() {
        let err = Catalog::basic(ProtocolVersion::V0_9)
            .subset(&["Text", "Nope"])
            .unwrap_err();
        assert!(err.to_string().contains("'Nope'"), "{err}");
    }
}
