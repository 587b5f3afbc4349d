//! The AG-UI 1.0 events the server sends, and their SSE frames.
//!
//! Each event is one `data:` line of compact JSON (serde_json writes no line break), its
//! `type` in AG-UI's upper snake case, its members in camelCase, optional ones left out
//! rather than `null` (AG-UI's rule for producers), and its `timestamp` in milliseconds since
//! the Unix epoch, from the server's clock.

use std::convert::Infallible;
use std::time::{SystemTime, UNIX_EPOCH};

use axum::response::sse::Event as Frame;
use serde::Serialize;
use serde_json::Value;

/// The AG-UI protocol version this server speaks (`RUN_STARTED.protocolVersion`).
pub(super) const PROTOCOL_VERSION: &str = "1.0";

/// The activity type A2UI surfaces travel as (what `@ag-ui/a2ui-middleware` and CopilotKit
/// render).
pub(super) const A2UI_SURFACE: &str = "a2ui-surface";

/// The `CUSTOM` event name of a passing status ("The model is reading the prompt…").
pub(super) const STATUS_EVENT: &str = "a2ui-agent.status";

/// One AG-UI event.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "SCREAMING_SNAKE_CASE")]
pub(super) enum Event {
    #[serde(rename_all = "camelCase")]
    RunStarted {
        thread_id: String,
        run_id: String,
        protocol_version: &'static str,
    },
    #[serde(rename_all = "camelCase")]
    RunFinished {
        thread_id: String,
        run_id: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        outcome: Option<Outcome>,
    },
    #[serde(rename_all = "camelCase")]
    RunError {
        message: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        code: Option<&'static str>,
    },
    #[serde(rename_all = "camelCase")]
    TextMessageStart {
        message_id: String,
        role: &'static str,
    },
    #[serde(rename_all = "camelCase")]
    TextMessageContent { message_id: String, delta: String },
    #[serde(rename_all = "camelCase")]
    TextMessageEnd { message_id: String },
    #[serde(rename_all = "camelCase")]
    ToolCallStart {
        tool_call_id: String,
        tool_call_name: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        parent_message_id: Option<String>,
    },
    #[serde(rename_all = "camelCase")]
    ToolCallArgs { tool_call_id: String, delta: String },
    #[serde(rename_all = "camelCase")]
    ToolCallEnd { tool_call_id: String },
    #[serde(rename_all = "camelCase")]
    ToolCallResult {
        message_id: String,
        tool_call_id: String,
        content: String,
        role: &'static str,
    },
    #[serde(rename_all = "camelCase")]
    ActivitySnapshot {
        message_id: String,
        activity_type: &'static str,
        content: Value,
        replace: bool,
    },
    #[serde(rename_all = "camelCase")]
    ActivityDelta {
        message_id: String,
        activity_type: &'static str,
        patch: Value,
    },
    #[serde(rename_all = "camelCase")]
    Custom { name: &'static str, value: Value },
}

/// Why a run that did not fail ended (`RUN_FINISHED.outcome`); absent means success.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub(super) enum Outcome {
    /// Stopped before it completed, without failing.
    Cancelled,
}

/// An event with the time it was made.
#[derive(Serialize)]
struct Stamped<'e> {
    #[serde(flatten)]
    event: &'e Event,
    timestamp: u64,
}

/// The SSE frame of `event`, made at `now`.
pub(super) fn frame(event: &Event, now: SystemTime) -> Result<Frame, Infallible> {
    Ok(match json(event, now) {
        Ok(json) => Frame::default().data(json),
        Err(error) => {
            // Serializing strings and JSON values cannot fail; keep the stream well-formed.
            tracing::error!(%error, "could not serialize an AG-UI event");
            Frame::default().data(r#"{"type":"RUN_ERROR","message":"Internal error"}"#)
        }
    })
}

/// `event` as JSON, stamped with `now`.
fn json(event: &Event, now: SystemTime) -> serde_json::Result<String> {
    let millis = now
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default()
        .as_millis();
    serde_json::to_string(&Stamped {
        event,
        timestamp: u64::try_from(millis).unwrap_or(u64::MAX),
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn events_are_written_in_the_ag_ui_shape_without_absent_members() {
        let events = [
            (
                Event::RunStarted {
                    thread_id: "t".into(),
                    run_id: "r".into(),
                    protocol_version: PROTOCOL_VERSION,
                },
                json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r",
                    "protocolVersion": "1.0"}),
            ),
            (
                Event::RunFinished {
                    thread_id: "t".into(),
                    run_id: "r".into(),
                    outcome: None,
                },
                json!({"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}),
            ),
            (
                Event::RunFinished {
                    thread_id: "t".into(),
                    run_id: "r".into(),
                    outcome: Some(Outcome::Cancelled),
                },
                json!({"type": "RUN_FINISHED", "threadId": "t", "runId": "r",
                    "outcome": {"type": "cancelled"}}),
            ),
            (
                Event::ToolCallStart {
                    tool_call_id: "c".into(),
                    tool_call_name: "f".into(),
                    parent_message_id: None,
                },
                json!({"type": "TOOL_CALL_START", "toolCallId": "c", "toolCallName": "f"}),
            ),
            (
                Event::ActivitySnapshot {
                    message_id: "a2ui-surface-s".into(),
                    activity_type: A2UI_SURFACE,
                    content: json!({"a2ui_operations": []}),
                    replace: true,
                },
                json!({"type": "ACTIVITY_SNAPSHOT", "messageId": "a2ui-surface-s",
                    "activityType": "a2ui-surface", "content": {"a2ui_operations": []},
                    "replace": true}),
            ),
        ];
        for (event, expected) in events {
            assert_eq!(serde_json::to_value(&event).unwrap(), expected);
        }
    }

    #[test]
    fn an_event_is_written_with_when_it_was_made() {
        let event = Event::TextMessageEnd {
            message_id: "m".into(),
        };
        let now = UNIX_EPOCH + std::time::Duration::from_millis(1_700_000_000_123);
        assert_eq!(
            json(&event, now).unwrap(),
            r#"{"type":"TEXT_MESSAGE_END","messageId":"m","timestamp":1700000000123}"#
        );
    }
}
