//! Surface ids kept apart per sub-agent: every id a sub-agent draws goes to the user under
//! its namespace (`restaurants:main`), and every id the user sends back loses it again.
//!
//! Two A2UI agents behind one orchestrator both name their first surface `main`; forwarded
//! as they are, the second `createSurface` would replace the first agent's surface in the
//! renderer, and a button press on it would reach the wrong agent. The namespace is a slug
//! without the separator, so `namespace:id` splits at its first separator back into the
//! pair it was made of (any id, the separator included, round-trips), and two sub-agents'
//! ids never meet. The rewrite is shape-driven: in every A2UI message, of any version, each
//! top-level member whose object carries a `surfaceId` (v0.8 `beginRendering`,
//! `surfaceUpdate`, `dataModelUpdate`, `deleteSurface`, `userAction`; v0.9 and later
//! `createSurface`, `updateComponents`, `updateDataModel`, `deleteSurface`, `action`,
//! `error`, and the v1.0 draft's function calls) has it rewritten, so no kind is missed.

use std::sync::Arc;

use serde_json::{Map, Value};

use crate::a2a::{Metadata, Part};
use crate::a2ui::is_a2ui_mime;

/// What joins a sub-agent's namespace and its own surface id.
pub(super) const SEPARATOR: char = ':';

/// Where a renderer's data model travels (v0.9's name, the v1.0 draft's).
const DATA_MODEL_KEYS: [&str; 2] = ["a2uiClientDataModel", "a2uiRendererDataModel"];

/// The id the user sees for `id`, drawn by the sub-agent of `namespace`.
pub(super) fn namespaced(namespace: &str, id: &str) -> String {
    let mut out = String::with_capacity(namespace.len() + 1 + id.len());
    out.push_str(namespace);
    out.push(SEPARATOR);
    out.push_str(id);
    out
}

/// The namespace and the sub-agent's own id of an id the user sent, if it has a namespace.
pub(super) fn split(id: &str) -> Option<(&str, &str)> {
    id.split_once(SEPARATOR)
}

/// `part` as the user gets it from the sub-agent of `namespace`: the surface ids of its
/// A2UI messages namespaced; any other part as it is.
pub(super) fn outgoing(part: Part, namespace: &str) -> Part {
    match part {
        Part::Data { data, metadata } if is_a2ui(metadata.as_deref()) => {
            let mut data = Arc::unwrap_or_clone(data);
            for_each_message(&mut data, &mut |message| {
                rewrite(message, |id| Some(namespaced(namespace, id)));
                true
            });
            Part::Data {
                data: Arc::new(data),
                metadata,
            }
        }
        other => other,
    }
}

/// `parts` as the sub-agent of `namespace` gets them from the user: the A2UI messages about
/// its own surfaces, their ids without the namespace; a message about another sub-agent's
/// surface (or a surface of none) is left out, and so is a data part left with no message;
/// the data model a data part carries holds only the sub-agent's surfaces.
pub(super) fn incoming(parts: &[Part], namespace: &str) -> Vec<Part> {
    parts
        .iter()
        .filter_map(|part| match part {
            Part::Data { data, metadata } => {
                let mut data = (**data).clone();
                if let Some(Value::Object(inner)) = data.get_mut("metadata") {
                    own_data_model(inner, namespace);
                }
                if is_a2ui(metadata.as_deref()) {
                    let kept = for_each_message(&mut data, &mut |message| {
                        let mut foreign = false;
                        rewrite(message, |id| match split(id) {
                            Some((owner, own)) if owner == namespace => Some(own.to_owned()),
                            _ => {
                                foreign = true;
                                None
                            }
                        });
                        !foreign
                    });
                    if !kept {
                        return None;
                    }
                }
                Some(Part::Data {
                    data: Arc::new(data),
                    metadata: metadata.clone(),
                })
            }
            other => Some(other.clone()),
        })
        .collect()
}

/// Keeps, of the renderer's data model in `metadata` (any of its keys), only the surfaces
/// of `namespace`, under their own ids.
pub(super) fn own_data_model(metadata: &mut Metadata, namespace: &str) {
    for key in DATA_MODEL_KEYS {
        let Some(Value::Object(model)) = metadata.get_mut(key) else {
            continue;
        };
        if let Some(Value::Object(surfaces)) = model.get_mut("surfaces") {
            let all = std::mem::take(surfaces);
            *surfaces = all
                .into_iter()
                .filter_map(|(id, value)| match split(&id) {
                    Some((owner, own)) if owner == namespace => Some((own.to_owned(), value)),
                    _ => None,
                })
                .collect();
        }
    }
}

