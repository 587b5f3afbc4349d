//! [`Outline`]: surfaces as indented text a person can read in a terminal: each component's
//! kind and what it shows (texts, button labels, field values, image descriptions),
//! containers' children nested below them, bindings resolved against the data model and
//! buttons numbered so a person can say which one to press.

use serde_json::Value;

use super::state::{Component, Surface, Surfaces};
use super::values::{one_line, resolve, shown};

/// The deepest nesting drawn.
const MAX_DEPTH: usize = 64;
/// The most lines one outline holds.
const MAX_LINES: usize = 10_000;
/// The most items of a template drawn.
const MAX_ITEMS: usize = 1_000;

/// Surfaces drawn as text, with their buttons numbered from 1 in the order they appear.
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
///     json!({"version": "v0.9", "updateComponents": {"surfaceId": "s", "components": [
///         {"id": "root", "component": "Row", "children": ["hi", "go"]},
///         {"id": "hi", "component": "Text", "text": "Hello"},
///         {"id": "go", "component": "Button", "child": "go_label",
///             "action": {"event": {"name": "start"}}},
///         {"id": "go_label", "component": "Text", "text": "Start"}]}}),
/// ] {
///     surfaces.apply(&message).unwrap();
/// }
/// let outline = surfaces.outline(["s"]);
/// assert_eq!(outline.text(), "surface s\n  Row\n    Text: Hello\n    [1] Button: Start\n");
/// assert_eq!(outline.buttons()[0].label(), "Start");
/// assert_eq!(outline.buttons()[0].action(), Some("start"));
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Outline {
    text: String,
    buttons: Vec<Button>,
}

impl Outline {
    /// The outline, one line per component, ending with a line break (empty for no
    /// surface).
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The buttons, in the order they are numbered (`[1]` is the first).
    pub fn buttons(&self) -> &[Button] {
        &self.buttons
    }

    /// Button `number` as shown (`[number]`), counted from 1.
    pub fn button(&self, number: usize) -> Option<&Button> {
        number.checked_sub(1).and_then(|i| self.buttons.get(i))
    }
}

/// A button of an [`Outline`]: where it is, what it says, and what it sends
/// ([`Surfaces::press`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Button {
    pub(super) surface_id: String,
    pub(super) component_id: String,
    /// The data model pointer of the template item it was drawn for (`""`: none).
    pub(super) scope: String,
    label: String,
    action: Option<String>,
}

impl Button {
    /// The surface it is on.
    pub fn surface_id(&self) -> &str {
        &self.surface_id
    }

    /// Its component's id.
    pub fn component_id(&self) -> &str {
        &self.component_id
    }

    /// What it says: the text of its child (or its own `label`).
    pub fn label(&self) -> &str {
        &self.label
    }

    /// The name of the event it sends, if it sends one to the agent.
    pub fn action(&self) -> Option<&str> {
        self.action.as_deref()
    }
}

impl Surfaces {
    /// The outline of the surfaces `ids` (those held, in the order given), buttons numbered
    /// across them from 1.
    ///
    /// # Complexity
    ///
    /// Bounded whatever the surfaces hold: at most 64 levels deep, 1,000 items per template
    /// and 10,000 lines; a cycle among components is drawn once and marked.
    pub fn outline<I, S>(&self, ids: I) -> Outline
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let mut draw = Draw {
            outline: Outline::default(),
            lines: 0,
        };
        for id in ids {
            if let Some(surface) = self.get(id.as_ref()) {
                draw.line(0, &format!("surface {}", one_line(surface.id())));
                let mut path = Vec::new();
                draw.component(surface, surface.root(), "", 1, &mut path);
            }
        }
        draw.outline
    }
}

struct Draw {
    outline: Outline,
    lines: usize,
}

impl Draw {
    fn line(&mut self, depth: usize, text: &str) {
        self.lines += 1;
        if self.lines > MAX_LINES {
            if self.lines == MAX_LINES + 1 {
                self.outline.text.push_str("… (outline cut)\n");
            }
            return;
        }
        self.outline.text.push_str(&"  ".repeat(depth));
        self.outline.text.push_str(text);
        self.outline.text.push('\n');
    }

