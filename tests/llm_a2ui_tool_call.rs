//! A2UI through a tool call: the model is offered `send_a2ui`, whose argument schema is
//! the negotiated catalog's message schema, and the arguments it streams are drawn through
//! the server's one parser. A scripted OpenAI-compatible server on a real socket plays the
//! shapes providers stream: arguments cut mid-escape and (on the wire) mid-UTF-8, whole in
//! one delta, sent as a JSON object, two calls in one answer, a call refused and repaired
//! through the tool's result, a component drawn while the arguments still stream, and
//! hostile arguments that end the task with a clear error.
#![cfg(feature = "llm")]

mod llm_support;
mod support;

use std::time::Duration;

use a2ui_agent::a2ui::{ProtocolVersion, Validator};
use a2ui_agent::format::ToolCallFormat;
use a2ui_agent::generator::Generator;
use a2ui_agent::llm::{A2uiVia, OpenAiChat};
use a2ui_agent::server::ServerBuilder;
use llm_support::{Answer, MockModel, call, sse, text};
use serde_json::{Value, json};
use support::{TestServer, a2ui_messages, capabilities, params, spawn, text_of};

const V: ProtocolVersion = ProtocolVersion::V0_9;
const CATALOG: &str = "https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json";
/// A title with escapes and characters of two, three and four UTF-8 bytes.
const TITLE: &str = "Caf\u{e9} \"\u{c7}a\" \u{20ac} \u{1f35c}";

fn model(mock: &MockModel) -> OpenAiChat {
    OpenAiChat::builder(&mock.base_url, "m")
        .idle_timeout(Duration::from_secs(5))
        .a2ui_via(A2uiVia::ToolCall)
        .build()
        .unwrap()
}

fn server(mock: &MockModel) -> ServerBuilder {
    let generator = Generator::builder(V)
        .format(ToolCallFormat)
        .build()
        .unwrap();
    support::builder(model(mock)).generator(generator)
}

async fn ask(server: &TestServer) -> support::Answer {
    server.ask("message/stream", V, "Show my order").await
}

/// The messages of a surface `id` titled `title`, with a `kind` component under it.
fn surface(id: &str, title: &str, kind: &str) -> Vec<Value> {
    vec![
        json!({"version": "v0.9", "createSurface": {"surfaceId": id, "catalogId": CATALOG}}),
        json!({"version": "v0.9", "updateComponents": {"surfaceId": id, "components": [
            {"id": "root", "component": "Column", "children": ["title", "details"]},
            {"id": "title", "component": "Text", "text": title, "variant": "h2"},
            {"id": "details", "component": kind, "text": "2 pizzas at 19:30"}]}}),
    ]
}

/// The arguments' JSON text for `messages`.
fn arguments(messages: &[Value]) -> String {
    json!({"messages": messages}).to_string()
}

/// A call of `send_a2ui` whose arguments stream in pieces of `size` characters.
fn streamed_call(index: usize, id: &str, arguments: &str, size: usize) -> Vec<Value> {
    let chars: Vec<char> = arguments.chars().collect();
    let mut deltas = vec![call(index, Some(id), Some("send_a2ui"), "")];
    for piece in chars.chunks(size) {
        deltas.push(call(index, None, None, &piece.iter().collect::<String>()));
    }
    deltas
}

