//! The demo's three surfaces (the restaurant list, the booking form, the confirmation) in
//! either protocol version's shape: the A2UI half of the script, apart from the text and the
//! chunking around it.

use a2ui_agent::a2ui::ProtocolVersion;
use serde_json::{Value, json};

use super::RESTAURANTS;

/// What the booking form sent back.
pub(super) struct Booking {
    pub(super) restaurant: String,
    pub(super) name: String,
    pub(super) party: String,
    pub(super) time: String,
}

/// A component in its version's shape. `props` are v0.9-style; [`v0_8`] and [`v1_0`]
/// convert them.
fn component(version: ProtocolVersion, id: &str, kind: &str, props: Value) -> Value {
    if version == ProtocolVersion::V0_8 {
        json!({"id": id, "component": {kind: v0_8(props)}})
    } else {
        let props = match version {
            ProtocolVersion::V1_0 => v1_0(props),
            _ => props,
        };
        let mut object = json!({"id": id, "component": kind});
        if let (Some(target), Value::Object(props)) = (object.as_object_mut(), props) {
            target.extend(props);
        }
        object
    }
}

/// v0.9-style properties in v1.0's shape: a heading `variant` (`h1`..`h5`) as Markdown
/// `#` in the text, data bindings `{"path"}` as `{"@path"}`.
fn v1_0(props: Value) -> Value {
    match props {
        Value::Object(mut props) => {
            let level = props
                .get("variant")
                .and_then(Value::as_str)
                .and_then(|variant| variant.strip_prefix('h'))
                .and_then(|level| level.parse::<usize>().ok());
            if let Some(level) = level {
                props.remove("variant");
                if let Some(Value::String(text)) = props.get_mut("text") {
                    *text = format!("{} {text}", "#".repeat(level));
                }
            }
            if props.len() == 1
                && let Some(path) = props.remove("path")
            {
                return json!({ "@path": path });
            }
            Value::Object(props.into_iter().map(|(k, v)| (k, v1_0(v))).collect())
        }
        Value::Array(items) => Value::Array(items.into_iter().map(v1_0).collect()),
        other => other,
    }
}

/// v0.9-style properties in v0.8's shape: literal strings wrapped, child lists explicit,
/// `variant` as `usageHint`, button actions flattened to `{name, context: [{key, value}]}`.
fn v0_8(props: Value) -> Value {
    let Value::Object(props) = props else {
        return props;
    };
    let mut out = serde_json::Map::new();
    for (key, value) in props {
        let converted = match (key.as_str(), value) {
            ("children", Value::Array(ids)) => json!({"explicitList": ids}),
            ("text" | "label", Value::String(s)) => json!({"literalString": s}),
            ("value", path @ Value::Object(_)) => {
                out.insert("text".into(), path);
                continue;
            }
            ("variant", Value::String(hint)) => {
                out.insert("usageHint".into(), Value::String(hint));
                continue;
            }
            ("action", action) => {
                let event = &action["event"];
                let context: Vec<Value> = event["context"]
                    .as_object()
                    .map(|c| {
                        c.iter()
                            .map(|(k, v)| {
                                let value = match v {
                                    Value::String(s) => json!({"literalString": s}),
                                    other => other.clone(),
                                };
                                json!({"key": k, "value": value})
                            })
                            .collect()
                    })
                    .unwrap_or_default();
                json!({"name": event["name"], "context": context})
            }
            (_, value) => value,
        };
        out.insert(key, converted);
    }
    Value::Object(out)
}

/// The messages that show a new surface with `components` (root first) and `data`.
fn surface(
    version: ProtocolVersion,
    surface_id: &str,
    components: Vec<Value>,
    data: Option<Value>,
) -> Vec<Value> {
    if version == ProtocolVersion::V0_8 {
        let mut messages = vec![
            json!({"beginRendering": {"surfaceId": surface_id, "root": "root"}}),
            json!({"surfaceUpdate": {"surfaceId": surface_id, "components": components}}),
        ];
        if let Some(Value::Object(data)) = data {
            let contents: Vec<Value> = data
                .into_iter()
                .map(|(key, value)| {
                    json!({"key": key, "valueString": value.as_str().unwrap_or_default()})
                })
                .collect();
            messages
                .push(json!({"dataModelUpdate": {"surfaceId": surface_id, "contents": contents}}));
        }
        messages
    } else {
        let tag = version.as_str();
        let mut messages = vec![
            json!({"version": tag, "createSurface": {"surfaceId": surface_id,
                "catalogId": version.basic_catalog_id(), "sendDataModel": data.is_some()}}),
            json!({"version": tag, "updateComponents": {"surfaceId": surface_id,
                "components": components}}),
        ];
        if let Some(value) = data {
            messages.push(
                json!({"version": tag, "updateDataModel": {"surfaceId": surface_id, "value": value}}),
            );
        }
        messages
    }
}