    fn component<'a>(
        &mut self,
        surface: &'a Surface,
        id: &'a str,
        scope: &str,
        depth: usize,
        path: &mut Vec<&'a str>,
    ) {
        if self.lines > MAX_LINES {
            return;
        }
        let Some(component) = surface.component(id) else {
            self.line(depth, &format!("? {} (not received)", one_line(id)));
            return;
        };
        if path.contains(&id) {
            self.line(depth, &format!("↻ {} (cycle)", one_line(id)));
            return;
        }
        if depth > MAX_DEPTH {
            self.line(depth, "… (too deep)");
            return;
        }
        let model = surface.data_model();
        let kind = one_line(&component.kind);
        if kind == "Button" {
            let label = button_label(surface, component, model, scope);
            let number = self.outline.buttons.len() + 1;
            self.outline.buttons.push(Button {
                surface_id: surface.id().to_owned(),
                component_id: id.to_owned(),
                scope: scope.to_owned(),
                label: label.clone(),
                action: event_name(component),
            });
            self.line(depth, &format!("[{number}] Button: {label}"));
            return;
        }
        self.line(depth, &describe(&kind, component, model, scope));
        path.push(id);
        for (title, child, child_scope) in children(component, model, scope) {
            if self.lines > MAX_LINES {
                break;
            }
            let mut at = depth + 1;
            if let Some(title) = title {
                self.line(at, &format!("Tab: {title}"));
                at += 1;
            }
            if let Some(child) = surface.components.get_key_value(child.as_str()) {
                self.component(surface, child.0, &child_scope, at, path);
            } else {
                self.line(at, &format!("? {} (not received)", one_line(&child)));
            }
        }
        path.pop();
    }
}

/// A component's line: its kind, and what it shows.
fn describe(kind: &str, component: &Component, model: &Value, scope: &str) -> String {
    let get = |name: &str| {
        component
            .props
            .get(name)
            .map(|value| resolve(model, value, scope))
    };
    let text = |name: &str| get(name).map(|v| shown(&v)).unwrap_or_default();
    let shows = match kind {
        "Text" | "Heading" => text("text"),
        "TextField" => {
            let value = get("value").or_else(|| get("text")).unwrap_or(Value::Null);
            format!("{} = {:?}", text("label"), shown(&value))
        }
        "CheckBox" => {
            let on = get("value").and_then(|v| v.as_bool()).unwrap_or(false);
            format!("[{}] {}", if on { "x" } else { " " }, text("label"))
        }
        "Image" | "Video" | "AudioPlayer" => {
            let about = ["description", "altText", "alt"]
                .iter()
                .map(|name| text(name))
                .find(|t| !t.is_empty())
                .or_else(|| {
                    component
                        .props
                        .get("accessibility")
                        .and_then(|a| a.get("label"))
                        .map(shown)
                })
                .unwrap_or_default();
            let url = text("url");
            match (about.is_empty(), url.is_empty()) {
                (false, false) => format!("{about} <{url}>"),
                (false, true) => about,
                _ => format!("<{url}>"),
            }
        }
        "Icon" => text("name"),
        "ChoicePicker" | "MultipleChoice" => {
            let selected = get("value").or_else(|| get("selections"));
            let chosen = |value: &Value| match &selected {
                Some(Value::Array(values)) => values.contains(value),
                Some(one) => one == value,
                None => false,
            };
            let options: Vec<String> = component
                .props
                .get("options")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .map(|option| {
                    let label = option
                        .get("label")
                        .map(|label| shown(&resolve(model, label, scope)))
                        .unwrap_or_default();
                    let value = option.get("value").cloned().unwrap_or(Value::Null);
                    format!("{}{label}", if chosen(&value) { "(•) " } else { "( ) " })
                })
                .collect();
            format!("{} {}", text("label"), options.join(", "))
        }
        "Slider" | "DateTimeInput" => {
            let value = get("value").unwrap_or(Value::Null);
            format!("{} = {:?}", text("label"), shown(&value))
        }
        _ => ["text", "label", "title", "name", "value"]
            .iter()
            .map(|name| text(name))
            .find(|t| !t.is_empty())
            .unwrap_or_default(),
    };
    let shows = shows.trim();
    if shows.is_empty() {
        kind.to_owned()
    } else {
        format!("{kind}: {shows}")
    }
}

