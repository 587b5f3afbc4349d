//! [`Surfaces`]: what a renderer holds after applying an agent's A2UI messages, in either
//! message shape (v0.8 `beginRendering`/`surfaceUpdate`/`dataModelUpdate`, v0.9 and later
//! `createSurface`/`updateComponents`/`updateDataModel`), each surface with its components
//! and its data model.

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::SurfaceError;
use super::data;
use crate::a2ui::ProtocolVersion;

/// The most surfaces held at once.
pub(super) const MAX_SURFACES: usize = 64;
/// The most components one surface holds.
pub(super) const MAX_COMPONENTS: usize = 10_000;
/// The most bytes of data model one surface takes in (counted as the updates' JSON text,
/// from the last time its whole model was replaced).
pub(super) const MAX_DATA_BYTES: usize = 16 * 1024 * 1024;

/// The surfaces an agent has drawn, as a renderer holds them: a client-side model that
/// needs no UI toolkit (a terminal outline, a test, an orchestrator that tracks what each
/// agent showed).
///
/// Messages of every version are taken ([`Surfaces::apply`]); a surface keeps the version
/// of the message that created it, and answers a press of one of its buttons in that
/// version's shape ([`Surfaces::press`]). Everything held is bounded: 64 surfaces, 10,000
/// components per surface, 16 MiB of data model per surface (counted as the updates' JSON
/// text since the whole model was last replaced); past a bound a message is an error.
///
/// # Example
///
/// ```
/// use a2ui_agent::a2ui::Surfaces;
/// use serde_json::json;
///
/// let mut surfaces = Surfaces::new();
/// surfaces.apply(&json!({"version": "v0.9", "createSurface": {"surfaceId": "s",
///     "catalogId": "https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json"}})).unwrap();
/// surfaces.apply(&json!({"version": "v0.9", "updateComponents": {"surfaceId": "s",
///     "components": [{"id": "root", "component": "Text", "text": {"path": "/greeting"}}]}})).unwrap();
/// surfaces.apply(&json!({"version": "v0.9", "updateDataModel": {"surfaceId": "s",
///     "path": "/greeting", "value": "Hello"}})).unwrap();
/// assert_eq!(surfaces.outline(["s"]).text(), "surface s\n  Text: Hello\n");
/// ```
#[derive(Debug, Clone, Default)]
pub struct Surfaces {
    /// In the order they were created.
    list: Vec<Surface>,
}

/// One surface: its components by id, its root, its data model.
#[derive(Debug, Clone)]
pub struct Surface {
    id: String,
    version: ProtocolVersion,
    /// The `version` its messages carry (`v0.9`, `v0.9.1`, `v1.0`; none for v0.8).
    tag: Option<String>,
    catalog_id: Option<String>,
    root: Option<String>,
    /// Whether a v0.8 `beginRendering` (or a `createSurface`) has made it: another one
    /// replaces the surface.
    begun: bool,
    send_data_model: bool,
    pub(super) components: HashMap<String, Component>,
    data: Value,
    data_bytes: usize,
}

/// A component, in one shape for every version: its kind and its properties (in the
/// version's own property shapes).
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Component {
    pub(super) kind: String,
    pub(super) props: Map<String, Value>,
}

impl Surface {
    fn new(id: &str, version: ProtocolVersion, tag: Option<&str>) -> Self {
        Self {
            id: id.to_owned(),
            version,
            tag: tag.map(str::to_owned),
            catalog_id: None,
            root: None,
            begun: false,
            send_data_model: false,
            components: HashMap::new(),
            data: Value::Object(Map::new()),
            data_bytes: 0,
        }
    }

    /// The surface's id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The protocol version of the messages that made it.
    pub fn version(&self) -> ProtocolVersion {
        self.version
    }

    /// The catalog it was created with, if its messages named one.
    pub fn catalog_id(&self) -> Option<&str> {
        self.catalog_id.as_deref()
    }

