//! `a2ui-agent serve --ag-ui` with the real AG-UI parts: `@ag-ui/client` 1.0.0's `HttpAgent`,
//! alone and behind `@ag-ui/a2ui-middleware` 0.0.10's `A2UIMiddleware`, holds a conversation
//! with the demo agent (`tests/interop/agui/conversation.mjs`: text, the restaurant surfaces
//! drawn component by component, Book, Confirm, a follow-up on the thread), and
//! `ag-ui-validate` 0.4.0 finds nothing to say (no error, warning or note) about any of
//! those streams nor about the run it starts itself. A frontend tool round trip goes through
//! the same client against `serve --model-url` with a scripted model. The surfaces the client drew are validated here against the
//! basic catalog. Skipped (with a message) when the Node packages or the validator are not
//! installed, unless `A2UI_REQUIRE_INTEROP=1`.
#![cfg(feature = "cli")]

mod llm_support;
mod support;

#[allow(dead_code)] // the echo agent and its helpers serve the other interop tests
#[path = "interop/support.rs"]
mod interop;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use a2ui_agent::a2ui::{ProtocolVersion, Validator};
use interop::{crate_root, installed, node_on_path, run_script};
use llm_support::{Answer, MockModel, call, sse, text};
use serde_json::Value;
use support::{serve_command, spawn_binary};

/// `serve --ag-ui` with the demo streaming without pauses; the child and the AG-UI URL.
async fn serve() -> (tokio::process::Child, String) {
    let command = serve_command(&["--ag-ui", "--min-delay-ms", "0", "--max-delay-ms", "0"]);
    let (child, url) = spawn_binary(command, Duration::from_secs(30)).await;
    (child, format!("{url}ag-ui"))
}

/// `serve --ag-ui` answering with the model at `base_url`; the child and the AG-UI URL.
async fn serve_model(base_url: &str) -> (tokio::process::Child, String) {
    let command = serve_command(&["--ag-ui", "--model-url", base_url, "--model", "mock-model"]);
    let (child, url) = spawn_binary(command, Duration::from_secs(30)).await;
    (child, format!("{url}ag-ui"))
}

/// The Node script's folder and the validator, or `None` (skipped) when either is missing.
fn tools() -> Option<(PathBuf, PathBuf)> {
    let dir = crate_root().join("tests/interop/agui");
    installed(
        dir.join("node_modules/@ag-ui/a2ui-middleware"),
        "@ag-ui/client and @ag-ui/a2ui-middleware",
    )?;
    let validator = installed(
        crate_root().join(".venv/bin/ag-ui-validate"),
        "ag-ui-validate",
    )?;
    Some((dir, validator))
}

/// Runs `ag-ui-validate` on `target` (a recorded stream or the endpoint); the report.
async fn validate(validator: &Path, target: &str) -> Value {
    let run = run_script(
        validator,
        &["--json", "--no-color", "--fail-on", "warning", target],
        crate_root(),
    )
    .await;
    let report: Value = serde_json::from_str(run.stdout.trim()).unwrap_or_else(|error| {
        panic!(
            "ag-ui-validate {target}: no JSON report ({error})\n{}",
            run.stderr
        )
    });
    assert!(
        run.success,
        "ag-ui-validate found broken rules in {target}: {report:#}"
    );
    // Not even a note: every event carries its timestamp.
    assert_eq!(
        report["diagnostics"],
        serde_json::json!([]),
        "{target}: {report:#}"
    );
    assert_eq!(
        report["internalErrors"],
        serde_json::json!([]),
        "{target}: {report:#}"
    );
    assert!(
        report["eventCount"].as_u64().unwrap() > 3,
        "{target}: {report:#}"
    );
    report
}

/// The conversation through the client, `middleware` in front or not; what it saw.
async fn conversation(dir: &Path, url: &str, middleware: bool) -> Value {
    let captures = captures_dir();
    let mut args = vec!["conversation.mjs", url, captures.to_str().unwrap()];
    if middleware {
        args.push("--middleware");
    }
    run_script(&node_on_path(), &args, dir)
        .await
        .passed(if middleware {
            "HttpAgent + A2UIMiddleware"
        } else {
            "HttpAgent"
        })
}

