//! A2UI over A2A end to end on a real socket (reqwest): negotiation, streamed DataParts that
//! validate, the echoed extension header, user actions coming back, and failures.

mod support;

#[path = "../src/bin/a2ui-agent/demo.rs"]
mod demo;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use a2ui_agent::a2ui::{ProtocolVersion, Validator};
use a2ui_agent::agent::{AgentError, Reply};
use a2ui_agent::format::{FormatReader, OutputFormat};
use a2ui_agent::generator::Generator;
use a2ui_agent::parser::{ParseError, ParsedPart, ParserConfig};
use a2ui_agent::pipeline::OnInvalid;
use a2ui_agent::request::Request;
use demo::{DemoConfig, RestaurantFinder};
use serde_json::{Value, json};
use support::*;

fn demo() -> RestaurantFinder {
    RestaurantFinder::new(DemoConfig::default().without_delays())
}

const VERSIONS: [ProtocolVersion; 2] = [ProtocolVersion::V0_8, ProtocolVersion::V0_9];

#[tokio::test]
async fn a_stream_with_the_extension_and_capabilities_gives_valid_data_parts_per_version() {
    let server = spawn(a2ui_builder(demo()).build().unwrap()).await;
    for version in VERSIONS {
        let answer = server
            .ask("message/stream", version, "Dinner for two?")
            .await;
        assert_eq!(
            answer.extensions_header.as_deref(),
            Some(version.extension_uri())
        );
        assert_eq!(answer.events[0]["result"]["kind"], "task");
        let working = answer.working_messages();
        assert!(working.len() > 3, "{version}: {} updates", working.len());
        let mut messages = Vec::new();
        for message in &working {
            messages.extend(a2ui_messages(&message["parts"], version));
        }
        assert!(messages.len() >= 2, "{version}: {messages:?}");
        let validator = Validator::basic(version);
        validator
            .check_response(&messages)
            .unwrap_or_else(|e| panic!("{version}: {e:?}"));
        let last = answer.last();
        assert_eq!(last["final"], true);
        assert_eq!(last["status"]["state"], "input-required");
        // The updates together hold every part: the text runs whole and each message once.
        let parts = &answer.reply_parts();
        let text = text_of(parts);
        assert!(text.starts_with("Here are three restaurants"), "{text}");
        assert!(!text.contains("<a2ui-json>"), "{text}");
    }
}

#[tokio::test]
async fn working_updates_carry_new_parts_only_and_no_component_twice() {
    let server = spawn(a2ui_builder(demo()).build().unwrap()).await;
    let version = ProtocolVersion::V0_9;
    let answer = server.ask("message/stream", version, "hi").await;
    let working = answer.working_messages();
    let mut ids = Vec::new();
    for message in &working {
        let parts = message["parts"].as_array().unwrap();
        assert!(!parts.is_empty(), "an update without parts was sent");
        for data in a2ui_messages(&message["parts"], version) {
            if let Some(components) = data["updateComponents"]["components"].as_array() {
                ids.extend(
                    components
                        .iter()
                        .map(|c| c["id"].as_str().unwrap().to_owned()),
                );
            }
        }
    }
    let count = ids.len();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), count, "a component was sent twice");
    assert!(count > 10, "{count} components");
}