/// The namespace of the surface the user acted on in `parts` (the first A2UI message
/// naming a surface), if any.
pub(super) fn acted_on(parts: &[Part]) -> Option<String> {
    parts.iter().find_map(|part| match part {
        Part::Data { data, metadata } if is_a2ui(metadata.as_deref()) => {
            let mut data = (**data).clone();
            let mut found = None;
            for_each_message(&mut data, &mut |message| {
                if found.is_none() {
                    rewrite(message, |id| {
                        found = split(id).map(|(namespace, _)| namespace.to_owned());
                        None
                    });
                }
                true
            });
            found
        }
        _ => None,
    })
}

/// Whether a data part with `metadata` is read as A2UI: it names an A2UI MIME type, or none
/// (some clients send actions without one).
pub(super) fn is_a2ui(metadata: Option<&Metadata>) -> bool {
    match metadata
        .and_then(|m| m.get("mimeType"))
        .and_then(Value::as_str)
    {
        Some(mime) => is_a2ui_mime(mime),
        None => true,
    }
}

/// Calls `visit` on each A2UI message of a data part's object (one message, or
/// `{"messages": [...]}`), dropping those it answers `false` for. Whether any is left.
fn for_each_message(
    data: &mut Map<String, Value>,
    visit: &mut dyn FnMut(&mut Map<String, Value>) -> bool,
) -> bool {
    match data.get_mut("messages") {
        Some(Value::Array(list)) => {
            list.retain_mut(|message| match message {
                Value::Object(message) => visit(message),
                _ => true,
            });
            !list.is_empty()
        }
        Some(Value::Object(one)) => visit(one),
        _ => visit(data),
    }
}

