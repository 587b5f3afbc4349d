//! `serve --otlp-endpoint` exporting to a real OTLP receiver: the binary in front of a
//! scripted model whose first answer does not validate (so a repair turn happens) gets one
//! streamed request carrying a W3C `traceparent`; when it shuts down, the receiver
//! (tests/otel/receiver.py, on the OpenTelemetry project's `opentelemetry-proto`
//! definitions) holds the request's trace: the request, task, attempt, repair, model and
//! tool spans, every one in the caller's trace and linked to its parent, the repair turn's
//! validation errors as events, the GenAI attributes of the model requests, and no prompt
//! text — unless `--otlp-record-content` asks for it.
//!
//! Without the receiver's Python package the test prints that it skipped, or fails when
//! `A2UI_REQUIRE_INTEROP=1` (the test command sets it; `scripts/install-test-deps.sh`
//! installs it in `.venv`).
#![cfg(feature = "cli")]

mod llm_support;
mod support;

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use a2ui_agent::a2ui::ProtocolVersion;
use llm_support::{Answer, MockModel};
use serde_json::{Value, json};
use support::webhook::{Behaviour, Receiver};
use support::{capabilities, params, serve_command, spawn_binary};
use tokio::io::{AsyncBufReadExt, BufReader};

/// The caller's trace, and the span in it the request comes from.
const TRACE_ID: &str = "4bf92f3577b34da6a3ce929d0e0e4736";
const PARENT_ID: &str = "00f067aa0ba902b7";

/// What the user asks: text that must not leave the process unless content is recorded.
const PROMPT: &str = "Show my order, secret word QUOKKA-4821";

const V: ProtocolVersion = ProtocolVersion::V0_9;

/// The `.venv` Python when it can import the OTLP definitions; `None` after saying why the
/// test skips (a panic when required).
fn receiver_python() -> Option<PathBuf> {
    let python = Path::new(env!("CARGO_MANIFEST_DIR")).join(".venv/bin/python");
    let importable = std::process::Command::new(&python)
        .args([
            "-c",
            "import opentelemetry.proto.collector.trace.v1.trace_service_pb2",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|status| status.success());
    if importable {
        return Some(python);
    }
    let why = "the OTLP receiver's opentelemetry-proto is not installed in .venv; \
               run scripts/install-test-deps.sh";
    if std::env::var("A2UI_REQUIRE_INTEROP").as_deref() == Ok("1") {
        panic!("A2UI_REQUIRE_INTEROP=1 but {why}");
    }
    eprintln!("skipped: {why}");
    None
}

/// The receiver writing to `out`: the child (killed when dropped) and its port.
async fn start_receiver(python: &Path, out: &Path) -> (tokio::process::Child, u16) {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/otel/receiver.py");
    let mut child = tokio::process::Command::new(python)
        .arg(script)
        .arg(out)
        .stdout(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("the receiver starts");
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let line = tokio::time::timeout(Duration::from_secs(30), lines.next_line())
        .await
        .expect("the receiver says where it listens in time")
        .unwrap()
        .expect("the receiver says where it listens");
    let port = line.strip_prefix("listening ").unwrap().parse().unwrap();
    (child, port)
}

/// One run: the binary with `extra` flags answers one streamed request with a
/// `traceparent`; after it shut down, the spans the receiver got, its raw bytes, and the
/// headers of the model requests.
async fn traced_run(python: &Path, name: &str, extra: &[&str]) -> Run {
    // The first answer names a component the catalog lacks; the repair turn's is valid.
    let script = vec![
        Answer::fixture("invalid_v0_9.sse"),
        Answer::fixture("repaired_v0_9.sse"),
    ];
    run_with(python, name, script, extra, "input-required").await
}

/// [`traced_run`] with the model answering `script`, the task ending in state `end`.
async fn run_with(
    python: &Path,
    name: &str,
    script: Vec<Answer>,
    extra: &[&str],
    end: &str,
) -> Run {
    let out = std::env::temp_dir().join(format!("a2ui-otel-{name}-{}.jsonl", std::process::id()));
    let raw = PathBuf::from(format!("{}.raw", out.display()));
    let _ = std::fs::remove_file(&out);
    let _ = std::fs::remove_file(&raw);
    let (_receiver, port) = start_receiver(python, &out).await;
    let mock = MockModel::start(script).await;
    let webhook = Receiver::start(Behaviour::Ack).await;
    let endpoint = format!("http://127.0.0.1:{port}");
    let mut args = vec!["--model-url", &mock.base_url, "--model", "m"];
    args.extend(["--otlp-endpoint", &endpoint]);
    args.extend([
        "--push",
        "--push-allow-http",
        "--push-allow-host",
        "127.0.0.1",
    ]);
    args.extend(extra);
    let (mut child, url) = spawn_binary(serve_command(&args), Duration::from_secs(30)).await;

    let caps = capabilities(V, &[V.basic_catalog_id()]);
    let mut params = params(json!([{"kind": "text", "text": PROMPT}]), Some(caps), None);
    params["configuration"] = json!({"pushNotificationConfig": {"url": webhook.url}});
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "message/stream", "params": params});
    let response = reqwest::Client::new()
        .post(&url)
        .header("content-type", "application/json")
        .header("X-A2A-Extensions", V.extension_uri())
        .header("traceparent", format!("00-{TRACE_ID}-{PARENT_ID}-01"))
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    let answer = tokio::time::timeout(Duration::from_secs(60), response.text())
        .await
        .expect("the stream ended in time")
        .unwrap();
    assert!(answer.contains(end), "{answer}");
    // The webhook hears of the task's end before the server stops.
    let pushed = webhook
        .wait_for(|got| got.iter().any(|r| r.body.to_string().contains(end)))
        .await;

    // Shutting down flushes the spans still waiting in the batch.
    let pid = child.id().expect("the server runs") as libc::pid_t;
    // SAFETY: `pid` is our own child, still running (we hold it).
    unsafe { libc::kill(pid, libc::SIGTERM) };
    let status = tokio::time::timeout(Duration::from_secs(30), child.wait())
        .await
        .expect("the server stops in time")
        .unwrap();
    assert!(status.success(), "{status}");

    let text = std::fs::read_to_string(&out).unwrap_or_default();
    let raw = std::fs::read(&raw).unwrap_or_default();
    let _ = std::fs::remove_file(&out);
    let spans: Vec<Value> = text
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert!(
        spans.iter().all(|span| span.get("error").is_none()),
        "the receiver refused an export: {text}"
    );
    Run {
        answer,
        spans,
        text,
        raw,
        model_headers: mock.headers(),
        webhook_headers: pushed.into_iter().map(|got| got.headers).collect(),
    }
}

