//! A real model behind a real OpenAI-compatible server: llama.cpp's own HTTP server (the
//! `xllamacpp` wheel) with Qwen2.5-Coder-0.5B-Instruct, both installed into
//! `.cache/real-model/` by `scripts/install-real-model.sh`. One server, one thread, short
//! prompts, one test that walks through every check in turn (so one model loads once):
//!
//! 1. the raw wire: SSE `data:` framing, a `finish_reason`, the usage chunk, `[DONE]`;
//! 2. the connector streams the real answer to its end;
//! 3. dropping the connector's stream stops the generation on the server (its slot is idle
//!    again long before the answer asked for could have been written);
//! 4. the tool loop: the model calls a tool (written as fenced JSON by this model), reads its
//!    result and answers;
//! 5. the Python A2A client asks `a2ui-agent serve --model-url <the model>` (v0.8, the basic
//!    catalog pruned to Text and Column) for a small UI: every A2UI part it receives
//!    validates, and the task ends `input-required` or `completed`, or `failed` naming the
//!    validation errors once the repairs ran out;
//! 6. the grammar: the server reads the basic catalogs' Express grammars (and refuses a
//!    broken grammar), and `serve --format express --grammar` gets an answer sampled under
//!    it that reads and names only what the pruned catalog has;
//! 7. one turn over AG-UI (`serve --ag-ui`, Express under its grammar): the run starts and
//!    finishes (or fails naming the validation errors), and every A2UI message of its
//!    surface activities validates.
//!
//! 8. one turn over MCP (`serve --mcp`, Express under its grammar): `initialize`, then a
//!    `tools/call` of the agent's tool declaring A2UI v0.9 in `_meta`: the result is the
//!    reply (or a tool error naming the validation errors), and every A2UI message of its
//!    `application/a2ui+json` resource validates.
//!
//! Skipped with a message when the model is not installed, unless
//! `A2UI_REQUIRE_REAL_MODEL=1` (set by `scripts/test.sh`). It prints how long each step took.
#![cfg(feature = "cli")]

mod mcp_client;
mod support;

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use a2ui_agent::a2ui::{ProtocolVersion, Validator};
use a2ui_agent::agent::ReplyEvent;
use a2ui_agent::format::express::Express;
use a2ui_agent::generator::Generator;
use a2ui_agent::llm::{ChatMessage, LlmError, OpenAiChat, Tool, ToolRecord};
use futures::StreamExt;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};