/// Rewrites the `surfaceId` of each top-level member object of `message` with `map` (`None`:
/// left as it is).
fn rewrite(message: &mut Map<String, Value>, mut map: impl FnMut(&str) -> Option<String>) {
    for body in message.values_mut() {
        if let Value::Object(body) = body
            && let Some(Value::String(id)) = body.get_mut("surfaceId")
            && let Some(new) = map(id)
        {
            *id = new;
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::json;

    use super::*;

    fn a2ui_part(data: Value, mime: &str) -> Part {
        let metadata = json!({"mimeType": mime}).as_object().cloned();
        Part::Data {
            data: Arc::new(data.as_object().cloned().unwrap_or_default()),
            metadata: metadata.map(Arc::new),
        }
    }

    /// Every agent-to-renderer message kind of v0.8 and v0.9/v1.0 about surface `id`.
    fn drawn(id: &str) -> Vec<Part> {
        let v08 = "application/json+a2ui";
        let v09 = "application/a2ui+json";
        vec![
            a2ui_part(
                json!({"beginRendering": {"surfaceId": id, "root": "r"}}),
                v08,
            ),
            a2ui_part(
                json!({"surfaceUpdate": {"surfaceId": id, "components": []}}),
                v08,
            ),
            a2ui_part(
                json!({"dataModelUpdate": {"surfaceId": id, "contents": []}}),
                v08,
            ),
            a2ui_part(json!({"deleteSurface": {"surfaceId": id}}), v08),
            a2ui_part(
                json!({"version": "v0.9", "createSurface": {"surfaceId": id, "catalogId": "c"}}),
                v09,
            ),
            a2ui_part(
                json!({"version": "v0.9", "updateComponents": {"surfaceId": id, "components": []}}),
                v09,
            ),
            a2ui_part(
                json!({"version": "v0.9", "updateDataModel": {"surfaceId": id, "value": {}}}),
                v09,
            ),
            a2ui_part(
                json!({"version": "v1.0", "deleteSurface": {"surfaceId": id}}),
                v09,
            ),
        ]
    }

    /// Every renderer-to-agent message kind about surface `id`.
    fn pressed(id: &str) -> Vec<Part> {
        vec![
            a2ui_part(
                json!({"userAction": {"name": "a", "surfaceId": id, "context": {}}}),
                "application/json+a2ui",
            ),
            a2ui_part(
                json!({"version": "v0.9", "action": {"name": "a", "surfaceId": id}}),
                "application/a2ui+json",
            ),
            a2ui_part(
                json!({"version": "v0.9", "error": {"code": "E", "surfaceId": id}}),
                "application/a2ui+json",
            ),
        ]
    }

    fn surface_ids(parts: &[Part]) -> Vec<String> {
        let mut ids = Vec::new();
        for part in parts {
            if let Some(data) = part.as_data() {
                let mut data = data.clone();
                for_each_message(&mut data, &mut |message| {
                    rewrite(message, |id| {
                        ids.push(id.to_owned());
                        None
                    });
                    true
                });
            }
        }
        ids
    }

    #[test]
    fn every_message_kind_of_both_versions_is_namespaced() {
        let out: Vec<Part> = drawn("main")
            .into_iter()
            .map(|part| outgoing(part, "weather"))
            .collect();
        assert_eq!(surface_ids(&out), vec!["weather:main"; 8]);
    }

    #[test]
    fn an_action_reaches_only_the_agent_whose_surface_it_was_and_without_the_namespace() {
        let parts = pressed("weather:main");
        assert_eq!(surface_ids(&incoming(&parts, "weather")), vec!["main"; 3]);
        assert!(incoming(&parts, "restaurants").is_empty());
        assert_eq!(acted_on(&parts).as_deref(), Some("weather"));
        let unknown = pressed("main");
        assert!(incoming(&unknown, "weather").is_empty());
        assert_eq!(acted_on(&unknown), None);
    }

    #[test]
    fn a_list_of_messages_keeps_only_the_agents_own() {
        let data = json!({"messages": [
            {"version": "v0.9", "action": {"name": "a", "surfaceId": "weather:main"}},
            {"version": "v0.9", "action": {"name": "b", "surfaceId": "restaurants:main"}},
        ]});
        let parts = [a2ui_part(data, "application/a2ui+json")];
        let kept = incoming(&parts, "restaurants");
        assert_eq!(surface_ids(&kept), ["main"]);
        assert_eq!(
            kept[0].as_data().unwrap()["messages"][0]["action"]["name"],
            "b"
        );
    }

    #[test]
    fn the_data_model_holds_only_the_agents_own_surfaces() {
        let mut metadata = json!({
            "a2uiClientDataModel": {"version": "v0.9", "surfaces": {
                "weather:main": {"city": "Oslo"}, "restaurants:main": {"party": 2},
                "main": {"stray": true}}},
            "a2uiRendererDataModel": {"version": "v1.0", "surfaces": {
                "restaurants:form": {"x": 1}}},
        })
        .as_object()
        .cloned()
        .unwrap();
        own_data_model(&mut metadata, "weather");
        assert_eq!(
            Value::Object(metadata),
            json!({
                "a2uiClientDataModel": {"version": "v0.9", "surfaces": {"main": {"city": "Oslo"}}},
                "a2uiRendererDataModel": {"version": "v1.0", "surfaces": {}},
            })
        );
    }

    #[test]
    fn parts_that_are_not_a2ui_pass_unchanged() {
        let text = Part::text("main");
        assert_eq!(outgoing(text.clone(), "w"), text);
        let other = a2ui_part(json!({"x": {"surfaceId": "main"}}), "application/json");
        assert_eq!(outgoing(other.clone(), "w"), other);
    }

    fn namespace() -> impl Strategy<Value = String> {
        "[a-z0-9-]{1,12}"
    }

    proptest! {
        #[test]
        fn any_surface_id_round_trips_through_its_namespace(ns in namespace(), id in ".{0,24}") {
            let out: Vec<Part> = drawn(&id).into_iter().map(|part| outgoing(part, &ns)).collect();
            let user_ids = surface_ids(&out);
            prop_assert!(user_ids.iter().all(|u| split(u) == Some((ns.as_str(), id.as_str()))));
            let back = incoming(&pressed(&user_ids[0]), &ns);
            prop_assert_eq!(surface_ids(&back), vec![id.clone(); 3]);
        }

        #[test]
        fn two_agents_surfaces_never_collide(
            a in namespace(), b in namespace(), x in ".{0,24}", y in ".{0,24}",
        ) {
            prop_assume!(a != b || x != y);
            prop_assert_ne!(namespaced(&a, &x), namespaced(&b, &y));
            // A press on one agent's surface never reaches the other.
            if a != b {
                prop_assert!(incoming(&pressed(&namespaced(&a, &x)), &b).is_empty());
            }
        }
    }
}
