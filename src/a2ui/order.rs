//! The order a catalog document lists its properties in.
//!
//! `serde_json::Value` keeps object keys sorted, but a positional notation (Express) maps
//! arguments to properties in the order the catalog document writes them. This module reads
//! that order from the document's text once, with a small ordered visitor, and keeps only
//! what a signature needs: each component's properties and each function's parameters.

use std::collections::HashMap;
use std::fmt;

use serde::Deserializer;
use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

/// Property names in document order: `components` by component name, `functions` by
/// function name (its `args` properties).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct PropertyOrder {
    pub(crate) components: HashMap<String, Vec<String>>,
    pub(crate) functions: HashMap<String, Vec<String>>,
}

/// A JSON document reduced to its objects' key order (scalars forgotten).
#[derive(Debug, Default)]
enum Shape {
    Object(Vec<(String, Shape)>),
    Array(Vec<Shape>),
    #[default]
    Scalar,
}

/// Deepest nesting kept; catalogs are far shallower, and `serde_json` stops at 128 anyway.
const MAX_DEPTH: usize = 96;

struct ShapeSeed(usize);

impl<'de> DeserializeSeed<'de> for ShapeSeed {
    type Value = Shape;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Shape, D::Error> {
        d.deserialize_any(ShapeVisitor(self.0))
    }
}

struct ShapeVisitor(usize);