pub(super) fn results(v: ProtocolVersion) -> Vec<Value> {
    let mut components = vec![
        component(v, "root", "Column", json!({"children": ["title", "list"]})),
        component(
            v,
            "title",
            "Text",
            json!({"text": "Restaurants near you", "variant": "h2"}),
        ),
    ];
    let ids: Vec<String> = (0..RESTAURANTS.len()).map(|i| format!("r{i}")).collect();
    components.push(component(v, "list", "List", json!({"children": ids})));
    for (i, (name, cuisine, rating)) in RESTAURANTS.iter().enumerate() {
        // Ids are UAX #31 identifiers (`_`, never `-`): the official v1.0 validator
        // (`a2ui-agent-sdk`) refuses any other component id.
        let id = |suffix: &str| format!("r{i}{suffix}");
        components.extend([
            component(v, &id(""), "Card", json!({"child": id("_row")})),
            component(
                v,
                &id("_row"),
                "Row",
                json!({"children": [id("_info"), id("_book")]}),
            ),
            component(
                v,
                &id("_info"),
                "Column",
                json!({"children": [id("_name"), id("_about")]}),
            ),
            component(
                v,
                &id("_name"),
                "Text",
                json!({"text": name, "variant": "h4"}),
            ),
            component(
                v,
                &id("_about"),
                "Text",
                json!({"text": format!("{cuisine} · rated {rating}"), "variant": "caption"}),
            ),
            component(
                v,
                &id("_book"),
                "Button",
                json!({"child": id("_label"),
                    "action": {"event": {"name": "select", "context": {"restaurant": name}}}}),
            ),
            component(v, &id("_label"), "Text", json!({"text": "Book"})),
        ]);
    }
    surface(v, "results", components, None)
}

pub(super) fn booking_form(v: ProtocolVersion, restaurant: &str) -> Vec<Value> {
    let components = vec![
        component(v, "root", "Card", json!({"child": "form"})),
        component(
            v,
            "form",
            "Column",
            json!({"children": ["heading", "name", "party", "time", "confirm"]}),
        ),
        component(
            v,
            "heading",
            "Text",
            json!({"text": format!("Book a table at {restaurant}"), "variant": "h3"}),
        ),
        component(
            v,
            "name",
            "TextField",
            json!({"label": "Your name", "value": {"path": "/name"}}),
        ),
        component(
            v,
            "party",
            "TextField",
            json!({"label": "Party size", "value": {"path": "/partySize"}}),
        ),
        component(
            v,
            "time",
            "TextField",
            json!({"label": "Time", "value": {"path": "/time"}}),
        ),
        component(
            v,
            "confirm",
            "Button",
            json!({"child": "confirm_label", "action": {"event": {"name": "book", "context": {
                "restaurant": restaurant,
                "name": {"path": "/name"},
                "partySize": {"path": "/partySize"},
                "time": {"path": "/time"}}}}}),
        ),
        component(v, "confirm_label", "Text", json!({"text": "Confirm"})),
    ];
    let data = json!({"name": "", "partySize": "2", "time": "19:30"});
    surface(v, "booking", components, Some(data))
}

pub(super) fn confirmation(v: ProtocolVersion, booking: &Booking) -> Vec<Value> {
    let components = vec![
        component(v, "root", "Card", json!({"child": "body"})),
        component(
            v,
            "body",
            "Column",
            json!({"children": ["done", "details"]}),
        ),
        component(
            v,
            "done",
            "Text",
            json!({"text": "Booking confirmed", "variant": "h3"}),
        ),
        component(
            v,
            "details",
            "Text",
            json!({"text": format!("{} at {}, {} people, {}.",
                booking.name, booking.restaurant, booking.party, booking.time)}),
        ),
    ];
    surface(v, "confirmation", components, None)
}