/// What one run exported (and the streamed answer).
struct Run {
    answer: String,
    spans: Vec<Value>,
    text: String,
    raw: Vec<u8>,
    model_headers: Vec<axum::http::HeaderMap>,
    webhook_headers: Vec<axum::http::HeaderMap>,
}

/// The span id of a `traceparent` in `headers`, after checking it names the caller's trace.
fn traced_from(headers: &axum::http::HeaderMap) -> String {
    let traceparent = headers["traceparent"].to_str().unwrap();
    assert!(
        traceparent.starts_with(&format!("00-{TRACE_ID}-")),
        "{traceparent}"
    );
    traceparent.split('-').nth(2).unwrap().to_owned()
}

impl Run {
    /// The spans named `name`.
    fn named(&self, name: &str) -> Vec<&Value> {
        self.spans
            .iter()
            .filter(|span| span["name"] == name)
            .collect()
    }

    /// The one span named `name`.
    fn one(&self, name: &str) -> &Value {
        match self.named(name).as_slice() {
            [one] => one,
            other => panic!(
                "{} spans named {name} among {:?}",
                other.len(),
                self.names()
            ),
        }
    }

    /// Each span's name, id and parent's id.
    fn names(&self) -> Vec<String> {
        let id = |span: &Value, key: &str| span[key].as_str().unwrap_or_default().to_owned();
        let names = self.spans.iter().map(|span| {
            let name = span["name"].as_str().unwrap_or_default();
            format!(
                "{name} {}<{}",
                id(span, "span_id"),
                id(span, "parent_span_id")
            )
        });
        names.collect()
    }

    /// Whether `text` is anywhere in what was exported, decoded or raw.
    fn holds(&self, text: &str) -> bool {
        let bytes = text.as_bytes();
        self.text.contains(text) || self.raw.windows(bytes.len()).any(|window| window == bytes)
    }
}

/// Whether `child`'s parent is `parent`.
fn child_of(child: &Value, parent: &Value) -> bool {
    child["parent_span_id"] == parent["span_id"]
}