impl<'de> Visitor<'de> for ShapeVisitor {
    type Value = Shape;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E>(self, _: bool) -> Result<Shape, E> {
        Ok(Shape::Scalar)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Shape, E> {
        Ok(Shape::Scalar)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Shape, E> {
        Ok(Shape::Scalar)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Shape, E> {
        Ok(Shape::Scalar)
    }
    fn visit_str<E>(self, _: &str) -> Result<Shape, E> {
        Ok(Shape::Scalar)
    }
    fn visit_unit<E>(self) -> Result<Shape, E> {
        Ok(Shape::Scalar)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Shape, A::Error> {
        if self.0 >= MAX_DEPTH {
            return Err(de::Error::custom("nested too deeply"));
        }
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(ShapeSeed(self.0 + 1))? {
            items.push(item);
        }
        Ok(Shape::Array(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Shape, A::Error> {
        if self.0 >= MAX_DEPTH {
            return Err(de::Error::custom("nested too deeply"));
        }
        let mut entries = Vec::new();
        while let Some(key) = map.next_key::<String>()? {
            entries.push((key, map.next_value_seed(ShapeSeed(self.0 + 1))?));
        }
        Ok(Shape::Object(entries))
    }
}

impl Shape {
    fn get(&self, key: &str) -> Option<&Shape> {
        match self {
            Shape::Object(entries) => entries.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    fn entries(&self) -> &[(String, Shape)] {
        match self {
            Shape::Object(entries) => entries,
            _ => &[],
        }
    }

    /// The keys of `properties`, here or in the branches of an `allOf`, in order.
    fn properties(&self) -> Vec<String> {
        let mut keys: Vec<String> = self
            .get("properties")
            .map(|p| p.entries().iter().map(|(k, _)| k.clone()).collect())
            .unwrap_or_default();
        if let Some(Shape::Array(branches)) = self.get("allOf") {
            for branch in branches {
                for key in branch.properties() {
                    if !keys.contains(&key) {
                        keys.push(key);
                    }
                }
            }
        }
        keys
    }

    /// A function's parameters: the properties of `properties.args`, here or in an `allOf`.
    fn parameters(&self) -> Vec<String> {
        if let Some(args) = self.get("properties").and_then(|p| p.get("args")) {
            return args.properties();
        }
        if let Some(Shape::Array(branches)) = self.get("allOf") {
            for branch in branches {
                let found = branch.parameters();
                if !found.is_empty() {
                    return found;
                }
            }
        }
        Vec::new()
    }
}

impl PropertyOrder {
    /// The order `text` (a catalog document) writes its properties in; `None` if it is not
    /// JSON (the caller reports that through its own parse).
    pub(crate) fn from_text(text: &str) -> Option<PropertyOrder> {
        let mut de = serde_json::Deserializer::from_str(text);
        let shape = ShapeSeed(0).deserialize(&mut de).ok()?;
        let mut order = PropertyOrder::default();
        for (name, schema) in shape
            .get("components")
            .map(Shape::entries)
            .unwrap_or_default()
        {
            order.components.insert(name.clone(), schema.properties());
        }
        match shape.get("functions") {
            Some(Shape::Object(entries)) => {
                for (name, schema) in entries {
                    order.functions.insert(name.clone(), schema.parameters());
                }
            }
            Some(Shape::Array(items)) => {
                // A list of definitions names each by its `name` key, which the shape forgot:
                // such catalogs fall back to the value order (see `from_value`).
                let _ = items;
            }
            _ => {}
        }
        Some(order)
    }

    /// A best guess for a document whose text is gone: each schema's `required` properties
    /// in their (array) order, then the others sorted.
    pub(crate) fn from_value(document: &Value) -> PropertyOrder {
        let mut order = PropertyOrder::default();
        if let Some(components) = document.get("components").and_then(Value::as_object) {
            for (name, schema) in components {
                order
                    .components
                    .insert(name.clone(), guessed(schema, &|s| Some(s)));
            }
        }
        if let Some(functions) = document.get("functions").and_then(Value::as_object) {
            for (name, schema) in functions {
                let params = guessed(schema, &|s| s.get("properties").and_then(|p| p.get("args")));
                order.functions.insert(name.clone(), params);
            }
        }
        order
    }

    /// Fills in what `self` lacks from `fallback` (names a text order did not cover).
    pub(crate) fn or(mut self, fallback: PropertyOrder) -> PropertyOrder {
        for (name, keys) in fallback.components {
            self.components.entry(name).or_insert(keys);
        }
        for (name, keys) in fallback.functions {
            let entry = self.functions.entry(name).or_default();
            if entry.is_empty() {
                *entry = keys;
            }
        }
        self
    }
}

/// Required-first order of the properties of the object schema `pick` finds in `schema` and
/// in its `allOf` branches.
fn guessed<'a>(schema: &'a Value, pick: &dyn Fn(&'a Value) -> Option<&'a Value>) -> Vec<String> {
    let mut schemas = vec![schema];
    if let Some(branches) = schema.get("allOf").and_then(Value::as_array) {
        schemas.extend(branches);
    }
    let mut required = Vec::new();
    let mut rest = Vec::new();
    for s in schemas {
        let Some(object) = pick(s) else {
            continue;
        };
        let Some(properties) = object.get("properties").and_then(Value::as_object) else {
            continue;
        };
        let listed: Vec<&str> = object
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        for name in listed {
            if properties.contains_key(name) && !required.iter().any(|r| r == name) {
                required.push(name.to_owned());
            }
        }
        rest.extend(properties.keys().cloned());
    }
    rest.retain(|k| !required.contains(k));
    rest.dedup();
    required.extend(rest);
    required
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_text_order_is_kept_where_the_value_sorts() {
        let text = r#"{"components": {"B": {"properties": {"z": {}, "a": {}}},
            "A": {"allOf": [{}, {"properties": {"y": {}, "b": {}}}]}},
            "functions": {"f": {"properties": {"args": {"properties": {"q": {}, "p": {}}}}}}}"#;
        let order = PropertyOrder::from_text(text).unwrap();
        assert_eq!(order.components["B"], ["z", "a"]);
        assert_eq!(order.components["A"], ["y", "b"]);
        assert_eq!(order.functions["f"], ["q", "p"]);
    }

    #[test]
    fn without_text_required_properties_come_first() {
        let doc: Value = serde_json::from_str(
            r#"{"components": {"T": {"properties": {"a": {}, "z": {}, "m": {}},
            "required": ["z", "a"]}}}"#,
        )
        .unwrap();
        assert_eq!(
            PropertyOrder::from_value(&doc).components["T"],
            ["z", "a", "m"]
        );
    }

    #[test]
    fn hostile_nesting_is_refused_not_overflowed() {
        let text = "[".repeat(10_000);
        assert!(PropertyOrder::from_text(&text).is_none());
    }
}