#[tokio::test]
async fn message_send_answers_with_text_and_one_data_part_per_message() {
    let server = spawn(a2ui_builder(demo()).build().unwrap()).await;
    let version = ProtocolVersion::V0_9;
    let answer = server.ask("message/send", version, "hi").await;
    assert_eq!(
        answer.extensions_header.as_deref(),
        Some(version.extension_uri())
    );
    let task = answer.last();
    assert_eq!(task["status"]["state"], "input-required");
    let parts = task["status"]["message"]["parts"].as_array().unwrap();
    let kinds: Vec<&str> = parts.iter().map(|p| p["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds.first(), Some(&"text"));
    assert_eq!(kinds.last(), Some(&"text"));
    let messages = a2ui_messages(&task["status"]["message"]["parts"], version);
    assert_eq!(messages.len(), kinds.len() - 2);
    assert!(
        messages[0].get("createSurface").is_some(),
        "{:?}",
        messages[0]
    );
    Validator::basic(version).check_response(&messages).unwrap();
}

#[tokio::test]
async fn a_continuation_carrying_a_user_action_reaches_the_agent_as_an_action() {
    let server = spawn(a2ui_builder(demo()).build().unwrap()).await;
    for version in VERSIONS {
        let caps = capabilities(version, &[version.basic_catalog_id()]);
        let first = server
            .exchange(
                "message/stream",
                params(
                    json!([{"kind": "text", "text": "hi"}]),
                    Some(caps.clone()),
                    None,
                ),
                &[version.extension_uri()],
            )
            .await;
        let task_id = first.last()["taskId"].as_str().unwrap().to_owned();
        let body = json!({"name": "book", "surfaceId": "booking", "sourceComponentId": "confirm",
            "timestamp": "2026-01-01T00:00:00Z", "context": {"restaurant": "Casa Verde",
            "name": "Grace", "partySize": "3", "time": "21:00"}});
        let data = match version {
            ProtocolVersion::V0_8 => json!({"userAction": body}),
            _ => json!({"version": "v0.9", "action": body}),
        };
        let part = json!({"kind": "data", "data": data,
            "metadata": {"mimeType": version.mime_type()}});
        let second = server
            .exchange(
                "message/stream",
                params(json!([part]), Some(caps), Some(&task_id)),
                &[version.extension_uri()],
            )
            .await;
        let last = second.last();
        assert_eq!(last["taskId"], task_id.as_str());
        assert_eq!(last["status"]["state"], "input-required");
        let messages = a2ui_messages(&second.reply_parts(), version);
        let shown: String = messages.iter().map(Value::to_string).collect();
        assert!(
            shown.contains("Grace at Casa Verde, 3 people, 21:00"),
            "{version}: {shown}"
        );
        Validator::basic(version).check_response(&messages).unwrap();
    }
}

#[tokio::test]
async fn actions_are_read_from_every_envelope_clients_use() {
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let record = seen.clone();
    let agent = move |request: Request| {
        let names: Vec<String> = request.actions().iter().map(|a| a.name.clone()).collect();
        record.lock().unwrap().push(names);
        async { Ok::<_, AgentError>(Reply::text("ok")) }
    };
    let server = spawn(a2ui_builder(agent).build().unwrap()).await;
    let action = json!({"version": "v0.9", "action": {"name": "go", "surfaceId": "s",
        "sourceComponentId": "b", "timestamp": "2026-01-01T00:00:00Z", "context": {}}});
    let envelopes = [
        json!({"kind": "data", "data": action, "metadata": {"mimeType": "application/json+a2ui"}}),
        json!({"kind": "data", "data": action, "metadata": {"mimeType": "application/a2ui+json"}}),
        json!({"kind": "data", "data": action, "mimeType": "application/json+a2ui"}),
        json!({"kind": "data", "data": {"messages": [action]}}),
    ];
    for envelope in envelopes {
        server
            .exchange("message/send", params(json!([envelope]), None, None), &[])
            .await;
    }
    assert_eq!(*seen.lock().unwrap(), vec![vec!["go".to_owned()]; 4]);
}

#[tokio::test]
async fn capabilities_naming_an_unknown_catalog_fail_the_task_and_the_agent_is_not_called() {
    let calls = Arc::new(AtomicUsize::new(0));
    let counter = calls.clone();
    let agent = move |_request: Request| {
        counter.fetch_add(1, Ordering::SeqCst);
        async { Ok::<_, AgentError>(Reply::text("should not run")) }
    };
    let server = spawn(a2ui_builder(agent).build().unwrap()).await;
    let version = ProtocolVersion::V0_9;
    let caps = capabilities(version, &["https://example.com/unknown/catalog.json"]);
    for method in ["message/stream", "message/send"] {
        let answer = server
            .exchange(
                method,
                params(
                    json!([{"kind": "text", "text": "hi"}]),
                    Some(caps.clone()),
                    None,
                ),
                &[version.extension_uri()],
            )
            .await;
        let last = answer.last();
        assert_eq!(last["status"]["state"], "failed", "{method}");
        let reason = text_of(&last["status"]["message"]["parts"]);
        assert!(
            reason.contains("https://example.com/unknown/catalog.json"),
            "{method}: {reason}"
        );
        assert!(reason.contains(version.basic_catalog_id()), "{reason}");
    }
    assert_eq!(calls.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn a_malformed_block_mid_stream_fails_its_task_and_the_server_serves_the_next_one() {
    let agent = |request: Request| async move {
        let text = if request.text() == "break" {
            "Here:\n<a2ui-json>[{\"version\": \"v0.9\", \"deleteSurface\": {\"surfaceId\": }}]</a2ui-json>\nnever".to_owned()
        } else {
            "Fine.".to_owned()
        };
        let chunks: Vec<Result<String, AgentError>> = text
            .as_bytes()
            .chunks(5)
            .map(|c| Ok(String::from_utf8_lossy(c).into_owned()))
            .collect();
        Ok::<_, AgentError>(Reply::stream(futures::stream::iter(chunks)))
    };
    let server = spawn(a2ui_builder(agent).build().unwrap()).await;
    let version = ProtocolVersion::V0_9;
    let caps = capabilities(version, &[version.basic_catalog_id()]);
    let broken = server
        .exchange(
            "message/stream",
            params(
                json!([{"kind": "text", "text": "break"}]),
                Some(caps.clone()),
                None,
            ),
            &[version.extension_uri()],
        )
        .await;
    let last = broken.last();
    assert_eq!(last["status"]["state"], "failed");
    let reason = text_of(&last["status"]["message"]["parts"]);
    assert!(reason.contains("cannot be read"), "{reason}");
    assert!(!reason.contains("never"), "{reason}");
    let next = server
        .exchange(
            "message/stream",
            params(json!([{"kind": "text", "text": "ok"}]), Some(caps), None),
            &[version.extension_uri()],
        )
        .await;
    assert_eq!(next.last()["status"]["state"], "input-required");
    assert_eq!(text_of(&next.reply_parts()), "Fine.");
}

#[tokio::test]
async fn a_cycle_fails_the_stream_as_soon_as_it_closes_and_nothing_after_it_is_sent() {
    let agent = |_request: Request| async move {
        let chunks = [
            "<a2ui-json>[{\"version\": \"v0.9\", \"updateComponents\": {\"surfaceId\": \"s\", \"components\": [",
            "{\"id\": \"root\", \"component\": \"Card\", \"child\": \"a\"},",
            "{\"id\": \"a\", \"component\": \"Card\", \"child\": \"root\"},",
            "{\"id\": \"after\", \"component\": \"Text\", \"text\": \"never\"}]}}]</a2ui-json>",
        ];
        let chunks: Vec<Result<String, AgentError>> =
            chunks.iter().map(|c| Ok((*c).to_owned())).collect();
        Ok::<_, AgentError>(Reply::stream(futures::stream::iter(chunks)))
    };
    // The `fail` policy (`repair`, the default, would ask again; see
    // a2ui_tree_problems_follow_on_invalid.rs).
    let server = spawn(
        a2ui_builder(agent)
            .on_invalid(OnInvalid::Fail)
            .build()
            .unwrap(),
    )
    .await;
    let version = ProtocolVersion::V0_9;
    let answer = server.ask("message/stream", version, "draw").await;
    let last = answer.last();
    assert_eq!(last["status"]["state"], "failed");
    let reason = text_of(&last["status"]["message"]["parts"]);
    assert!(
        reason.contains("circular reference: a -> root -> a"),
        "{reason}"
    );
    let sent = a2ui_messages(&answer.reply_parts(), version);
    assert!(
        sent.iter().all(|m| !m.to_string().contains("never")),
        "a component after the cycle was sent: {sent:?}"
    );
}

#[tokio::test]
async fn an_orphan_fails_the_stream_when_its_block_closes_before_the_text_after_it() {
    let agent = |_request: Request| async move {
        let create = json!({"version": "v0.9", "createSurface": {"surfaceId": "s",
            "catalogId": ProtocolVersion::V0_9.basic_catalog_id()}});
        let chunks = [
            format!("Here.<a2ui-json>[{create}, "),
            "{\"version\": \"v0.9\", \"updateComponents\": {\"surfaceId\": \"s\", \"components\": [\
             {\"id\": \"root\", \"component\": \"Text\", \"text\": \"hi\"},\
             {\"id\": \"stray\", \"component\": \"Text\", \"text\": \"lost\"}]}}]"
                .to_owned(),
            "</a2ui-json>".to_owned(),
            "Later text.".to_owned(),
            "<a2ui-json>[{\"version\": \"v0.9\", \"updateComponents\": {\"surfaceId\": \"s\", \"components\": [\
             {\"id\": \"root\", \"component\": \"Column\", \"children\": [\"stray\"]}]}}]</a2ui-json>"
                .to_owned(),
        ];
        // Every chunk is there at once, so the server reads them as one: the text before the
        // broken block must still go out before the task fails.
        let chunks: Vec<Result<String, AgentError>> = chunks.into_iter().map(Ok).collect();
        Ok::<_, AgentError>(Reply::stream(futures::stream::iter(chunks)))
    };
    // The `fail` policy (`repair`, the default, would ask again; see
    // a2ui_tree_problems_follow_on_invalid.rs).
    let server = spawn(
        a2ui_builder(agent)
            .on_invalid(OnInvalid::Fail)
            .build()
            .unwrap(),
    )
    .await;
    let version = ProtocolVersion::V0_9;
    let caps = capabilities(version, &[version.basic_catalog_id()]);
    let answer = server
        .exchange(
            "message/stream",
            params(json!([{"kind": "text", "text": "draw"}]), Some(caps), None),
            &[version.extension_uri()],
        )
        .await;
    let last = answer.last();
    assert_eq!(last["status"]["state"], "failed");
    let reason = text_of(&last["status"]["message"]["parts"]);
    assert!(
        reason.contains("component 'stray' is not reachable from the root 'root'"),
        "{reason}"
    );
    let sent = text_of(&answer.reply_parts());
    assert!(sent.contains("Here."), "{sent}");
    assert!(
        !sent.contains("Later text."),
        "text after the block was sent: {sent}"
    );
}

#[tokio::test]
async fn message_send_answers_unparseable_output_as_text() {
    let text = "Look:\n<a2ui-json>[{\"version\": \"v0.9\", oops</a2ui-json>\nDone.";
    let agent = move |_request: Request| async move { Ok::<_, AgentError>(Reply::text(text)) };
    let server = spawn(a2ui_builder(agent).build().unwrap()).await;
    let version = ProtocolVersion::V0_9;
    let answer = server.ask("message/send", version, "hi").await;
    let task = answer.last();
    assert_eq!(task["status"]["state"], "input-required");
    assert_eq!(
        task["status"]["message"]["parts"],
        json!([{"kind": "text", "text": text}])
    );
}

#[tokio::test]
async fn without_the_extension_or_capabilities_the_reply_is_plain_text() {
    let server = spawn(a2ui_builder(demo()).build().unwrap()).await;
    let answer = server
        .exchange(
            "message/stream",
            params(json!([{"kind": "text", "text": "hi"}]), None, None),
            &[],
        )
        .await;
    assert_eq!(answer.extensions_header, None);
    let last = answer.last();
    assert_eq!(last["status"]["state"], "input-required");
    let parts = answer.reply_parts();
    let parts = parts.as_array().unwrap();
    assert!(parts.iter().all(|p| p["kind"] == "text"));
    assert!(text_of(&answer.reply_parts()).contains("Trattoria Alba"));
}

#[tokio::test]
async fn capabilities_without_the_header_activate_their_version_and_it_is_echoed() {
    let server = spawn(a2ui_builder(demo()).build().unwrap()).await;
    for version in VERSIONS {
        let caps = capabilities(version, &[version.basic_catalog_id()]);
        // Inside a DataPart's data.metadata, as some clients send them.
        let part = json!({"kind": "data", "data": {"metadata": {"a2uiClientCapabilities": caps}}});
        let answer = server
            .exchange(
                "message/stream",
                params(json!([{"kind": "text", "text": "hi"}, part]), None, None),
                &[],
            )
            .await;
        assert_eq!(
            answer.extensions_header.as_deref(),
            Some(version.extension_uri())
        );
        let parts = &answer.reply_parts();
        assert!(!a2ui_messages(parts, version).is_empty());
    }
}

#[tokio::test]
async fn the_newest_requested_version_wins_and_default_capabilities_fill_in() {
    let server = spawn(
        a2ui_builder(demo())
            .default_capabilities(json!({"v0.9": {"supportedCatalogIds": [
                ProtocolVersion::V0_9.basic_catalog_id()]}}))
            .build()
            .unwrap(),
    )
    .await;
    let answer = server
        .exchange(
            "message/stream",
            params(json!([{"kind": "text", "text": "hi"}]), None, None),
            &[
                ProtocolVersion::V0_8.extension_uri(),
                ProtocolVersion::V0_9.extension_uri(),
            ],
        )
        .await;
    assert_eq!(
        answer.extensions_header.as_deref(),
        Some(ProtocolVersion::V0_9.extension_uri())
    );
    let parts = &answer.reply_parts();
    assert!(!a2ui_messages(parts, ProtocolVersion::V0_9).is_empty());
}

#[tokio::test]
async fn the_card_advertises_one_a2ui_extension_per_generator() {
    let server = spawn(a2ui_builder(demo()).build().unwrap()).await;
    let card = server.card().await;
    assert_eq!(card["capabilities"]["streaming"], true);
    let extensions = card["capabilities"]["extensions"].as_array().unwrap();
    let uris: Vec<&str> = extensions
        .iter()
        .map(|e| e["uri"].as_str().unwrap())
        .collect();
    assert_eq!(
        uris,
        [
            ProtocolVersion::V0_9.extension_uri(),
            ProtocolVersion::V0_8.extension_uri()
        ]
    );
    for (extension, version) in extensions
        .iter()
        .zip([ProtocolVersion::V0_9, ProtocolVersion::V0_8])
    {
        assert_eq!(extension["required"], false);
        assert!(
            extension["description"]
                .as_str()
                .is_some_and(|d| !d.is_empty())
        );
        assert_eq!(
            extension["params"]["supportedCatalogIds"],
            json!([version.basic_catalog_id()])
        );
        assert_eq!(extension["params"]["acceptsInlineCatalogs"], false);
    }
}

/// A format that can only read a finished response.
struct WholeOnly;

struct WholeReader(String);

impl FormatReader for WholeReader {
    fn feed(&mut self, chunk: &str) -> Vec<ParsedPart> {
        self.0.push_str(chunk);
        Vec::new()
    }
    fn error(&self) -> Option<&ParseError> {
        None
    }
    fn finish(self: Box<Self>) -> Result<Vec<ParsedPart>, ParseError> {
        a2ui_agent::parser::parse(&self.0)
    }
}

impl OutputFormat for WholeOnly {
    fn name(&self) -> &str {
        "whole-only"
    }
    fn instructions(&self) -> String {
        "Answer with text and one <a2ui-json> block.".into()
    }
    fn streams(&self) -> bool {
        false
    }
    fn reader(&self, _config: ParserConfig) -> Box<dyn FormatReader> {
        Box::new(WholeReader(String::new()))
    }
}

#[tokio::test]
async fn a_finish_only_format_sends_one_working_update_with_every_part_at_the_end() {
    let generator = Generator::builder(ProtocolVersion::V0_9)
        .format(WholeOnly)
        .build()
        .unwrap();
    let server = spawn(
        a2ui_agent::server::A2uiServer::builder(
            a2ui_agent::a2a::card::AgentCard::builder("whole").build(),
            demo(),
        )
        .generator(generator)
        .build()
        .unwrap(),
    )
    .await;
    let version = ProtocolVersion::V0_9;
    let answer = server.ask("message/stream", version, "hi").await;
    let working = answer.working_messages();
    assert_eq!(working.len(), 1);
    let parts = &working[0]["parts"];
    assert!(text_of(parts).starts_with("Here are three restaurants"));
    assert!(a2ui_messages(parts, version).len() >= 2);
}
