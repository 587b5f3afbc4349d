//! What the client holds of one Express block while it streams, and what it still lacks.
//!
//! A streamed block is compiled again at each statement that completes. From each compile
//! the client is sent the surfaces it creates (once `root` is written: that is when the
//! compiler creates one) and, of their components, those that are ready: every id a
//! component names is defined, and each of those is ready too, the rule Direct JSON
//! streams by. A component a later statement changes is sent again. When the block closes,
//! its whole compile is measured against what went out: only what the client lacks is
//! sent, and a surface the stream got wrong (a component the whole block no longer has, a
//! creation it makes differently) is deleted and sent again whole, so that the renderer
//! ends in the state the one-shot compile gives.

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value, json};

use crate::a2ui::Validator;

/// What the client was sent of one block's surfaces.
pub(super) struct ClientView {
    validator: Validator,
    surfaces: Vec<Held>,
    /// A compile contradicted what went out: nothing more is streamed; the close repairs.
    frozen: bool,
}

/// One surface the stream created.
struct Held {
    id: String,
    /// The `createSurface` payload sent: without components or data model.
    creation: Value,
    /// The components sent, by id.
    components: HashMap<String, Value>,
}

/// A compile's components of one surface, in order, the last definition of an id winning.
#[derive(Default)]
struct Components {
    order: Vec<String>,
    by_id: HashMap<String, Value>,
}

impl Components {
    fn add(&mut self, list: Option<&Value>) {
        for component in list.and_then(Value::as_array).into_iter().flatten() {
            let Some(id) = component.get("id").and_then(Value::as_str) else {
                continue;
            };
            if self
                .by_id
                .insert(id.to_owned(), component.clone())
                .is_none()
            {
                self.order.push(id.to_owned());
            }
        }
    }
}

/// `(kind, payload, surface id)` of a message.
fn parts(message: &Value) -> Option<(&str, &Value, &str)> {
    let (kind, body) = message
        .as_object()?
        .iter()
        .find(|(key, _)| key.as_str() != "version")?;
    Some((kind, body, body.get("surfaceId")?.as_str()?))
}

/// A `createSurface` payload without what other messages can send.
fn bare_creation(body: &Value) -> Value {
    let mut creation = body.clone();
    if let Some(object) = creation.as_object_mut() {
        object.remove("components");
        object.remove("dataModel");
    }
    creation
}

/// `body` as the message `kind`, in the envelope of `like`.
fn envelope(like: &Value, kind: &str, body: Value) -> Value {
    let mut message = Map::new();
    if let Some(version) = like.get("version") {
        message.insert("version".into(), version.clone());
    }
    message.insert(kind.into(), body);
    Value::Object(message)
}

impl ClientView {
    pub(super) fn new(validator: Validator) -> Self {
        Self {
            validator,
            surfaces: Vec::new(),
            frozen: false,
        }
    }

    fn held(&self, id: &str) -> Option<usize> {
        self.surfaces.iter().position(|held| held.id == id)
    }

    /// The messages that bring the client up to `compiled`, the compile of the statements
    /// complete so far: creations and ready components not sent yet or changed.
    pub(super) fn stream(&mut self, compiled: &[Value]) -> Vec<Value> {
        if self.frozen {
            return Vec::new();
        }
        let mut out = Vec::new();
        let mut components: Vec<Components> = Vec::new();
        let mut created_now = HashSet::new();
        for message in compiled {
            let Some((kind, body, surface)) = parts(message) else {
                continue;
            };
            match (kind, self.held(surface)) {
                ("createSurface", None) => {
                    let creation = bare_creation(body);
                    out.push(envelope(message, kind, creation.clone()));
                    self.surfaces.push(Held {
                        id: surface.to_owned(),
                        creation,
                        components: HashMap::new(),
                    });
                    created_now.insert(surface.to_owned());
                    grow(&mut components, self.surfaces.len() - 1).add(body.get("components"));
                }
                ("createSurface", Some(at)) => {
                    let again = !created_now.insert(surface.to_owned());
                    if again || self.surfaces[at].creation != bare_creation(body) {
                        self.frozen = true;
                        return out;
                    }
                    grow(&mut components, at).add(body.get("components"));
                }
                ("updateComponents", Some(at)) => {
                    grow(&mut components, at).add(body.get("components"));
                }
                ("deleteSurface", Some(_)) => {
                    self.frozen = true;
                    return out;
                }
                _ => {}
            }
        }
        for (at, found) in components.iter().enumerate() {
            let ready = self.ready(found);
            let Some(held) = self.surfaces.get_mut(at) else {
                continue;
            };
            let mut list = Vec::new();
            for id in &found.order {
                let component = &found.by_id[id];
                if ready.contains(id.as_str()) && held.components.get(id) != Some(component) {
                    held.components.insert(id.clone(), component.clone());
                    list.push(component.clone());
                }
            }
            if !list.is_empty() {
                let like = compiled.first().unwrap_or(&Value::Null);
                let body = json!({"surfaceId": held.id, "components": list});
                out.push(envelope(like, "updateComponents", body));
            }
        }
        out
    }

