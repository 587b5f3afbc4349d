//! JSON Schema written as short type text, for the lean prompt ([`super::signatures`]).
//!
//! A model does not need a schema's every keyword to write a value that validates: it needs
//! the value's shape (`string`, `[T]`, `{"key": T, "key"?: T}`, `"a"|"b"`), which keys are
//! required, and a name for each shared type so that the type is described once. This module
//! turns a schema into that text. A `$ref` to a shared definition (the common types, a
//! catalog's or the message schema's `$defs`) becomes an alias named after the definition,
//! remembered in order of first use, and [`TypeText::definitions`] writes each alias once,
//! with the first sentence of its description.

use serde_json::Value;

use crate::format::express::first_sentence;

/// How deep a schema is followed before its type is written as `any`: the shapes a model
/// reads are shallow, and a hostile catalog must not recurse without end.
const MAX_DEPTH: usize = 24;

/// Keys written first in an object type, in this order, so a shape reads the way a model
/// writes it: the version before the message, a component's id and type before the rest.
const LEADING_KEYS: [&str; 3] = ["version", "id", "component"];

/// The document a schema lives in, which says where a `#/...` reference inside it points.
#[derive(Clone, Copy)]
pub(super) enum Doc<'a> {
    /// The version's message schema.
    Message,
    /// The version's common types.
    Common,
    /// A catalog document.
    Catalog(&'a Value),
}

/// One shared definition a written type refers to by name.
struct Alias<'a> {
    name: String,
    doc: Doc<'a>,
    schema: &'a Value,
}

/// Writes schemas as type text and collects the aliases they use.
pub(super) struct TypeText<'a> {
    message: &'a Value,
    common: Option<&'a Value>,
    /// The catalog `catalog.json#` references from the message schema resolve to.
    catalog: &'a Value,
    aliases: Vec<Alias<'a>>,
    /// Words a description must not mention to be written (see `prompt::withheld_names`).
    withheld: &'a [String],
}

impl<'a> TypeText<'a> {
    /// A writer for schemas of `message`, `common` and `catalog` (the first active one).
    pub(super) fn new(
        message: &'a Value,
        common: Option<&'a Value>,
        catalog: &'a Value,
        withheld: &'a [String],
    ) -> Self {
        Self {
            message,
            common,
            catalog,
            aliases: Vec::new(),
            withheld,
        }
    }

    /// The type of `schema`, found in `doc`.
    pub(super) fn of(&mut self, schema: &'a Value, doc: Doc<'a>) -> String {
        self.ty(schema, doc, 0)
    }

    fn ty(&mut self, schema: &'a Value, doc: Doc<'a>, depth: usize) -> String {
        if depth > MAX_DEPTH {
            return "any".into();
        }
        if let Some(reference) = schema.get("$ref").and_then(Value::as_str) {
            return self.reference(reference, doc);
        }
        if let Some(value) = schema.get("const") {
            return value.to_string();
        }
        if let Some(choices) = schema.get("enum").and_then(Value::as_array) {
            return choices
                .iter()
                .map(Value::to_string)
                .collect::<Vec<_>>()
                .join("|");
        }
        if schema.get("properties").is_some_and(Value::is_object) {
            return self.object(schema, doc, depth);
        }
        for key in ["oneOf", "anyOf"] {
            if let Some(branches) = schema.get(key).and_then(Value::as_array) {
                return self.union(branches, doc, depth);
            }
        }
        if let Some(parts) = schema.get("allOf").and_then(Value::as_array) {
            return self.all_of(parts, doc, depth);
        }
        match schema.get("type") {
            Some(Value::String(kind)) => self.typed(kind, schema, doc, depth),
            Some(Value::Array(kinds)) => kinds
                .iter()
                .filter_map(Value::as_str)
                .map(|kind| self.typed(kind, schema, doc, depth))
                .collect::<Vec<_>>()
                .join(" | "),
            _ => "any".into(),
        }
    }

