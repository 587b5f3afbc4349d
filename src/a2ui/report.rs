//! Turning JSON Schema failures into errors a model can act on.
//!
//! A2UI schemas are built from `oneOf`s (message kinds, component types, value forms), and a
//! failed `oneOf` reports every branch's failure. The useful error is in the branch the
//! author meant: the one whose discriminating constant (`component`, `call`, `version`)
//! matched, that accepts the value's JSON type, and that failed least near the surface.
//! When no branch's constant matches, the
//! value names something unknown, and the error says so and lists what is known.

use jsonschema::error::{TypeKind, ValidationErrorKind};
use serde_json::Value;

use super::error::ValidationError;

/// How many schema errors one message reports.
const MAX_PER_MESSAGE: usize = 8;
/// How much of a value an error message quotes.
const PREVIEW: usize = 60;

/// The errors of `message` under `validator`, most relevant first.
pub(crate) fn errors(
    validator: &jsonschema::Validator,
    message: &Value,
    surface: Option<&str>,
) -> Vec<ValidationError> {
    let mut out = Vec::new();
    for error in validator.iter_errors(message).take(MAX_PER_MESSAGE) {
        leaves(&error, message, &mut out);
    }
    // One error per place, so the first error tells the whole story about its value.
    let mut merged: Vec<Leaf> = Vec::new();
    for (pointer, text) in out {
        match merged.iter_mut().find(|(p, _)| *p == pointer) {
            Some((_, existing)) if !existing.contains(&text) => {
                existing.push_str("; ");
                existing.push_str(&text);
            }
            Some(_) => {}
            None => merged.push((pointer, text)),
        }
    }
    merged.truncate(MAX_PER_MESSAGE);
    merged
        .into_iter()
        .map(|(pointer, text)| ValidationError::new(pointer, text, surface, None))
        .collect()
}

type Leaf = (String, String);

fn depth(pointer: &str) -> usize {
    pointer.matches('/').count()
}

/// Appends the relevant leaf errors of `error`.
fn leaves(error: &jsonschema::ValidationError<'_>, root: &Value, out: &mut Vec<Leaf>) {
    let pointer = error.instance_path().as_str().to_owned();
    match error.kind() {
        ValidationErrorKind::OneOfNotValid { context } | ValidationErrorKind::AnyOf { context } => {
            if let Some(unknown) = unknown_name(&pointer, context, root) {
                out.push(unknown);
                return;
            }
            let base = depth(&pointer);
            let best = context
                .iter()
                .filter(|b| !b.is_empty())
                .min_by_key(|branch| {
                    // A branch that wants another JSON type altogether is the wrong branch.
                    let wrong_type = branch.iter().any(|e| {
                        matches!(e.kind(), ValidationErrorKind::Type { .. })
                            && e.instance_path().as_str() == pointer
                    });
                    let constants = branch
                        .iter()
                        .filter(|e| matches!(e.kind(), ValidationErrorKind::Constant { .. }))
                        .count();
                    let shallow = branch
                        .iter()
                        .filter(|e| depth(e.instance_path().as_str()) <= base)
                        .count();
                    (wrong_type, constants, shallow, branch.len())
                });
            match best {
                Some(branch) => {
                    for sub in branch {
                        leaves(sub, root, out);
                    }
                }
                None => out.push((pointer, "matches none of the allowed forms".into())),
            }
        }
        ValidationErrorKind::OneOfMultipleValid { .. } => {
            out.push((pointer, "matches more than one of the allowed forms".into()));
        }
        kind => out.push((pointer, describe(kind, error.instance()))),
    }
}

/// When every branch of a `oneOf` failed on a constant at the same place (a component type
/// or function name the catalog lacks), one error naming it and what would be accepted.
fn unknown_name(
    pointer: &str,
    context: &[Vec<jsonschema::ValidationError<'static>>],
    root: &Value,
) -> Option<Leaf> {
    let mut at: Option<String> = None;
    let mut expected: Vec<String> = Vec::new();
    for branch in context {
        let constant = branch.iter().find_map(|e| match e.kind() {
            ValidationErrorKind::Constant { expected_value } => {
                Some((e.instance_path().as_str(), expected_value))
            }
            _ => None,
        })?;
        match &at {
            Some(p) if p != constant.0 => return None,
            Some(_) => {}
            None => at = Some(constant.0.to_owned()),
        }
        let name = match constant.1.as_ref() {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        if !expected.contains(&name) {
            expected.push(name);
        }
    }
    let at = at?;
    if !at.starts_with(pointer) || at == pointer {
        return None;
    }
    let key = at.rsplit('/').next().unwrap_or_default();
    let found = root
        .pointer(&at)
        .map(preview)
        .unwrap_or_else(|| "nothing".into());
    let what = match key {
        "component" => "unknown component",
        "call" | "@call" => "unknown function",
        _ => "unexpected value",
    };
    Some((
        at.clone(),
        format!("{what} {found}; expected one of: {}", expected.join(", ")),
    ))
}

fn describe(kind: &ValidationErrorKind, instance: &Value) -> String {
    let value = preview(instance);
    match kind {
        ValidationErrorKind::Required { property } => {
            format!("missing required property {property}")
        }
        ValidationErrorKind::AdditionalProperties { unexpected }
        | ValidationErrorKind::UnevaluatedProperties { unexpected } => {
            format!("unknown properties: {}", quote_all(unexpected))
        }
        ValidationErrorKind::Constant { expected_value } => {
            format!("expected {expected_value}, got {value}")
        }
        ValidationErrorKind::Enum { options } => format!("{value} is not one of {options}"),
        ValidationErrorKind::Type { kind } => {
            let expected = match kind {
                TypeKind::Single(t) => t.to_string(),
                TypeKind::Multiple(set) => set
                    .iter()
                    .map(|t| t.to_string())
                    .collect::<Vec<_>>()
                    .join(" or "),
            };
            format!("expected {expected}, got {value}")
        }
        ValidationErrorKind::MinItems { limit } => format!("needs at least {limit} items"),
        ValidationErrorKind::MaxItems { limit } => format!("allows at most {limit} items"),
        ValidationErrorKind::MinProperties { limit } => {
            format!("needs at least {limit} properties")
        }
        ValidationErrorKind::MaxProperties { limit } => {
            format!("allows at most {limit} properties")
        }
        ValidationErrorKind::Pattern { pattern } => {
            format!("{value} does not match the pattern {pattern}")
        }
        ValidationErrorKind::FalseSchema => "is not allowed here".into(),
        ValidationErrorKind::Not { .. } => format!("{value} is not allowed here"),
        other => format!("{value} fails '{}'", other.keyword()),
    }
}

fn quote_all(names: &[String]) -> String {
    names
        .iter()
        .map(|n| format!("'{n}'"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A short rendering of a value for an error message.
fn preview(value: &Value) -> String {
    let text = match value {
        Value::Object(map) if map.len() > 4 => format!("an object with {} properties", map.len()),
        Value::Array(items) if items.len() > 8 => format!("an array of {} items", items.len()),
        other => other.to_string(),
    };
    if text.len() <= PREVIEW {
        return text;
    }
    let mut end = PREVIEW;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}...", text.get(..end).unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn previews_are_short_and_cut_on_char_boundaries() {
        let long = json!("é".repeat(100));
        let p = preview(&long);
        assert!(p.len() <= PREVIEW + 3 && p.ends_with("..."), "{p}");
        assert_eq!(
            preview(&json!({"a":1,"b":2,"c":3,"d":4,"e":5})),
            "an object with 5 properties"
        );
    }
}
