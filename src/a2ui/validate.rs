//! Checking A2UI messages: one at a time against the schema (cheap enough to decide, while
//! streaming, whether a parsed message is ready to send), or a whole response against the
//! schema and the component tree (what a renderer will actually be able to draw).

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::Value;

use super::ProtocolVersion;
use super::catalog::Catalog;
use super::error::{CatalogError, ValidationError};
use super::report;
use super::schema;
use super::tree::{self, ComponentRefs, Surface};

/// The most errors one response reports; the rest would only repeat the lesson.
pub const MAX_ERRORS: usize = 64;

/// Checks messages of one protocol version against a set of catalogs.
///
/// Each catalog's schema was compiled when the catalog was loaded, so building a validator
/// is cheap and checking a message costs microseconds. `Clone` shares the catalogs; the
/// validator is `Send + Sync`.
///
/// A message that names its catalog (`createSurface.catalogId`, v0.8
/// `beginRendering.catalogId`) is checked against that catalog. Other messages are checked
/// against the catalog of their surface when the same response created it, and otherwise
/// pass if any of the catalogs accepts them. In v1.0, where one surface may use components
/// of several catalogs, a message also passes if it is valid against all the catalogs
/// together (a component's `catalogId` is not required to name the catalog it came from).
///
/// # Example
///
/// ```
/// use a2ui_agent::a2ui::{Catalog, ProtocolVersion, Validator};
/// use serde_json::json;
///
/// let v = ProtocolVersion::V0_9;
/// let validator = Validator::new(v, &[Catalog::basic(v)]).unwrap();
/// let response = [
///     json!({"version": "v0.9", "createSurface": {"surfaceId": "main", "catalogId": v.basic_catalog_id()}}),
///     json!({"version": "v0.9", "updateComponents": {"surfaceId": "main", "components": [
///         {"id": "root", "component": "Card", "child": "title"}
///     ]}}),
/// ];
/// assert!(validator.check_message(&response[1]).is_ok()); // schema only
/// let errors = validator.check_response(&response).unwrap_err();
/// assert_eq!(errors[0].pointer, "/updateComponents/components/0/child"); // 'title' is missing
/// ```
#[derive(Clone, Debug)]
pub struct Validator {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    version: ProtocolVersion,
    catalogs: Vec<Catalog>,
    /// v1.0 surfaces may mix catalogs: the message schema over the union of all catalogs,
    /// compiled when there is more than one.
    union: Option<jsonschema::Validator>,
}

/// Which catalogs a message is checked against.
#[derive(Debug, Clone, Copy)]
enum Route {
    One(usize),
    Any,
}

impl Validator {
    /// A validator for `version` messages using `catalogs`.
    ///
    /// v0.9 catalogs serve v0.9.1 too (they are recompiled to accept both `version` strings).
    ///
    /// # Errors
    ///
    /// [`CatalogError::VersionMismatch`] for a catalog of another version,
    /// [`CatalogError::DuplicateId`] for two catalogs with one id.
    pub fn new(version: ProtocolVersion, catalogs: &[Catalog]) -> Result<Self, CatalogError> {
        let mut owned: Vec<Catalog> = Vec::with_capacity(catalogs.len());
        for catalog in catalogs {
            if owned.iter().any(|c| c.id() == catalog.id()) {
                return Err(CatalogError::DuplicateId(catalog.id().to_owned()));
            }
            owned.push(catalog.for_version(version)?);
        }
        let union = if version == ProtocolVersion::V1_0 && owned.len() > 1 {
            let documents: Vec<&Value> = owned.iter().map(Catalog::schema).collect();
            let compiled = schema::compile_union(version, &documents).map_err(|message| {
                CatalogError::Schema {
                    catalog_id: owned
                        .iter()
                        .map(Catalog::id)
                        .collect::<Vec<_>>()
                        .join(" + "),
                    message,
                }
            })?;
            Some(compiled)
        } else {
            None
        };
        Ok(Self {
            inner: Arc::new(Inner {
                version,
                catalogs: owned,
                union,
            }),
        })
    }

    /// A validator for `version` with its basic catalog only.
    pub fn basic(version: ProtocolVersion) -> Self {
        Self {
            inner: Arc::new(Inner {
                version,
                catalogs: vec![Catalog::basic(version)],
                union: None,
            }),
        }
    }