    fn typed(&mut self, kind: &str, schema: &'a Value, doc: Doc<'a>, depth: usize) -> String {
        match kind {
            "array" => match schema.get("items") {
                Some(items) if items.is_object() => {
                    format!("[{}]", self.ty(items, doc, depth + 1))
                }
                _ => "array".into(),
            },
            "object" => match schema.get("additionalProperties") {
                Some(values) if values.is_object() => {
                    format!("{{string: {}}}", self.ty(values, doc, depth + 1))
                }
                _ => "object".into(),
            },
            other => other.to_owned(),
        }
    }

    /// `{"key": T, "key"?: T}`, required keys unmarked.
    fn object(&mut self, schema: &'a Value, doc: Doc<'a>, depth: usize) -> String {
        let fields = self.fields(schema, doc, depth);
        let text: Vec<String> = fields
            .iter()
            .map(|(key, required, ty)| {
                let mark = if *required { "" } else { "?" };
                format!("{}{mark}: {ty}", Value::String(key.clone()))
            })
            .collect();
        format!("{{{}}}", text.join(", "))
    }

    /// Each property of an object schema: its name, whether it is required, its type; the
    /// [`LEADING_KEYS`] first, then in the schema's order.
    pub(super) fn fields(
        &mut self,
        schema: &'a Value,
        doc: Doc<'a>,
        depth: usize,
    ) -> Vec<(String, bool, String)> {
        let required = required(schema);
        let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
            return Vec::new();
        };
        let leading = LEADING_KEYS
            .iter()
            .filter_map(|k| properties.get_key_value(*k));
        let rest = properties
            .iter()
            .filter(|(k, _)| !LEADING_KEYS.contains(&k.as_str()));
        leading
            .chain(rest)
            .map(|(key, property)| {
                let ty = self.ty(property, doc, depth + 1);
                (key.clone(), required.contains(&key.as_str()), ty)
            })
            .collect()
    }

    fn union(&mut self, branches: &'a [Value], doc: Doc<'a>, depth: usize) -> String {
        let mut kinds: Vec<String> = Vec::new();
        for branch in branches {
            let kind = self.ty(branch, doc, depth + 1);
            if !kinds.contains(&kind) {
                kinds.push(kind);
            }
        }
        kinds.join(" | ")
    }

    /// An `allOf`: the definitions it refers to, or else its parts' types joined.
    fn all_of(&mut self, parts: &'a [Value], doc: Doc<'a>, depth: usize) -> String {
        let refs: Vec<&'a Value> = parts.iter().filter(|p| p.get("$ref").is_some()).collect();
        let chosen: Vec<&'a Value> = if refs.is_empty() {
            parts.iter().collect()
        } else {
            refs
        };
        let kinds: Vec<String> = chosen
            .into_iter()
            .map(|part| self.ty(part, doc, depth + 1))
            .filter(|kind| kind != "any")
            .collect();
        if kinds.is_empty() {
            return "any".into();
        }
        kinds.join(" & ")
    }

    /// A reference: `AnyComponent` and `FunctionCall` for a catalog's any-of lists, else the
    /// alias of the definition (or its last path segment when it does not resolve).
    fn reference(&mut self, reference: &str, doc: Doc<'a>) -> String {
        let name = reference.rsplit('/').next().unwrap_or(reference).to_owned();
        match name.as_str() {
            "anyComponent" => return "AnyComponent".into(),
            "anyFunction" => return "FunctionCall".into(),
            _ => {}
        }
        match self.resolve(reference, doc) {
            Some((target_doc, schema)) => self.alias(name, target_doc, schema),
            None => name,
        }
    }

    /// The document and schema `reference` points at, read from `doc`.
    pub(super) fn resolve(&self, reference: &str, doc: Doc<'a>) -> Option<(Doc<'a>, &'a Value)> {
        let (base, pointer) = reference.split_once('#')?;
        let target = if base.is_empty() {
            doc
        } else if base.ends_with("common_types.json") {
            Doc::Common
        } else if base == "catalog.json" {
            Doc::Catalog(self.catalog)
        } else if self.message.get("$id").and_then(Value::as_str) == Some(base) {
            Doc::Message
        } else {
            return None;
        };
        let root = match target {
            Doc::Message => self.message,
            Doc::Common => self.common?,
            Doc::Catalog(catalog) => catalog,
        };
        Some((target, root.pointer(pointer)?))
    }

    /// The alias of `schema`: the name it was first given, or `name` (numbered when another
    /// definition already has it).
    fn alias(&mut self, name: String, doc: Doc<'a>, schema: &'a Value) -> String {
        if let Some(known) = self.aliases.iter().find(|a| std::ptr::eq(a.schema, schema)) {
            return known.name.clone();
        }
        let mut unique = name.clone();
        let mut n = 2;
        while self.aliases.iter().any(|a| a.name == unique) {
            unique = format!("{name}{n}");
            n += 1;
        }
        self.aliases.push(Alias {
            name: unique.clone(),
            doc,
            schema,
        });
        unique
    }

    /// One line per alias used so far (and the aliases those use): `Name = type — what it
    /// is.`, in order of first use.
    pub(super) fn definitions(&mut self) -> Vec<String> {
        let mut lines = Vec::new();
        let mut i = 0;
        while let Some((name, doc, schema)) = self
            .aliases
            .get(i)
            .map(|a| (a.name.clone(), a.doc, a.schema))
        {
            let ty = self.ty(schema, doc, 0);
            let about = self
                .description(schema)
                .map(|d| format!(" — {d}"))
                .unwrap_or_default();
            lines.push(format!("{name} = {ty}{about}"));
            i += 1;
        }
        lines
    }

    /// The first sentence of `schema`'s description (or of its branches' descriptions,
    /// joined), unless it mentions a withheld word.
    pub(super) fn description(&self, schema: &Value) -> Option<String> {
        if let Some(text) = schema.get("description").and_then(Value::as_str) {
            return self.summary(text);
        }
        let branches = ["oneOf", "anyOf"]
            .iter()
            .find_map(|k| schema.get(*k).and_then(Value::as_array))?;
        let parts: Vec<String> = branches
            .iter()
            .filter_map(|b| b.get("description").and_then(Value::as_str))
            .filter_map(|text| self.summary(text))
            .collect();
        (!parts.is_empty()).then(|| parts.join(" "))
    }

    /// The first sentence of `text`, unless it is empty or mentions a withheld word.
    pub(super) fn summary(&self, text: &str) -> Option<String> {
        let sentence = first_sentence(text);
        let withheld = self.withheld.iter().any(|w| sentence.contains(w.as_str()));
        (!sentence.is_empty() && !withheld).then(|| sentence.to_owned())
    }
}

