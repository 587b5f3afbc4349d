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

mod normalize;
#[cfg(feature = "server")]
mod url_properties;

use normalize::{any_of_entries, names, normalize};
#[cfg(feature = "server")]
pub(crate) use url_properties::UrlProperties;

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
    /// The id a renderer knows this catalog by, when it names it by an alias of its id.
    known_as: Option<Arc<str>>,
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
    /// Its URL and Markdown properties, read when a reply first needs them.
    #[cfg(feature = "server")]
    url_properties: OnceLock<UrlProperties>,
}

impl fmt::Debug for Catalog {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Catalog")
            .field("id", &self.id())
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
            known_as: None,
            inner: Arc::new(Inner {
                id,
                version,
                schema,
                components,
                functions,
                refs,
                compiled,
                order,
                #[cfg(feature = "server")]
                url_properties: OnceLock::new(),
            }),
        })
    }

    /// The catalog's id, as renderers list it in `supportedCatalogIds`.
    pub fn id(&self) -> &str {
        self.known_as.as_deref().unwrap_or(&self.inner.id)
    }

    /// This catalog under `id`, an alias a renderer knows it by (CopilotKit's renderer names
    /// the v0.9 basic catalog `.../v0_9/basic_catalog.json`): what the prompt names and the
    /// agent writes in `createSurface`, so the renderer finds it.
    pub(crate) fn known_as(&self, id: &str) -> Catalog {
        Catalog {
            inner: self.inner.clone(),
            known_as: (id != self.inner.id).then(|| Arc::from(id)),
        }
    }

    /// Whether `other` is this catalog, whatever id each goes by.
    pub(crate) fn is_same(&self, other: &Catalog) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner) || self.inner.id == other.inner.id
    }

    /// The protocol version the catalog is written for.
    pub fn version(&self) -> ProtocolVersion {
        self.inner.version
    }

    /// Whether `id` names this catalog: its id, or an alias of a basic catalog's id.
    pub fn answers_to(&self, id: &str) -> bool {
        id == self.inner.id
            || id == self.id()
            || (self.inner.version.is_basic_catalog_id(&self.inner.id)
                && self.inner.version.is_basic_catalog_id(id))
    }

    /// The component names, sorted.
    pub fn component_names(&self) -> impl Iterator<Item = &str> {
        self.inner.components.iter().map(String::as_str)
    }

    /// Whether the catalog declares the component `name`.
    ///
    /// ```
    /// use a2ui_agent::a2ui::{Catalog, ProtocolVersion};
    ///
    /// let basic = Catalog::basic(ProtocolVersion::V0_9);
    /// assert!(basic.has_component("Button") && !basic.has_component("PlusButton"));
    /// ```
    pub fn has_component(&self, name: &str) -> bool {
        self.inner.components.iter().any(|n| n == name)
    }

    /// The function names, sorted (none in v0.8).
    pub fn function_names(&self) -> impl Iterator<Item = &str> {
        self.inner.functions.iter().map(String::as_str)
    }

    #[cfg(feature = "server")]
    /// The properties that hold URLs and Markdown (see [`UrlProperties`]), read from the
    /// document once.
    pub(crate) fn url_properties(&self) -> &UrlProperties {
        self.inner
            .url_properties
            .get_or_init(|| UrlProperties::of(&self.inner.schema))
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
        let pruned = Self::from_normalized(
            self.inner.version,
            self.inner.id.clone(),
            schema,
            self.inner.order.clone(),
        )?;
        Ok(pruned.known_as(self.id()))
    }

    /// This catalog compiled for `version`: itself, or recompiled for the other version of
    /// its schema family (v0.9 and v0.9.1).
    pub(crate) fn for_version(&self, version: ProtocolVersion) -> Result<Catalog, CatalogError> {
        if self.inner.version == version {
            return Ok(self.clone());
        }
        if self.inner.version.schema_family() == version.schema_family() {
            let compiled = Self::from_normalized(
                version,
                self.inner.id.clone(),
                self.inner.schema.clone(),
                self.inner.order.clone(),
            )?;
            return Ok(compiled.known_as(self.id()));
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

#[cfg(test)]
mod tests {
    use super::normalize::rewrite_common_refs;
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
