//! A streamed component tree that cannot be drawn (a cycle, a component its root cannot
//! reach) is judged by the same checker as a message that fails its schema, so the server's
//! `OnInvalid` policy decides what happens: `forward` sends it, `repair` asks the agent again
//! and streams the corrected answer, `fail` fails the task. On a real socket.

mod support;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use a2ui_agent::a2ui::{ProtocolVersion, Validator};
use a2ui_agent::agent::{AgentError, Reply};
use a2ui_agent::pipeline::OnInvalid;
use a2ui_agent::request::Request;
use serde_json::{Value, json};
use support::*;

const V: ProtocolVersion = ProtocolVersion::V0_9;

fn create() -> Value {
    json!({"version": "v0.9", "createSurface": {"surfaceId": "s", "catalogId": V.basic_catalog_id()}})
}

/// A first answer whose `a` closes a cycle back to `root`, streamed a component at a time;
/// on a repair turn, the held-back message again with `a` as a leaf. Counts the calls.
fn cyclic_agent(
    calls: Arc<AtomicUsize>,
) -> impl Fn(Request) -> futures::future::Ready<Result<Reply, AgentError>> + Send + Sync + 'static {
    move |request: Request| {
        calls.fetch_add(1, Ordering::SeqCst);
        let chunks: Vec<String> = match request.repair() {
            None => vec![
                format!("Look.<a2ui-json>[{}, ", create()),
                r#"{"version": "v0.9", "updateComponents": {"surfaceId": "s", "components": ["#
                    .to_owned(),
                r#"{"id": "root", "component": "Card", "child": "a"},"#.to_owned(),
                r#"{"id": "a", "component": "Card", "child": "root"}]}}]</a2ui-json>"#.to_owned(),
                "Bye.".to_owned(),
            ],
            Some(repair) => {
                assert!(
                    repair.errors()[0].message.contains("circular reference"),
                    "{:?}",
                    repair.errors()
                );
                vec![
                    r#"<a2ui-json>[{"version": "v0.9", "updateComponents": {"surfaceId": "s", "components": ["#.to_owned(),
                    r#"{"id": "root", "component": "Card", "child": "a"},"#.to_owned(),
                    r#"{"id": "a", "component": "Text", "text": "fixed"}]}}]</a2ui-json>"#.to_owned(),
                ]
            }
        };
        let chunks: Vec<Result<String, AgentError>> = chunks.into_iter().map(Ok).collect();
        futures::future::ready(Ok(Reply::stream(futures::stream::iter(chunks))))
    }
}

async fn ask(policy: OnInvalid, calls: &Arc<AtomicUsize>) -> Answer {
    let server = spawn(
        a2ui_builder(cyclic_agent(calls.clone()))
            .on_invalid(policy)
            .build()
            .unwrap(),
    )
    .await;
    let caps = capabilities(V, &[V.basic_catalog_id()]);
    server
        .exchange(
            "message/stream",
            params(json!([{"kind": "text", "text": "draw"}]), Some(caps), None),
            &[V.extension_uri()],
        )
        .await
}

fn components(messages: &[Value]) -> Vec<Value> {
    messages
        .iter()
        .filter_map(|m| m["updateComponents"]["components"].as_array())
        .flatten()
        .cloned()
        .collect()
}

#[tokio::test]
async fn forward_sends_a_streamed_cycle_as_it_is() {
    let calls = Arc::new(AtomicUsize::new(0));
    let answer = ask(OnInvalid::Forward, &calls).await;
    let last = answer.last();
    assert_eq!(last["status"]["state"], "input-required", "{last}");
    let sent = components(&a2ui_messages(&answer.reply_parts(), V));
    assert!(
        sent.iter().any(|c| c["id"] == "a" && c["child"] == "root"),
        "the cyclic component was not forwarded: {sent:?}"
    );
    assert!(text_of(&answer.reply_parts()).contains("Bye."));
    assert_eq!(calls.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn repair_holds_back_a_streamed_cycle_and_streams_the_corrected_answer() {
    let calls = Arc::new(AtomicUsize::new(0));
    let answer = ask(OnInvalid::Repair, &calls).await;
    let last = answer.last();
    assert_eq!(last["status"]["state"], "input-required", "{last}");
    assert_eq!(calls.load(Ordering::SeqCst), 2);
    let messages = a2ui_messages(&answer.reply_parts(), V);
    let sent = components(&messages);
    assert!(
        !sent.iter().any(|c| c["child"] == "root"),
        "the component closing the cycle reached the client: {sent:?}"
    );
    assert!(sent.iter().any(|c| c["text"] == "fixed"), "{sent:?}");
    // What the client holds draws: one tree, rooted, no cycle.
    Validator::basic(V).check_response(&messages).unwrap();
    // Nothing after the cycle in the first answer went out.
    assert!(!text_of(&answer.reply_parts()).contains("Bye."));
}

#[tokio::test]
async fn fail_fails_the_task_at_a_streamed_cycle() {
    let calls = Arc::new(AtomicUsize::new(0));
    let answer = ask(OnInvalid::Fail, &calls).await;
    let last = answer.last();
    assert_eq!(last["status"]["state"], "failed");
    let reason = text_of(&last["status"]["message"]["parts"]);
    assert!(
        reason.contains("circular reference: a -> root -> a"),
        "{reason}"
    );
    assert_eq!(calls.load(Ordering::SeqCst), 1);
}

/// A stray component (its root cannot reach it) found when its block closes is repaired the
/// same way: the repair turn attaches it.
#[tokio::test]
async fn repair_mends_a_component_the_root_cannot_reach() {
    let calls = Arc::new(AtomicUsize::new(0));
    let counted = calls.clone();
    let agent = move |request: Request| {
        counted.fetch_add(1, Ordering::SeqCst);
        let text = match request.repair() {
            None => format!(
                "<a2ui-json>[{}, {}]</a2ui-json>Later.",
                create(),
                json!({"version": "v0.9", "updateComponents": {"surfaceId": "s", "components": [
                    {"id": "root", "component": "Text", "text": "hi"},
                    {"id": "stray", "component": "Text", "text": "lost"}]}})
            ),
            Some(_) => format!(
                "<a2ui-json>[{}]</a2ui-json>",
                json!({"version": "v0.9", "updateComponents": {"surfaceId": "s", "components": [
                    {"id": "root", "component": "Column", "children": ["stray"]}]}})
            ),
        };
        futures::future::ready(Ok::<_, AgentError>(Reply::stream(futures::stream::iter([
            Ok::<_, AgentError>(text),
        ]))))
    };
    let server = spawn(a2ui_builder(agent).build().unwrap()).await;
    let caps = capabilities(V, &[V.basic_catalog_id()]);
    let answer = server
        .exchange(
            "message/stream",
            params(json!([{"kind": "text", "text": "draw"}]), Some(caps), None),
            &[V.extension_uri()],
        )
        .await;
    assert_eq!(
        answer.last()["status"]["state"],
        "input-required",
        "{}",
        answer.last()
    );
    assert_eq!(calls.load(Ordering::SeqCst), 2);
    let messages = a2ui_messages(&answer.reply_parts(), V);
    Validator::basic(V).check_response(&messages).unwrap();
    assert!(!text_of(&answer.reply_parts()).contains("Later."));
}
