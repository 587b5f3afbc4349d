//! Which properties of a catalog hold URLs a renderer fetches or opens, and which hold
//! Markdown whose links a person may follow, read from the catalog's own schema.
//!
//! A server that checks where a model's URLs point must know which strings are URLs; the
//! catalog says so, and a custom catalog's new `thumbnailUrl` is covered without code. A
//! property is a URL when its schema (or a branch of it) has `"format": "uri"`, or when its
//! name says so (`url`, or ending in `Url`/`Uri`: the basic catalogs mark `Image.url` by name
//! and description only). A property holds Markdown when its description says it does.

use std::collections::BTreeSet;

use serde_json::{Map, Value};

/// The names of a catalog's URL and Markdown properties (components and functions alike).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct UrlProperties {
    urls: BTreeSet<String>,
    markdown: BTreeSet<String>,
}

impl UrlProperties {
    /// The URL and Markdown properties of the catalog document `schema`.
    pub(crate) fn of(schema: &Value) -> Self {
        let mut found = UrlProperties::default();
        found.walk(schema);
        found
    }

    /// Whether a property named `name` holds a URL.
    pub(crate) fn is_url(&self, name: &str) -> bool {
        self.urls.contains(name)
    }

    /// Whether a property named `name` holds Markdown.
    pub(crate) fn is_markdown(&self, name: &str) -> bool {
        self.markdown.contains(name)
    }

    fn walk(&mut self, value: &Value) {
        match value {
            Value::Object(map) => {
                if let Some(Value::Object(properties)) = map.get("properties") {
                    for (name, schema) in properties {
                        self.property(name, schema);
                    }
                }
                map.values().for_each(|child| self.walk(child));
            }
            Value::Array(items) => items.iter().for_each(|child| self.walk(child)),
            _ => {}
        }
    }

    fn property(&mut self, name: &str, schema: &Value) {
        let named = name == "url" || name.ends_with("Url") || name.ends_with("Uri");
        if named || has_uri_format(schema, 0) {
            self.urls.insert(name.to_owned());
        }
        let described = schema
            .get("description")
            .and_then(Value::as_str)
            .is_some_and(|text| text.contains("Markdown"));
        if described {
            self.markdown.insert(name.to_owned());
        }
    }
}

/// Whether `schema` or one of its branches (`oneOf`, `anyOf`, `allOf`) is `"format": "uri"`.
fn has_uri_format(schema: &Value, depth: usize) -> bool {
    let Some(map) = schema.as_object() else {
        return false;
    };
    if matches!(
        map.get("format").and_then(Value::as_str),
        Some("uri" | "uri-reference" | "iri")
    ) {
        return true;
    }
    depth < 4 && branches(map).any(|branch| has_uri_format(branch, depth + 1))
}

fn branches(map: &Map<String, Value>) -> impl Iterator<Item = &Value> {
    ["oneOf", "anyOf", "allOf"]
        .into_iter()
        .filter_map(|key| map.get(key)?.as_array())
        .flatten()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::a2ui::{Catalog, ProtocolVersion};

    #[test]
    fn the_basic_catalogs_mark_media_urls_open_url_and_markdown_text() {
        for version in [
            ProtocolVersion::V0_8,
            ProtocolVersion::V0_9,
            ProtocolVersion::V1_0,
        ] {
            let found = UrlProperties::of(Catalog::basic(version).schema());
            assert!(found.is_url("url"), "{version:?}: {found:?}");
            assert!(found.is_markdown("text"), "{version:?}: {found:?}");
            assert!(
                !found.is_url("text") && !found.is_url("label"),
                "{version:?}"
            );
        }
        let v1 = UrlProperties::of(Catalog::basic(ProtocolVersion::V1_0).schema());
        assert!(v1.is_url("posterUrl"), "{v1:?}");
    }

    #[test]
    fn a_custom_property_with_format_uri_is_a_url() {
        let schema = serde_json::json!({"components": {"Card": {"properties": {
            "link": {"oneOf": [{"type": "string", "format": "uri"}, {"type": "object"}]},
            "title": {"type": "string"}}}}});
        let found = UrlProperties::of(&schema);
        assert!(found.is_url("link") && !found.is_url("title"));
    }
}
