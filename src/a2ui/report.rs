//! Turning JSON Schema failures into errors a model can act on.
//!
//! A2UI schemas are built from `oneOf`s (message kinds, component types, value forms), and a
//! failed `oneOf` reports every branch's failure. The useful error is in the branch the
//! author meant: the one whose discriminating constant (`component`, `call`, `version`)
//! matched, that accepts the value's JSON type, and that failed least near the surface.
//! When no branch's constant matches, the value names something unknown, and the error says
//! so and lists what is known (across nested `oneOf`s, e.g. several catalogs' components).

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
        out.extend(leaves(&error, message));
    }
    // An object whose property failed also reports that property as unevaluated; the
    // failure itself is the news.
    let echoes: Vec<bool> = out
        .iter()
        .map(|leaf| {
            matches!(leaf.kind, LeafKind::Unevaluated(_))
                && out.iter().any(|other| {
                    other.pointer.len() > leaf.pointer.len()
                        && other.pointer.starts_with(&leaf.pointer)
                        && other.pointer.as_bytes().get(leaf.pointer.len()) == Some(&b'/')
                })
        })
        .collect();
    // One error per place, so the first error tells the whole story about its value.
    let mut merged: Vec<(String, String)> = Vec::new();
    for (leaf, echo) in out.into_iter().zip(echoes) {
        if echo {
            continue;
        }
        let text = leaf.text();
        match merged.iter_mut().find(|(p, _)| *p == leaf.pointer) {
            Some((_, existing)) if !existing.contains(&text) => {
                existing.push_str("; ");
                existing.push_str(&text);
            }
            Some(_) => {}
            None => merged.push((leaf.pointer, text)),
        }
    }
    merged.truncate(MAX_PER_MESSAGE);
    merged
        .into_iter()
        .map(|(pointer, text)| ValidationError::new(pointer, text, surface, None))
        .collect()
}

/// One problem at one place.
#[derive(Debug)]
struct Leaf {
    pointer: String,
    kind: LeafKind,
}

#[derive(Debug)]
enum LeafKind {
    /// A name (component type, function) no branch knows, and the names that are known.
    Unknown {
        found: String,
        expected: Vec<String>,
    },
    /// A constant that did not match (the sign of a branch not meant), and the constant.
    Constant {
        text: String,
        expected: String,
    },
    /// A value of the wrong JSON type.
    Type(String),
    /// Properties no (successful) subschema evaluated: often only the echo of another
    /// failure inside the same object.
    Unevaluated(String),
    Other(String),
}

impl Leaf {
    fn text(&self) -> String {
        match &self.kind {
            LeafKind::Unknown { found, expected } => {
                let what = match self.pointer.rsplit('/').next().unwrap_or_default() {
                    "component" => "unknown component",
                    "call" | "@call" => "unknown function",
                    _ => "unexpected value",
                };
                format!("{what} {found}; expected one of: {}", expected.join(", "))
            }
            LeafKind::Constant { text, .. }
            | LeafKind::Type(text)
            | LeafKind::Unevaluated(text)
            | LeafKind::Other(text) => text.clone(),
        }
    }

    fn is_constant(&self) -> bool {
        matches!(
            self.kind,
            LeafKind::Unknown { .. } | LeafKind::Constant { .. }
        )
    }
}

fn depth(pointer: &str) -> usize {
    pointer.matches('/').count()
}

/// The relevant leaf problems of `error`: for a failed `oneOf`/`anyOf`, those of the branch
/// the author most likely meant.
fn leaves(error: &jsonschema::ValidationError<'_>, root: &Value) -> Vec<Leaf> {
    let pointer = error.instance_path().as_str().to_owned();
    let context = match error.kind() {
        ValidationErrorKind::OneOfNotValid { context } | ValidationErrorKind::AnyOf { context } => {
            context
        }
        ValidationErrorKind::OneOfMultipleValid { .. } => {
            let text = "matches more than one of the allowed forms".to_owned();
            return vec![Leaf {
                pointer,
                kind: LeafKind::Other(text),
            }];
        }
        kind => {
            let text = describe(kind, error.instance());
            let kind = match kind {
                ValidationErrorKind::Constant { expected_value } => LeafKind::Constant {
                    text,
                    expected: match expected_value.as_ref() {
                        Value::String(name) => name.clone(),
                        other => other.to_string(),
                    },
                },
                ValidationErrorKind::Type { .. } => LeafKind::Type(text),
                ValidationErrorKind::UnevaluatedProperties { .. } => LeafKind::Unevaluated(text),
                _ => LeafKind::Other(text),
            };
            return vec![Leaf { pointer, kind }];
        }
    };
    let branches: Vec<Vec<Leaf>> = context
        .iter()
        .filter(|b| !b.is_empty())
        .map(|branch| branch.iter().flat_map(|e| leaves(e, root)).collect())
        .collect();
    if let Some(unknown) = unknown_name(&pointer, &branches, root) {
        return vec![unknown];
    }
    let base = depth(&pointer);
    let best = branches.into_iter().min_by_key(|branch| {
        // A branch that wants another JSON type altogether is the wrong branch; so is one
        // whose discriminating constant (a property of this value) did not match, and one
        // that fails right at this value rather than deeper inside.
        let wrong_type = branch
            .iter()
            .any(|l| matches!(l.kind, LeafKind::Type(_)) && l.pointer == pointer);
        let constants = branch
            .iter()
            .filter(|l| {
                matches!(l.kind, LeafKind::Constant { .. }) && depth(&l.pointer) <= base + 1
            })
            .count();
        let shallow = branch.iter().filter(|l| depth(&l.pointer) <= base).count();
        // An unknown name deeper down still says which form was meant, but a branch that
        // knows every name fits better.
        let unknowns = branch
            .iter()
            .filter(|l| matches!(l.kind, LeafKind::Unknown { .. }))
            .count();
        (wrong_type, constants, shallow, unknowns, branch.len())
    });
    best.unwrap_or_else(|| {
        let text = "matches none of the allowed forms".to_owned();
        vec![Leaf {
            pointer,
            kind: LeafKind::Other(text),
        }]
    })
}

/// When every branch failed on a constant at the same place below the `oneOf` (a component
/// type or function name that no branch knows), one problem naming it and every name that
/// would be accepted.
fn unknown_name(pointer: &str, branches: &[Vec<Leaf>], root: &Value) -> Option<Leaf> {
    let mut at: Option<&str> = None;
    let mut expected: Vec<String> = Vec::new();
    for branch in branches {
        let leaf = branch.iter().find(|l| l.is_constant())?;
        match at {
            Some(p) if p != leaf.pointer => return None,
            Some(_) => {}
            None => at = Some(&leaf.pointer),
        }
        match &leaf.kind {
            LeafKind::Unknown {
                expected: names, ..
            } => {
                for name in names {
                    if !expected.contains(name) {
                        expected.push(name.clone());
                    }
                }
            }
            LeafKind::Constant { expected: name, .. } => {
                if !expected.contains(name) {
                    expected.push(name.clone());
                }
            }
            _ => return None,
        }
    }
    let at = at?;
    if !at.starts_with(pointer) || at == pointer {
        return None;
    }
    let found = root
        .pointer(at)
        .map(preview)
        .unwrap_or_else(|| "nothing".into());
    Some(Leaf {
        pointer: at.to_owned(),
        kind: LeafKind::Unknown { found, expected },
    })
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