    /// Its data model (an empty object until an update fills it).
    pub fn data_model(&self) -> &Value {
        &self.data
    }

    /// Whether the agent asked for its data model with every message sent back (v0.9
    /// `sendDataModel`).
    pub fn sends_data_model(&self) -> bool {
        self.send_data_model
    }

    /// The id of its root component (`root` unless a v0.8 `beginRendering` named another).
    pub fn root(&self) -> &str {
        self.root.as_deref().unwrap_or("root")
    }

    /// The number of components it holds.
    pub fn component_count(&self) -> usize {
        self.components.len()
    }

    pub(super) fn tag(&self) -> Option<&str> {
        self.tag.as_deref()
    }

    pub(super) fn component(&self, id: &str) -> Option<&Component> {
        self.components.get(id)
    }

    fn upsert(&mut self, components: &Value) -> Result<(), SurfaceError> {
        let list = components
            .as_array()
            .ok_or_else(|| malformed("`components` is not a list"))?;
        for item in list {
            let id = item
                .get("id")
                .and_then(Value::as_str)
                .ok_or_else(|| malformed("a component without an `id`"))?;
            let component = match item.get("component") {
                // v0.9 on: {"id", "component": "Text", ...props}
                Some(Value::String(kind)) => {
                    let mut props = item.as_object().cloned().unwrap_or_default();
                    props.remove("id");
                    props.remove("component");
                    Component {
                        kind: kind.clone(),
                        props,
                    }
                }
                // v0.8: {"id", "component": {"Text": {...props}}}
                Some(Value::Object(wrapper)) if wrapper.len() == 1 => {
                    let (kind, props) = wrapper
                        .iter()
                        .next()
                        .ok_or_else(|| malformed("an empty component"))?;
                    Component {
                        kind: kind.clone(),
                        props: props.as_object().cloned().unwrap_or_default(),
                    }
                }
                _ => return Err(malformed(&format!("component {id:?} names no kind"))),
            };
            if !self.components.contains_key(id) && self.components.len() >= MAX_COMPONENTS {
                return Err(SurfaceError::TooLarge(format!(
                    "surface {:?} has {MAX_COMPONENTS} components",
                    self.id
                )));
            }
            self.components.insert(id.to_owned(), component);
        }
        Ok(())
    }

    /// Sets `value` at `path` (`None` removes it), counting its size.
    fn write(&mut self, path: &str, value: Option<Value>) -> Result<(), SurfaceError> {
        let size = value.as_ref().map_or(0, |v| v.to_string().len());
        let whole = path.trim().trim_matches('/').is_empty();
        let total = if whole { size } else { self.data_bytes + size };
        if total > MAX_DATA_BYTES {
            return Err(SurfaceError::TooLarge(format!(
                "the data model of surface {:?} is over {MAX_DATA_BYTES} bytes",
                self.id
            )));
        }
        data::set(&mut self.data, path, value)?;
        self.data_bytes = total;
        Ok(())
    }
}

impl Surfaces {
    /// No surfaces.
    pub fn new() -> Self {
        Self::default()
    }