    /// The protocol version checked.
    pub fn version(&self) -> ProtocolVersion {
        self.inner.version
    }

    /// The catalogs checked against.
    pub fn catalogs(&self) -> &[Catalog] {
        &self.inner.catalogs
    }

    /// The schema of one message these catalogs accept, self-contained (every definition
    /// it uses copied into its `$defs`), for a provider that constrains a tool's arguments.
    pub(crate) fn message_schema(&self) -> Result<Value, String> {
        let documents: Vec<&Value> = self.inner.catalogs.iter().map(Catalog::schema).collect();
        schema::message_schema(self.inner.version, &documents)
    }

    /// Checks one message against the schema only: its shape, and each component and
    /// function call against the catalog. No tree checks, so a message that refers to
    /// components still to come passes. Fit to be the parser's readiness hook.
    ///
    /// # Errors
    ///
    /// The most relevant problem found.
    ///
    /// # Example
    ///
    /// As a readiness check (a closure the streaming parser accepts):
    ///
    /// ```
    /// use a2ui_agent::a2ui::{ProtocolVersion, Validator};
    /// use serde_json::{json, Value};
    ///
    /// let validator = Validator::basic(ProtocolVersion::V0_9);
    /// let ready = move |message: &Value| validator.check_message(message).is_ok();
    /// assert!(ready(&json!({"version": "v0.9", "deleteSurface": {"surfaceId": "main"}})));
    /// assert!(!ready(&json!({"version": "v0.9", "deleteSurface": {}})));
    /// ```
    pub fn check_message(&self, message: &Value) -> Result<(), ValidationError> {
        let route = self.route(message, None).map_err(|e| *e)?;
        match self.schema_errors(message, route).into_iter().next() {
            Some(error) => Err(error),
            None => Ok(()),
        }
    }

    /// Checks a whole response: each message against the schema, then, for each surface the
    /// response creates, the component tree: a root (v0.8 `beginRendering.root`, otherwise
    /// the component with id `root`), ids unique within a component list, no reference left
    /// dangling, no cycle, every component reachable from the root. A surface the response
    /// only updates is checked for duplicate ids alone, since its other components were
    /// sent earlier.
    ///
    /// # Errors
    ///
    /// Every problem found (at most [`MAX_ERRORS`]), each with the index of its message.
    pub fn check_response(&self, messages: &[Value]) -> Result<(), Vec<ValidationError>> {
        self.check_all(messages)
    }

    fn check_all(&self, messages: &[Value]) -> Result<(), Vec<ValidationError>> {
        let mut errors = Vec::new();
        let mut surfaces: HashMap<&str, (Surface<'_>, Option<usize>)> = HashMap::new();
        let mut order: Vec<&str> = Vec::new();
        for (index, message) in messages.iter().enumerate() {
            if errors.len() >= MAX_ERRORS {
                break;
            }
            let surface_id = surface_id(message);
            let known = surface_id.and_then(|id| surfaces.get(id)).and_then(|s| s.1);
            let route = match self.route(message, known) {
                Ok(route) => route,
                Err(error) => {
                    errors.push(ValidationError {
                        message_index: Some(index),
                        ..*error
                    });
                    continue;
                }
            };
            for mut error in self.schema_errors(message, route) {
                error.message_index = Some(index);
                errors.push(error);
            }
            let Some(surface_id) = surface_id else {
                continue;
            };
            self.track(
                message,
                index,
                surface_id,
                route,
                &mut surfaces,
                &mut order,
                &mut errors,
            );
        }
        for id in order {
            if let Some((surface, _)) = surfaces.get(id) {
                tree::check_surface(id, surface, &mut errors);
            }
        }
        errors.truncate(MAX_ERRORS);
        if errors.is_empty() {
            Ok(())
        } else {
            Err(errors)
        }
    }

    /// `component`'s properties and the reference shapes of its type, from its own catalog
    /// (v1.0 `catalogId`), else its surface's (`catalog`, an index into the catalogs), else
    /// the first catalog that has the type.
    pub(super) fn refs_of<'v>(
        &'v self,
        catalog: Option<usize>,
        component: &'v Value,
    ) -> Option<(&'v Value, &'v ComponentRefs)> {
        let catalogs = &self.inner.catalogs;
        let (name, props) = component_type(self.inner.version, component)?;
        let own = component
            .get("catalogId")
            .and_then(Value::as_str)
            .and_then(|id| catalogs.iter().find(|c| c.answers_to(id)));
        let surface = catalog.and_then(|i| catalogs.get(i));
        let refs = own
            .and_then(|c| c.refs(name))
            .or_else(|| surface.and_then(|c| c.refs(name)))
            .or_else(|| catalogs.iter().find_map(|c| c.refs(name)))?;
        Some((props, refs))
    }