/// What a button says: the texts of its child's subtree, else its own `label`.
fn button_label(surface: &Surface, component: &Component, model: &Value, scope: &str) -> String {
    let mut texts = Vec::new();
    if let Some(child) = component.props.get("child").and_then(Value::as_str) {
        collect_texts(surface, child, model, scope, &mut 0, &mut texts);
    }
    if texts.is_empty()
        && let Some(label) = component.props.get("label")
    {
        texts.push(shown(&resolve(model, label, scope)));
    }
    one_line(&texts.join(" "))
}

fn collect_texts(
    surface: &Surface,
    id: &str,
    model: &Value,
    scope: &str,
    visits: &mut usize,
    texts: &mut Vec<String>,
) {
    // A label is a few texts: a bounded walk, whatever the subtree (cycles, templates).
    *visits += 1;
    if *visits > 64 || texts.len() >= 16 {
        return;
    }
    let Some(component) = surface.component(id) else {
        return;
    };
    for name in ["text", "label"] {
        if let Some(value) = component.props.get(name) {
            let text = shown(&resolve(model, value, scope));
            if !text.is_empty() {
                texts.push(text);
                return;
            }
        }
    }
    for (_, child, child_scope) in children(component, model, scope) {
        collect_texts(surface, &child, model, &child_scope, visits, texts);
    }
}

/// The name of the event a button sends (v0.9 `action.event.name`, v0.8 `action.name`).
fn event_name(component: &Component) -> Option<String> {
    let action = component.props.get("action")?;
    action
        .get("event")
        .unwrap_or(action)
        .get("name")
        .and_then(Value::as_str)
        .map(str::to_owned)
}