    /// Applies one agent-to-renderer message; answers the id of the surface it changed.
    ///
    /// A `createSurface` (or a v0.8 `beginRendering` of a surface already begun) for an
    /// existing id replaces that surface, as the official renderers do. v0.8 components
    /// and data may arrive before `beginRendering`; from v0.9 on a surface must be created
    /// first.
    ///
    /// # Errors
    ///
    /// [`SurfaceError::Malformed`] for a message that is not one of the known kinds (or
    /// lacks what its kind needs), [`SurfaceError::NoSurface`] for an update of a surface
    /// never created, [`SurfaceError::TooLarge`] past a limit, [`SurfaceError::BadPath`]
    /// for a data path that cannot be written. The surfaces are unchanged by a message
    /// refused whole; a components list refused midway keeps the components before.
    pub fn apply(&mut self, message: &Value) -> Result<String, SurfaceError> {
        let object = message
            .as_object()
            .ok_or_else(|| malformed("a message is not a JSON object"))?;
        let tag = object.get("version").and_then(Value::as_str);
        let version = match tag {
            Some(tag) => ProtocolVersion::from_message_version(tag)
                .ok_or_else(|| malformed(&format!("unknown version {tag:?}")))?,
            None => ProtocolVersion::V0_8,
        };
        let (kind, body) = object
            .iter()
            .find(|(key, _)| key.as_str() != "version")
            .ok_or_else(|| malformed("a message without a body"))?;
        let id = body
            .get("surfaceId")
            .and_then(Value::as_str)
            .ok_or_else(|| malformed(&format!("`{kind}` without a `surfaceId`")))?
            .to_owned();
        match kind.as_str() {
            "createSurface" | "beginRendering" => self.begin(kind, &id, version, tag, body)?,
            "updateComponents" => self.surface_mut(&id)?.upsert(field(body, "components")?)?,
            "updateDataModel" => {
                let path = body.get("path").and_then(Value::as_str).unwrap_or("/");
                self.surface_mut(&id)?
                    .write(path, body.get("value").cloned())?;
            }
            "surfaceUpdate" => self.begin_v0_8(&id)?.upsert(field(body, "components")?)?,
            "dataModelUpdate" => {
                let entries = data::v0_8_contents(field(body, "contents")?);
                let path = body.get("path").and_then(Value::as_str).unwrap_or("/");
                let surface = self.begin_v0_8(&id)?;
                for (key, value) in entries {
                    let at = format!("{}/{}", path.trim_end_matches('/'), escape(&key));
                    surface.write(&at, Some(value))?;
                }
            }
            "deleteSurface" => {
                if let Some(i) = self.position(&id) {
                    self.list.remove(i);
                }
            }
            other => return Err(malformed(&format!("unknown message `{other}`"))),
        }
        Ok(id)
    }

    /// A `createSurface` or `beginRendering` of surface `id` with `body`. From v1.0 on a
    /// `createSurface` may carry the surface's first components and its data model.
    fn begin(
        &mut self,
        kind: &str,
        id: &str,
        version: ProtocolVersion,
        tag: Option<&str>,
        body: &Value,
    ) -> Result<(), SurfaceError> {
        let existing = self.position(id);
        let keep = kind == "beginRendering"
            && existing.is_some_and(|i| self.list.get(i).is_some_and(|s| !s.begun));
        let surface = if keep {
            self.surface_mut(id)?
        } else {
            self.create(id, version, tag)?
        };
        surface.begun = true;
        surface.catalog_id = body
            .get("catalogId")
            .and_then(Value::as_str)
            .map(str::to_owned);
        surface.root = body.get("root").and_then(Value::as_str).map(str::to_owned);
        surface.send_data_model = body
            .get("sendDataModel")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        if kind == "createSurface" {
            if let Some(components) = body.get("components") {
                surface.upsert(components)?;
            }
            if let Some(model) = body.get("dataModel") {
                surface.write("/", Some(model.clone()))?;
            }
        }
        Ok(())
    }

    /// The surface `id`, if it is held.
    pub fn get(&self, id: &str) -> Option<&Surface> {
        self.list.iter().find(|s| s.id == id)
    }

    /// The surfaces held, oldest first.
    pub fn iter(&self) -> impl Iterator<Item = &Surface> {
        self.list.iter()
    }

