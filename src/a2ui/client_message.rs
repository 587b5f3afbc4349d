//! The messages a renderer sends back to the agent (actions, errors, function calls), checked
//! against their version's client-to-server schema: a different direction, and a different
//! schema, from the agent's messages that [`Validator`](super::Validator) checks.

use std::sync::OnceLock;

use serde_json::Value;

use super::catalog::Catalog;
use super::error::ValidationError;
use super::{ProtocolVersion, report, schema};

/// Checks a renderer-to-agent message (v0.8 `userAction`/`error`, v0.9 `action`/`error`,
/// v1.0 `action`, `error`, function calls and responses) against `version`'s schema.
///
/// # Errors
///
/// The most relevant problem found.
///
/// # Example
///
/// ```
/// use a2ui_agent::a2ui::{check_client_message, ProtocolVersion};
/// use serde_json::json;
///
/// let action = json!({"version": "v0.9", "action": {"name": "submit", "surfaceId": "main",
///     "sourceComponentId": "ok", "timestamp": "2026-01-01T00:00:00Z", "context": {}}});
/// assert!(check_client_message(ProtocolVersion::V0_9, &action).is_ok());
/// ```
pub fn check_client_message(
    version: ProtocolVersion,
    message: &Value,
) -> Result<(), ValidationError> {
    static CELLS: [OnceLock<Result<Option<jsonschema::Validator>, String>>; 4] = [
        OnceLock::new(),
        OnceLock::new(),
        OnceLock::new(),
        OnceLock::new(),
    ];
    let slot = ProtocolVersion::ALL
        .iter()
        .position(|v| *v == version)
        .unwrap_or(0);
    let compiled = CELLS.get(slot).map(|cell| {
        cell.get_or_init(|| {
            let catalog = Catalog::try_basic(version).map_err(|e| e.to_string())?;
            schema::compile_client_message(version, catalog.schema())
        })
    });
    let surface = message
        .as_object()
        .and_then(|m| m.values().find_map(|b| b.get("surfaceId")?.as_str()));
    match compiled {
        Some(Ok(Some(validator))) => match report::errors(validator, message, surface)
            .into_iter()
            .next()
        {
            Some(error) => Err(error),
            None => Ok(()),
        },
        Some(Ok(None)) => check_v0_8_client_message(message),
        Some(Err(e)) => Err(ValidationError::new(
            "",
            format!("no schema: {e}"),
            surface,
            None,
        )),
        None => Err(ValidationError::new("", "unknown version", surface, None)),
    }
}

/// v0.8's renderer-to-agent schema is small enough to state in code: one key, `userAction`
/// (with its five fields) or `error`.
fn check_v0_8_client_message(message: &Value) -> Result<(), ValidationError> {
    let Some(map) = message.as_object() else {
        return Err(ValidationError::new(
            "",
            "a message is a JSON object",
            None,
            None,
        ));
    };
    if map.len() != 1 {
        return Err(ValidationError::new(
            "",
            "a v0.8 message has exactly one key, 'userAction' or 'error'",
            None,
            None,
        ));
    }
    if let Some(action) = map.get("userAction") {
        let surface = action.get("surfaceId").and_then(Value::as_str);
        for (field, is_ok) in [
            ("name", action.get("name").is_some_and(Value::is_string)),
            ("surfaceId", surface.is_some()),
            (
                "sourceComponentId",
                action
                    .get("sourceComponentId")
                    .is_some_and(Value::is_string),
            ),
            (
                "timestamp",
                action.get("timestamp").is_some_and(Value::is_string),
            ),
            (
                "context",
                action.get("context").is_some_and(Value::is_object),
            ),
        ] {
            if !is_ok {
                return Err(ValidationError::new(
                    format!("/userAction/{field}"),
                    format!("'{field}' is required and must have the right type"),
                    surface,
                    None,
                ));
            }
        }
        return Ok(());
    }
    if map.get("error").is_some_and(Value::is_object) {
        return Ok(());
    }
    Err(ValidationError::new(
        "",
        "a v0.8 message has exactly one key, 'userAction' or 'error'",
        None,
        None,
    ))
}
