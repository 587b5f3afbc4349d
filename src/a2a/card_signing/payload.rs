//! What a card signature covers (A2A 1.0 §8.4.1): the card without `signatures`, without
//! the members that hold a default value, canonicalized (RFC 8785).
//!
//! "Default value" is read as the two official SDKs read it (Python `a2a-sdk` and
//! `@a2a-js/sdk` 1.3, whose verifiers must accept our cards and whose cards ours must
//! accept): every empty string, empty array, empty object and `null` is left out, at any
//! depth (an object or array left empty by that goes too); the non-`optional` booleans of
//! `a2a.proto`'s card at `false` (an extension's `required`, an OAuth flow's
//! `pkceRequired`) are left out; the `optional` ones (`capabilities.streaming`,
//! `pushNotifications`, `extendedAgentCard`) stay, `false` included. Members the 1.0 card
//! does not define are covered as they are: changing or adding one breaks the signature.

use serde_json::{Map, Value};

use super::jcs::{self, JcsError, MAX_DEPTH};

/// The canonical text a signature of `card` covers.
///
/// # Errors
///
/// [`JcsError`] when the card nests deeper than the canonicalizer allows or holds an
/// integer with no exact double.
pub(crate) fn signed_payload(card: &Map<String, Value>) -> Result<String, JcsError> {
    let mut content = card.clone();
    content.remove("signatures");
    let mut content = Value::Object(content);
    drop_false_defaults(&mut content);
    let cleaned = without_empty(&content, 1)?.unwrap_or_else(|| Value::Object(Map::new()));
    jcs::canonicalize(&cleaned)
}

/// Removes the card's non-`optional` booleans that are `false`: each extension's
/// `required` and each OAuth flow's `pkceRequired`.
fn drop_false_defaults(card: &mut Value) {
    let is_false = |member: Option<&Value>| member == Some(&Value::Bool(false));
    if let Some(Value::Array(extensions)) = card.pointer_mut("/capabilities/extensions") {
        for extension in extensions.iter_mut().filter_map(Value::as_object_mut) {
            if is_false(extension.get("required")) {
                extension.remove("required");
            }
        }
    }
    if let Some(Value::Object(schemes)) = card.get_mut("securitySchemes") {
        let flows = schemes
            .values_mut()
            .filter_map(|scheme| scheme.pointer_mut("/oauth2SecurityScheme/flows"))
            .filter_map(Value::as_object_mut)
            .flat_map(|flows| flows.values_mut())
            .filter_map(Value::as_object_mut);
        for flow in flows {
            if is_false(flow.get("pkceRequired")) {
                flow.remove("pkceRequired");
            }
        }
    }
}

/// `value` without empty strings, arrays, objects and nulls, at any depth; `None` when
/// nothing is left of it.
fn without_empty(value: &Value, depth: usize) -> Result<Option<Value>, JcsError> {
    if matches!(value, Value::Array(_) | Value::Object(_)) && depth > MAX_DEPTH {
        return Err(JcsError::TooDeep);
    }
    Ok(match value {
        Value::Null => None,
        Value::String(text) if text.is_empty() => None,
        Value::Array(items) => {
            let mut kept = Vec::with_capacity(items.len());
            for item in items {
                kept.extend(without_empty(item, depth + 1)?);
            }
            (!kept.is_empty()).then_some(Value::Array(kept))
        }
        Value::Object(members) => {
            let mut kept = Map::new();
            for (name, member) in members {
                if let Some(member) = without_empty(member, depth + 1)? {
                    kept.insert(name.clone(), member);
                }
            }
            (!kept.is_empty()).then_some(Value::Object(kept))
        }
        other => Some(other.clone()),
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn payload(card: Value) -> String {
        signed_payload(card.as_object().unwrap()).unwrap()
    }

    #[test]
    fn signatures_empty_members_and_false_defaults_are_not_covered() {
        let card = json!({
            "name": "Agent", "description": "", "skills": [],
            "capabilities": {
                "streaming": false,
                "extensions": [
                    {"uri": "u", "required": false, "params": {"ids": [], "inline": false}},
                    {"uri": "v", "required": true}
                ]
            },
            "securitySchemes": {"o": {"oauth2SecurityScheme": {"flows": {
                "authorizationCode": {"tokenUrl": "t", "pkceRequired": false, "scopes": {}}
            }}}},
            "iconUrl": null,
            "signatures": [{"protected": "p", "signature": "s"}]
        });
        assert_eq!(
            payload(card),
            r#"{"capabilities":{"extensions":[{"params":{"inline":false},"uri":"u"},{"required":true,"uri":"v"}],"streaming":false},"name":"Agent","securitySchemes":{"o":{"oauth2SecurityScheme":{"flows":{"authorizationCode":{"tokenUrl":"t"}}}}}}"#
        );
    }

    #[test]
    fn members_the_card_does_not_define_are_covered() {
        let plain = payload(json!({"name": "A"}));
        assert_ne!(payload(json!({"name": "A", "x-extra": 1})), plain);
        assert_eq!(payload(json!({"name": "A", "x-extra": ""})), plain);
    }

    #[test]
    fn a_card_nested_too_deep_has_no_payload() {
        let mut value = json!("leaf");
        for _ in 0..200 {
            value = json!({ "a": value });
        }
        let card = json!({ "name": "A", "capabilities": { "extensions": [{"params": value}] } });
        assert_eq!(
            signed_payload(card.as_object().unwrap()),
            Err(JcsError::TooDeep)
        );
    }
}
