//! A component property's value as a renderer shows it: literals of every version's shape
//! (`"text"`, v0.8 `{"literalString"}`), data bindings (`{"path"}`, v1.0 `{"@path"}`,
//! relative to a template's scope) resolved against the data model, and text made safe to
//! print on one terminal line.

use serde_json::{Map, Value};

use super::data;

/// The longest text shown for one value, in characters.
const MAX_SHOWN: usize = 500;

/// `value` resolved against `model` from `scope`: a binding's current value (or its v0.8
/// literal default when the path holds nothing), a literal's value, a function call as
/// `name(…)`; anything else as it is.
pub(super) fn resolve(model: &Value, value: &Value, scope: &str) -> Value {
    let Value::Object(map) = value else {
        return value.clone();
    };
    let path = map
        .get("path")
        .or_else(|| map.get("@path"))
        .and_then(Value::as_str);
    if let Some(path) = path {
        return data::get(model, &data::absolute(scope, path))
            .cloned()
            .or_else(|| literal(map))
            .unwrap_or(Value::Null);
    }
    if let Some(literal) = literal(map) {
        return literal;
    }
    if let Some(call) = map.get("call").and_then(Value::as_str) {
        return Value::String(format!("{call}(…)"));
    }
    value.clone()
}

fn literal(map: &Map<String, Value>) -> Option<Value> {
    [
        "literalString",
        "literalNumber",
        "literalBoolean",
        "literalArray",
    ]
    .iter()
    .find_map(|name| map.get(*name).cloned())
}

/// A resolved value as text: a string as it is, nothing for null, JSON for the rest (as
/// the A2UI type conversion says), on one line, without control characters (an agent's
/// text cannot move the cursor or recolour the terminal), cut at [`MAX_SHOWN`] characters.
pub(super) fn shown(value: &Value) -> String {
    let text = match value {
        Value::String(text) => text.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    };
    one_line(&text)
}

/// `text` on one line, control characters as spaces, cut at [`MAX_SHOWN`] characters.
pub(super) fn one_line(text: &str) -> String {
    let mut out: String = text
        .chars()
        .take(MAX_SHOWN)
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    if text.chars().nth(MAX_SHOWN).is_some() {
        out.push('…');
    }
    out.trim().to_owned()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn bindings_resolve_from_the_scope_and_literals_of_every_shape_are_their_value() {
        let model = json!({"users": [{"name": "Ada"}], "title": "Team"});
        assert_eq!(
            resolve(&model, &json!({"path": "name"}), "/users/0"),
            json!("Ada")
        );
        assert_eq!(
            resolve(&model, &json!({"@path": "/title"}), "/users/0"),
            json!("Team")
        );
        assert_eq!(
            resolve(&model, &json!({"literalString": "Hi"}), ""),
            json!("Hi")
        );
        assert_eq!(
            resolve(
                &model,
                &json!({"path": "/missing", "literalString": "default"}),
                ""
            ),
            json!("default")
        );
        assert_eq!(
            resolve(&model, &json!({"path": "/missing"}), ""),
            Value::Null
        );
        assert_eq!(
            resolve(&model, &json!({"call": "now", "args": {}}), ""),
            json!("now(…)")
        );
        assert_eq!(resolve(&model, &json!(4), ""), json!(4));
    }

    #[test]
    fn shown_text_is_one_clean_bounded_line() {
        assert_eq!(shown(&json!("a\nb\u{1b}[31mc")), "a b [31mc");
        assert_eq!(shown(&Value::Null), "");
        assert_eq!(shown(&json!(2.5)), "2.5");
        let long = shown(&json!("x".repeat(MAX_SHOWN + 10)));
        assert_eq!(long.chars().count(), MAX_SHOWN + 1);
    }
}