/// Every `$ref` in `schema`.
fn references_in(schema: &Value, out: &mut Vec<String>) {
    match schema {
        Value::Object(map) => {
            for (key, value) in map {
                match (key.as_str(), value) {
                    ("$ref", Value::String(reference)) => out.push(reference.clone()),
                    _ => references_in(value, out),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|item| references_in(item, out)),
        _ => {}
    }
}

/// The task ended waiting for the user, with every A2UI message valid.
fn drawn(answer: &support::Answer) -> Vec<Value> {
    assert_eq!(
        answer.last()["status"]["state"],
        "input-required",
        "{:?}",
        answer.last()
    );
    let messages = a2ui_messages(&answer.reply_parts(), V);
    Validator::basic(V).check_response(&messages).unwrap();
    messages
}

/// The components the client holds for `surface`, by id, the last version of each.
fn components(messages: &[Value], surface: &str) -> serde_json::Map<String, Value> {
    let mut out = serde_json::Map::new();
    for message in messages {
        let update = &message["updateComponents"];
        if update["surfaceId"] != surface {
            continue;
        }
        for component in update["components"].as_array().into_iter().flatten() {
            out.insert(
                component["id"].as_str().unwrap().to_owned(),
                component.clone(),
            );
        }
    }
    out
}

#[tokio::test]
async fn arguments_cut_mid_escape_and_mid_utf8_draw_the_surface_and_text_stays_text() {
    let wanted = surface("order", TITLE, "Text");
    let arguments = arguments(&wanted);
    // Pieces of three characters: some end just after a backslash of `\"`.
    let mut deltas = vec![text("Here is your order.")];
    deltas.extend(streamed_call(0, "call_1", &arguments, 3));
    let body = sse(&deltas, "tool_calls");
    // The wire cut every 5 bytes, and once right inside the first 4-byte character.
    let bytes = body.into_bytes();
    let inside = bytes
        .windows(4)
        .position(|w| w == "\u{1f35c}".as_bytes())
        .unwrap()
        + 2;
    let mut chunks = vec![bytes[..inside].to_vec()];
    chunks.extend(bytes[inside..].chunks(5).map(<[u8]>::to_vec));
    let mock = MockModel::start(vec![Answer::Raw { chunks }]).await;
    let server = spawn(server(&mock).build().unwrap()).await;
    let answer = ask(&server).await;
    let messages = drawn(&answer);
    let held = components(&messages, "order");
    assert_eq!(held["title"]["text"], TITLE);
    assert_eq!(held.len(), 3, "{held:?}");
    assert_eq!(text_of(&answer.reply_parts()), "Here is your order.");
    // One request: the call drew, and a drawing call alone ends the reply.
    let requests = mock.requests();
    assert_eq!(requests.len(), 1);
    let tool = &requests[0]["tools"][0]["function"];
    assert_eq!(tool["name"], "send_a2ui");
    let mut references = Vec::new();
    references_in(&tool["parameters"], &mut references);
    assert!(!references.is_empty());
    for reference in references {
        assert!(
            reference.starts_with("#/$defs/"),
            "{reference} is not self-contained"
        );
    }
    assert!(
        tool["parameters"]["$defs"]
            .as_object()
            .is_some_and(|defs| !defs.is_empty())
    );
    let prompt = requests[0]["messages"][0]["content"].as_str().unwrap();
    assert!(prompt.contains("send_a2ui") && !prompt.contains("<a2ui-json>"));
}

#[tokio::test]
async fn the_offered_schema_accepts_what_validates_and_refuses_an_unknown_component() {
    let mock = MockModel::start(vec![Answer::Sse {
        body: sse(&[text("Hi.")], "stop"),
        pause: Duration::ZERO,
    }])
    .await;
    let server = spawn(server(&mock).build().unwrap()).await;
    ask(&server).await;
    let parameters = mock.requests()[0]["tools"][0]["function"]["parameters"].clone();
    let schema = jsonschema::validator_for(&parameters).unwrap();
    assert!(schema.is_valid(&json!({"messages": surface("s", "Hi", "Text")})));
    assert!(!schema.is_valid(&json!({"messages": surface("s", "Hi", "Marquee")})));
    assert!(!schema.is_valid(&json!({"surface": 1})));
}

#[tokio::test]
async fn whole_arguments_in_one_delta_draw() {
    let wanted = surface("order", "Your order", "Text");
    let deltas = [call(0, Some("c"), Some("send_a2ui"), &arguments(&wanted))];
    let mock = MockModel::start(vec![Answer::Sse {
        body: sse(&deltas, "tool_calls"),
        pause: Duration::ZERO,
    }])
    .await;
    let server = spawn(server(&mock).build().unwrap()).await;
    let messages = drawn(&ask(&server).await);
    assert_eq!(components(&messages, "order").len(), 3);
}

#[tokio::test]
async fn arguments_sent_as_a_json_object_draw() {
    let wanted = surface("order", "Your order", "Text");
    let delta = json!({"tool_calls": [{"index": 0, "id": "c", "type": "function",
        "function": {"name": "send_a2ui", "arguments": {"messages": wanted}}}]});
    let mock = MockModel::start(vec![Answer::Sse {
        body: sse(&[delta], "tool_calls"),
        pause: Duration::ZERO,
    }])
    .await;
    let server = spawn(server(&mock).build().unwrap()).await;
    let messages = drawn(&ask(&server).await);
    assert_eq!(
        components(&messages, "order")["title"]["text"],
        "Your order"
    );
}

#[tokio::test]
async fn two_calls_in_one_answer_draw_both_surfaces_in_order() {
    let mut deltas = streamed_call(0, "a", &arguments(&surface("first", "One", "Text")), 7);
    deltas.extend(streamed_call(
        1,
        "b",
        &arguments(&surface("second", "Two", "Text")),
        7,
    ));
    deltas.push(text("Both are drawn."));
    let mock = MockModel::start(vec![Answer::Sse {
        body: sse(&deltas, "tool_calls"),
        pause: Duration::ZERO,
    }])
    .await;
    let server = spawn(server(&mock).build().unwrap()).await;
    let answer = ask(&server).await;
    let messages = drawn(&answer);
    let surfaces: Vec<&str> = messages
        .iter()
        .filter_map(|m| m["createSurface"]["surfaceId"].as_str())
        .collect();
    assert_eq!(surfaces, ["first", "second"]);
    assert_eq!(components(&messages, "second")["title"]["text"], "Two");
    assert_eq!(text_of(&answer.reply_parts()), "Both are drawn.");
}

#[tokio::test]
async fn a_refused_call_is_answered_as_the_tools_result_and_the_model_repairs_it() {
    let refused = streamed_call(
        0,
        "call_bad",
        &arguments(&surface("order", "Order", "Marquee")),
        11,
    );
    let repaired = streamed_call(
        0,
        "call_good",
        &arguments(&surface("order", "Order", "Text")),
        11,
    );
    let mock = MockModel::start(vec![
        Answer::Sse {
            body: sse(&refused, "tool_calls"),
            pause: Duration::ZERO,
        },
        Answer::Sse {
            body: sse(&repaired, "tool_calls"),
            pause: Duration::ZERO,
        },
    ])
    .await;
    let server = spawn(server(&mock).build().unwrap()).await;
    let messages = drawn(&ask(&server).await);
    assert!(
        !messages.iter().any(|m| m.to_string().contains("Marquee")),
        "{messages:?}"
    );
    assert_eq!(
        components(&messages, "order")["details"]["component"],
        "Text"
    );
    let requests = mock.requests();
    assert_eq!(requests.len(), 2);
    let second = requests[1]["messages"].as_array().unwrap();
    let [.., asked, answered] = second.as_slice() else {
        panic!("{second:?}")
    };
    assert_eq!(asked["role"], "assistant");
    assert_eq!(asked["tool_calls"][0]["function"]["name"], "send_a2ui");
    let id = asked["tool_calls"][0]["id"].as_str().unwrap();
    let called = asked["tool_calls"][0]["function"]["arguments"]
        .as_str()
        .unwrap();
    serde_json::from_str::<Value>(called).expect("the arguments given back are JSON");
    assert!(called.contains("Marquee"), "{called}");
    assert_eq!(
        (answered["role"].as_str(), answered["tool_call_id"].as_str()),
        (Some("tool"), Some(id))
    );
    let result = answered["content"].as_str().unwrap();
    assert!(
        result.contains("VALIDATION_FAILED") && result.contains("Marquee"),
        "{result}"
    );
}

#[tokio::test]
async fn a_component_reaches_the_client_before_the_arguments_finish() {
    // Written in the order a model writes (`version` and `surfaceId` first), so that the
    // message still arriving validates once its first components are there.
    let arguments = format!(
        r#"{{"messages": [{{"version": "v0.9", "createSurface": {{"surfaceId": "order", "catalogId": "{CATALOG}"}}}},
        {{"version": "v0.9", "updateComponents": {{"surfaceId": "order", "components": [
        {{"id": "root", "component": "Column", "children": ["title", "details"]}},
        {{"id": "title", "component": "Text", "text": "Your order", "variant": "h2"}},
        {{"id": "details", "component": "Text", "text": "2 pizzas at 19:30"}}]}}}}]}}"#
    );
    serde_json::from_str::<Value>(&arguments).unwrap();
    // The arguments stop (and the model goes silent) just before the last component.
    let cut = arguments.find(r#"{"id": "details""#).unwrap();
    let mut deltas = vec![text("Here:")];
    deltas.extend(streamed_call(0, "c", &arguments[..cut], 9));
    let prefix: String = sse(&deltas, "tool_calls")
        .split_inclusive("\n\n")
        .take(deltas.len() + 1)
        .collect();
    let mock = MockModel::start(vec![Answer::Hang { prefix }]).await;
    let server = spawn(server(&mock).build().unwrap()).await;
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "message/stream", "params": params(
        json!([{"kind": "text", "text": "Show my order"}]),
        Some(capabilities(V, &[V.basic_catalog_id()])), None)});
    let response = reqwest::Client::new()
        .post(&server.url)
        .header("X-A2A-Extensions", V.extension_uri())
        .json(&body)
        .send()
        .await
        .unwrap();
    let mut events = support::SseReader::new(response);
    let title = async {
        while let Some(event) = events.next_event().await {
            let parts = &event["result"]["status"]["message"]["parts"];
            for part in parts.as_array().into_iter().flatten() {
                if part["data"]["updateComponents"]
                    .to_string()
                    .contains("Your order")
                {
                    return Some(event["result"]["taskId"].as_str().map(str::to_owned));
                }
            }
        }
        None
    };
    let task = tokio::time::timeout(Duration::from_secs(20), title)
        .await
        .expect("the title was not drawn while the arguments streamed")
        .expect("the stream ended without the title");
    assert_eq!(mock.dropped(), 0, "the model was still writing");
    if let Some(task) = task {
        server.result("tasks/cancel", json!({"id": task})).await;
    }
}

