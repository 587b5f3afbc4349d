//! One self-contained JSON Schema out of a root schema and the documents it refers to.
//!
//! A model provider that constrains a function's arguments (OpenAI's tools, llama.cpp's
//! JSON-schema grammar) reads one schema and fetches nothing: a `$ref` to
//! `catalog.json#/$defs/anyComponent` or to the common types' URI means nothing to it. The
//! validator resolves those through a registry (`schema.rs`); this module copies each
//! definition a reference reaches, once, into the root's `$defs` under a plain name, and
//! rewrites the reference to `#/$defs/name`. Recursive definitions stay references, so the
//! result is as large as the definitions used, never an unbounded inlining.

use std::collections::{BTreeMap, VecDeque};

use serde_json::{Map, Value};

/// How deep a schema is walked: the official documents are shallow, and a hostile inline
/// catalog must not recurse without end.
const MAX_DEPTH: usize = 64;

/// A definition to copy: where it lives and the name it gets.
struct Wanted {
    doc: String,
    pointer: String,
    name: String,
}

/// `root` (found at the URI `base`) with every `$ref` resolved against `documents` (URI,
/// document) and copied into its `$defs`; `$id`s are dropped, so `#/$defs/...` points into
/// the result itself.
///
/// # Errors
///
/// A message naming a reference that reaches no document or no definition.
pub(crate) fn bundle(
    base: &str,
    root: &Value,
    documents: &[(String, Value)],
) -> Result<Value, String> {
    let mut docs: BTreeMap<String, &Value> = BTreeMap::new();
    docs.insert(base.to_owned(), root);
    for (uri, document) in documents {
        docs.insert(uri.clone(), document);
        if let Some(id) = document.get("$id").and_then(Value::as_str) {
            docs.entry(id.to_owned()).or_insert(document);
        }
    }
    let mut bundler = Bundler {
        docs,
        names: BTreeMap::new(),
        queue: VecDeque::new(),
    };
    let mut out = bundler.rewrite(root, base, 0)?;
    let mut defs = Map::new();
    while let Some(wanted) = bundler.queue.pop_front() {
        let doc =
            bundler.docs.get(&wanted.doc).copied().ok_or_else(|| {
                format!("the schema refers to '{}', which is not known", wanted.doc)
            })?;
        let target = doc.pointer(&wanted.pointer).ok_or_else(|| {
            format!(
                "the schema refers to '{}#{}', which does not exist",
                wanted.doc, wanted.pointer
            )
        })?;
        let body = bundler.rewrite(target, &wanted.doc, 0)?;
        defs.insert(wanted.name, body);
    }
    if let Some(map) = out.as_object_mut() {
        map.remove("$schema");
        if !defs.is_empty() {
            map.insert("$defs".into(), Value::Object(defs));
        }
    }
    Ok(out)
}

struct Bundler<'d> {
    docs: BTreeMap<String, &'d Value>,
    /// The name given to each (document, pointer) reached.
    names: BTreeMap<(String, String), String>,
    queue: VecDeque<Wanted>,
}

