//! The repair loop: an A2UI message that does not validate never reaches the client. The
//! scripted model first writes a component the catalog does not have; the server holds that
//! message back and asks again with the protocol's `VALIDATION_FAILED` feedback; the model's
//! second answer is valid and streams on. With repair spent, or the `fail` policy, the task
//! fails saying what did not validate; with `forward` the message goes out as before. A
//! closure agent gets the same turn through `Request::repair`. Under `RepairTurns::Retry` the
//! message is asked again with what was refused, and the rejected answer is not shown.
#![cfg(feature = "llm")]

mod llm_support;
mod support;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use a2ui_agent::a2ui::{ProtocolVersion, Validator};
use a2ui_agent::agent::{AgentError, Reply};
use a2ui_agent::llm::{OpenAiChat, RepairTurns};
use a2ui_agent::pipeline::OnInvalid;
use a2ui_agent::request::Request;
use llm_support::{Answer, MockModel};
use serde_json::{Value, json};
use support::{
    TestServer, a2ui_builder as builder, a2ui_messages, capabilities, params, spawn, text_of,
};

const V: ProtocolVersion = ProtocolVersion::V0_9;

fn model(mock: &MockModel) -> OpenAiChat {
    OpenAiChat::builder(&mock.base_url, "m")
        .idle_timeout(Duration::from_secs(5))
        .build()
        .unwrap()
}

async fn ask(server: &TestServer) -> support::Answer {
    server
        .exchange(
            "message/stream",
            params(
                json!([{"kind": "text", "text": "Show my order"}]),
                Some(capabilities(V, &[V.basic_catalog_id()])),
                None,
            ),
            &[V.extension_uri()],
        )
        .await
}

/// Every message the client received, checked one by one and as a whole.
fn received(answer: &support::Answer) -> Vec<Value> {
    let messages = a2ui_messages(&answer.reply_parts(), V);
    let validator = Validator::basic(V);
    for message in &messages {
        validator.check_message(message).unwrap();
    }
    messages
}

/// The answer of a server whose agent is `agent`, which the task took valid (after its
/// repairs), and every A2UI message the client received, valid as a whole.
async fn repaired(agent: impl a2ui_agent::agent::Agent) -> (support::Answer, Vec<Value>) {
    let server = spawn(builder(agent).build().unwrap()).await;
    let answer = ask(&server).await;
    assert_eq!(
        answer.last()["status"]["state"],
        "input-required",
        "{:?}",
        answer.last()
    );
    let messages = received(&answer);
    Validator::basic(V).check_response(&messages).unwrap();
    (answer, messages)
}

fn shows_marquee(messages: &[Value]) -> bool {
    messages.iter().any(|m| m.to_string().contains("Marquee"))
}

#[tokio::test]
async fn an_invalid_component_is_held_back_and_the_model_repairs_it() {
    let mock = MockModel::start(vec![
        Answer::fixture("invalid_v0_9.sse"),
        Answer::fixture("repaired_v0_9.sse"),
    ])
    .await;
    let (answer, messages) = repaired(model(&mock)).await;
    assert!(!shows_marquee(&messages), "{messages:?}");
    let text = text_of(&answer.reply_parts());
    assert!(
        text.starts_with("Here is your order:") && text.ends_with("Fixed."),
        "{text}"
    );
    // Two model calls; the second holds the rejected answer and the feedback.
    let requests = mock.requests();
    assert_eq!(requests.len(), 2);
    let first = requests[0]["messages"].as_array().unwrap();
    let second = requests[1]["messages"].as_array().unwrap();
    assert_eq!(second.len(), first.len() + 2);
    assert_eq!(second[..first.len()], first[..]);
    let rejected = &second[first.len()];
    assert_eq!(rejected["role"], "assistant");
    assert!(
        rejected["content"]
            .as_str()
            .unwrap()
            .contains("\"Marquee\"")
    );
    let feedback = second[first.len() + 1]["content"].as_str().unwrap();
    let error: Value =
        serde_json::from_str(feedback.lines().find(|line| line.starts_with('{')).unwrap()).unwrap();
    assert_eq!(error["version"], "v0.9");
    assert_eq!(error["error"]["code"], "VALIDATION_FAILED");
    assert_eq!(error["error"]["surfaceId"], "order");
    assert!(
        error["error"]["message"]
            .as_str()
            .unwrap()
            .contains("Marquee"),
        "{error}"
    );
}

