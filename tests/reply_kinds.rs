//! Every kind of reply an agent can give, as a client of each protocol version sees it.
//!
//! One agent answers by the text it is sent: artifacts (text, file bytes, file URL, data),
//! a bare message, a question, a request to sign in, a rejection, a failure, and a stream
//! that interleaves status text, artifact chunks and reply text. Each kind is asked over
//! A2A 0.3 and 1.0 (JSON-RPC, plus HTTP+JSON for the bare message), blocking and streaming,
//! on a real socket; a second test stores every kind in SQLite and reads it back after the
//! server is gone and a new one opened the same file.

mod support;

use a2ui_agent::a2a::{Part, TaskState};
use a2ui_agent::agent::{AgentError, Reply, ReplyEvent};
use a2ui_agent::request::Request;
use futures::StreamExt;
use serde_json::{Value, json};
use support::{SseReader, TestServer, builder, spawn, unique_id};

/// The agent under test: the first word of the text picks the reply kind.
async fn agent(request: Request) -> Result<Reply, AgentError> {
    let text = request.text();
    let reply = match text.split_whitespace().next().unwrap_or("") {
        "artifact-text" => Reply::artifact(vec![Part::text("Generated text content")]),
        "artifact-file" => Reply::artifact(vec![Part::file_bytes(
            b"tck",
            Some("output.txt"),
            Some("text/plain"),
        )]),
        "artifact-url" => Reply::artifact(vec![Part::file_url(
            "https://example.com/output.txt",
            Some("output.txt"),
            Some("text/plain"),
        )]),
        "artifact-data" => {
            let data = json!({"key": "value", "count": 42});
            Reply::artifact(vec![Part::data(
                data.as_object().cloned().unwrap_or_default(),
            )])
        }
        "message" => Reply::message(vec![Part::text("Direct message response")]),
        "slow-message" => {
            // Decides only after waiting: the stream opens before the answer is known.
            tokio::time::sleep(std::time::Duration::from_millis(150)).await;
            Reply::message(vec![Part::text("Direct message response")])
        }
        "input" => Reply::input_required(vec![Part::text("Which one?")]),
        "auth" => Reply::auth_required("Please sign in."),
        "reject" => Reply::reject("rejected"),
        "error" => Reply::error("it broke"),
        "chunked" => {
            let events = [
                ReplyEvent::status("Working on it"),
                ReplyEvent::chunk(vec![Part::text("chunk-1 ")], false),
                ReplyEvent::text("Here "),
                ReplyEvent::chunk(vec![Part::text("chunk-2")], true),
                ReplyEvent::text("it is."),
            ];
            Reply::events(futures::stream::iter(events.map(Ok)))
                .with_final_state(TaskState::Completed)
        }
        "slow-chunked" => {
            // Slow enough for a client of another instance to subscribe in between.
            let events = [
                ReplyEvent::chunk(vec![Part::text("chunk-1 ")], false),
                ReplyEvent::chunk(vec![Part::text("chunk-2")], true),
            ];
            let slow = futures::stream::iter(events).then(|event| async move {
                tokio::time::sleep(std::time::Duration::from_millis(400)).await;
                Ok(event)
            });
            Reply::events(slow).with_final_state(TaskState::Completed)
        }
        "late-state" | "late-working" => {
            // A relay learns how its task ends only at the end of what it streams.
            let state = match text.as_str() {
                "late-state" => TaskState::Completed,
                _ => TaskState::Working,
            };
            let events = [ReplyEvent::text("Relayed."), ReplyEvent::FinalState(state)];
            Reply::events(futures::stream::iter(events.map(Ok)))
        }
        "files" => {
            let files: Vec<String> = request
                .files()
                .map(|file| {
                    let body = file
                        .bytes()
                        .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
                        .or_else(|| file.uri().map(str::to_owned))
                        .unwrap_or_default();
                    format!(
                        "{}:{}:{body}",
                        file.name.as_deref().unwrap_or("?"),
                        file.mime_type.as_deref().unwrap_or("?")
                    )
                })
                .collect();
            let data: Vec<String> = request
                .data()
                .map(|d| Value::from(d.clone()).to_string())
                .collect();
            Reply::message(vec![Part::text(format!(
                "files {} data {}",
                files.join(","),
                data.join(",")
            ))])
        }
        _ => Reply::text(format!("You said {text}")).with_final_state(TaskState::Completed),
    };
    Ok(reply)
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Version {
    V0_3,
    V1_0,
}

const VERSIONS: [Version; 2] = [Version::V0_3, Version::V1_0];

/// The parameters of a send of `text` (plus `extra` parts, in 1.0 shape) in `version`'s shape.
fn send_params(version: Version, text: &str, task_id: Option<&str>) -> Value {
    let mut params = match version {
        Version::V0_3 => json!({"message": {"kind": "message", "role": "user",
            "messageId": unique_id(), "parts": [{"kind": "text", "text": text}]}}),
        Version::V1_0 => json!({"message": {"role": "ROLE_USER", "messageId": unique_id(),
            "parts": [{"text": text}]}}),
    };
    if let Some(id) = task_id {
        params["message"]["taskId"] = json!(id);
    }
    params
}

/// One JSON-RPC call in `version`; the whole response.
async fn call(server: &TestServer, version: Version, method: &str, params: Value) -> Value {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let mut request = server
        .client
        .post(&server.url)
        .header("content-type", "application/json");
    if version == Version::V1_0 {
        request = request.header("A2A-Version", "1.0");
    }
    let response = request.body(body.to_string()).send().await.unwrap();
    let is_stream = response
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/event-stream"));
    assert!(!is_stream, "{method} answered with a stream");
    response.json().await.unwrap()
}

/// A blocking send of `text`: the result, normalized.
async fn send(server: &TestServer, version: Version, text: &str, task_id: Option<&str>) -> Value {
    let method = match version {
        Version::V0_3 => "message/send",
        Version::V1_0 => "SendMessage",
    };
    let response = call(server, version, method, send_params(version, text, task_id)).await;
    assert!(response.get("error").is_none(), "{text}: {response}");
    normalize_result(version, &response["result"])
}

/// A streamed send of `text`: every event's result, normalized.
async fn stream(server: &TestServer, version: Version, text: &str) -> Vec<Value> {
    let method = match version {
        Version::V0_3 => "message/stream",
        Version::V1_0 => "SendStreamingMessage",
    };
    let body = json!({"jsonrpc": "2.0", "id": "s", "method": method,
        "params": send_params(version, text, None)});
    let mut request = server
        .client
        .post(&server.url)
        .header("content-type", "application/json");
    if version == Version::V1_0 {
        request = request.header("A2A-Version", "1.0");
    }
    let response = request.body(body.to_string()).send().await.unwrap();
    let mut reader = SseReader::new(response);
    let mut events = Vec::new();
    while let Some(event) = reader.next_event().await {
        assert!(event.get("error").is_none(), "{text}: {event}");
        events.push(normalize_result(version, &event["result"]));
    }
    events
}

/// A result or event in one shape for both versions: `{"kind", ...}` with states as in
/// 0.3 (`completed`) and parts as `{"text"}`, `{"file", "mime", "bytes"|"url"}`, `{"data"}`.
fn normalize_result(version: Version, result: &Value) -> Value {
    let (kind, body) = match version {
        Version::V0_3 => (
            result["kind"].as_str().unwrap_or("?").to_owned(),
            result.clone(),
        ),
        Version::V1_0 => {
            let object = result.as_object().cloned().unwrap_or_default();
            assert_eq!(object.len(), 1, "one member: {result}");
            let (key, body) = object.into_iter().next().unwrap();
            let kind = match key.as_str() {
                "statusUpdate" => "status-update",
                "artifactUpdate" => "artifact-update",
                other => other,
            };
            (kind.to_owned(), body)
        }
    };
    let mut out = json!({"kind": kind});
    match kind.as_str() {
        "task" => {
            out["id"] = body["id"].clone();
            out["state"] = state(&body["status"]["state"]);
            out["message"] = parts(&body["status"]["message"]["parts"]);
            out["artifacts"] = body["artifacts"]
                .as_array()
                .map(|list| list.iter().map(|a| parts(&a["parts"])).collect())
                .unwrap_or_else(|| json!([]));
        }
        "message" => {
            out["parts"] = parts(&body["parts"]);
            out["role"] = match body["role"].as_str() {
                Some("agent" | "ROLE_AGENT") => json!("agent"),
                other => json!(other),
            };
            out["hasTaskId"] = json!(body.get("taskId").is_some());
            out["hasContextId"] = json!(body.get("contextId").is_some());
        }
        "status-update" => {
            out["state"] = state(&body["status"]["state"]);
            out["message"] = parts(&body["status"]["message"]["parts"]);
            // 1.0 has no `final`: the stream's end says it.
            if version == Version::V0_3 {
                out["final"] = json!(body["final"].as_bool().unwrap_or(false));
            }
        }
        "artifact-update" => {
            out["id"] = body["artifact"]["artifactId"].clone();
            out["parts"] = parts(&body["artifact"]["parts"]);
            out["append"] = json!(body["append"].as_bool().unwrap_or(false));
            out["lastChunk"] = json!(body["lastChunk"].as_bool().unwrap_or(false));
        }
        _ => panic!("unexpected result {result}"),
    }
    out
}

fn state(value: &Value) -> Value {
    let name = value.as_str().unwrap_or("?");
    match name.strip_prefix("TASK_STATE_") {
        Some(rest) => json!(rest.to_ascii_lowercase().replace('_', "-")),
        None => json!(name),
    }
}

fn parts(value: &Value) -> Value {
    let Some(list) = value.as_array() else {
        return json!([]);
    };
    list.iter()
        .map(|part| {
            if let Some(text) = part.get("text") {
                json!({"text": text})
            } else if let Some(data) = part.get("data") {
                json!({"data": data})
            } else if let Some(file) = part.get("file") {
                // 0.3: {"kind": "file", "file": {"bytes"|"uri", "name", "mimeType"}}
                let mut out = json!({"file": file["name"], "mime": file["mimeType"]});
                match (file.get("bytes"), file.get("uri")) {
                    (Some(bytes), _) => out["bytes"] = bytes.clone(),
                    (_, Some(uri)) => out["url"] = uri.clone(),
                    _ => {}
                }
                out
            } else {
                // 1.0: {"raw"|"url", "filename", "mediaType"}
                let mut out = json!({"file": part["filename"], "mime": part["mediaType"]});
                match (part.get("raw"), part.get("url")) {
                    (Some(raw), _) => out["bytes"] = raw.clone(),
                    (_, Some(url)) => out["url"] = url.clone(),
                    _ => {}
                }
                out
            }
        })
        .collect()
}

/// For each one-artifact kind: the artifact's parts, normalized.
fn artifact_kinds() -> Vec<(&'static str, Value)> {
    vec![
        ("artifact-text", json!([{"text": "Generated text content"}])),
        (
            "artifact-file",
            json!([{"file": "output.txt", "mime": "text/plain", "bytes": "dGNr"}]),
        ),
        (
            "artifact-url",
            json!([{"file": "output.txt", "mime": "text/plain",
                "url": "https://example.com/output.txt"}]),
        ),
        (
            "artifact-data",
            json!([{"data": {"key": "value", "count": 42}}]),
        ),
    ]
}

/// For each kind that ends in a status: its state and status message, normalized.
fn status_kinds() -> Vec<(&'static str, &'static str, Value)> {
    vec![
        ("input", "input-required", json!([{"text": "Which one?"}])),
        (
            "auth",
            "auth-required",
            json!([{"text": "Please sign in."}]),
        ),
        ("reject", "rejected", json!([{"text": "rejected"}])),
        ("error", "failed", json!([{"text": "it broke"}])),
        (
            "complete",
            "completed",
            json!([{"text": "You said complete"}]),
        ),
    ]
}

async fn server() -> TestServer {
    spawn(builder(agent).build().unwrap()).await
}

#[tokio::test]
async fn artifacts_of_every_part_kind_complete_the_task_in_both_versions() {
    let server = server().await;
    for version in VERSIONS {
        for (text, expected) in artifact_kinds() {
            let task = send(&server, version, text, None).await;
            assert_eq!(task["kind"], "task", "{version:?} {text}: {task}");
            assert_eq!(task["state"], "completed", "{version:?} {text}: {task}");
            assert_eq!(
                task["artifacts"],
                json!([expected]),
                "{version:?} {text}: {task}"
            );

            let events = stream(&server, version, text).await;
            let kinds: Vec<&str> = events.iter().map(|e| e["kind"].as_str().unwrap()).collect();
            assert_eq!(
                kinds,
                ["task", "status-update", "artifact-update", "status-update"],
                "{version:?} {text}: {events:?}"
            );
            assert_eq!(events[1]["state"], "working");
            assert_eq!(events[2]["parts"], expected, "{version:?} {text}");
            assert_eq!(events[2]["lastChunk"], true);
            assert_eq!(events[3]["state"], "completed");
        }
    }
}

#[tokio::test]
async fn every_stopping_state_is_reached_with_its_message_in_both_versions() {
    let server = server().await;
    for version in VERSIONS {
        for (text, state, message) in status_kinds() {
            let task = send(&server, version, text, None).await;
            assert_eq!(task["state"], state, "{version:?} {text}: {task}");
            assert_eq!(task["message"], message, "{version:?} {text}: {task}");

            let events = stream(&server, version, text).await;
            let last = events.last().unwrap();
            assert_eq!(
                last["kind"], "status-update",
                "{version:?} {text}: {events:?}"
            );
            assert_eq!(last["state"], state, "{version:?} {text}: {events:?}");
            // A text reply streams its parts in `working` updates; the other kinds send
            // their message with the final state.
            let said: Vec<&Value> = events
                .iter()
                .filter(|e| e["kind"] == "status-update")
                .flat_map(|e| e["message"].as_array().unwrap().iter())
                .collect();
            assert_eq!(json!(said), message, "{version:?} {text}: {events:?}");
        }
    }
}

#[tokio::test]
async fn a_final_state_told_while_the_reply_streams_ends_the_task_there() {
    let server = server().await;
    for version in VERSIONS {
        // The server's own final state (input-required) gives way to the one told.
        let task = send(&server, version, "late-state", None).await;
        assert_eq!(task["state"], "completed", "{version:?}: {task}");
        let events = stream(&server, version, "late-state").await;
        assert_eq!(events.last().unwrap()["state"], "completed", "{events:?}");
        // A state no task stops in is an invalid agent response.
        let method = match version {
            Version::V0_3 => "message/send",
            Version::V1_0 => "SendMessage",
        };
        let params = send_params(version, "late-working", None);
        let response = call(&server, version, method, params).await;
        assert_eq!(response["error"]["code"], -32006, "{version:?}: {response}");
    }
}

#[tokio::test]
async fn a_bare_message_answers_without_a_task_in_both_versions_and_bindings() {
    let server = server().await;
    let expected = json!([{"text": "Direct message response"}]);
    for version in VERSIONS {
        let answer = send(&server, version, "message", None).await;
        assert_eq!(answer["kind"], "message", "{version:?}: {answer}");
        assert_eq!(answer["role"], "agent");
        assert_eq!(answer["parts"], expected);
        assert_eq!(answer["hasTaskId"], false, "{answer}");
        assert_eq!(answer["hasContextId"], true, "{answer}");

        let events = stream(&server, version, "message").await;
        assert_eq!(events.len(), 1, "{version:?}: {events:?}");
        assert_eq!(events[0]["kind"], "message");
        assert_eq!(events[0]["parts"], expected);
    }
    let (status, body) = server
        .rest(
            "POST",
            "message:send",
            Some(send_params(Version::V1_0, "message", None)),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(normalize_result(Version::V1_0, &body)["parts"], expected);

    // Nothing was stored.
    let listed = call(&server, Version::V1_0, "ListTasks", json!({})).await;
    let stored = listed["result"]["tasks"].as_array().map_or(0, Vec::len);
    assert_eq!(stored, 0, "{listed}");
}

#[tokio::test]
async fn a_bare_message_decided_late_is_the_whole_stream_in_every_binding() {
    let server = spawn(
        builder(agent)
            .keep_alive(std::time::Duration::from_millis(20))
            .build()
            .unwrap(),
    )
    .await;
    let expected = json!([{"text": "Direct message response"}]);
    for version in VERSIONS {
        let events = stream(&server, version, "slow-message").await;
        assert_eq!(events.len(), 1, "{version:?}: {events:?}");
        assert_eq!(events[0]["kind"], "message");
        assert_eq!(events[0]["parts"], expected);
    }
    let response = server
        .client
        .post(format!("{}message:stream", server.url))
        .header("A2A-Version", "1.0")
        .header("content-type", "application/a2a+json")
        .body(send_params(Version::V1_0, "slow-message", None).to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let sse = support::read_sse(response).await;
    assert!(sse.comments >= 1, "no keep-alive while the agent decided");
    assert_eq!(sse.events.len(), 1, "{:?}", sse.events);
    assert_eq!(
        normalize_result(Version::V1_0, &sse.events[0])["parts"],
        expected
    );
    let listed = call(&server, Version::V1_0, "ListTasks", json!({})).await;
    let stored = listed["result"]["tasks"].as_array().map_or(0, Vec::len);
    assert_eq!(stored, 0, "{listed}");
}

#[tokio::test]
async fn a_bare_message_in_a_task_the_client_holds_is_an_invalid_agent_response() {
    let server = server().await;
    for version in VERSIONS {
        let waiting = send(&server, version, "input", None).await;
        let id = waiting["id"].as_str().unwrap().to_owned();
        let method = match version {
            Version::V0_3 => "message/send",
            Version::V1_0 => "SendMessage",
        };
        let refused = call(
            &server,
            version,
            method,
            send_params(version, "message", Some(&id)),
        )
        .await;
        assert_eq!(refused["error"]["code"], -32006, "{version:?}: {refused}");
        let get = match version {
            Version::V0_3 => "tasks/get",
            Version::V1_0 => "GetTask",
        };
        let task = call(&server, version, get, json!({"id": id})).await;
        assert_eq!(
            state(&task["result"]["status"]["state"]),
            "failed",
            "{task}"
        );

        // A non-blocking send returns its task before the agent answers: same refusal.
        let mut params = send_params(version, "message", None);
        params["configuration"] = match version {
            Version::V0_3 => json!({"blocking": false}),
            Version::V1_0 => json!({"returnImmediately": true}),
        };
        let started = call(&server, version, method, params).await;
        let task = normalize_result(version, &started["result"]);
        assert_eq!(task["kind"], "task", "{started}");
        let id = task["id"].as_str().unwrap();
        for _ in 0..200 {
            let got = call(&server, version, get, json!({"id": id})).await;
            if state(&got["result"]["status"]["state"]) == "failed" {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
        let got = call(&server, version, get, json!({"id": id})).await;
        assert_eq!(state(&got["result"]["status"]["state"]), "failed", "{got}");

        // Continuing a task that a bare message never created: not found.
        let ghost = call(
            &server,
            version,
            method,
            send_params(version, "input", Some("no-such-task")),
        )
        .await;
        assert_eq!(ghost["error"]["code"], -32001, "{ghost}");
    }
}

#[tokio::test]
async fn a_stream_interleaves_status_text_artifact_chunks_and_reply_text() {
    let server = server().await;
    for version in VERSIONS {
        let events = stream(&server, version, "chunked").await;
        let kinds: Vec<&str> = events.iter().map(|e| e["kind"].as_str().unwrap()).collect();
        assert_eq!(
            kinds,
            [
                "task",
                "status-update",   // working
                "status-update",   // "Working on it"
                "artifact-update", // chunk-1
                "status-update",   // "Here "
                "artifact-update", // chunk-2, last
                "status-update",   // "it is."
                "status-update",   // completed
            ],
            "{version:?}: {events:?}"
        );
        assert_eq!(events[2]["message"], json!([{"text": "Working on it"}]));
        let (first, second) = (&events[3], &events[5]);
        assert_eq!(first["id"], second["id"], "both chunks are one artifact");
        assert_eq!(first["parts"], json!([{"text": "chunk-1 "}]));
        assert_eq!(second["parts"], json!([{"text": "chunk-2"}]));
        assert_eq!(
            (&first["append"], &first["lastChunk"]),
            (&json!(true), &json!(false))
        );
        assert_eq!(
            (&second["append"], &second["lastChunk"]),
            (&json!(true), &json!(true))
        );
        assert_eq!(events[7]["state"], "completed");

        let task = send(&server, version, "chunked", None).await;
        assert_eq!(task["state"], "completed", "{task}");
        assert_eq!(
            task["artifacts"],
            json!([[{"text": "chunk-1 "}, {"text": "chunk-2"}]]),
            "{task}"
        );
        assert_eq!(task["message"], json!([{"text": "Here it is."}]), "{task}");
    }
}

#[tokio::test]
async fn incoming_file_and_data_parts_reach_the_agent_in_both_versions() {
    let server = server().await;
    let params_0_3 = json!({"message": {"kind": "message", "role": "user", "messageId": unique_id(),
    "parts": [
        {"kind": "text", "text": "files"},
        {"kind": "file", "file": {"bytes": "aGVsbG8=", "name": "hi.txt", "mimeType": "text/plain"}},
        {"kind": "file", "file": {"uri": "https://example.com/a.png", "name": "a.png", "mimeType": "image/png"}},
        {"kind": "data", "data": {"n": 1}}
    ]}});
    let params_1_0 = json!({"message": {"role": "ROLE_USER", "messageId": unique_id(),
    "parts": [
        {"text": "files"},
        {"raw": "aGVsbG8=", "filename": "hi.txt", "mediaType": "text/plain"},
        {"url": "https://example.com/a.png", "filename": "a.png", "mediaType": "image/png"},
        {"data": {"n": 1}}
    ]}});
    let expected = "files hi.txt:text/plain:hello,a.png:image/png:https://example.com/a.png \
                    data {\"n\":1}";
    for (version, method, params) in [
        (Version::V0_3, "message/send", params_0_3),
        (Version::V1_0, "SendMessage", params_1_0),
    ] {
        let response = call(&server, version, method, params).await;
        let answer = normalize_result(version, &response["result"]);
        assert_eq!(
            answer["parts"],
            json!([{"text": expected}]),
            "{version:?}: {response}"
        );
    }
}

/// Asks for every kind on a server over the store `open` gives (blocking in 1.0, streaming
/// in 0.3), stops it, and checks that a server over a store `open` gives again reads every
/// task back exactly as the first did, in both versions.
async fn every_kind_reads_back_after_a_restart<S, F, Fut>(open: F)
where
    S: a2ui_agent::store::TaskStore,
    F: Fn() -> Fut,
    Fut: std::future::Future<Output = S>,
{
    let first = spawn(builder(agent).store(open().await).build().unwrap()).await;
    let mut kept = Vec::new();
    let texts: Vec<&str> = artifact_kinds()
        .into_iter()
        .map(|(text, _)| text)
        .chain(status_kinds().into_iter().map(|(text, _, _)| text))
        .chain(["chunked"])
        .collect();
    for text in &texts {
        let blocking = send(&first, Version::V1_0, text, None).await;
        let streamed = stream(&first, Version::V0_3, text).await;
        for id in [&blocking["id"], &streamed[0]["id"]] {
            let id = id.as_str().unwrap().to_owned();
            for version in VERSIONS {
                let get = match version {
                    Version::V0_3 => "tasks/get",
                    Version::V1_0 => "GetTask",
                };
                let task = call(&first, version, get, json!({"id": id})).await["result"].clone();
                assert!(task.is_object(), "{text}: {task}");
                assert!(
                    !task["artifacts"].is_null() || !text.starts_with("artifact"),
                    "{text}: {task}"
                );
                kept.push((id.clone(), version, get, task));
            }
        }
    }
    drop(first);

    let second = spawn(builder(agent).store(open().await).build().unwrap()).await;
    for (id, version, get, before) in kept {
        let after = call(&second, version, get, json!({"id": id})).await["result"].clone();
        assert_eq!(after, before, "{version:?} task {id}");
    }
}

#[cfg(feature = "sqlite")]
#[tokio::test]
async fn every_kind_of_task_reads_back_the_same_from_sqlite_after_a_restart() {
    use a2ui_agent::store::SqliteStore;

    let dir = std::env::temp_dir().join(format!("a2ui-reply-kinds-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let db = dir.join("tasks.db");
    every_kind_reads_back_after_a_restart(|| {
        let db = db.clone();
        async move { SqliteStore::open(db).unwrap() }
    })
    .await;
    let _ = std::fs::remove_dir_all(&dir);
}

#[cfg(feature = "postgres")]
#[tokio::test]
async fn every_kind_of_task_reads_back_the_same_from_postgres_after_a_restart() {
    use a2ui_agent::store::PostgresStore;

    let Some(cluster) = support::postgres::cluster() else {
        return;
    };
    let url = cluster.database("kinds");
    every_kind_reads_back_after_a_restart(|| {
        let url = url.clone();
        async move { PostgresStore::builder(url).connect().await.unwrap() }
    })
    .await;
}

#[tokio::test]
async fn every_kind_of_task_reads_back_the_same_from_memory_while_the_store_lives() {
    let store = std::sync::Arc::new(a2ui_agent::store::InMemoryStore::new());
    every_kind_reads_back_after_a_restart(|| {
        let store = store.clone();
        async move { store }
    })
    .await;
}

#[cfg(feature = "postgres")]
#[tokio::test]
async fn artifact_chunks_reach_a_subscriber_of_another_instance_sharing_postgres() {
    use a2ui_agent::store::PostgresStore;

    let Some(cluster) = support::postgres::cluster() else {
        return;
    };
    let url = cluster.database("kinds_shared");
    let open = || async { PostgresStore::builder(url.clone()).connect().await.unwrap() };
    let a = spawn(builder(agent).store(open().await).build().unwrap()).await;
    let b = spawn(builder(agent).store(open().await).build().unwrap()).await;
    let body = json!({"jsonrpc": "2.0", "id": "s", "method": "message/stream",
        "params": send_params(Version::V0_3, "slow-chunked", None)});
    let response = a
        .client
        .post(&a.url)
        .header("content-type", "application/json")
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    let mut on_a = SseReader::new(response);
    let first = on_a.next_event().await.unwrap();
    let id = first["result"]["id"].as_str().unwrap().to_owned();

    let response = b.open_stream("tasks/resubscribe", json!({"id": id})).await;
    let mut on_b = SseReader::new(response);
    let mut chunks = Vec::new();
    while let Some(event) = on_b.next_event().await {
        let result = normalize_result(Version::V0_3, &event["result"]);
        if result["kind"] == "artifact-update" {
            chunks.push(result["parts"].clone());
        }
        if result["kind"] == "status-update" && result["final"] == true {
            break;
        }
    }
    assert_eq!(
        chunks,
        [json!([{"text": "chunk-1 "}]), json!([{"text": "chunk-2"}])],
        "B's subscriber got every chunk A's agent streamed"
    );
    while on_a.next_event().await.is_some() {}
}