impl Bundler<'_> {
    /// `schema` (of the document at `base`) with its references rewritten and its own
    /// `$defs` and `$id` left out (what is used of them is copied by name).
    fn rewrite(&mut self, schema: &Value, base: &str, depth: usize) -> Result<Value, String> {
        if depth > MAX_DEPTH {
            return Err(format!(
                "the schema is nested deeper than {MAX_DEPTH} levels"
            ));
        }
        match schema {
            Value::Object(map) => {
                let mut out = Map::new();
                for (key, value) in map {
                    match key.as_str() {
                        "$id" | "$defs" | "definitions" | "$schema" => {}
                        "$ref" => {
                            let reference = value.as_str().unwrap_or_default();
                            out.insert(key.clone(), Value::String(self.local(base, reference)));
                        }
                        _ => {
                            out.insert(key.clone(), self.rewrite(value, base, depth + 1)?);
                        }
                    }
                }
                Ok(Value::Object(out))
            }
            Value::Array(items) => items
                .iter()
                .map(|item| self.rewrite(item, base, depth + 1))
                .collect::<Result<Vec<_>, _>>()
                .map(Value::Array),
            other => Ok(other.clone()),
        }
    }

    /// The local reference `#/$defs/name` for `reference` read in the document at `base`,
    /// queuing the definition the first time it is reached.
    fn local(&mut self, base: &str, reference: &str) -> String {
        let (doc, fragment) = reference.split_once('#').unwrap_or((reference, ""));
        let doc = resolve(base, doc);
        let pointer = unescape(fragment);
        let key = (doc.clone(), pointer.clone());
        if let Some(name) = self.names.get(&key) {
            return format!("#/$defs/{name}");
        }
        let name = self.fresh_name(&doc, &pointer);
        self.names.insert(key, name.clone());
        self.queue.push_back(Wanted {
            doc,
            pointer,
            name: name.clone(),
        });
        format!("#/$defs/{name}")
    }

    /// A name for the definition at `pointer` in `doc`: its last segment, prefixed by the
    /// document's file name when that is taken.
    fn fresh_name(&self, doc: &str, pointer: &str) -> String {
        let last = pointer
            .rsplit('/')
            .next()
            .filter(|s| !s.is_empty())
            .unwrap_or("root");
        let file = doc
            .rsplit('/')
            .next()
            .unwrap_or_default()
            .trim_end_matches(".json");
        let taken = |name: &str| self.names.values().any(|known| known == name);
        let mut name = sanitize(last);
        if taken(&name) {
            name = sanitize(&format!("{file}_{last}"));
        }
        let stem = name.clone();
        let mut n = 2;
        while taken(&name) {
            name = format!("{stem}_{n}");
            n += 1;
        }
        name
    }
}

/// `reference` (a URI without its fragment) read relative to `base`.
fn resolve(base: &str, reference: &str) -> String {
    if reference.is_empty() {
        return base.to_owned();
    }
    if reference.contains("://") {
        return reference.to_owned();
    }
    match base.rfind('/') {
        Some(slash) => format!("{}{}", &base[..=slash], reference),
        None => reference.to_owned(),
    }
}

/// A URI fragment as a JSON pointer: percent-escapes decoded.
fn unescape(fragment: &str) -> String {
    let bytes = fragment.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes.get(i + 1..i + 3).and_then(|pair| {
            std::str::from_utf8(pair)
                .ok()
                .and_then(|pair| u8::from_str_radix(pair, 16).ok())
        });
        match (bytes.get(i), hex) {
            (Some(b'%'), Some(byte)) => {
                out.push(byte);
                i += 3;
            }
            (Some(byte), _) => {
                out.push(*byte);
                i += 1;
            }
            (None, _) => break,
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// `name` with every character that is not a letter, a digit or `_` made `_`.
fn sanitize(name: &str) -> String {
    let name = name.replace("~1", "/").replace("~0", "~");
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn references_across_documents_become_local_definitions() {
        let root = json!({"$id": "https://x/a/root.json", "type": "array",
            "items": {"$ref": "other.json#/$defs/Item"}});
        let other = json!({"$defs": {"Item": {"type": "object", "properties": {
            "next": {"$ref": "#/$defs/Item"}, "name": {"$ref": "https://x/a/root.json#/$defs/Name"}}}}});
        let mut root_with_name = root.clone();
        root_with_name["$defs"] = json!({"Name": {"type": "string"}});
        let bundled = bundle(
            "https://x/a/root.json",
            &root_with_name,
            &[("https://x/a/other.json".into(), other)],
        )
        .unwrap();
        assert_eq!(bundled["items"]["$ref"], "#/$defs/Item");
        assert_eq!(
            bundled["$defs"]["Item"]["properties"]["next"]["$ref"],
            "#/$defs/Item"
        );
        assert_eq!(bundled["$defs"]["Name"], json!({"type": "string"}));
        assert!(bundled.get("$id").is_none());
    }

    #[test]
    fn a_reference_to_nothing_is_an_error() {
        let root = json!({"$ref": "missing.json#/$defs/X"});
        let error = bundle("https://x/root.json", &root, &[]).unwrap_err();
        assert!(error.contains("https://x/missing.json"), "{error}");
    }
}
