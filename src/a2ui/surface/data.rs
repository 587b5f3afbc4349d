//! A surface's data model: reading and writing it by A2UI path (a JSON Pointer, or a path
//! relative to a template's scope), and v0.8's typed `contents` entries as plain JSON.

use serde_json::{Map, Value};

use super::SurfaceError;

/// The most segments a path may have (deeper data is refused, not walked).
const MAX_SEGMENTS: usize = 64;

/// `path` as a JSON Pointer from the root: itself when absolute (`/a/b`), else joined to
/// `scope` (the pointer of the template item a component was drawn for).
pub(super) fn absolute(scope: &str, path: &str) -> String {
    let path = path.trim();
    if path.starts_with('/') {
        path.to_owned()
    } else if path.is_empty() || path == "." {
        scope.to_owned()
    } else {
        format!("{}/{path}", scope.trim_end_matches('/'))
    }
}

/// The value at `pointer` (`""` or `"/"`: the whole model).
pub(super) fn get<'a>(data: &'a Value, pointer: &str) -> Option<&'a Value> {
    if pointer.is_empty() || pointer == "/" {
        return Some(data);
    }
    data.pointer(pointer.trim_end_matches('/'))
}

/// Sets the value at `pointer`, making the objects on the way; `None` removes it. The root
/// (`""` or `"/"`) is replaced (by an empty object when removed).
///
/// # Errors
///
/// [`SurfaceError::BadPath`] for a path that is too deep or steps into a value that holds
/// no such member (a number, or an array index past its end).
pub(super) fn set(
    data: &mut Value,
    pointer: &str,
    value: Option<Value>,
) -> Result<(), SurfaceError> {
    let segments = segments(pointer)?;
    let Some((last, parents)) = segments.split_last() else {
        *data = value.unwrap_or_else(|| Value::Object(Map::new()));
        return Ok(());
    };
    let mut at = data;
    for segment in parents {
        at = match at {
            Value::Object(map) => map
                .entry(segment.clone())
                .or_insert_with(|| Value::Object(Map::new())),
            Value::Array(items) => index(segment, items.len())
                .and_then(|i| items.get_mut(i))
                .ok_or_else(|| bad(pointer))?,
            other => {
                *other = Value::Object(Map::new());
                match other {
                    Value::Object(map) => map.entry(segment.clone()).or_insert(Value::Null),
                    _ => return Err(bad(pointer)),
                }
            }
        };
        if at.is_null() {
            *at = Value::Object(Map::new());
        }
    }
    match (at, value) {
        (Value::Object(map), Some(value)) => {
            map.insert(last.clone(), value);
        }
        (Value::Object(map), None) => {
            map.remove(last);
        }
        (Value::Array(items), value) => {
            let i = index(last, items.len() + 1).ok_or_else(|| bad(pointer))?;
            match value {
                Some(value) => match items.get_mut(i) {
                    Some(slot) => *slot = value,
                    None => items.push(value),
                },
                None if i < items.len() => {
                    items.remove(i);
                }
                None => {}
            }
        }
        (other, Some(value)) => {
            let mut map = Map::new();
            map.insert(last.clone(), value);
            *other = Value::Object(map);
        }
        (_, None) => {}
    }
    Ok(())
}

/// The unescaped segments of `pointer` (`~1` is `/`, `~0` is `~`).
fn segments(pointer: &str) -> Result<Vec<String>, SurfaceError> {
    let trimmed = pointer.trim().trim_matches('/');
    if trimmed.is_empty() {
        return Ok(Vec::new());
    }
    let segments: Vec<String> = trimmed
        .split('/')
        .map(|s| s.replace("~1", "/").replace("~0", "~"))
        .collect();
    if segments.len() > MAX_SEGMENTS {
        return Err(SurfaceError::BadPath(format!(
            "{} segments (at most {MAX_SEGMENTS})",
            segments.len()
        )));
    }
    Ok(segments)
}

/// `segment` as an array index below `len`.
fn index(segment: &str, len: usize) -> Option<usize> {
    segment.parse::<usize>().ok().filter(|i| *i < len)
}

fn bad(pointer: &str) -> SurfaceError {
    let shown: String = pointer.chars().take(80).collect();
    SurfaceError::BadPath(format!("{shown:?} steps into a value without that member"))
}

/// v0.8 `dataModelUpdate` entries (`[{"key", "valueString" | "valueNumber" |
/// "valueBoolean" | "valueMap": [...]}]`) as one JSON object.
pub(super) fn v0_8_contents(contents: &Value) -> Map<String, Value> {
    let mut out = Map::new();
    for entry in contents.as_array().into_iter().flatten() {
        let Some(key) = entry.get("key").and_then(Value::as_str) else {
            continue;
        };
        let value = ["valueString", "valueNumber", "valueBoolean"]
            .iter()
            .find_map(|name| entry.get(*name).cloned())
            .or_else(|| {
                entry
                    .get("valueMap")
                    .map(|map| Value::Object(v0_8_contents(map)))
            })
            .unwrap_or(Value::Null);
        out.insert(key.to_owned(), value);
    }
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn relative_paths_join_the_scope_and_absolute_ones_ignore_it() {
        assert_eq!(absolute("/users/1", "name"), "/users/1/name");
        assert_eq!(absolute("/users/1", "/company"), "/company");
        assert_eq!(absolute("/users/1", "."), "/users/1");
        assert_eq!(absolute("", "name"), "/name");
    }

    #[test]
    fn setting_makes_the_objects_on_the_way_and_removing_takes_the_member_out() {
        let mut data = json!({});
        set(&mut data, "/a/b", Some(json!(1))).unwrap();
        set(&mut data, "/list", Some(json!(["x"]))).unwrap();
        set(&mut data, "/list/1", Some(json!("y"))).unwrap();
        set(&mut data, "/a~1b", Some(json!(true))).unwrap();
        assert_eq!(
            data,
            json!({"a": {"b": 1}, "list": ["x", "y"], "a/b": true})
        );
        assert_eq!(get(&data, "/list/1"), Some(&json!("y")));
        set(&mut data, "/a/b", None).unwrap();
        assert_eq!(data["a"], json!({}));
        assert!(set(&mut data, "/list/7/x", Some(json!(1))).is_err());
        set(&mut data, "/", None).unwrap();
        assert_eq!(data, json!({}));
    }

    #[test]
    fn a_path_deeper_than_the_limit_is_refused() {
        let deep = "/a".repeat(MAX_SEGMENTS + 1);
        let mut data = json!({});
        assert!(matches!(
            set(&mut data, &deep, Some(json!(1))),
            Err(SurfaceError::BadPath(_))
        ));
    }

    #[test]
    fn v0_8_entries_become_plain_json() {
        let contents = json!([{"key": "name", "valueString": "Ada"},
            {"key": "size", "valueNumber": 4}, {"key": "vip", "valueBoolean": false},
            {"key": "address", "valueMap": [{"key": "city", "valueString": "Rome"}]}]);
        assert_eq!(
            Value::Object(v0_8_contents(&contents)),
            json!({"name": "Ada", "size": 4, "vip": false, "address": {"city": "Rome"}})
        );
    }
}