/// A component's children, in order: (tab title, child id, the child's scope). Ids listed
/// (`child`, `children`, v0.8 `explicitList`, modal and tab parts) or instantiated from a
/// template over a list or object in the data model.
fn children(
    component: &Component,
    model: &Value,
    scope: &str,
) -> Vec<(Option<String>, String, String)> {
    let props = &component.props;
    let mut out = Vec::new();
    let one = |id: Option<&Value>, out: &mut Vec<_>| {
        if let Some(id) = id.and_then(Value::as_str) {
            out.push((None, id.to_owned(), scope.to_owned()));
        }
    };
    for name in [
        "entryPointChild",
        "trigger",
        "child",
        "contentChild",
        "content",
    ] {
        one(props.get(name), &mut out);
    }
    for name in ["tabs", "tabItems"] {
        for tab in props
            .get(name)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if let Some(child) = tab.get("child").and_then(Value::as_str) {
                let title = tab
                    .get("title")
                    .map(|t| shown(&resolve(model, t, scope)))
                    .unwrap_or_default();
                out.push((Some(title), child.to_owned(), scope.to_owned()));
            }
        }
    }
    let Some(list) = props.get("children") else {
        return out;
    };
    let list = list.get("explicitList").unwrap_or(list);
    if let Some(ids) = list.as_array() {
        for id in ids {
            one(Some(id), &mut out);
        }
        return out;
    }
    // A template: v0.9 {"path", "componentId"}, v0.8 {"template": {"componentId", "dataBinding"}}.
    let template = list.get("template").unwrap_or(list);
    let (Some(id), Some(path)) = (
        template.get("componentId").and_then(Value::as_str),
        template
            .get("path")
            .or_else(|| template.get("dataBinding"))
            .and_then(Value::as_str),
    ) else {
        return out;
    };
    let at = super::data::absolute(scope, path);
    let keys: Vec<String> = match super::data::get(model, &at) {
        Some(Value::Array(items)) => (0..items.len()).map(|i| i.to_string()).collect(),
        Some(Value::Object(map)) => map
            .keys()
            .map(|k| k.replace('~', "~0").replace('/', "~1"))
            .collect(),
        _ => Vec::new(),
    };
    for key in keys.into_iter().take(MAX_ITEMS) {
        out.push((
            None,
            id.to_owned(),
            format!("{}/{key}", at.trim_end_matches('/')),
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::json;

    use super::*;

    fn surfaces(components: Value) -> Surfaces {
        let mut surfaces = Surfaces::new();
        surfaces
            .apply(
                &json!({"version": "v0.9", "createSurface": {"surfaceId": "s", "catalogId": "c"}}),
            )
            .unwrap();
        surfaces
            .apply(
                &json!({"version": "v0.9", "updateComponents": {"surfaceId": "s",
                "components": components}}),
            )
            .unwrap();
        surfaces
    }

    #[test]
    fn a_cycle_is_drawn_once_and_a_missing_child_is_marked() {
        let outline = surfaces(json!([
            {"id": "root", "component": "Column", "children": ["a", "ghost"]},
            {"id": "a", "component": "Card", "child": "root"}]))
        .outline(["s"]);
        assert_eq!(
            outline.text(),
            "surface s\n  Column\n    Card\n      ↻ root (cycle)\n    ? ghost (not received)\n"
        );
    }

    #[test]
    fn inputs_show_their_values_and_images_their_description() {
        let outline = surfaces(json!([
            {"id": "root", "component": "Column", "children": ["pic", "ok", "pick", "tabs"]},
            {"id": "pic", "component": "Image", "url": "https://x.test/a.png", "description": "A dish"},
            {"id": "ok", "component": "CheckBox", "label": "Terrace", "value": true},
            {"id": "pick", "component": "ChoicePicker", "label": "Time", "value": ["20"],
                "options": [{"label": "19:00", "value": "19"}, {"label": "20:00", "value": "20"}]},
            {"id": "tabs", "component": "Tabs", "tabs": [{"title": "Menu", "child": "menu"}]},
            {"id": "menu", "component": "Text", "text": "Pasta"}]))
        .outline(["s"]);
        assert_eq!(
            outline.text(),
            "surface s\n  Column\n    Image: A dish <https://x.test/a.png>\n    CheckBox: [x] Terrace\n    \
             ChoicePicker: Time ( ) 19:00, (•) 20:00\n    Tabs\n      Tab: Menu\n        Text: Pasta\n"
        );
    }

    proptest! {
        /// Any tree over a few ids (cycles, self-references, missing children, buttons
        /// anywhere) draws without panicking, in bounded lines, buttons numbered in order.
        #[test]
        fn any_component_graph_draws_a_bounded_outline(
            edges in proptest::collection::vec((0..6_usize, proptest::collection::vec(0..7_usize, 0..4), any::<bool>()), 1..12)
        ) {
            let name = |i: usize| if i == 0 { "root".to_owned() } else { format!("c{i}") };
            let components: Vec<Value> = edges
                .iter()
                .map(|(id, children, button)| {
                    let children: Vec<String> = children.iter().map(|&c| name(c)).collect();
                    if *button {
                        json!({"id": name(*id), "component": "Button",
                            "child": children.first().cloned().unwrap_or_default(),
                            "action": {"event": {"name": "go"}}})
                    } else {
                        json!({"id": name(*id), "component": "Row", "children": children})
                    }
                })
                .collect();
            let outline = surfaces(Value::Array(components)).outline(["s"]);
            prop_assert!(outline.text().lines().count() <= MAX_LINES + 2);
            for (i, _) in outline.buttons().iter().enumerate() {
                let marker = format!("[{}] Button", i + 1);
                prop_assert!(outline.text().contains(&marker));
            }
        }
    }
}