/// A fresh folder for one script's captures.
fn captures_dir() -> PathBuf {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("a2ui-agui-{}-{n}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Each surface of a capture, rebuilt as a client does (its snapshot, then the operations
/// its deltas append), validates against the basic v0.9 catalog.
fn check_surfaces(capture: &Path) {
    let text = std::fs::read_to_string(capture).unwrap();
    let mut surfaces: std::collections::BTreeMap<String, Vec<Value>> = Default::default();
    for line in text.lines() {
        let Some(json) = line.strip_prefix("data: ") else {
            continue;
        };
        let event: Value = serde_json::from_str(json).unwrap();
        let id = event["messageId"].as_str().unwrap_or_default().to_owned();
        match event["type"].as_str() {
            Some("ACTIVITY_SNAPSHOT") => {
                let operations = event["content"]["a2ui_operations"].as_array().unwrap();
                surfaces.insert(id, operations.clone());
            }
            Some("ACTIVITY_DELTA") => {
                let surface = surfaces.get_mut(&id).expect("a delta before its snapshot");
                for op in event["patch"].as_array().unwrap() {
                    assert_eq!(op["op"], "add", "{op}");
                    assert_eq!(op["path"], "/a2ui_operations/-", "{op}");
                    surface.push(op["value"].clone());
                }
            }
            _ => {}
        }
    }
    assert!(!surfaces.is_empty() || !text.contains("a2ui-surface"));
    for (surface, messages) in surfaces {
        Validator::basic(ProtocolVersion::V0_9)
            .check_response(&messages)
            .unwrap_or_else(|error| panic!("{surface} in {}: {error:?}", capture.display()));
    }
}

#[tokio::test]
async fn the_ag_ui_client_and_middleware_converse_with_serve_and_every_stream_validates() {
    let Some((dir, validator)) = tools() else {
        return;
    };
    let (_child, url) = serve().await;
    for middleware in [false, true] {
        let seen = conversation(&dir, &url, middleware).await;
        assert_eq!(seen["middleware"], middleware);
        // The results arrived one component at a time, each snapshot holding all so far.
        let snapshots = seen["resultSnapshots"].as_array().unwrap();
        assert!(snapshots.len() > 5, "{seen}");
        assert!(seen["confirmText"].as_str().unwrap().contains(&format!(
            "Your table at {} is booked",
            seen["restaurant"].as_str().unwrap()
        )));
        let captures = seen["captures"].as_array().unwrap();
        assert_eq!(captures.len(), 4, "{seen}");
        for capture in captures {
            let capture = capture.as_str().unwrap();
            let report = validate(&validator, capture).await;
            assert!(report.is_object(), "{report}");
            check_surfaces(Path::new(capture));
        }
    }
    // The validator's own run against the endpoint: transport rules too (content type,
    // keep-alives, incremental flushing).
    validate(&validator, &url).await;
}

#[tokio::test]
async fn a_frontend_tool_round_trips_through_the_ag_ui_client_and_every_stream_validates() {
    let Some((dir, validator)) = tools() else {
        return;
    };
    let answer = |deltas: &[Value], finish| Answer::Sse {
        body: sse(deltas, finish),
        pause: Duration::ZERO,
    };
    let mock = MockModel::start(vec![
        answer(
            &[
                text("Which day?"),
                call(
                    0,
                    Some("call_d"),
                    Some("pick_date"),
                    "{\"after\": \"today\"}",
                ),
            ],
            "tool_calls",
        ),
        answer(&[text("Booked for "), text("Friday.")], "stop"),
    ])
    .await;
    let (_child, url) = serve_model(&mock.base_url).await;
    let captures = captures_dir();
    let args = ["frontend-tool.mjs", &url, captures.to_str().unwrap()];
    let seen = run_script(&node_on_path(), &args, &dir)
        .await
        .passed("HttpAgent with a frontend tool");
    let first: Vec<&str> = seen["firstTypes"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(
        first.ends_with(&[
            "TOOL_CALL_START",
            "TOOL_CALL_ARGS",
            "TOOL_CALL_END",
            "RUN_FINISHED"
        ]),
        "{first:?}"
    );
    assert_eq!(seen["call"]["id"], "call_d");
    assert_eq!(seen["call"]["arguments"], "{\"after\": \"today\"}");
    assert_eq!(seen["secondText"], "Booked for Friday.");
    // The model got the call and the page's answer as its turns.
    let requests = mock.requests();
    let offered = &requests[0]["tools"][0]["function"]["name"];
    assert_eq!(offered, "pick_date");
    let messages = requests[1]["messages"].as_array().unwrap();
    let last = &messages[messages.len() - 1];
    assert_eq!(
        (&last["role"], &last["tool_call_id"]),
        (&Value::from("tool"), &Value::from("call_d"))
    );
    assert_eq!(last["content"], "Friday");
    for capture in seen["captures"].as_array().unwrap() {
        validate(&validator, capture.as_str().unwrap()).await;
    }
}
