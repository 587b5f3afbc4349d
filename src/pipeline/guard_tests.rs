use super::*;
use crate::a2a::Message;
use crate::generator::Generator;
use crate::pipeline::sink::ReplyOutput;
use crate::pipeline::{End, Pipeline, Step};

fn create() -> String {
    serde_json::json!({"version": "v0.9", "createSurface": {"surfaceId": "s",
        "catalogId": ProtocolVersion::V0_9.basic_catalog_id()}})
    .to_string()
}

fn request() -> Request {
    let processor = Generator::v0_9().negotiate(None).unwrap();
    Request::new(Message::user("m", vec![Part::text("draw")]), "t", "c").with_a2ui(processor)
}

/// The server's pipeline for the reply to `request` under `policy`, as the task runner
/// makes it.
fn pipeline(policy: OnInvalid, request: &Request) -> Pipeline {
    let policy = RepairPolicy {
        on_invalid: policy,
        ..RepairPolicy::default()
    };
    Pipeline::new(&policy, Arc::new(ReplyOutput::default()), request, true)
}

/// The validation errors that ended a step, if it ended with them.
fn invalid(step: &Step) -> Option<Vec<ValidationError>> {
    match &step.end {
        Some(End::Invalid(errors)) => Some(errors.clone()),
        None => None,
        Some(other) => panic!("not a validation problem: {other:?}"),
    }
}

/// Streams `chunks` through the server's pipeline under `policy`, as the task runner
/// does: the parts sent, and the first problem.
fn run(policy: OnInvalid, chunks: &[&str]) -> (Vec<Part>, Option<Vec<ValidationError>>) {
    let mut pipeline = pipeline(policy, &request());
    let mut sent = Vec::new();
    for chunk in chunks {
        let step = pipeline.push(chunk);
        let invalid = invalid(&step);
        sent.extend(step.send);
        if invalid.is_some() {
            return (sent, invalid);
        }
    }
    let last = pipeline.finish();
    let invalid = invalid(&last);
    sent.extend(last.send);
    (sent, invalid)
}