/// The names a schema's `required` lists.
pub(super) fn required(schema: &Value) -> Vec<&str> {
    schema
        .get("required")
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn text(schema: &Value) -> String {
        let empty = json!({});
        TypeText::new(&empty, None, &empty, &[]).of(schema, Doc::Message)
    }

    #[test]
    fn shapes_are_written_with_required_marks_and_choices() {
        let schema = json!({"type": "object", "required": ["name"], "properties": {
            "tags": {"type": "array", "items": {"type": "string"}},
            "name": {"type": "string"},
            "size": {"enum": ["s", "m"]}}});
        assert_eq!(
            text(&schema),
            r#"{"name": string, "size"?: "s"|"m", "tags"?: [string]}"#
        );
    }

    #[test]
    fn a_shared_definition_is_named_once_and_described_once() {
        let message = json!({"$defs": {"Id": {"type": "string", "description": "An id. More."}},
            "properties": {"a": {"$ref": "#/$defs/Id"}, "b": {"$ref": "#/$defs/Id"}}});
        let empty = json!({});
        let mut writer = TypeText::new(&message, None, &empty, &[]);
        assert_eq!(writer.of(&message, Doc::Message), r#"{"a"?: Id, "b"?: Id}"#);
        assert_eq!(writer.definitions(), vec!["Id = string — An id."]);
    }

    #[test]
    fn a_reference_to_itself_ends() {
        let message = json!({"$defs": {"Node": {"type": "object",
            "properties": {"next": {"$ref": "#/$defs/Node"}}}}});
        let empty = json!({});
        let root = json!({"$ref": "#/$defs/Node"});
        let mut writer = TypeText::new(&message, None, &empty, &[]);
        assert_eq!(writer.of(&root, Doc::Message), "Node");
        assert_eq!(writer.definitions(), vec![r#"Node = {"next"?: Node}"#]);
    }
}