    /// The ids of `found` whose references all lead to defined components, without cycles.
    fn ready<'c>(&self, found: &'c Components) -> HashSet<&'c str> {
        // 0: not yet seen, 1: being visited, 2: ready, 3: not ready.
        let mut state: HashMap<&str, u8> = HashMap::new();
        for id in &found.order {
            self.visit(found, id, &mut state);
        }
        state
            .into_iter()
            .filter(|(_, s)| *s == 2)
            .map(|(id, _)| id)
            .collect()
    }

    fn visit<'c>(&self, found: &'c Components, id: &str, state: &mut HashMap<&'c str, u8>) -> bool {
        let Some((key, component)) = found.by_id.get_key_value(id) else {
            return false;
        };
        match state.get(key.as_str()) {
            Some(2) => return true,
            Some(_) => return false,
            None => {}
        }
        state.insert(key.as_str(), 1);
        let ok = self
            .validator
            .child_ids(None, component)
            .iter()
            .all(|child| self.visit(found, child, state));
        state.insert(key.as_str(), if ok { 2 } else { 3 });
        ok
    }

    /// The messages of `whole` (the compile of the closed block) that the client lacks,
    /// after what [`stream`](Self::stream) sent.
    pub(super) fn rest(self, whole: Vec<Value>) -> Vec<Value> {
        if self.surfaces.is_empty() {
            return whole;
        }
        let reset = self.to_reset(&whole);
        let mut out: Vec<Value> = reset
            .iter()
            .map(|id| {
                let like = whole.first().unwrap_or(&Value::Null);
                envelope(like, "deleteSurface", json!({"surfaceId": id}))
            })
            .collect();
        let mut surfaces = self.surfaces;
        for message in whole {
            let kept = parts(&message)
                .filter(|(_, _, surface)| !reset.contains(*surface))
                .and_then(|(kind, body, surface)| {
                    let at = surfaces.iter().position(|held| held.id == surface)?;
                    Some(lacking(&message, kind, body, &mut surfaces[at]))
                });
            match kept {
                Some(lacking) => out.extend(lacking),
                None => out.push(message),
            }
        }
        out
    }

    /// The surfaces streamed that the whole block does not build on: created otherwise or
    /// again, deleted, or without a component the client holds.
    fn to_reset(&self, whole: &[Value]) -> HashSet<String> {
        let mut reset = HashSet::new();
        for held in &self.surfaces {
            let mut creations = 0;
            let mut found = Components::default();
            for message in whole {
                match parts(message) {
                    Some(("createSurface", body, id)) if id == held.id => {
                        creations += 1;
                        if bare_creation(body) != held.creation {
                            creations += 1;
                        }
                        found.add(body.get("components"));
                    }
                    Some(("updateComponents", body, id)) if id == held.id => {
                        found.add(body.get("components"));
                    }
                    Some(("deleteSurface", _, id)) if id == held.id => creations += 2,
                    _ => {}
                }
            }
            let kept = held
                .components
                .keys()
                .all(|id| found.by_id.contains_key(id));
            if creations != 1 || !kept {
                reset.insert(held.id.clone());
            }
        }
        reset
    }
}

fn grow(components: &mut Vec<Components>, at: usize) -> &mut Components {
    while components.len() <= at {
        components.push(Components::default());
    }
    &mut components[at]
}

/// What of `message` (`kind`, `body`) a client holding `held` lacks.
fn lacking(message: &Value, kind: &str, body: &Value, held: &mut Held) -> Vec<Value> {
    let mut out = Vec::new();
    if !matches!(kind, "createSurface" | "updateComponents") {
        return vec![message.clone()];
    }
    let mut list = Vec::new();
    for component in body
        .get("components")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let Some(id) = component.get("id").and_then(Value::as_str) else {
            list.push(component.clone());
            continue;
        };
        if held.components.get(id) != Some(component) {
            held.components.insert(id.to_owned(), component.clone());
            list.push(component.clone());
        }
    }
    if !list.is_empty() {
        let body = json!({"surfaceId": held.id, "components": list});
        out.push(envelope(message, "updateComponents", body));
    }
    if let Some(data) = body.get("dataModel").filter(|_| kind == "createSurface") {
        let body = json!({"surfaceId": held.id, "path": "/", "value": data});
        out.push(envelope(message, "updateDataModel", body));
    }
    out
}