    /// What a renderer sends with its next message to the agent for the surfaces that asked
    /// for it (`sendDataModel`): the `a2uiClientDataModel` metadata value, `{"version",
    /// "surfaces": {id: model}}`; `None` when no surface asked.
    ///
    /// # Example
    ///
    /// ```
    /// use a2ui_agent::a2ui::Surfaces;
    /// use serde_json::json;
    ///
    /// let mut surfaces = Surfaces::new();
    /// surfaces.apply(&json!({"version": "v0.9", "createSurface": {"surfaceId": "form",
    ///     "catalogId": "c", "sendDataModel": true}})).unwrap();
    /// surfaces.apply(&json!({"version": "v0.9", "updateDataModel": {"surfaceId": "form",
    ///     "value": {"name": "Ada"}}})).unwrap();
    /// assert_eq!(surfaces.client_data_model(),
    ///     Some(json!({"version": "v0.9", "surfaces": {"form": {"name": "Ada"}}})));
    /// ```
    pub fn client_data_model(&self) -> Option<Value> {
        let sending: Vec<&Surface> = self.list.iter().filter(|s| s.send_data_model).collect();
        let first = sending.first()?;
        let models: Map<String, Value> = sending
            .iter()
            .map(|s| (s.id.clone(), s.data.clone()))
            .collect();
        let mut value = Map::new();
        value.insert(
            "version".into(),
            Value::from(first.tag().unwrap_or(first.version.as_str())),
        );
        value.insert("surfaces".into(), Value::Object(models));
        Some(Value::Object(value))
    }

    /// Sets a value in surface `id`'s data model, as a person typing into a field bound to
    /// `path` does.
    ///
    /// # Errors
    ///
    /// [`SurfaceError::NoSurface`], or those of writing the path.
    pub fn set_data(&mut self, id: &str, path: &str, value: Value) -> Result<(), SurfaceError> {
        self.surface_mut(id)?.write(path, Some(value))
    }

    fn position(&self, id: &str) -> Option<usize> {
        self.list.iter().position(|s| s.id == id)
    }

    fn surface_mut(&mut self, id: &str) -> Result<&mut Surface, SurfaceError> {
        self.list
            .iter_mut()
            .find(|s| s.id == id)
            .ok_or_else(|| SurfaceError::NoSurface(id.to_owned()))
    }

    /// A new surface `id` in place of any held under that id.
    fn create(
        &mut self,
        id: &str,
        version: ProtocolVersion,
        tag: Option<&str>,
    ) -> Result<&mut Surface, SurfaceError> {
        if let Some(i) = self.position(id) {
            self.list.remove(i);
        } else if self.list.len() >= MAX_SURFACES {
            return Err(SurfaceError::TooLarge(format!(
                "{MAX_SURFACES} surfaces are held already"
            )));
        }
        self.list.push(Surface::new(id, version, tag));
        self.list
            .last_mut()
            .ok_or_else(|| SurfaceError::NoSurface(id.to_owned()))
    }

    /// The v0.8 surface `id`, made (not yet begun) if its first message is an update.
    fn begin_v0_8(&mut self, id: &str) -> Result<&mut Surface, SurfaceError> {
        if self.position(id).is_none() {
            self.create(id, ProtocolVersion::V0_8, None)?;
        }
        self.surface_mut(id)
    }
}

/// A JSON Pointer segment for `key`.
fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

fn field<'a>(body: &'a Value, name: &str) -> Result<&'a Value, SurfaceError> {
    body.get(name)
        .ok_or_else(|| malformed(&format!("no `{name}`")))
}

