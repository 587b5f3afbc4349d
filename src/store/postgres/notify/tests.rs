use super::*;
use crate::a2a::{Artifact, Message, Part, TaskArtifactUpdateEvent, TaskState, TaskStatus};

#[test]
fn a_status_update_survives_the_trip_through_a_notification() {
    let event = StreamEvent::StatusUpdate(TaskStatusUpdateEvent {
        task_id: "t".into(),
        context_id: "c".into(),
        status: TaskStatus {
            state: TaskState::Working,
            message: Some(Message::agent("m", vec![Part::text("hello")])),
            timestamp: Some("2026-01-01T00:00:00.000Z".into()),
        },
        is_final: false,
        metadata: None,
    });
    let out = EventOut::of(&event).unwrap();
    let note = codec::to_json(&NoteOut {
        task_id: out.task_id(),
        event: &out,
    });
    let read: NoteIn<'_> = serde_json::from_str(&note).unwrap();
    assert_eq!(read.task_id, "t");
    assert_eq!(decode_event(read.event.unwrap().get()), Some(event));
    assert_eq!(decode_event(r#"{"state": "nope"}"#), None);
    // An update from an instance of an older version (A2A 0.3 message) still reads.
    let older = r#"{"taskId":"t","contextId":"c","final":true,"state":"completed",
        "timestamp":null,"message":{"kind":"message","messageId":"m","role":"agent",
        "parts":[{"kind":"text","text":"done"}]}}"#;
    let Some(StreamEvent::StatusUpdate(read)) = decode_event(older) else {
        panic!("the older update does not read");
    };
    assert_eq!(read.status.message.unwrap().text(), "done");
}

#[test]
fn an_artifact_chunk_of_every_part_kind_survives_the_trip_through_a_notification() {
    let data = serde_json::json!({"key": "value"})
        .as_object()
        .cloned()
        .unwrap();
    let mut artifact = Artifact::new(
        "a",
        vec![
            Part::text("chunk"),
            Part::file_bytes(b"tck", Some("output.txt"), Some("text/plain")),
            Part::file_url("https://example.com/x", None, Some("text/plain")),
            Part::data(data),
        ],
    );
    artifact.name = Some("report".into());
    let event = StreamEvent::ArtifactUpdate(TaskArtifactUpdateEvent {
        task_id: "t".into(),
        context_id: "c".into(),
        artifact,
        append: Some(true),
        last_chunk: Some(false),
        metadata: None,
    });
    let out = EventOut::of(&event).unwrap();
    let note = codec::to_json(&NoteOut {
        task_id: out.task_id(),
        event: &out,
    });
    let read: NoteIn<'_> = serde_json::from_str(&note).unwrap();
    assert_eq!(read.task_id, "t");
    assert_eq!(decode_event(read.event.unwrap().get()), Some(event));
    assert_eq!(decode_event(r#"{"kind": "artifact", "taskId": "t"}"#), None);
    assert_eq!(decode_event(r#"{"kind": "push", "taskId": "t"}"#), None);
}
