//! The AG-UI binding on a real socket, beside A2A on the same server: threads belong to their
//! caller (an A2A client and an AG-UI client at the same time each see only their own
//! conversation, and reusing another caller's `threadId` never continues it), actions and the
//! client's data model reach the agent's `Request` in every form AG-UI sends them, the client
//! closing the stream cancels the run, authentication and tenants apply, and hostile
//! `RunAgentInput` bodies get a 4xx JSON answer (never a panic, a hang or a 5xx).
#![cfg(feature = "server")]

mod support;

#[allow(dead_code)] // the other helpers serve the interop tests
#[path = "interop/support.rs"]
mod interop;

use std::time::Duration;

use a2ui_agent::agent::{AgentError, Reply};
use a2ui_agent::request::Request;
use a2ui_agent::server::{Principal, TokenTable};
use proptest::prelude::*;
use serde_json::{Value, json};
use support::{TestServer, a2ui_builder, builder, spawn};

/// What one AG-UI request got: the status, and the events (or the error body as one value).
struct Run {
    status: u16,
    content_type: String,
    events: Vec<Value>,
}

impl Run {
    fn types(&self) -> Vec<&str> {
        self.events
            .iter()
            .filter_map(|e| e["type"].as_str())
            .collect()
    }

    /// The text of every `TEXT_MESSAGE_CONTENT`, joined.
    fn text(&self) -> String {
        self.events
            .iter()
            .filter(|e| e["type"] == "TEXT_MESSAGE_CONTENT")
            .filter_map(|e| e["delta"].as_str())
            .collect()
    }
}

/// Posts `body` to `/ag-ui` with `token` (if any); reads the answer to its end.
async fn post(server: &TestServer, token: Option<&str>, body: impl Into<reqwest::Body>) -> Run {
    let mut request = server
        .client
        .post(format!("{}ag-ui", server.url))
        .header("content-type", "application/json")
        .header("accept", "text/event-stream")
        .body(body);
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    let response = tokio::time::timeout(Duration::from_secs(30), request.send())
        .await
        .expect("no answer in time")
        .unwrap();
    let status = response.status().as_u16();
    let content_type = response
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    let text = tokio::time::timeout(Duration::from_secs(30), response.text())
        .await
        .expect("the stream did not end in time")
        .unwrap();
    let events = if content_type.starts_with("text/event-stream") {
        text.lines()
            .filter_map(|line| line.strip_prefix("data: "))
            .map(|json| serde_json::from_str(json).unwrap())
            .collect()
    } else {
        vec![serde_json::from_str(&text).unwrap_or(Value::Null)]
    };
    Run {
        status,
        content_type,
        events,
    }
}

/// The interop tests' echo agent (it repeats the user's earlier texts) with AG-UI on.
async fn echo_server() -> TestServer {
    spawn(
        builder(interop::test_agent)
            .ag_ui("/ag-ui")
            .build()
            .unwrap(),
    )
    .await
}

/// A `RunAgentInput` for `thread` whose newest message is the user's `text`.
fn said(thread: &str, text: &str) -> String {
    json!({"threadId": thread, "runId": support::unique_id(),
        "messages": [{"id": support::unique_id(), "role": "user", "content": text}]})
    .to_string()
}