const ALIAS: &str = "qwen2.5-coder-0.5b-instruct";

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The installed server's Python and the model file, or `None` (skipped) when absent.
fn installed() -> Option<(PathBuf, PathBuf)> {
    let dir = std::env::var_os("A2UI_REAL_MODEL_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join(".cache/real-model"));
    let python = dir.join("venv/bin/python");
    let gguf = dir.join(format!("{ALIAS}.gguf"));
    if python.exists() && gguf.exists() {
        return Some((python, gguf));
    }
    let why = format!(
        "the real model is not installed in {} (run scripts/install-real-model.sh)",
        dir.display()
    );
    if std::env::var("A2UI_REQUIRE_REAL_MODEL").as_deref() == Ok("1") {
        panic!("{why}");
    }
    eprintln!("skipped: {why}");
    None
}

/// The model server; killed when dropped.
struct ModelServer {
    _child: tokio::process::Child,
    base_url: String,
    root: String,
}

async fn start_model(python: &Path, gguf: &Path) -> ModelServer {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut child = tokio::process::Command::new(python)
        .arg(root().join("tests/real_model/serve.py"))
        .args([
            gguf.to_str().unwrap(),
            ALIAS,
            &port.to_string(),
            "1",
            "8192",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let ready = tokio::time::timeout(Duration::from_secs(120), async {
        while let Some(line) = lines.next_line().await.unwrap() {
            if let Some(url) = line.strip_prefix("ready ") {
                return url.to_owned();
            }
        }
        panic!("the model server exited before it was ready");
    })
    .await
    .expect("the model server was not ready within 120 s");
    let root = ready.trim_end_matches("/v1").to_owned();
    ModelServer {
        _child: child,
        base_url: ready,
        root,
    }
}

/// Whether the server's one slot is generating (`GET /slots`).
async fn processing(http: &reqwest::Client, server: &ModelServer) -> bool {
    let slots: Value = http
        .get(format!("{}/slots", server.root))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    slots[0]["is_processing"] == true
}

/// Step 1: What the real server sends, byte for byte.
async fn the_wire(http: &reqwest::Client, server: &ModelServer) {
    let body = json!({"model": ALIAS, "stream": true, "stream_options": {"include_usage": true},
        "max_tokens": 12, "messages": [{"role": "user", "content": "Say hello."}]});
    let response = http
        .post(format!("{}/chat/completions", server.base_url))
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert!(
        response.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/event-stream")
    );
    let text = response.text().await.unwrap();
    let events: Vec<&str> = text
        .split("\n\n")
        .filter(|e| !e.trim().is_empty())
        .collect();
    assert!(
        events.iter().all(|event| event.starts_with("data: ")),
        "{text}"
    );
    assert_eq!(events.last(), Some(&"data: [DONE]"), "{text}");
    let chunks: Vec<Value> = events[..events.len() - 1]
        .iter()
        .map(|event| serde_json::from_str(&event["data: ".len()..]).unwrap())
        .collect();
    assert_eq!(chunks[0]["choices"][0]["delta"]["role"], "assistant");
    let finish: Vec<&Value> = chunks
        .iter()
        .filter_map(|c| c["choices"][0].get("finish_reason"))
        .filter(|r| !r.is_null())
        .collect();
    assert_eq!(finish.len(), 1, "{text}");
    assert!(finish[0] == "stop" || finish[0] == "length", "{text}");
    let usage = chunks.last().unwrap();
    assert_eq!(
        usage["choices"],
        json!([]),
        "the usage chunk comes last: {text}"
    );
    assert!(usage["usage"]["completion_tokens"].as_u64().unwrap() > 0);
    assert!(usage["usage"]["prompt_tokens"].as_u64().unwrap() > 0);
}

/// Step 2: The connector reads the same to its end.
async fn the_connector(server: &ModelServer) {
    let chat = OpenAiChat::builder(&server.base_url, ALIAS)
        .max_tokens(24)
        .temperature(0.0)
        .build()
        .unwrap();
    let mut stream = Box::pin(
        chat.stream(&[ChatMessage::user("Name three colours.")])
            .await
            .unwrap(),
    );
    let mut deltas = Vec::new();
    while let Some(delta) = stream.next().await {
        deltas.push(delta.expect("the real stream failed"));
    }
    assert!(deltas.len() > 3, "{deltas:?}");
    assert!(!deltas.concat().trim().is_empty());
    eprintln!("the connector read: {:?}", deltas.concat());
}

/// Step 3: A dropped stream stops the generation.
async fn the_cancel(http: &reqwest::Client, server: &ModelServer) {
    let chat = OpenAiChat::builder(&server.base_url, ALIAS)
        .max_tokens(2000)
        .build()
        .unwrap();
    let messages = [ChatMessage::user(
        "Write a very long story about a lighthouse keeper, at least 1500 words.",
    )];
    let mut stream = Box::pin(chat.stream(&messages).await.unwrap());
    for _ in 0..3 {
        stream.next().await.unwrap().unwrap();
    }
    assert!(processing(http, server).await, "the model is not writing");
    drop(stream);
    // 2000 tokens at ~15 per second would keep the slot busy for minutes.
    let mut stopped = false;
    for _ in 0..100 {
        if !processing(http, server).await {
            stopped = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(
        stopped,
        "the server kept generating after the stream was dropped"
    );
}

/// Step 4: The tool loop with the real model: it asks for the search, reads the result and
/// answers. (The 0.5B model writes the call as fenced JSON; the connector runs it.)
async fn the_tools(server: &ModelServer) {
    let asked = Arc::new(Mutex::new(Vec::<Value>::new()));
    let search = {
        let asked = asked.clone();
        Tool::new(
            "search_restaurants",
            "Search restaurants by cuisine and city",
            json!({"type": "object", "properties": {"cuisine": {"type": "string"},
                "city": {"type": "string"}}, "required": ["cuisine"]}),
            move |arguments: Value| {
                asked.lock().unwrap().push(arguments);
                async { Ok(json!({"restaurants": [{"name": "Baan Thai", "rating": 4.6}]})) }
            },
        )
    };
    let chat = OpenAiChat::builder(&server.base_url, ALIAS)
        .max_tokens(60)
        .temperature(0.0)
        .tool(search)
        .max_tool_rounds(1)
        .build()
        .unwrap();
    let mut stream =
        Box::pin(chat.reply(vec![ChatMessage::user("Find Thai restaurants in Paris.")]));
    let mut text = String::new();
    let mut records = Vec::new();
    while let Some(chunk) = stream.next().await {
        match chunk {
            Ok(ReplyEvent::Text(piece)) => text.push_str(&piece),
            Ok(ReplyEvent::Part(part)) => records.extend(ToolRecord::from_part(&part)),
            Ok(_) => {}
            // A model that calls again after its one round is told so; it did call.
            Err(LlmError::ToolRounds(_)) => break,
            Err(error) => panic!("the tool loop failed: {error}"),
        }
    }
    let asked = asked.lock().unwrap().clone();
    eprintln!("the real model called the tool with {asked:?}, then wrote {text:?}");
    assert_eq!(asked.len(), 1, "the model did not call the tool: {text:?}");
    assert!(
        asked[0]["cuisine"]
            .as_str()
            .unwrap_or_default()
            .eq_ignore_ascii_case("thai"),
        "{asked:?}"
    );
    assert_eq!(records.len(), 1);
}

/// What the Python client saw of one streamed turn.
struct Turn {
    /// The task's final state, e.g. `TASK_STATE_INPUT_REQUIRED`.
    state: String,
    /// The final status message's text.
    text: String,
    /// The text the `working` updates streamed before it.
    streamed: String,
    /// The A2UI messages of the `working` updates.
    messages: Vec<Value>,
}

/// The Python client's one streamed turn against `serve --model-url <the model>` with
/// `args`, in `version`, where each A2UI message received passes the basic catalog on its
/// own (the repair loop holds back any that does not). `None` when the client is not
/// installed and not required.
async fn python_turn(
    server: &ModelServer,
    version: ProtocolVersion,
    args: &[&str],
) -> Option<Turn> {
    let python = root().join(".venv/bin/python");
    if !python.exists() {
        assert!(
            std::env::var("A2UI_REQUIRE_INTEROP").as_deref() != Ok("1"),
            "the Python a2a-sdk client is not installed in .venv"
        );
        eprintln!("skipped the Python client: .venv is absent");
        return None;
    }
    let mut all = vec!["--model-url", &server.base_url, "--model", ALIAS];
    all.extend_from_slice(args);
    let (_serve, url) =
        support::spawn_binary(support::serve_command(&all), Duration::from_secs(30)).await;
    let output = tokio::process::Command::new(&python)
        .args(["a2ui_e2e.py", &url, "turn", version.as_str()])
        .current_dir(root().join("tests/interop"))
        .env("A2UI_SCENARIO_DEADLINE_S", "240")
        .stdin(Stdio::null())
        .kill_on_drop(true)
        .output();
    let output = tokio::time::timeout(Duration::from_secs(260), output)
        .await
        .expect("the Python client ran over 260 s")
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "the client failed: {}\n{stdout}",
        String::from_utf8_lossy(&output.stderr)
    );
    let seen: Value = serde_json::from_str(stdout.trim()).unwrap();
    let mut messages = Vec::new();
    for update in seen["updates"].as_array().unwrap() {
        for part in update.as_array().unwrap() {
            assert_eq!(part["mimeType"], version.mime_type(), "{part}");
            messages.push(part["data"].clone());
        }
    }
    let validator = Validator::basic(version);
    for message in &messages {
        if let Err(errors) = validator.check_message(message) {
            panic!("the client received an invalid A2UI message {message}: {errors:?}");
        }
    }
    let turn = Turn {
        state: seen["state"].as_str().unwrap().to_owned(),
        text: seen["text"].as_str().unwrap_or_default().to_owned(),
        streamed: seen["streamed"].as_str().unwrap_or_default().to_owned(),
        messages,
    };
    eprintln!(
        "the real model's turn streamed {:?} and {} A2UI message(s), then ended {} with {:?}",
        turn.streamed,
        turn.messages.len(),
        turn.state,
        turn.text
    );
    Some(turn)
}

/// Step 5: The Python client, `serve --model-url`, and the A2UI that comes back.
async fn the_python_client(server: &ModelServer) {
    let args = [
        "--components",
        "Text,Column",
        "--max-tokens",
        "300",
        "--max-repairs",
        "1",
    ];
    let Some(Turn { state, text, .. }) = python_turn(server, ProtocolVersion::V0_8, &args).await
    else {
        return;
    };
    match state.as_str() {
        "TASK_STATE_INPUT_REQUIRED" | "TASK_STATE_COMPLETED" => {}
        "TASK_STATE_FAILED" => assert!(
            text.contains("repair") || text.contains("A2UI"),
            "a failure names the validation errors: {text}"
        ),
        other => panic!("the task ended {other}: {text}"),
    }
}

/// Step 6: The grammar. The server parses the whole basic catalog's grammar (and refuses a
/// broken one, so a 200 means it read it), and `serve --format express --grammar` gets an
/// answer from it that reads: whatever the task's end, nothing the grammar rules out (an
/// unreadable block, a component or property the catalog lacks) is what stopped it.
async fn the_grammar(http: &reqwest::Client, server: &ModelServer) {
    let status = |grammar: String| {
        let body = json!({"model": ALIAS, "max_tokens": 1, "grammar": grammar,
            "messages": [{"role": "user", "content": "Hi."}]});
        let request = http
            .post(format!("{}/chat/completions", server.base_url))
            .json(&body)
            .send();
        async move { request.await.unwrap().status() }
    };
    assert_eq!(status("root ::= undefined-rule".into()).await, 400);
    for version in [ProtocolVersion::V0_9, ProtocolVersion::V1_0] {
        let processor = Generator::built_in(version)
            .negotiate_with_format(None, Express::new())
            .unwrap();
        let grammar = processor.grammar().unwrap().to_owned();
        assert_eq!(status(grammar).await, 200, "{version}'s grammar");
    }
    let args = [
        "--format",
        "express",
        "--grammar",
        "--components",
        "Text,Column,Card,Button",
        "--max-tokens",
        "200",
        "--max-repairs",
        "1",
    ];
    let Some(turn) = python_turn(server, ProtocolVersion::V0_9, &args).await else {
        return;
    };
    let text = &turn.text;
    let ruled_out = [
        "cannot read",
        "unexpected character",
        "is not in catalog",
        "has no property",
        "given twice",
        "ends inside",
    ];
    assert!(
        !ruled_out.iter().any(|r| text.contains(r)),
        "the grammar rules this out: {text}"
    );
    if turn.state != "TASK_STATE_FAILED" {
        let said = !turn.streamed.trim().is_empty() || !text.trim().is_empty();
        assert!(said || !turn.messages.is_empty(), "an empty answer");
    }
}

/// Step 7: One turn over AG-UI: a `RunAgentInput` to `serve --ag-ui --model-url`, read as
/// the SSE of AG-UI events it is.
async fn the_ag_ui_turn(http: &reqwest::Client, server: &ModelServer) {
    let args = [
        "--model-url",
        &server.base_url,
        "--model",
        ALIAS,
        "--ag-ui",
        "--format",
        "express",
        "--grammar",
        "--components",
        "Text,Column",
        "--max-tokens",
        "200",
        "--max-repairs",
        "1",
    ];
    let (_serve, url) =
        support::spawn_binary(support::serve_command(&args), Duration::from_secs(30)).await;
    let input = json!({"threadId": "real-model", "runId": "run-1", "tools": [], "context": [],
        "messages": [{"id": "m1", "role": "user", "content": "Show a greeting card."}]});
    let response = http
        .post(format!("{url}ag-ui"))
        .header("accept", "text/event-stream")
        .json(&input)
        .timeout(Duration::from_secs(300))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let body = response.text().await.unwrap();
    let events: Vec<Value> = body
        .split("\n\n")
        .filter_map(|frame| frame.strip_prefix("data: "))
        .map(|data| serde_json::from_str(data).unwrap())
        .collect();
    let types: Vec<&str> = events.iter().filter_map(|e| e["type"].as_str()).collect();
    assert_eq!(types.first(), Some(&"RUN_STARTED"), "{types:?}");
    let last = events.last().unwrap();
    match last["type"].as_str() {
        Some("RUN_FINISHED") => {}
        Some("RUN_ERROR") => {
            let message = last["message"].as_str().unwrap_or_default();
            assert!(
                message.contains("repair") || message.contains("A2UI"),
                "a failure names the validation errors: {message}"
            );
        }
        other => panic!("the run ended with {other:?}: {types:?}"),
    }
    let validator = Validator::basic(ProtocolVersion::V0_9);
    let mut messages = 0;
    for event in &events {
        let sent: Vec<&Value> = match event["type"].as_str() {
            Some("ACTIVITY_SNAPSHOT") => event["content"]["a2ui_operations"]
                .as_array()
                .unwrap()
                .iter()
                .collect(),
            Some("ACTIVITY_DELTA") => event["patch"]
                .as_array()
                .unwrap()
                .iter()
                .map(|op| &op["value"])
                .collect(),
            _ => continue,
        };
        for message in sent {
            messages += 1;
            if let Err(errors) = validator.check_message(message) {
                panic!("an invalid A2UI message over AG-UI {message}: {errors:?}");
            }
        }
    }
    eprintln!(
        "over AG-UI the real model's turn sent {} events, {messages} A2UI message(s), ending {}",
        events.len(),
        last["type"]
    );
}

/// Step 8: One turn over MCP: `tools/call` of the agent's tool on `serve --mcp --model-url`,
/// the A2UI messages of its result validated.
async fn the_mcp_turn(server: &ModelServer) {
    let args = [
        "--model-url",
        &server.base_url,
        "--model",
        ALIAS,
        "--mcp",
        "--format",
        "express",
        "--grammar",
        "--components",
        "Text,Column",
        "--max-tokens",
        "200",
        "--max-repairs",
        "1",
    ];
    let (_serve, url) =
        support::spawn_binary(support::serve_command(&args), Duration::from_secs(30)).await;
    let mut client = mcp_client::Mcp::new(format!("{url}mcp"), None);
    client.initialize().await;
    let tool = client.tool_name().await;
    let basic = "https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json";
    let params = json!({"name": tool, "arguments": {"message": "Show a greeting card."},
        "_meta": {"org.a2ui/ui": {"rendererCapabilities": {"v0.9": {"supportedCatalogIds": [basic]}}}}});
    let answer = tokio::time::timeout(
        Duration::from_secs(300),
        client.request(3, "tools/call", params),
    )
    .await
    .expect("no tool result in 300 s");
    let result = &answer.body["result"];
    assert!(result["content"].is_array(), "{answer:?}");
    let text: String = result["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|item| item["text"].as_str())
        .collect();
    if result["isError"] == true {
        assert!(
            text.contains("repair") || text.contains("A2UI"),
            "a failure names the validation errors: {text}"
        );
    }
    let validator = Validator::basic(ProtocolVersion::V0_9);
    let mut messages = Vec::new();
    for item in result["content"].as_array().unwrap() {
        let resource = &item["resource"];
        if item["type"] == "resource" && resource["mimeType"] == "application/a2ui+json" {
            let payload: Value = serde_json::from_str(resource["text"].as_str().unwrap()).unwrap();
            messages.extend(payload.as_array().cloned().unwrap_or_else(|| vec![payload]));
        }
    }
    for message in &messages {
        if let Err(errors) = validator.check_message(message) {
            panic!("an invalid A2UI message over MCP {message}: {errors:?}");
        }
    }
    eprintln!(
        "over MCP the real model's turn sent {} A2UI message(s), isError {}, text {:?}",
        messages.len(),
        result["isError"],
        text.chars().take(120).collect::<String>()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_real_model_streams_stops_when_dropped_and_draws_valid_a2ui() {
    let Some((python, gguf)) = installed() else {
        return;
    };
    let started = Instant::now();
    let server = start_model(&python, &gguf).await;
    eprintln!("model server ready after {:?}", started.elapsed());
    let http = reqwest::Client::new();
    let mut step = Instant::now();
    the_wire(&http, &server).await;
    eprintln!("the wire: {:?}", step.elapsed());
    step = Instant::now();
    the_connector(&server).await;
    eprintln!("the connector: {:?}", step.elapsed());
    step = Instant::now();
    the_cancel(&http, &server).await;
    eprintln!("the cancel: {:?}", step.elapsed());
    step = Instant::now();
    the_tools(&server).await;
    eprintln!("the tools: {:?}", step.elapsed());
    step = Instant::now();
    the_python_client(&server).await;
    eprintln!("the Python client: {:?}", step.elapsed());
    step = Instant::now();
    the_grammar(&http, &server).await;
    eprintln!("the grammar: {:?}", step.elapsed());
    step = Instant::now();
    the_ag_ui_turn(&http, &server).await;
    eprintln!("the AG-UI turn: {:?}", step.elapsed());
    step = Instant::now();
    the_mcp_turn(&server).await;
    eprintln!("the MCP turn: {:?}", step.elapsed());
    eprintln!("the real-model test took {:?}", started.elapsed());
}