fn malformed(what: &str) -> SurfaceError {
    SurfaceError::Malformed(what.to_owned())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn v0_9(kind: &str, body: Value) -> Value {
        json!({"version": "v0.9", kind: body})
    }

    #[test]
    fn creating_a_surface_again_replaces_it_and_deleting_removes_it() {
        let mut surfaces = Surfaces::new();
        surfaces
            .apply(&v0_9(
                "createSurface",
                json!({"surfaceId": "s", "catalogId": "c"}),
            ))
            .unwrap();
        surfaces
            .apply(&v0_9(
                "updateComponents",
                json!({"surfaceId": "s", "components": [{"id": "root", "component": "Text", "text": "a"}]}),
            ))
            .unwrap();
        assert_eq!(surfaces.get("s").unwrap().component_count(), 1);
        surfaces
            .apply(&v0_9(
                "createSurface",
                json!({"surfaceId": "s", "catalogId": "c"}),
            ))
            .unwrap();
        assert_eq!(surfaces.get("s").unwrap().component_count(), 0);
        surfaces
            .apply(&v0_9("deleteSurface", json!({"surfaceId": "s"})))
            .unwrap();
        assert!(surfaces.get("s").is_none());
    }

    #[test]
    fn a_v1_0_create_surface_brings_its_components_and_data_model() {
        let mut surfaces = Surfaces::new();
        surfaces
            .apply(&json!({"version": "v1.0", "createSurface": {
                "surfaceId": "s", "catalogId": "c",
                "components": [{"id": "root", "component": "Text", "text": {"path": "/name"}}],
                "dataModel": {"name": "Ada"}}}))
            .unwrap();
        let surface = surfaces.get("s").unwrap();
        assert_eq!(surface.component_count(), 1);
        assert_eq!(surface.data_model(), &json!({"name": "Ada"}));
        assert!(surfaces.outline(["s"]).text().contains("Ada"));
    }

    #[test]
    fn a_v0_9_update_of_a_surface_never_created_is_refused() {
        let mut surfaces = Surfaces::new();
        let error = surfaces
            .apply(&v0_9(
                "updateDataModel",
                json!({"surfaceId": "x", "value": {}}),
            ))
            .unwrap_err();
        assert!(matches!(error, SurfaceError::NoSurface(id) if id == "x"));
    }

    #[test]
    fn v0_8_components_and_data_may_come_before_begin_rendering() {
        let mut surfaces = Surfaces::new();
        surfaces
            .apply(&json!({"surfaceUpdate": {"surfaceId": "s", "components": [
                {"id": "top", "component": {"Text": {"text": {"path": "/name"}}}}]}}))
            .unwrap();
        surfaces
            .apply(&json!({"dataModelUpdate": {"surfaceId": "s", "contents": [
                {"key": "name", "valueString": "Ada"}]}}))
            .unwrap();
        surfaces
            .apply(&json!({"beginRendering": {"surfaceId": "s", "root": "top"}}))
            .unwrap();
        let surface = surfaces.get("s").unwrap();
        assert_eq!(surface.root(), "top");
        assert_eq!(surface.version(), ProtocolVersion::V0_8);
        assert_eq!(surface.data_model(), &json!({"name": "Ada"}));
        assert_eq!(surface.component_count(), 1);
    }

    #[test]
    fn hostile_messages_are_errors_and_limits_hold() {
        let mut surfaces = Surfaces::new();
        for bad in [
            json!([]),
            json!({}),
            json!({"version": "v9"}),
            json!({"version": "v0.9", "paint": {"surfaceId": "s"}}),
            json!({"version": "v0.9", "createSurface": {}}),
        ] {
            assert!(surfaces.apply(&bad).is_err(), "{bad}");
        }
        for i in 0..MAX_SURFACES {
            surfaces
                .apply(&v0_9("createSurface", json!({"surfaceId": i.to_string()})))
                .unwrap();
        }
        let error = surfaces
            .apply(&v0_9("createSurface", json!({"surfaceId": "one more"})))
            .unwrap_err();
        assert!(matches!(error, SurfaceError::TooLarge(_)), "{error}");
        let huge = "x".repeat(MAX_DATA_BYTES / 2 + 1);
        surfaces.set_data("0", "/a", json!(huge)).unwrap();
        assert!(surfaces.set_data("0", "/b", json!(huge)).is_err());
        // Replacing the whole model starts the count again.
        surfaces.set_data("0", "/", json!({})).unwrap();
        surfaces.set_data("0", "/b", json!(huge)).unwrap();
    }
}