#[tokio::test]
async fn with_repair_exhausted_the_task_fails_and_says_why() {
    let mock = MockModel::start(vec![Answer::fixture("invalid_v0_9.sse")]).await;
    let server = spawn(builder(model(&mock)).max_repairs(2).build().unwrap()).await;
    let answer = ask(&server).await;
    assert!(!shows_marquee(&received(&answer)));
    let last = answer.last();
    assert_eq!(last["status"]["state"], "failed");
    let reason = last["status"]["message"]["parts"][0]["text"]
        .as_str()
        .unwrap();
    assert!(
        reason.contains("after 2 repair turns") && reason.contains("Marquee"),
        "{reason}"
    );
    assert_eq!(mock.requests().len(), 3);
}

#[tokio::test]
async fn repair_turns_are_asked_at_their_own_temperature() {
    let mock = MockModel::start(vec![Answer::fixture("invalid_v0_9.sse")]).await;
    let chat = OpenAiChat::builder(&mock.base_url, "m")
        .temperature(0.0)
        .repair_temperature(0.7)
        .build()
        .unwrap();
    let server = spawn(builder(chat).max_repairs(2).build().unwrap()).await;
    let answer = ask(&server).await;
    assert_eq!(answer.last()["status"]["state"], "failed");
    let temperatures: Vec<f64> = mock
        .requests()
        .iter()
        .map(|request| request["temperature"].as_f64().unwrap())
        .collect();
    assert_eq!(temperatures.len(), 3);
    assert_eq!(temperatures[0], 0.0);
    assert!(
        temperatures[1..].iter().all(|t| (t - 0.7).abs() < 1e-6),
        "{temperatures:?}"
    );
}

#[tokio::test]
async fn a_retry_asks_the_message_again_without_the_rejected_answer() {
    let mock = MockModel::start(vec![Answer::fixture("invalid_v0_9.sse")]).await;
    let chat = OpenAiChat::builder(&mock.base_url, "m")
        .repair_turns(RepairTurns::Retry)
        .build()
        .unwrap();
    let server = spawn(builder(chat).max_repairs(2).build().unwrap()).await;
    let answer = ask(&server).await;
    assert_eq!(answer.last()["status"]["state"], "failed");
    let requests = mock.requests();
    assert_eq!(requests.len(), 3);
    let asked = |request: &Value| -> Vec<(String, String)> {
        request["messages"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|m| m["role"] != "system")
            .map(|m| {
                let text = m["content"].as_str().unwrap_or_default().to_owned();
                (m["role"].as_str().unwrap().to_owned(), text)
            })
            .collect()
    };
    let first = asked(&requests[0]);
    assert_eq!(first.len(), 1);
    for (turn, request) in requests[1..].iter().enumerate() {
        // One user turn: the message, then one note per refusal so far, and no answer.
        let again = asked(request);
        assert_eq!(again.len(), 1, "{again:?}");
        let (role, text) = &again[0];
        assert_eq!(role, "user");
        assert!(text.starts_with(&first[0].1), "{text}");
        assert_eq!(
            text.matches("(An earlier answer to this was refused")
                .count(),
            turn + 1
        );
        assert!(text.contains("Marquee"), "{text}");
    }
}

#[tokio::test]
async fn the_fail_policy_fails_at_the_first_invalid_message() {
    let mock = MockModel::start(vec![Answer::fixture("invalid_v0_9.sse")]).await;
    let server = spawn(
        builder(model(&mock))
            .on_invalid(OnInvalid::Fail)
            .build()
            .unwrap(),
    )
    .await;
    let answer = ask(&server).await;
    assert!(!shows_marquee(&received(&answer)));
    assert_eq!(answer.last()["status"]["state"], "failed");
    let reason = answer.last()["status"]["message"]["parts"][0]["text"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        reason.starts_with("The agent's A2UI did not validate") && reason.contains("Marquee"),
        "{reason}"
    );
    assert_eq!(mock.requests().len(), 1);
}

#[tokio::test]
async fn the_forward_policy_sends_the_message_as_before() {
    let mock = MockModel::start(vec![Answer::fixture("invalid_v0_9.sse")]).await;
    let server = spawn(
        builder(model(&mock))
            .on_invalid(OnInvalid::Forward)
            .build()
            .unwrap(),
    )
    .await;
    let answer = ask(&server).await;
    assert_eq!(answer.last()["status"]["state"], "input-required");
    assert!(shows_marquee(&a2ui_messages(&answer.reply_parts(), V)));
    assert_eq!(mock.requests().len(), 1);
}

