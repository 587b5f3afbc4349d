//! Pressing a button: the renderer-to-agent message a renderer sends for it, in the
//! surface's version (v0.8 `userAction`, v0.9 on `action`), its context resolved against
//! the data model at the moment of the press.

use serde_json::{Map, Value, json};

use super::SurfaceError;
use super::outline::Button;
use super::state::Surfaces;
use super::values::resolve;
use crate::a2ui::ProtocolVersion;

impl Surfaces {
    /// The message a renderer sends when `button` is pressed at `timestamp` (ISO 8601): v0.8
    /// `{"userAction": {...}}`, v0.9 and later `{"version", "action": {...}}`, with `name`,
    /// `surfaceId`, `sourceComponentId`, `timestamp` and the action's `context`, each
    /// binding in it read from the data model now (a template item's relative paths from
    /// that item).
    ///
    /// # Errors
    ///
    /// [`SurfaceError::NoSurface`] when its surface is gone, [`SurfaceError::NoAction`] when
    /// the component is gone or its action sends nothing to the agent (a client-side
    /// function call).
    ///
    /// # Example
    ///
    /// ```
    /// use a2ui_agent::a2ui::Surfaces;
    /// use serde_json::json;
    ///
    /// let mut surfaces = Surfaces::new();
    /// for message in [
    ///     json!({"version": "v0.9", "createSurface": {"surfaceId": "s", "catalogId": "c"}}),
    ///     json!({"version": "v0.9", "updateDataModel": {"surfaceId": "s", "value": {"n": 2}}}),
    ///     json!({"version": "v0.9", "updateComponents": {"surfaceId": "s", "components": [
    ///         {"id": "root", "component": "Button", "child": "l", "action": {"event": {
    ///             "name": "book", "context": {"party": {"path": "/n"}, "where": "Alba"}}}},
    ///         {"id": "l", "component": "Text", "text": "Book"}]}}),
    /// ] {
    ///     surfaces.apply(&message).unwrap();
    /// }
    /// let outline = surfaces.outline(["s"]);
    /// let sent = surfaces.press(&outline.buttons()[0], "2026-01-01T00:00:00Z").unwrap();
    /// assert_eq!(sent, json!({"version": "v0.9", "action": {"name": "book", "surfaceId": "s",
    ///     "sourceComponentId": "root", "timestamp": "2026-01-01T00:00:00Z",
    ///     "context": {"party": 2, "where": "Alba"}}}));
    /// ```
    pub fn press(&self, button: &Button, timestamp: &str) -> Result<Value, SurfaceError> {
        let surface = self
            .get(&button.surface_id)
            .ok_or_else(|| SurfaceError::NoSurface(button.surface_id.clone()))?;
        let nothing =
            |why: &str| SurfaceError::NoAction(format!("{:?} {why}", button.component_id));
        let action = surface
            .component(&button.component_id)
            .and_then(|component| component.props.get("action"))
            .ok_or_else(|| nothing("has no action"))?;
        let event = action.get("event").unwrap_or(action);
        let name = event
            .get("name")
            .and_then(Value::as_str)
            .ok_or_else(|| nothing("runs a function in the renderer: nothing goes to the agent"))?;
        let model = surface.data_model();
        let mut context = Map::new();
        match event.get("context") {
            // v0.8: [{"key", "value": BoundValue}]
            Some(Value::Array(entries)) => {
                for entry in entries {
                    if let Some(key) = entry.get("key").and_then(Value::as_str) {
                        let value = entry.get("value").unwrap_or(&Value::Null);
                        context.insert(key.to_owned(), resolve(model, value, &button.scope));
                    }
                }
            }
            // v0.9 on: {key: DynamicValue}
            Some(Value::Object(entries)) => {
                for (key, value) in entries {
                    context.insert(key.clone(), resolve(model, value, &button.scope));
                }
            }
            _ => {}
        }
        let body = json!({
            "name": name,
            "surfaceId": surface.id(),
            "sourceComponentId": button.component_id,
            "timestamp": timestamp,
            "context": context,
        });
        Ok(match surface.version() {
            ProtocolVersion::V0_8 => json!({ "userAction": body }),
            version => {
                let tag = surface
                    .tag()
                    .or(version.message_version())
                    .unwrap_or("v0.9");
                json!({"version": tag, "action": body})
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::a2ui::check_client_message;

    /// The demo's booking form in v0.8: a form bound to the data model and a Confirm button.
    fn v0_8_form() -> Surfaces {
        let mut surfaces = Surfaces::new();
        for message in [
            json!({"beginRendering": {"surfaceId": "booking", "root": "root"}}),
            json!({"surfaceUpdate": {"surfaceId": "booking", "components": [
                {"id": "root", "component": {"Column": {"children": {"explicitList": ["name", "ok"]}}}},
                {"id": "name", "component": {"TextField": {"label": {"literalString": "Your name"},
                    "text": {"path": "/name"}}}},
                {"id": "ok", "component": {"Button": {"child": "ok_label", "action": {"name": "book",
                    "context": [{"key": "name", "value": {"path": "/name"}},
                                {"key": "where", "value": {"literalString": "Alba"}}]}}}},
                {"id": "ok_label", "component": {"Text": {"text": {"literalString": "Confirm"}}}}]}}),
            json!({"dataModelUpdate": {"surfaceId": "booking", "contents": [
                {"key": "name", "valueString": ""}]}}),
        ] {
            surfaces.apply(&message).unwrap();
        }
        surfaces
    }

    #[test]
    fn a_v0_8_press_is_a_user_action_with_the_context_read_at_the_press() {
        let mut surfaces = v0_8_form();
        let outline = surfaces.outline(["booking"]);
        assert_eq!(
            outline.text(),
            "surface booking\n  Column\n    TextField: Your name = \"\"\n    [1] Button: Confirm\n"
        );
        surfaces.set_data("booking", "/name", json!("Ada")).unwrap();
        let sent = surfaces
            .press(outline.button(1).unwrap(), "2026-01-01T00:00:00Z")
            .unwrap();
        assert_eq!(
            sent["userAction"]["context"],
            json!({"name": "Ada", "where": "Alba"})
        );
        check_client_message(ProtocolVersion::V0_8, &sent).unwrap();
    }

    #[test]
    fn a_press_in_a_template_reads_its_item_and_validates() {
        let mut surfaces = Surfaces::new();
        for message in [
            json!({"version": "v0.9", "createSurface": {"surfaceId": "s", "catalogId": "c"}}),
            json!({"version": "v0.9", "updateDataModel": {"surfaceId": "s",
                "value": {"items": [{"name": "Alba"}, {"name": "Verde"}]}}}),
            json!({"version": "v0.9", "updateComponents": {"surfaceId": "s", "components": [
                {"id": "root", "component": "List", "children": {"path": "/items", "componentId": "row"}},
                {"id": "row", "component": "Button", "child": "label",
                    "action": {"event": {"name": "pick", "context": {"name": {"path": "name"}}}}},
                {"id": "label", "component": "Text", "text": {"path": "name"}}]}}),
        ] {
            surfaces.apply(&message).unwrap();
        }
        let outline = surfaces.outline(["s"]);
        assert_eq!(
            outline.text(),
            "surface s\n  List\n    [1] Button: Alba\n    [2] Button: Verde\n"
        );
        let sent = surfaces
            .press(outline.button(2).unwrap(), "2026-01-01T00:00:00Z")
            .unwrap();
        assert_eq!(sent["action"]["context"], json!({"name": "Verde"}));
        check_client_message(ProtocolVersion::V0_9, &sent).unwrap();
    }

    #[test]
    fn a_button_that_runs_a_function_sends_nothing() {
        let mut surfaces = Surfaces::new();
        for message in [
            json!({"version": "v0.9", "createSurface": {"surfaceId": "s", "catalogId": "c"}}),
            json!({"version": "v0.9", "updateComponents": {"surfaceId": "s", "components": [
                {"id": "root", "component": "Button", "child": "l",
                    "action": {"functionCall": {"call": "openUrl", "args": {"url": "https://a2ui.org"}}}},
                {"id": "l", "component": "Text", "text": "Docs"}]}}),
        ] {
            surfaces.apply(&message).unwrap();
        }
        let outline = surfaces.outline(["s"]);
        assert_eq!(outline.buttons()[0].action(), None);
        let error = surfaces.press(&outline.buttons()[0], "t").unwrap_err();
        assert!(matches!(error, SurfaceError::NoAction(_)), "{error}");
    }
}