    /// The ids `component` refers to, by the reference shapes of its catalog (see
    /// [`refs_of`](Self::refs_of)).
    pub(crate) fn child_ids(&self, catalog: Option<usize>, component: &Value) -> Vec<String> {
        let Some((props, shapes)) = self.refs_of(catalog, component) else {
            return Vec::new();
        };
        let mut refs = Vec::new();
        for (key, shape) in shapes {
            if let Some(value) = props.get(key) {
                tree::collect_refs(value, shape, &mut refs);
            }
        }
        refs.into_iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect()
    }

    /// Updates the per-surface tree state with one message.
    #[allow(clippy::too_many_arguments)]
    fn track<'v>(
        &'v self,
        message: &'v Value,
        index: usize,
        surface_id: &'v str,
        route: Route,
        surfaces: &mut HashMap<&'v str, (Surface<'v>, Option<usize>)>,
        order: &mut Vec<&'v str>,
        errors: &mut Vec<ValidationError>,
    ) {
        let Some((kind, body)) = message_body(message) else {
            return;
        };
        if kind == "deleteSurface" {
            surfaces.remove(surface_id);
            return;
        }
        if !surfaces.contains_key(surface_id) {
            order.push(surface_id);
        }
        let entry = surfaces.entry(surface_id).or_default();
        let catalog = match route {
            Route::One(i) => Some(i),
            Route::Any => entry.1,
        };
        if kind == "createSurface" || kind == "beginRendering" {
            if kind == "createSurface" {
                *entry = (Surface::default(), catalog);
            }
            entry.0.created_here = true;
            entry.1 = catalog;
            let root = body.get("root").and_then(Value::as_str);
            if let Some(root) = root.filter(|_| kind == "beginRendering") {
                entry.0.root = Some((root, index, "/beginRendering/root"));
            }
        }
        let components = match kind {
            "createSurface" | "updateComponents" | "surfaceUpdate" => {
                body.get("components").and_then(Value::as_array)
            }
            _ => None,
        };
        let Some(components) = components else {
            return;
        };
        let refs_of = |component: &'v Value| self.refs_of(catalog, component);
        let list = match kind {
            "createSurface" => "/createSurface/components",
            "surfaceUpdate" => "/surfaceUpdate/components",
            _ => "/updateComponents/components",
        };
        tree::add_components(
            &mut entry.0,
            surface_id,
            index,
            list,
            components,
            &refs_of,
            errors,
        );
    }

    /// Picks the catalogs `message` is checked against.
    fn route(&self, message: &Value, known: Option<usize>) -> Result<Route, Box<ValidationError>> {
        if !message.is_object() {
            return Err(Box::new(ValidationError::new(
                "",
                "an A2UI message is a JSON object",
                None,
                None,
            )));
        }
        let catalogs = &self.inner.catalogs;
        if catalogs.is_empty() {
            return Err(Box::new(ValidationError::new(
                "",
                "no catalog is active, so no message can be checked",
                surface_id(message),
                None,
            )));
        }
        if let Some((kind @ ("createSurface" | "beginRendering"), body)) = message_body(message) {
            match body.get("catalogId").and_then(Value::as_str) {
                Some(id) => {
                    return match catalogs.iter().position(|c| c.answers_to(id)) {
                        Some(i) => Ok(Route::One(i)),
                        None => Err(Box::new(ValidationError::new(
                            format!("/{kind}/catalogId"),
                            format!(
                                "catalog '{id}' is not available; use one of: {}",
                                catalogs
                                    .iter()
                                    .map(Catalog::id)
                                    .collect::<Vec<_>>()
                                    .join(", ")
                            ),
                            surface_id(message),
                            None,
                        ))),
                    };
                }
                None if kind == "beginRendering" => {
                    let version = self.inner.version;
                    let basic = catalogs
                        .iter()
                        .position(|c| version.is_basic_catalog_id(c.id()));
                    return Ok(Route::One(basic.unwrap_or(0)));
                }
                None => {}
            }
        }
        Ok(match known {
            Some(i) => Route::One(i),
            None if catalogs.len() == 1 => Route::One(0),
            None => Route::Any,
        })
    }

    /// Schema errors of `message` under `route`, most relevant first.
    fn schema_errors(&self, message: &Value, route: Route) -> Vec<ValidationError> {
        if message_body(message).is_none() {
            // Every branch of the message schema fails alike; say what the message lacks.
            let kinds = message_kinds(self.inner.version);
            let found: Vec<&str> = message
                .as_object()
                .map(|m| m.keys().map(String::as_str).collect())
                .unwrap_or_default();
            let found = if found.is_empty() {
                "no keys".to_owned()
            } else {
                found.join(", ")
            };
            return vec![ValidationError::new(
                "",
                format!(
                    "not an A2UI {} message: it needs one of {}; it has {found}",
                    self.inner.version,
                    kinds.join(", "),
                ),
                None,
                None,
            )];
        }
        let catalogs = &self.inner.catalogs;
        let candidates: Vec<&Catalog> = match route {
            Route::One(i) => catalogs.get(i).into_iter().collect(),
            Route::Any => catalogs.iter().collect(),
        };
        if candidates.iter().any(|c| c.compiled().is_valid(message)) {
            return Vec::new();
        }
        if self
            .inner
            .union
            .as_ref()
            .is_some_and(|u| u.is_valid(message))
        {
            // A v1.0 surface using components of several catalogs.
            return Vec::new();
        }
        let surface = surface_id(message);
        if let Some(union) = &self.inner.union {
            // The union knows every component; its errors do not call a mixed-in one unknown.
            return report::errors(union, message, surface);
        }
        candidates
            .iter()
            .map(|c| report::errors(c.compiled(), message, surface))
            .min_by_key(Vec::len)
            .unwrap_or_default()
    }
}