#[tokio::test]
async fn one_request_exports_its_trace_with_the_repair_turn_and_no_prompt_text() {
    let Some(python) = receiver_python() else {
        return;
    };
    let run = traced_run(&python, "plain", &[]).await;

    // Every span is in the caller's trace; the request's parent is the caller's span.
    assert!(!run.spans.is_empty(), "nothing was exported");
    for span in &run.spans {
        assert_eq!(span["trace_id"], TRACE_ID, "{span}");
        assert_eq!(span["resource"]["service.name"], "a2ui-agent", "{span}");
        // Busy/idle times and threads are not tracked: they cost a clock read per poll.
        for untracked in ["busy_ns", "idle_ns", "thread.id", "thread.name"] {
            assert!(span["attributes"].get(untracked).is_none(), "{span}");
        }
    }
    let request = run.one("a2a-jsonrpc message/stream");
    assert_eq!(request["parent_span_id"], PARENT_ID, "{request}");
    assert_eq!(request["kind"], 2, "a server span: {request}");
    assert_eq!(request["attributes"]["a2a.binding"], "a2a-jsonrpc");
    assert_eq!(request["attributes"]["a2a.method"], "message/stream");
    let task = run.one("task");
    assert!(child_of(task, request), "{task}");

    // The first attempt was refused; the repair turn is a span of its own, beside it,
    // holding the validation errors that caused it.
    let first = run.one("a2ui.attempt");
    assert!(child_of(first, task), "{first}");
    assert_eq!(
        first["attributes"]["a2ui.protocol_version"], "v0.9",
        "{first}"
    );
    assert_eq!(
        first["attributes"]["a2ui.catalog"],
        V.basic_catalog_id(),
        "{first}"
    );
    assert!(first["attributes"]["a2ui.format"].is_string(), "{first}");
    assert!(
        first["attributes"]["a2ui.messages_refused"].as_i64() >= Some(1),
        "{first}"
    );
    let repair = run.one("a2ui.repair");
    assert!(child_of(repair, task), "{repair}");
    assert_eq!(repair["attributes"]["a2ui.repair"], 1, "{repair}");
    assert!(
        repair["attributes"]["a2ui.messages_sent"].as_i64() >= Some(1),
        "{repair}"
    );
    let errors: Vec<&Value> = repair["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|event| event["name"] == "a2ui.validation_error")
        .collect();
    assert!(!errors.is_empty(), "{repair}");
    assert!(
        errors[0]["attributes"]["error.message"].is_string(),
        "{repair}"
    );

    // One model request per attempt, each under its attempt, with the GenAI attributes.
    let models = run.named("chat m");
    assert_eq!(models.len(), 2, "{}", run.text);
    for model in &models {
        let attributes = &model["attributes"];
        assert_eq!(model["kind"], 3, "a client span: {model}");
        assert_eq!(attributes["gen_ai.operation.name"], "chat", "{model}");
        assert_eq!(attributes["gen_ai.request.model"], "m", "{model}");
        assert!(attributes["gen_ai.server.time_to_first_token"].as_f64() > Some(0.0));
    }
    assert!(models.iter().any(|model| child_of(model, first)));
    // The refused answer was cut short; the repaired one ran to its end and its usage.
    let mended = models
        .iter()
        .find(|model| child_of(model, repair))
        .expect("a model request under the repair turn");
    let attributes = &mended["attributes"];
    assert_eq!(
        attributes["gen_ai.usage.input_tokens"].as_i64(),
        Some(900),
        "{mended}"
    );
    assert!(
        attributes["gen_ai.usage.output_tokens"].as_i64() > Some(0),
        "{mended}"
    );
    // An array of strings, as the GenAI conventions define it.
    assert_eq!(
        attributes["gen_ai.response.finish_reasons"],
        json!(["stop"]),
        "{mended}"
    );

    // The model server was asked inside the trace: each request names its model span.
    assert_eq!(run.model_headers.len(), 2);
    for headers in &run.model_headers {
        let span_id = traced_from(headers);
        assert!(models.iter().any(|model| model["span_id"] == span_id));
    }

    // Each push delivery is a span in the run's trace, named by the webhook's request.
    let pushes = run.named("push delivery");
    assert!(!pushes.is_empty(), "{}", run.text);
    for push in &pushes {
        assert_eq!(
            push["attributes"]["a2a.push.outcome"], "delivered",
            "{push}"
        );
    }
    for headers in &run.webhook_headers {
        let span_id = traced_from(headers);
        assert!(pushes.iter().any(|push| push["span_id"] == span_id));
    }

    // The store's operations are spans of their own, inside the trace.
    assert!(!run.named("store put").is_empty(), "{}", run.text);

    // What the user typed never left the process.
    assert!(
        !run.holds("QUOKKA-4821"),
        "the prompt was exported: {}",
        run.text
    );
}

#[tokio::test]
async fn recording_content_exports_the_prompt_on_the_model_span() {
    let Some(python) = receiver_python() else {
        return;
    };
    let run = traced_run(&python, "content", &["--otlp-record-content"]).await;
    let models = run.named("chat m");
    let asked = models
        .iter()
        .flat_map(|model| model["events"].as_array().unwrap());
    let inputs: Vec<&Value> = asked
        .filter(|event| event["name"] == "gen_ai.input.messages")
        .collect();
    assert_eq!(inputs.len(), 2, "{}", run.text);
    assert!(
        inputs[0]["attributes"]["gen_ai.content"]
            .as_str()
            .unwrap()
            .contains("QUOKKA-4821")
    );
}

#[tokio::test]
async fn the_error_id_a_failed_task_shows_is_on_its_span() {
    let Some(python) = receiver_python() else {
        return;
    };
    let refused = Answer::Status {
        status: 400,
        retry_after: None,
        body: r#"{"error": {"message": "the model is not loaded"}}"#.to_owned(),
    };
    let run = run_with(&python, "failed", vec![refused], &[], "failed").await;
    let id = run
        .answer
        .split("error id ")
        .nth(1)
        .and_then(|rest| rest.split(')').next())
        .unwrap_or_else(|| panic!("no error id in {}", run.answer));
    let failed: Vec<&Value> = run
        .spans
        .iter()
        .filter(|span| span["attributes"]["a2ui.error_id"] == id)
        .collect();
    assert_eq!(failed.len(), 1, "{}", run.text);
    assert_eq!(failed[0]["name"], "a2ui.attempt", "{}", failed[0]);
    assert_eq!(failed[0]["status"], 2, "marked as an error: {}", failed[0]);
}
