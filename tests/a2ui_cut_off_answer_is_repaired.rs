//! An answer cut off inside an A2UI message (a model stopped by its token limit,
//! `finish_reason: "length"`, the `<a2ui-json>` block never closed) is not a failed task:
//! the server asks the agent again, telling it the answer was cut off, and the task ends
//! `input-required` with the surface the second answer completes. Under `--on-invalid fail`, or once the
//! repairs run out, the task fails saying the A2UI cannot be read. A block that cannot be read
//! (an invalid escape in a string) gets a repair turn naming the parse error the same way.

mod support;

use std::fs;
use std::path::Path;
use std::sync::{Arc, Mutex};

use a2ui_agent::a2ui::ProtocolVersion;
use a2ui_agent::agent::{AgentError, Reply};
use a2ui_agent::pipeline::OnInvalid;
use a2ui_agent::request::Request;
use serde_json::json;
use support::*;

/// An answer cut inside a Text's string, as the 0.5B model's under a small `max_tokens`
/// (`tests/real_model/written/cut_at_max_tokens.txt`, with the catalog id it got wrong
/// put right).
fn cut() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/real_model/written/cut_at_max_tokens.txt");
    let written = fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    written.replace(
        "https://a2ui.org/specification/v0_9/basic_catalog.json",
        ProtocolVersion::V0_9.basic_catalog_id(),
    )
}

const COMPLETE: &str = r#"<a2ui-json>[{"version": "v0.9", "updateComponents": {"surfaceId": "order", "components": [{"id": "t1", "component": "Text", "text": "Order 1234"}, {"id": "t2", "component": "Text", "text": "2 pizzas"}]}}]</a2ui-json>"#;

/// An agent that answers `cut()` until it is told the answer was cut off (or always, with
/// `stubborn`), in chunks of `size` bytes; it keeps the repair prompts it was sent.
fn agent(
    stubborn: bool,
    size: usize,
    prompts: Arc<Mutex<Vec<String>>>,
) -> impl Fn(Request) -> futures::future::Ready<Result<Reply, AgentError>> + Send + Sync + 'static {
    move |request: Request| {
        let repair = request.repair();
        if let Some(repair) = repair {
            assert!(repair.is_cut_off(), "{repair:?}");
            assert!(repair.errors().is_empty());
            prompts.lock().unwrap().push(repair.prompt());
        }
        let text = if repair.is_none() || stubborn {
            cut()
        } else {
            COMPLETE.to_owned()
        };
        let chunks: Vec<Result<String, AgentError>> = text
            .as_bytes()
            .chunks(size)
            .map(|c| Ok(String::from_utf8_lossy(c).into_owned()))
            .collect();
        futures::future::ready(Ok(Reply::stream(futures::stream::iter(chunks))))
    }
}

async fn ask(server: &TestServer) -> Answer {
    let version = ProtocolVersion::V0_9;
    let caps = capabilities(version, &[version.basic_catalog_id()]);
    server
        .exchange(
            "message/stream",
            params(
                json!([{"kind": "text", "text": "my order"}]),
                Some(caps),
                None,
            ),
            &[version.extension_uri()],
        )
        .await
}

#[tokio::test]
async fn a_cut_off_answer_gets_a_repair_turn_that_says_so_and_the_surface_completes() {
    for size in [7, 64, 4096] {
        let prompts = Arc::new(Mutex::new(Vec::new()));
        let server = spawn(
            a2ui_builder(agent(false, size, prompts.clone()))
                .build()
                .unwrap(),
        )
        .await;
        let answer = ask(&server).await;
        let last = answer.last();
        assert_eq!(
            last["status"]["state"], "input-required",
            "chunks of {size}: {last:#}"
        );
        let prompts = prompts.lock().unwrap().clone();
        assert_eq!(prompts.len(), 1);
        assert!(prompts[0].contains("cut off"), "{}", prompts[0]);
        let messages = a2ui_messages(&answer.reply_parts(), ProtocolVersion::V0_9);
        let texts: Vec<&str> = messages
            .iter()
            .filter_map(|m| m["updateComponents"]["components"].as_array())
            .flatten()
            .filter_map(|c| c["text"].as_str())
            .collect();
        assert!(
            texts.contains(&"Order 1234") && texts.contains(&"2 pizzas"),
            "{texts:?}"
        );
        assert!(
            messages.iter().any(|m| m.get("createSurface").is_some()),
            "the surface created before the cut stays: {messages:#?}"
        );
    }
}

#[tokio::test]
async fn a_cut_off_answer_fails_when_the_policy_does_not_repair_or_the_repairs_run_out() {
    let prompts = Arc::new(Mutex::new(Vec::new()));
    let server = spawn(
        a2ui_builder(agent(false, 16, prompts.clone()))
            .on_invalid(OnInvalid::Fail)
            .build()
            .unwrap(),
    )
    .await;
    let last = ask(&server).await.last().clone();
    assert_eq!(last["status"]["state"], "failed");
    assert!(text_of(&last["status"]["message"]["parts"]).contains("cannot be read"));
    assert!(prompts.lock().unwrap().is_empty());

    let server = spawn(
        a2ui_builder(agent(true, 16, prompts.clone()))
            .max_repairs(2)
            .build()
            .unwrap(),
    )
    .await;
    let last = ask(&server).await.last().clone();
    assert_eq!(last["status"]["state"], "failed");
    let reason = text_of(&last["status"]["message"]["parts"]);
    assert!(
        reason.contains("still cut off after 2 repair turns"),
        "{reason}"
    );
    assert_eq!(prompts.lock().unwrap().len(), 2);
}

#[tokio::test]
async fn a_block_that_cannot_be_read_gets_a_repair_turn_that_names_the_error() {
    // A regular expression with `\.` inside a JSON string: an invalid escape (seen from the
    // 1.5B model), so the block cannot be read.
    let broken =
        r#"<a2ui-json>[{"version": "v0.9", "deleteSurface": {"surfaceId": "a\.b"}}]</a2ui-json>"#;
    let fixed =
        r#"<a2ui-json>[{"version": "v0.9", "deleteSurface": {"surfaceId": "a.b"}}]</a2ui-json>"#;
    let prompts = Arc::new(Mutex::new(Vec::new()));
    let seen = prompts.clone();
    let agent = move |request: Request| {
        let text = match request.repair() {
            None => broken,
            Some(repair) => {
                assert!(repair.is_unreadable() && !repair.is_cut_off());
                seen.lock().unwrap().push(repair.prompt());
                fixed
            }
        };
        futures::future::ready(Ok::<_, AgentError>(Reply::text(text)))
    };
    let server = spawn(a2ui_builder(agent).build().unwrap()).await;
    let last = ask(&server).await.last().clone();
    assert_eq!(last["status"]["state"], "input-required", "{last:#}");
    let prompts = prompts.lock().unwrap().clone();
    assert_eq!(prompts.len(), 1);
    assert!(prompts[0].contains("could not be read"), "{}", prompts[0]);
}