/// The message kinds an agent sends in `version`, in the order a surface uses them.
///
/// # Example
///
/// ```
/// use a2ui_agent::a2ui::{message_kinds, ProtocolVersion};
///
/// assert_eq!(message_kinds(ProtocolVersion::V0_9)[0], "createSurface");
/// assert!(message_kinds(ProtocolVersion::V0_8).contains(&"beginRendering"));
/// ```
pub fn message_kinds(version: ProtocolVersion) -> &'static [&'static str] {
    match version {
        ProtocolVersion::V0_8 => &[
            "beginRendering",
            "surfaceUpdate",
            "dataModelUpdate",
            "deleteSurface",
        ],
        ProtocolVersion::V0_9 | ProtocolVersion::V0_9_1 => &[
            "createSurface",
            "updateComponents",
            "updateDataModel",
            "deleteSurface",
        ],
        ProtocolVersion::V1_0 => &[
            "createSurface",
            "updateComponents",
            "updateDataModel",
            "deleteSurface",
            "callRendererFunction",
            "agentFunctionResponse",
        ],
    }
}

/// The message's kind (its one action key) and body.
pub(super) fn message_body(message: &Value) -> Option<(&str, &Value)> {
    const KINDS: [&str; 9] = [
        "createSurface",
        "updateComponents",
        "updateDataModel",
        "deleteSurface",
        "beginRendering",
        "surfaceUpdate",
        "dataModelUpdate",
        "callRendererFunction",
        "agentFunctionResponse",
    ];
    let map = message.as_object()?;
    KINDS
        .iter()
        .find_map(|kind| map.get(*kind).map(|body| (*kind, body)))
}

/// The surface a message is about.
fn surface_id(message: &Value) -> Option<&str> {
    message_body(message)?.1.get("surfaceId")?.as_str()
}

/// A component's type name and the object holding its properties (v0.8 nests them under
/// `component.<Type>`).
pub(super) fn component_type(
    version: ProtocolVersion,
    component: &Value,
) -> Option<(&str, &Value)> {
    if version == ProtocolVersion::V0_8 {
        let wrapper = component.get("component")?.as_object()?;
        let (name, props) = wrapper.iter().next()?;
        Some((name, props))
    } else {
        Some((component.get("component")?.as_str()?, component))
    }
}
