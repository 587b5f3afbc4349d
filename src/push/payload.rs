//! What a webhook receives for one task update, in its config's protocol version.
//!
//! 1.0 (spec §4.3.3): the update as a `StreamResponse` (`{"statusUpdate": ...}` or
//! `{"artifactUpdate": ...}`), the same object a stream carries, labeled
//! `application/a2a+json`. 0.3: the task as it is after the update (a 0.3 `Task` object),
//! which is what the 0.3 SDKs post and their receivers read; the event itself when the
//! task is not at hand.

use axum::body::Bytes;

use crate::a2a::{PushProtocol, StreamEvent, Task, v0_3, v1_0};

/// A payload and its content type.
#[derive(Debug, Clone)]
pub(crate) struct Payload {
    pub(crate) body: Bytes,
    pub(crate) content_type: &'static str,
}

/// The payload of `event` for a webhook speaking `protocol`; `task` is the task after the
/// event (0.3 sends it).
pub(crate) fn payload(protocol: PushProtocol, event: &StreamEvent, task: Option<&Task>) -> Payload {
    // Serializing the model's borrowed wire structs cannot fail.
    let body = match (protocol, task) {
        (PushProtocol::V1_0, _) => serde_json::to_vec(&v1_0::event_result(event)),
        (PushProtocol::V0_3, Some(task)) => serde_json::to_vec(&v0_3::encode_task(task)),
        (PushProtocol::V0_3, None) => serde_json::to_vec(&v0_3::event_result(event)),
    }
    .unwrap_or_default();
    Payload {
        body: Bytes::from(body),
        content_type: match protocol {
            PushProtocol::V1_0 => "application/a2a+json",
            PushProtocol::V0_3 => "application/json",
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::a2a::{TaskState, TaskStatus, TaskStatusUpdateEvent};

    fn task() -> Task {
        Task {
            id: "t".into(),
            context_id: "c".into(),
            status: TaskStatus {
                state: TaskState::Completed,
                message: None,
                timestamp: Some("2026-01-01T00:00:00.000Z".into()),
            },
            artifacts: Vec::new(),
            history: Vec::new(),
            metadata: None,
        }
    }

    #[test]
    fn each_version_gets_its_own_shape() {
        let event = StreamEvent::StatusUpdate(TaskStatusUpdateEvent::of(&task(), true));
        let v1: serde_json::Value =
            serde_json::from_slice(&payload(PushProtocol::V1_0, &event, None).body).unwrap();
        assert_eq!(
            v1["statusUpdate"]["status"]["state"],
            "TASK_STATE_COMPLETED"
        );
        let v0: serde_json::Value =
            serde_json::from_slice(&payload(PushProtocol::V0_3, &event, Some(&task())).body)
                .unwrap();
        assert_eq!(
            (v0["kind"].as_str(), v0["status"]["state"].as_str()),
            (Some("task"), Some("completed"))
        );
    }
}