/// A closure agent: a surface whose root names a child it never writes (a tree problem,
/// found at the end of the reply), then, on the repair turn, the missing component.
#[tokio::test]
async fn a_closure_agent_completes_its_tree_on_the_repair_turn() {
    let calls = Arc::new(AtomicUsize::new(0));
    let seen = calls.clone();
    let agent = move |request: Request| {
        let calls = seen.clone();
        async move {
            calls.fetch_add(1, Ordering::SeqCst);
            let Some(repair) = request.repair() else {
                let block = json!([
                    {"version": "v0.9", "createSurface": {"surfaceId": "s", "catalogId": V.basic_catalog_id()}},
                    {"version": "v0.9", "updateComponents": {"surfaceId": "s", "components": [
                        {"id": "root", "component": "Column", "children": ["missing"]}]}}
                ]);
                return Ok::<_, AgentError>(Reply::text(format!(
                    "Hi<a2ui-json>{block}</a2ui-json>"
                )));
            };
            assert_eq!(request.repairs().len(), 1);
            assert!(repair.answer().starts_with("Hi<a2ui-json>"));
            let feedback = &repair.feedback()[0]["error"];
            assert_eq!(feedback["code"], "VALIDATION_FAILED");
            assert!(
                feedback["message"].as_str().unwrap().contains("missing"),
                "{feedback}"
            );
            let block = json!([{"version": "v0.9", "updateComponents": {"surfaceId": "s", "components": [
                {"id": "missing", "component": "Text", "text": "found"}]}}]);
            Ok(Reply::text(format!("<a2ui-json>{block}</a2ui-json>")))
        }
    };
    let (_, messages) = repaired(agent).await;
    assert_eq!(calls.load(Ordering::SeqCst), 2);
    assert!(messages.iter().any(|m| m.to_string().contains("found")));
}

/// A small model's repair turn often drops the tags and writes the messages bare: they are
/// read, validated and sent as A2UI, never shown to the user as JSON text.
#[tokio::test]
async fn a_repair_written_bare_without_the_tags_is_read_as_a2ui() {
    let agent = move |request: Request| async move {
        let surface = json!({"version": "v0.9", "createSurface": {"surfaceId": "s", "catalogId": V.basic_catalog_id()}});
        let Some(_) = request.repair() else {
            let block = json!([surface, {"version": "v0.9", "updateComponents": {"surfaceId": "s",
                "components": [{"id": "root", "component": "Marquee", "text": "Hi"}]}}]);
            return Ok::<_, AgentError>(Reply::text(format!("<a2ui-json>{block}</a2ui-json>")));
        };
        let bare = json!([{"version": "v0.9", "updateComponents": {"surfaceId": "s",
            "components": [{"id": "root", "component": "Text", "text": "Fixed"}]}}]);
        Ok(Reply::text(format!("\n{bare:#}\n")))
    };
    let (answer, messages) = repaired(agent).await;
    assert!(messages.iter().any(|m| m.to_string().contains("Fixed")));
    let text = text_of(&answer.reply_parts());
    assert!(!text.contains("updateComponents"), "shown as text: {text}");
}

/// `message/send` reads the reply whole at the end: the same check holds before the result
/// is returned.
#[tokio::test]
async fn a_blocking_send_is_repaired_before_its_result_is_returned() {
    let mock = MockModel::start(vec![
        Answer::fixture("invalid_v0_9.sse"),
        Answer::fixture("repaired_v0_9.sse"),
    ])
    .await;
    let server = spawn(builder(model(&mock)).build().unwrap()).await;
    let answer = server
        .exchange(
            "message/send",
            params(
                json!([{"kind": "text", "text": "Show my order"}]),
                Some(capabilities(V, &[V.basic_catalog_id()])),
                None,
            ),
            &[V.extension_uri()],
        )
        .await;
    assert_eq!(answer.last()["status"]["state"], "input-required");
    let messages = received(&answer);
    assert!(!shows_marquee(&messages), "{messages:?}");
    Validator::basic(V).check_response(&messages).unwrap();
    assert_eq!(mock.requests().len(), 2);
}