fn texts(parts: &[Part]) -> String {
    parts
        .iter()
        .filter_map(|p| match p {
            Part::Text { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

fn stray_block() -> String {
    format!(
        r#"Here.<a2ui-json>[{}, {{"version": "v0.9", "updateComponents": {{"surfaceId": "s", "components": [{{"id": "root", "component": "Text", "text": "hi"}}, {{"id": "stray", "component": "Text", "text": "lost"}}]}}}}]"#,
        create()
    )
}

#[test]
fn an_orphan_is_found_when_its_block_closes_before_the_text_after_it() {
    let later = r#"</a2ui-json>Later text.<a2ui-json>[{"version": "v0.9", "updateComponents": {"surfaceId": "s", "components": [{"id": "root", "component": "Column", "children": ["stray"]}]}}]</a2ui-json>"#;
    let (sent, invalid) = run(OnInvalid::Fail, &[&stray_block(), later]);
    let errors = invalid.unwrap();
    assert!(
        errors[0]
            .message
            .contains("component 'stray' is not reachable"),
        "{errors:?}"
    );
    assert_eq!(texts(&sent), "Here.");
    assert_eq!(sent.len(), 3, "the block's two messages went out: {sent:?}");
}

#[test]
fn the_parts_before_a_problem_in_one_read_still_go_out() {
    let reply = format!("{}</a2ui-json>Later text.", stray_block());
    let (sent, invalid) = run(OnInvalid::Repair, &[&reply]);
    assert!(invalid.unwrap()[0].message.contains("not reachable"));
    assert_eq!(texts(&sent), "Here.");
}

#[test]
fn a_child_a_later_block_sends_passes() {
    let first = format!(
        r#"<a2ui-json>[{}, {{"version": "v0.9", "updateComponents": {{"surfaceId": "s", "components": [{{"id": "root", "component": "Card", "child": "body"}}]}}}}]</a2ui-json>"#,
        create()
    );
    let last = r#"<a2ui-json>[{"version": "v0.9", "updateComponents": {"surfaceId": "s", "components": [{"id": "body", "component": "Text", "text": "hi"}]}}]</a2ui-json>"#;
    let (sent, invalid) = run(OnInvalid::Fail, &[&first, "Meanwhile.", last]);
    assert_eq!(invalid, None);
    assert_eq!(texts(&sent), "Meanwhile.");
    assert_eq!(sent.len(), 4);
}

#[test]
fn a_cycle_holds_back_its_message_and_what_follows_unless_forwarded() {
    let reply = format!(
        r#"<a2ui-json>[{}, {{"version": "v0.9", "updateComponents": {{"surfaceId": "s", "components": [{{"id": "root", "component": "Card", "child": "root"}}]}}}}]</a2ui-json>After."#,
        create()
    );
    for policy in [OnInvalid::Repair, OnInvalid::Fail] {
        let (sent, invalid) = run(policy, &[&reply]);
        assert!(
            invalid.unwrap()[0].message.contains("root -> root"),
            "{policy}"
        );
        assert_eq!(sent.len(), 1, "{policy}: only createSurface: {sent:?}");
    }
    let (sent, invalid) = run(OnInvalid::Forward, &[&reply]);
    assert_eq!(invalid, None);
    assert_eq!(sent.len(), 3);
}

#[test]
fn a_label_written_as_a_child_is_mended_and_the_mending_part_says_so() {
    let reply = format!(
        r#"<a2ui-json>[{}, {{"version": "v0.9", "updateComponents": {{"surfaceId": "s", "components": [{{"id": "root", "component": "Column", "children": ["send", "note"]}}, {{"id": "send", "component": "Button", "child": "Send", "action": {{"event": {{"name": "send"}}}}}}]}}}}]</a2ui-json>"#,
        create()
    );
    let (sent, invalid) = run(OnInvalid::Fail, &[&reply]);
    let errors = invalid.expect("'note' reads as an id and is not mended");
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(errors[0].message.contains("refers to 'note'"), "{errors:?}");
    let Some(Part::Data { data, metadata }) = sent.last() else {
        panic!("no mending part: {sent:?}");
    };
    assert_eq!(
        data["updateComponents"]["components"][0],
        serde_json::json!({"id": "Send", "component": "Text", "text": "Send"})
    );
    let metadata = metadata.as_deref().unwrap();
    assert_eq!(metadata[mending::MENDED_KEY], serde_json::json!(["Send"]));
    assert!(metadata["mimeType"].is_string(), "{metadata:?}");

    let whole = reply.replace(r#", "note""#, "");
    let (sent, invalid) = run(OnInvalid::Repair, &[&whole]);
    assert_eq!(invalid, None, "mended, nothing is left to repair");
    assert_eq!(sent.len(), 3, "{sent:?}");
}

#[test]
fn a_repair_turn_leaves_out_what_the_parts_sent_so_far_gave_the_client() {
    let request = request();
    let mut pipeline = pipeline(OnInvalid::Repair, &request);
    let mut sent = SentParts::default();
    let first = format!("{}</a2ui-json>", stray_block());
    let step = pipeline.push(&first);
    sent.extend(&step.send);
    let end = step.end.expect("'stray' is not reachable");
    let repaired = pipeline.retry(end, &sent).unwrap();
    assert_eq!(
        repaired.repairs()[0].answer(),
        first,
        "the repair shows what it wrote"
    );

    // The repair writes the whole answer again, the stray component placed.
    let again = format!(
        r#"<a2ui-json>[{}, {{"version": "v0.9", "updateComponents": {{"surfaceId": "s", "components": [{{"id": "root", "component": "Column", "children": ["stray"]}}, {{"id": "stray", "component": "Text", "text": "lost"}}]}}}}]</a2ui-json>"#,
        create()
    );
    let step = pipeline.push(&again);
    assert_eq!(step.end, None);
    let messages: Vec<&Map<String, Value>> = step
        .send
        .iter()
        .filter_map(|part| match part {
            Part::Data { data, .. } => Some(&**data),
            _ => None,
        })
        .collect();
    assert_eq!(
        messages.len(),
        1,
        "the surface the client holds is not created again: {messages:?}"
    );
    let components = &messages[0]["updateComponents"]["components"];
    assert_eq!(
        components,
        &serde_json::json!([{"id": "root", "component": "Column", "children": ["stray"]}]),
        "only the component that changed goes out"
    );
}

#[test]
fn a_repair_request_carries_the_answer_and_the_errors() {
    let request = request();
    let mut guard = Guard::new(&RepairPolicy::default(), &request);
    let error = ValidationError::new("", "broken", Some("s"), None);
    let sent = SentParts::default();
    let answer = "Hi<a2ui-json>".to_owned();
    let next = guard.next(vec![error.clone()], answer, &sent).unwrap();
    assert_eq!(next.repairs().len(), 1);
    assert_eq!(next.repairs()[0].answer(), "Hi<a2ui-json>");
    assert_eq!(next.repairs()[0].errors(), std::slice::from_ref(&error));
    guard
        .next(vec![error.clone()], String::new(), &sent)
        .unwrap();
    let reason = guard.next(vec![error], String::new(), &sent).unwrap_err();
    assert!(reason.contains("after 2 repair turns"), "{reason}");
}

/// A reply whose second message shows an image on `host`, with text after its block.
fn image_reply(host: &str) -> String {
    format!(
        r#"<a2ui-json>[{}, {{"version": "v0.9", "updateComponents": {{"surfaceId": "s", "components": [{{"id": "root", "component": "Image", "url": "https://{host}/p.png"}}]}}}}]</a2ui-json>After."#,
        create()
    )
}

#[tokio::test]
async fn a_message_naming_an_unjudged_host_waits_with_what_follows_then_goes_out_in_order() {
    use crate::pipeline::hosts::{HostVerdict, Resolved};

    let processor = Generator::v0_9().negotiate(None).unwrap();
    let given = Message::user("m", vec![Part::text("show https://pics.example/p.png")]);
    let request = Request::new(given, "t", "c").with_a2ui(processor);
    for (verdict, passes) in [
        (HostVerdict::Public, true),
        (
            HostVerdict::Inside(
                "10.0.0.1".parse().unwrap(),
                crate::address::Forbidden::Private,
            ),
            false,
        ),
    ] {
        let mut pipeline = pipeline(OnInvalid::Fail, &request);
        let step = pipeline.push(&image_reply("pics.example"));
        assert_eq!(step.send.len(), 1, "only createSurface before the wait");
        assert!(step.end.is_none());
        assert!(step.wait.is_some(), "the image waits for its host");
        let mut resumed = pipeline.resume(Resolved(vec![("pics.example".into(), verdict)]));
        assert!(resumed.wait.is_none());
        if passes {
            assert_eq!(resumed.end, None);
            let last = pipeline.finish();
            assert_eq!(last.end, None, "the whole answer checked at its end");
            resumed.send.extend(last.send);
            assert_eq!(resumed.send.len(), 2, "the image, then the text");
            assert_eq!(texts(&resumed.send), "After.");
        } else {
            let errors = invalid(&resumed).unwrap();
            assert!(
                errors[0].message.contains("resolves to a private"),
                "{errors:?}"
            );
            assert!(resumed.send.is_empty(), "{:?}", resumed.send);
        }
    }
}

#[tokio::test]
async fn an_answer_read_at_its_end_is_checked_whole_once_its_hosts_are_judged() {
    use crate::pipeline::hosts::{HostVerdict, Resolved};

    let processor = Generator::v0_9().negotiate(None).unwrap();
    let given = Message::user("m", vec![Part::text("show https://pics.example/p.png")]);
    let request = Request::new(given, "t", "c").with_a2ui(processor);
    let policy = RepairPolicy {
        on_invalid: OnInvalid::Fail,
        ..RepairPolicy::default()
    };
    let mut pipeline = Pipeline::new(&policy, Arc::new(ReplyOutput::default()), &request, false);
    // The surface's root is missing: only the end of the answer tells.
    let reply = image_reply("pics.example").replace(r#""id": "root""#, r#""id": "pic""#);
    let pushed = pipeline.push(&reply);
    assert!(pushed.wait.is_none() && pushed.end.is_none());
    let last = pipeline.finish();
    assert!(last.wait.is_some(), "{last:?}");
    assert!(last.end.is_none(), "the end waits for the lookup");
    let resumed = pipeline.resume(Resolved(vec![("pics.example".into(), HostVerdict::Public)]));
    let errors = invalid(&resumed).expect("the missing root, found at the end");
    assert!(errors[0].message.contains("root"), "{errors:?}");
}
