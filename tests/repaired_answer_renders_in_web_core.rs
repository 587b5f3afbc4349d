//! A repaired answer streams to the official renderer without error. The agent's first
//! answer creates a surface, sends some valid components and data, then a component that
//! does not validate; the repair turn rewrites the whole surface. The stream the client
//! receives over a real socket is fed to `@a2ui/web_core`'s message processor in Node
//! (`tests/repair/web_core.mjs`): it must take every message (no second `createSurface` for
//! the surface it has), and end up holding the surface the repaired answer describes, for
//! v0.9 and v0.8. The official Python SDK's processor (`a2ui-agent-sdk` in `.venv`,
//! `tests/repair/official_processor.py`) must take the same stream too. Each check is
//! skipped (with a message) when its packages are absent, unless `A2UI_REQUIRE_INTEROP=1`.
//!
//! A follow-up turn that writes a surface of the task's first turn again, its
//! `createSurface` included (what real models do when asked to change a surface), renders
//! too: the client is not sent a second creation for the surface it holds, and ends up
//! holding the surface the follow-up describes.

mod support;

#[allow(dead_code)] // the echo agent and its helpers serve the other interop tests
#[path = "interop/support.rs"]
mod interop;

use std::io::Write;
use std::process::{Command, Stdio};

use a2ui_agent::a2ui::ProtocolVersion;
use a2ui_agent::agent::{AgentError, Reply};
use a2ui_agent::request::Request;
use interop::{crate_root, installed};
use serde_json::{Value, json};
use support::*;

/// One version's script: the first answer's messages (the last one invalid) and the repair
/// turn's, which rewrites the whole surface.
struct Script {
    version: ProtocolVersion,
    first: Vec<Value>,
    repaired: Vec<Value>,
}

fn v0_9() -> Script {
    let v = ProtocolVersion::V0_9;
    let create = json!({"version": "v0.9", "createSurface": {"surfaceId": "menu", "catalogId": v.basic_catalog_id()}});
    let update = |components: Value| json!({"version": "v0.9", "updateComponents": {"surfaceId": "menu", "components": components}});
    let data = json!({"version": "v0.9", "updateDataModel": {"surfaceId": "menu", "path": "/dish", "value": "Soup"}});
    let root = json!({"id": "root", "component": "Column", "children": ["title", "dish"]});
    Script {
        version: v,
        first: vec![
            create.clone(),
            update(json!([root, {"id": "title", "component": "Text", "text": "Menu"}])),
            data.clone(),
            // `Text` needs its `text`.
            update(json!([{"id": "dish", "component": "Text"}])),
        ],
        repaired: vec![
            create,
            update(json!([
                root,
                {"id": "title", "component": "Text", "text": "Today's menu"},
                {"id": "dish", "component": "Text", "text": {"path": "/dish"}}
            ])),
            data,
        ],
    }
}

fn v0_8() -> Script {
    let text = |id: &str, text: Value| json!({"id": id, "component": {"Text": {"text": text}}});
    let update = |components: Value| json!({"surfaceUpdate": {"surfaceId": "menu", "components": components}});
    let column = |children: Value| json!({"id": "root", "component": {"Column": {"children": {"explicitList": children}}}});
    let begin = json!({"beginRendering": {"surfaceId": "menu", "root": "root"}});
    let data = json!({"dataModelUpdate": {"surfaceId": "menu", "contents": [{"key": "dish", "valueString": "Soup"}]}});
    // The official v0.8 renderer wants each update's references inside it, and the official
    // Python processor wants `beginRendering` first.
    Script {
        version: ProtocolVersion::V0_8,
        first: vec![
            begin.clone(),
            update(json!([
                column(json!(["title"])),
                text("title", json!({"literalString": "Menu"}))
            ])),
            data.clone(),
            // `Text` needs its `text`.
            update(json!([{"id": "dish", "component": {"Text": {}}}])),
        ],
        repaired: vec![
            begin,
            update(json!([
                column(json!(["title", "dish"])),
                text("title", json!({"literalString": "Today's menu"})),
                text("dish", json!({"path": "/dish"}))
            ])),
            data,
        ],
    }
}

/// The agent of `script`: each answer streamed one message per chunk, in one block.
fn agent(
    script: &Script,
) -> impl Fn(Request) -> futures::future::Ready<Result<Reply, AgentError>> + Send + Sync + 'static {
    let (first, repaired) = (script.first.clone(), script.repaired.clone());
    move |request: Request| {
        let messages = if request.repair().is_none() {
            &first
        } else {
            &repaired
        };
        let mut chunks = vec!["Here it is.<a2ui-json>[".to_owned()];
        for (at, message) in messages.iter().enumerate() {
            let comma = if at == 0 { "" } else { ", " };
            chunks.push(format!("{comma}{message}"));
        }
        chunks.push("]</a2ui-json>".to_owned());
        let chunks: Vec<Result<String, AgentError>> = chunks.into_iter().map(Ok).collect();
        futures::future::ready(Ok(Reply::stream(futures::stream::iter(chunks))))
    }
}

/// Runs `command` with `messages` on its stdin: its stdout as JSON, or a failure naming
/// `who` and its stderr.
fn feed(mut command: Command, who: &str, messages: &[Value]) -> Value {
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|error| panic!("{who} does not start: {error}"));
    let input = serde_json::to_vec(messages).unwrap();
    child.stdin.take().unwrap().write_all(&input).unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(
        output.status.success(),
        "{who} refused the stream: {}\n{messages:#?}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap()
}