/// The task the hostile `arguments` end in, with its reason.
async fn hostile(arguments: &str) -> (String, String) {
    let deltas = streamed_call(0, "c", arguments, 4096);
    let mock = MockModel::start(vec![Answer::Sse {
        body: sse(&deltas, "tool_calls"),
        pause: Duration::ZERO,
    }])
    .await;
    let server = spawn(server(&mock).max_repairs(1).build().unwrap()).await;
    let answer = ask(&server).await;
    let last = answer.last();
    let reason = text_of(&last["status"]["message"]["parts"]);
    (
        last["status"]["state"]
            .as_str()
            .unwrap_or_default()
            .to_owned(),
        reason,
    )
}

#[tokio::test]
async fn hostile_arguments_end_the_task_with_a_clear_error() {
    let deep = format!(
        "{{\"messages\": {}{}}}",
        "[".repeat(10_000),
        "]".repeat(10_000)
    );
    let huge = arguments(&surface("s", &"x".repeat(400 * 1024), "Text"));
    for (name, arguments) in [
        ("not JSON", "hello, I am not JSON".to_owned()),
        ("deep", deep),
        ("huge", huge),
        ("no messages", "{\"surface\": {}}".to_owned()),
    ] {
        let (state, reason) = hostile(&arguments).await;
        assert_eq!(state, "failed", "{name}: {reason}");
        assert!(
            !reason.is_empty() && reason.len() < 4096,
            "{name}: {reason}"
        );
    }
}