/// An A2A 1.0 JSON-RPC call with `token`; the response.
async fn a2a(server: &TestServer, token: &str, method: &str, params: Value) -> Value {
    server
        .client
        .post(&server.url)
        .bearer_auth(token)
        .header("A2A-Version", "1.0")
        .json(&json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

/// The text a finished AG-UI run streamed, after checking it ended well.
fn finished(run: &Run) -> String {
    assert_eq!(run.status, 200, "{:?}", run.events);
    let types = run.types();
    assert_eq!(types.first(), Some(&"RUN_STARTED"), "{types:?}");
    assert_eq!(types.last(), Some(&"RUN_FINISHED"), "{:?}", run.events);
    run.text()
}

#[tokio::test]
async fn a2a_and_ag_ui_callers_at_once_each_see_only_their_own_thread() {
    let table = TokenTable::new()
        .with(Principal::new("alice"), "alice-token")
        .with(Principal::new("bob"), "bob-token");
    let server = spawn(
        builder(interop::test_agent)
            .auth_tokens(table)
            .ag_ui("/ag-ui")
            .build()
            .unwrap(),
    )
    .await;
    let thread = "the-same-thread";
    let alice = async {
        let first = finished(&post(&server, Some("alice-token"), said(thread, "hello")).await);
        let second = finished(&post(&server, Some("alice-token"), said(thread, "again")).await);
        (first, second)
    };
    let bob = async {
        let message = json!({"message": {"role": "ROLE_USER", "messageId": "bob-m1",
            "contextId": thread, "parts": [{"text": "bob-1"}]}});
        let sent = a2a(&server, "bob-token", "SendMessage", message).await;
        let over_ag_ui = finished(&post(&server, Some("bob-token"), said(thread, "bob-2")).await);
        (sent.to_string(), over_ag_ui)
    };
    let ((first, second), (sent, over_ag_ui)) = tokio::join!(alice, bob);
    // Each conversation goes on from its own earlier turns, over either binding.
    assert_eq!(first, "echo: hello");
    assert_eq!(second, "echo: again | history: hello");
    assert!(
        sent.contains("echo: bob-1") && !sent.contains("hello"),
        "{sent}"
    );
    assert_eq!(over_ag_ui, "echo: bob-2 | history: bob-1");
    let third = finished(&post(&server, Some("alice-token"), said(thread, "third")).await);
    assert_eq!(third, "echo: third | history: hello / again");
    // Listing the thread over A2A shows each caller only their own tasks.
    let query = json!({"contextId": thread});
    let bobs = a2a(&server, "bob-token", "ListTasks", query.clone()).await;
    let alices = a2a(&server, "alice-token", "ListTasks", query).await;
    let (bobs, alices) = (bobs.to_string(), alices.to_string());
    assert!(bobs.contains("bob-2") && !bobs.contains("hello"), "{bobs}");
    assert!(
        alices.contains("third") && !alices.contains("bob-"),
        "{alices}"
    );
    // Without a token: refused before any stream.
    let anonymous = post(&server, None, said(thread, "let me in")).await;
    assert_eq!(anonymous.status, 401);
}

#[tokio::test]
async fn the_earlier_turns_the_client_sends_are_the_history_of_a_thread_the_server_has_not_kept() {
    let server = echo_server().await;
    let conversation = |thread: &str| {
        json!({"threadId": thread, "runId": support::unique_id(), "messages": [
            {"id": "1", "role": "user", "content": "first"},
            {"id": "2", "role": "assistant", "content": "echo: first"},
            {"id": "3", "role": "user", "content": "second"},
            {"id": "4", "role": "assistant", "content": "echo: second"},
            {"id": "5", "role": "user", "content": "third"}]})
        .to_string()
    };
    // A thread the server never saw (another server's, or one it forgot).
    let fresh = finished(&post(&server, None, conversation("fresh")).await);
    assert_eq!(fresh, "echo: third | history: first / second");
    // A thread it keeps: its own record of the turns, not what the client says they were.
    let kept = finished(&post(&server, None, said("kept", "hello")).await);
    assert_eq!(kept, "echo: hello");
    let next = finished(&post(&server, None, conversation("kept")).await);
    assert_eq!(next, "echo: third | history: hello");
}

/// Says what the agent got: the action, the data model, the A2UI version, the AG-UI extras.
async fn introspect(request: Request) -> Result<Reply, AgentError> {
    let action = request.actions().first().map(|a| {
        json!({"name": a.name, "surface": a.surface_id, "context": a.context,
            "message": a.message})
    });
    let seen = json!({
        "text": request.text(),
        "action": action,
        "dataModel": request.client_data_model(),
        "version": request.a2ui_version().map(|v| v.as_str()),
        "state": request.request_metadata().and_then(|m| m["agUi"].get("state")),
    });
    // Braces in plain text would be read as an A2UI answer: sent as parentheses.
    Ok(Reply::text(
        seen.to_string().replace('{', "(").replace('}', ")"),
    ))
}

async fn seen(server: &TestServer, body: Value) -> Value {
    let run = post(server, None, body.to_string()).await;
    let text = finished(&run).replace('(', "{").replace(')', "}");
    serde_json::from_str(&text).unwrap()
}

#[tokio::test]
async fn actions_the_data_model_and_the_version_reach_the_agents_request() {
    let server = spawn(a2ui_builder(introspect).ag_ui("/ag-ui").build().unwrap()).await;
    let user_action = json!({"name": "book", "surfaceId": "booking",
        "sourceComponentId": "confirm", "context": {"people": 2}});
    // CopilotKit's form: forwardedProps.a2uiAction, with the data model beside it.
    let forwarded = seen(
        &server,
        json!({"threadId": "t1", "runId": "r1", "messages": [],
        "state": {"cart": 1},
        "forwardedProps": {"a2uiAction": {"userAction": user_action},
            "a2uiClientDataModel": {"version": "v0.9", "surfaces": {"booking": {"name": "Ada"}}}}}),
    )
    .await;
    assert_eq!(forwarded["action"]["name"], "book");
    assert_eq!(forwarded["action"]["surface"], "booking");
    assert_eq!(forwarded["action"]["context"]["people"], 2);
    assert_eq!(forwarded["dataModel"]["surfaces"]["booking"]["name"], "Ada");
    assert_eq!(forwarded["version"], "v0.9");
    assert_eq!(forwarded["state"]["cart"], 1);
    // The middleware's form: a log_a2ui_event call and its result at the end of the messages.
    let logged = seen(
        &server,
        json!({"threadId": "t2", "runId": "r2", "messages": [
        {"id": "a", "role": "assistant", "content": "", "toolCalls": [{"id": "c1",
            "type": "function", "function": {"name": "log_a2ui_event",
            "arguments": user_action.to_string()}}]},
        {"id": "b", "role": "tool", "toolCallId": "c1",
            "content": "User performed action \"book\" on surface \"booking\""}]}),
    )
    .await;
    assert_eq!(logged["action"]["name"], "book");
    assert_eq!(logged["action"]["context"]["people"], 2);
    // Another version, asked for in forwardedProps.
    let older = seen(
        &server,
        json!({"threadId": "t3", "runId": "r3",
        "messages": [{"id": "m", "role": "user", "content": "hi"}],
        "forwardedProps": {"a2uiVersion": "v0.8"}}),
    )
    .await;
    assert_eq!(
        (older["version"].clone(), older["text"].clone()),
        (json!("v0.8"), json!("hi"))
    );
    // A v0.8 renderer's action reaches the agent in v0.8's own shape, `userAction`.
    let v08 = seen(
        &server,
        json!({"threadId": "t5", "runId": "r5", "messages": [],
        "forwardedProps": {"a2uiVersion": "v0.8", "a2uiAction": {"userAction": user_action}}}),
    )
    .await;
    assert_eq!(v08["version"], "v0.8", "{v08}");
    assert_eq!(
        v08["action"]["message"]["userAction"]["name"], "book",
        "{v08}"
    );
    assert!(v08["action"]["message"].get("version").is_none(), "{v08}");
    // One the agent does not speak: refused before the stream.
    let refused = post(
        &server,
        None,
        json!({"threadId": "t4", "runId": "r4",
        "messages": [{"id": "m", "role": "user", "content": "hi"}],
        "forwardedProps": {"a2uiVersion": "v7"}})
        .to_string(),
    )
    .await;
    assert_eq!(refused.status, 400);
    let message = refused.events[0]["error"]["message"].as_str().unwrap();
    assert!(message.contains("v0.9, v0.8"), "{message}");
}

#[tokio::test]
async fn the_client_closing_the_stream_cancels_the_run() {
    let server = echo_server().await;
    let mut response = server
        .client
        .post(format!("{}ag-ui", server.url))
        .header("content-type", "application/json")
        .body(said("waiting-thread", "wait for ever"))
        .send()
        .await
        .unwrap();
    let first = response.chunk().await.unwrap().unwrap();
    assert!(String::from_utf8_lossy(&first).contains("RUN_STARTED"));
    drop(response);
    let query = json!({"jsonrpc": "2.0", "id": 1, "method": "ListTasks",
        "params": {"contextId": "waiting-thread"}});
    let mut state = Value::Null;
    for _ in 0..100 {
        let page: Value = server
            .client
            .post(&server.url)
            .header("A2A-Version", "1.0")
            .json(&query)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        state = page["result"]["tasks"][0]["status"]["state"].clone();
        if state == "TASK_STATE_CANCELED" {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the run was not canceled: {state}");
}

#[tokio::test]
async fn tenants_reach_their_own_ag_ui_path_and_no_other() {
    let table = TokenTable::new().with(Principal::new("alice").with_tenant("acme"), "alice-token");
    let server = spawn(
        builder(interop::test_agent)
            .auth_tokens(table)
            .tenants(["acme", "globex"])
            .ag_ui("/ag-ui")
            .build()
            .unwrap(),
    )
    .await;
    let at = |tenant: &str| TestServer::external(format!("{}{tenant}/", server.url));
    let own = post(&at("acme"), Some("alice-token"), said("t", "hi")).await;
    assert_eq!(finished(&own), "echo: hi");
    let other = post(&at("globex"), Some("alice-token"), said("t", "hi")).await;
    assert_eq!(other.status, 404, "{:?}", other.events);
}

#[tokio::test]
async fn a_failed_run_ends_in_run_error_saying_what_a2a_says_and_no_detail() {
    let failing = |request: Request| async move {
        if request.text() == "panic" {
            panic!("secret panic payload");
        }
        Err::<Reply, _>(AgentError::with_detail(
            "The model is unavailable",
            "connect to http://10.1.2.3:8000 refused (key sk-secret)",
        ))
    };
    let server = spawn(builder(failing).ag_ui("/ag-ui").build().unwrap()).await;
    for (text, expected) in [
        ("hi", "The model is unavailable"),
        ("panic", "The agent failed unexpectedly."),
    ] {
        let run = post(&server, None, said(&format!("thread-{text}"), text)).await;
        assert_eq!(run.status, 200);
        assert_eq!(
            run.types(),
            ["RUN_STARTED", "RUN_ERROR"],
            "{:?}",
            run.events
        );
        let message = run.events[1]["message"].as_str().unwrap();
        assert!(message.starts_with(expected), "{message}");
        let all = serde_json::to_string(&run.events).unwrap();
        assert!(
            !all.contains("10.1.2.3")
                && !all.contains("sk-secret")
                && !all.contains("secret panic"),
            "{all}"
        );
    }
}

/// Hostile bodies, each with the status it must get.
fn hostile_bodies() -> Vec<(&'static str, String, u16)> {
    let deep = format!("{}{}", "[".repeat(5000), "]".repeat(5000));
    let many = json!({"threadId": "t", "runId": "r",
        "messages": vec![json!({"id": "m", "role": "user", "content": "x"}); 6000]});
    vec![
        ("empty", String::new(), 400),
        ("not JSON", "not json".into(), 400),
        ("an array", "[]".into(), 400),
        ("no members", "{}".into(), 400),
        (
            "a number as threadId",
            r#"{"threadId":1,"runId":"r","messages":[]}"#.into(),
            400,
        ),
        ("no messages", r#"{"threadId":"t","runId":"r"}"#.into(), 400),
        (
            "no turn",
            r#"{"threadId":"t","runId":"r","messages":[]}"#.into(),
            400,
        ),
        (
            "a repeated key",
            r#"{"threadId":"t","threadId":"u","runId":"r","messages":[]}"#.into(),
            400,
        ),
        ("deep nesting", deep, 400),
        ("too many values", many.to_string(), 400),
        ("a huge threadId", said(&"t".repeat(10_000), "x"), 400),
        (
            "a message as a number",
            r#"{"threadId":"t","runId":"r","messages":[5]}"#.into(),
            400,
        ),
        (
            "a bad action",
            r#"{"threadId":"t","runId":"r","messages":[],"forwardedProps":{"a2uiAction":[]}}"#
                .into(),
            400,
        ),
        (
            "a body over the limit",
            said("t", &"x".repeat(2 * 1024 * 1024)),
            413,
        ),
    ]
}

#[tokio::test]
async fn hostile_bodies_get_a_4xx_json_answer_before_any_stream() {
    let server = echo_server().await;
    for (what, body, status) in hostile_bodies() {
        let run = post(&server, None, body).await;
        assert_eq!(run.status, status, "{what}: {:?}", run.events);
        assert!(
            run.content_type.contains("json"),
            "{what}: {}",
            run.content_type
        );
        assert!(run.events[0].is_object(), "{what}: not JSON");
    }
    // A body that is not JSON by its type.
    let response = server
        .client
        .post(format!("{}ag-ui", server.url))
        .header("content-type", "text/plain")
        .body(said("t", "x"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 415);
}

/// Near-valid `RunAgentInput`s: the members AG-UI defines, filled with anything.
fn near_valid_input() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        "[a-z]{0,8}".prop_map(Value::from),
        Just(json!("user")),
        Just(json!("tool")),
        Just(json!("log_a2ui_event")),
    ];
    let keys = "threadId|runId|messages|role|content|toolCalls|toolCallId|id|function|name|arguments|forwardedProps|a2uiAction|userAction|a2uiVersion|state|context|tools";
    let value = leaf.prop_recursive(4, 48, 5, move |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
            proptest::collection::btree_map(keys, inner, 0..5)
                .prop_map(|map| Value::Object(map.into_iter().collect())),
        ]
    });
    (value.clone(), value, proptest::option::of(Just(()))).prop_map(|(messages, extra, keep)| {
        let mut input = json!({"threadId": "t", "runId": "r", "messages": messages});
        if let (Some(()), Value::Object(extra)) = (keep, extra) {
            input.as_object_mut().unwrap().extend(extra);
        }
        input
    })
}

#[test]
fn any_near_valid_input_gets_a_stream_that_ends_or_a_4xx_json_answer() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let echo = |request: Request| async move { Reply::text(format!("echo: {}", request.text())) };
    let server =
        runtime.block_on(async { spawn(builder(echo).ag_ui("/ag-ui").build().unwrap()).await });
    let config = ProptestConfig {
        cases: 64,
        ..ProptestConfig::default()
    };
    proptest!(config, |(input in near_valid_input())| {
        let run = runtime.block_on(post(&server, None, input.to_string()));
        if run.status == 200 {
            let types = run.types();
            prop_assert_eq!(types.first(), Some(&"RUN_STARTED"));
            let last = types.last().copied().unwrap_or_default();
            prop_assert!(last == "RUN_FINISHED" || last == "RUN_ERROR", "{:?}", types);
        } else {
            prop_assert!((400..500).contains(&run.status), "{}: {:?}", run.status, run.events);
            prop_assert!(run.events[0]["error"]["message"].is_string(), "{:?}", run.events);
        }
    });
}