/// The official Python SDK's processor in `.venv`, or `None` (skipped) when it is absent.
fn official_python() -> Option<std::path::PathBuf> {
    let python = installed(crate_root().join(".venv/bin/python"), "the test venv")?;
    let imports = Command::new(&python)
        .args(["-c", "import a2ui.core.processing.message_processor"])
        .status()
        .is_ok_and(|status| status.success());
    if imports {
        return Some(python);
    }
    installed(
        crate_root().join(".venv (a2ui-agent-sdk not importable)"),
        "a2ui-agent-sdk",
    )
}

/// The surfaces the official Python processor holds after `messages` (component ids and
/// types), or its error.
fn python_render(python: &std::path::Path, version: ProtocolVersion, messages: &[Value]) -> Value {
    let mut command = Command::new(python);
    command
        .arg(crate_root().join("tests/repair/official_processor.py"))
        .arg(version.to_string());
    feed(command, "the official Python processor", messages)
}

/// The surfaces web_core holds after `messages`, or its error.
fn render(web_core: &std::path::Path, version: ProtocolVersion, messages: &[Value]) -> Value {
    let mut command = Command::new("node");
    command
        .arg(crate_root().join("tests/repair/web_core.mjs"))
        .arg(web_core)
        .arg(version.to_string());
    feed(command, "web_core", messages)
}

async fn a_repaired_answer_renders(script: Script) {
    let web_core = crate_root().join("web/node_modules/@a2ui/web_core");
    let Some(web_core) = installed(web_core, "@a2ui/web_core") else {
        return;
    };
    let v = script.version;
    let server = spawn(a2ui_builder(agent(&script)).build().unwrap()).await;
    let answer = server.ask("message/stream", v, "the menu").await;
    assert_eq!(
        answer.last()["status"]["state"],
        "input-required",
        "{}",
        answer.last()
    );
    let received = a2ui_messages(&answer.reply_parts(), v);
    let shown = render(&web_core, v, &received);
    let described = render(&web_core, v, &script.repaired);
    let creations = received
        .iter()
        .filter(|m| m.get("createSurface").is_some() || m.get("beginRendering").is_some())
        .count();
    assert_eq!(creations, 1, "the surface is created once: {received:#?}");
    assert!(
        received.len() < script.first.len() - 1 + script.repaired.len(),
        "what the client held was sent again: {received:#?}"
    );
    assert_eq!(shown, described, "{received:#?}");
    if let Some(python) = official_python() {
        assert_eq!(
            python_render(&python, v, &received),
            python_render(&python, v, &script.repaired),
            "{received:#?}"
        );
    }
    assert_eq!(
        text_of(&answer.reply_parts()),
        "Here it is.",
        "the repair turn's repeat of the text the client read does not go out again"
    );
}

#[tokio::test]
async fn a_repaired_v0_9_answer_renders_in_web_core() {
    a_repaired_answer_renders(v0_9()).await;
}

#[tokio::test]
async fn a_repaired_v0_8_answer_renders_in_web_core() {
    a_repaired_answer_renders(v0_8()).await;
}

#[tokio::test]
async fn a_follow_up_that_creates_its_surface_again_renders_in_web_core() {
    let web_core = crate_root().join("web/node_modules/@a2ui/web_core");
    let Some(web_core) = installed(web_core, "@a2ui/web_core") else {
        return;
    };
    let v = ProtocolVersion::V0_9;
    let create = json!({"version": "v0.9", "createSurface": {"surfaceId": "todo", "catalogId": v.basic_catalog_id()}});
    let list = |items: &[&str]| {
        let mut components = vec![json!({"id": "root", "component": "Column",
            "children": items.iter().enumerate().map(|(i, _)| format!("item{i}")).collect::<Vec<_>>()})];
        for (i, item) in items.iter().enumerate() {
            components.push(json!({"id": format!("item{i}"), "component": "Text", "text": item}));
        }
        vec![
            create.clone(),
            json!({"version": "v0.9", "updateComponents": {"surfaceId": "todo", "components": components}}),
        ]
    };
    let first = list(&["Buy milk"]);
    let second = list(&["Buy milk", "Walk the dog"]);
    let answers = (first.clone(), second.clone());
    let agent = move |request: Request| {
        let messages = if request.history().is_empty() {
            &answers.0
        } else {
            &answers.1
        };
        let block = format!(
            "Done.<a2ui-json>{}</a2ui-json>",
            Value::from(messages.clone())
        );
        futures::future::ready(Ok::<_, AgentError>(Reply::text(block)))
    };
    let server = spawn(a2ui_builder(agent).build().unwrap()).await;
    let answer = server.ask("message/stream", v, "my to-do list").await;
    let task_id = answer.last()["taskId"].as_str().unwrap().to_owned();
    let mut received = a2ui_messages(&answer.reply_parts(), v);
    assert_eq!(received, first);
    let caps = capabilities(v, &[v.basic_catalog_id()]);
    let parts = json!([{"kind": "text", "text": "add Walk the dog"}]);
    let params = params(parts, Some(caps), Some(&task_id));
    let follow_up = server
        .exchange("message/stream", params, &[v.extension_uri()])
        .await;
    assert_eq!(
        follow_up.last()["status"]["state"],
        "input-required",
        "{}",
        follow_up.last()
    );
    let sent = a2ui_messages(&follow_up.reply_parts(), v);
    assert_eq!(sent, second[1..], "the surface is not created again");
    received.extend(sent);
    assert_eq!(
        render(&web_core, v, &received),
        render(&web_core, v, &second)
    );
}
