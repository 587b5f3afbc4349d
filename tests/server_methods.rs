//! The A2A methods over a real socket: send, stream, get, cancel, resubscribe, the card.

mod support;

use std::time::Duration;

use a2ui_agent::a2a::TaskState;
use a2ui_agent::agent::{AgentError, Reply};
use a2ui_agent::request::Request;
use futures::StreamExt;
use serde_json::json;
use support::{builder, spawn, text_message};

async fn echo(request: Request) -> Result<Reply, AgentError> {
    Ok(Reply::text(format!("echo: {}", request.text())))
}

async fn words(request: Request) -> Result<Reply, AgentError> {
    let words: Vec<Result<String, AgentError>> = request
        .text()
        .split_inclusive(' ')
        .map(|word| Ok(word.to_owned()))
        .collect();
    // One word at a time, as from a socket: chunks already waiting are joined.
    let words = futures::stream::iter(words).then(|word| async {
        tokio::task::yield_now().await;
        word
    });
    Ok(Reply::stream(words))
}

#[tokio::test]
async fn blocking_send_returns_an_input_required_task_holding_the_reply() {
    let server = spawn(builder(echo).build().unwrap()).await;
    let task = server.result("message/send", text_message("hi")).await;
    assert_eq!(task["kind"], "task");
    assert_eq!(task["status"]["state"], "input-required");
    let reply = &task["status"]["message"];
    assert_eq!(reply["role"], "agent");
    assert_eq!(
        reply["parts"],
        json!([{"kind": "text", "text": "echo: hi"}])
    );
    assert_eq!(reply["taskId"], task["id"]);
    assert_eq!(task["history"][0]["parts"][0]["text"], "hi");
    assert_eq!(task["history"][0]["taskId"], task["id"]);
    assert_eq!(task["history"][0]["contextId"], task["contextId"]);
}

#[tokio::test]
async fn the_json_rpc_id_is_echoed_with_its_json_type() {
    let server = spawn(builder(echo).build().unwrap()).await;
    for id in [json!("abc"), json!(42), json!(-1.5), json!("42")] {
        let body =
            json!({"jsonrpc": "2.0", "id": id, "method": "tasks/get", "params": {"id": "x"}});
        let (_, response) = server.post_raw(body.to_string()).await;
        assert_eq!(response["id"], id);
        assert_eq!(response["jsonrpc"], "2.0");
    }
}

#[tokio::test]
async fn a_stream_sends_the_task_then_working_updates_per_chunk_then_a_final_update() {
    let server = spawn(builder(words).build().unwrap()).await;
    let sse = server
        .stream("message/stream", text_message("one two three"))
        .await;
    assert_eq!(sse.content_type, "text/event-stream");
    assert_eq!(sse.cache_control, "no-store");
    assert!(sse.other_lines.is_empty(), "{:?}", sse.other_lines);
    let results = sse.results();
    assert!(sse.events.iter().all(|event| event["id"] == "s-1"));
    assert_eq!(results[0]["kind"], "task");
    assert_eq!(results[0]["status"]["state"], "submitted");
    assert_eq!(results[1]["kind"], "status-update");
    assert_eq!(results[1]["status"]["state"], "working");
    assert!(results[1]["status"].get("message").is_none());
    let chunks: Vec<&str> = results[2..results.len() - 1]
        .iter()
        .map(|update| {
            assert_eq!(update["status"]["state"], "working");
            assert_eq!(update["final"], false);
            update["status"]["message"]["parts"][0]["text"]
                .as_str()
                .unwrap()
        })
        .collect();
    assert_eq!(chunks, ["one ", "two ", "three"]);
    let last = results.last().unwrap();
    assert_eq!(last["final"], true);
    assert_eq!(last["status"]["state"], "input-required");
    // The final update repeats nothing already streamed: each chunk arrives exactly once.
    assert!(last["status"].get("message").is_none(), "{last}");
    let streamed_ids: Vec<&serde_json::Value> = results[2..results.len() - 1]
        .iter()
        .map(|update| &update["status"]["message"]["messageId"])
        .collect();
    assert!(streamed_ids.iter().all(|id| *id == streamed_ids[0]));
    // The task keeps the whole reply, its text joined, under the chunks' message id.
    let task_id = results[0]["id"].as_str().unwrap();
    let task = server.get_task(task_id).await;
    assert_eq!(task["status"]["state"], "input-required");
    assert_eq!(
        task["status"]["message"]["parts"],
        json!([{"kind": "text", "text": "one two three"}])
    );
    assert_eq!(task["status"]["message"]["messageId"], *streamed_ids[0]);
}

#[tokio::test]
async fn chunks_already_waiting_when_one_is_read_go_out_in_one_working_update() {
    // A model faster than the server: every chunk is there before the first is read.
    let agent = |_request: Request| async {
        let chunks = ["one ", "two ", "three"].map(|c| Ok::<_, AgentError>(c.to_owned()));
        Ok(Reply::stream(futures::stream::iter(chunks)))
    };
    let server = spawn(builder(agent).build().unwrap()).await;
    let sse = server.stream("message/stream", text_message("go")).await;
    let results = sse.results();
    let texts: Vec<&str> = results[2..results.len() - 1]
        .iter()
        .filter_map(|update| update["status"]["message"]["parts"][0]["text"].as_str())
        .collect();
    assert_eq!(texts, ["one two three"]);
    assert_eq!(results.last().unwrap()["final"], true);
}

#[tokio::test]
async fn tasks_get_returns_the_task_with_the_requested_history_length() {
    let server = spawn(builder(echo).build().unwrap()).await;
    let task = server.result("message/send", text_message("first")).await;
    let id = task["id"].as_str().unwrap();
    let mut next = text_message("second");
    next["message"]["taskId"] = json!(id);
    server.result("message/send", next).await;
    let full = server.get_task(id).await;
    let texts: Vec<&str> = full["history"]
        .as_array()
        .unwrap()
        .iter()
        .map(|message| message["parts"][0]["text"].as_str().unwrap())
        .collect();
    assert_eq!(texts, ["first", "echo: first", "second"]);
    let short = server
        .result("tasks/get", json!({"id": id, "historyLength": 1}))
        .await;
    assert_eq!(short["history"].as_array().unwrap().len(), 1);
    assert_eq!(short["history"][0]["parts"][0]["text"], "second");
    let none = server
        .result("tasks/get", json!({"id": id, "historyLength": 0}))
        .await;
    assert_eq!(none["history"], json!([]));
}

#[tokio::test]
async fn the_agent_card_is_served_at_both_well_known_paths() {
    let server = spawn(builder(echo).build().unwrap()).await;
    // The 1.0 card at the 1.0 path, the 0.3 card at the older one (and to A2A-Version: 0.3).
    for (path, version) in [
        (".well-known/agent-card.json", "1.0"),
        (".well-known/agent.json", "0.3"),
        (".well-known/agent-card.json?A2A-Version=0.3", "0.3"),
    ] {
        let card: serde_json::Value = server
            .client
            .get(format!("{}{path}", server.url))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        let jsonrpc = &card["supportedInterfaces"][0];
        assert_eq!(jsonrpc["url"], server.url.as_str());
        if version == "0.3" {
            assert_eq!(card["url"], server.url.as_str());
            assert_eq!(card["protocolVersion"], "0.3.0");
            assert_eq!(card["preferredTransport"], "JSONRPC");
        } else {
            assert!(card.get("url").is_none(), "{path}");
        }
        assert_eq!(card["capabilities"]["streaming"], true);
        assert_eq!(card["capabilities"]["extensions"], json!([]));
        for field in [
            "name",
            "description",
            "version",
            "defaultInputModes",
            "defaultOutputModes",
            "skills",
        ] {
            assert!(card.get(field).is_some(), "card lacks {field}");
        }
    }
}

#[tokio::test]
async fn a_non_blocking_send_returns_at_once_while_the_agent_runs_on() {
    let (release, released) = tokio::sync::oneshot::channel::<()>();
    let released = std::sync::Mutex::new(Some(released));
    let agent = move |_request: Request| {
        let released = released.lock().unwrap().take();
        async move {
            if let Some(released) = released {
                let _ = released.await;
            }
            Ok::<_, AgentError>(Reply::text("late").with_final_state(TaskState::Completed))
        }
    };
    let server = spawn(builder(agent).build().unwrap()).await;
    let mut params = text_message("go");
    params["configuration"] = json!({"blocking": false});
    let task = server.result("message/send", params).await;
    let id = task["id"].as_str().unwrap().to_owned();
    assert!(matches!(
        task["status"]["state"].as_str(),
        Some("submitted" | "working")
    ));
    assert_ne!(server.get_task(&id).await["status"]["state"], "completed");
    release.send(()).unwrap();
    let task = server.wait_for_state(&id, "completed").await;
    assert_eq!(task["status"]["state"], "completed");
}

#[tokio::test]
async fn a_dropped_stream_does_not_cancel_its_task() {
    let agent = |_request: Request| async {
        let chunks = futures::stream::iter(0..3).then(|n| async move {
            tokio::time::sleep(Duration::from_millis(100)).await;
            Ok::<_, AgentError>(format!("{n} "))
        });
        Ok(Reply::stream(chunks).with_final_state(TaskState::Completed))
    };
    let server = spawn(builder(agent).build().unwrap()).await;
    let response = server
        .open_stream("message/stream", text_message("go"))
        .await;
    let mut reader = support::SseReader::new(response);
    let first = reader.next_event().await.unwrap();
    let id = first["result"]["id"].as_str().unwrap().to_owned();
    drop(reader);
    let task = server.wait_for_state(&id, "completed").await;
    assert_eq!(task["status"]["state"], "completed");
    assert_eq!(
        task["status"]["message"]["parts"],
        json!([{"kind": "text", "text": "0 1 2 "}])
    );
}

#[tokio::test]
async fn a_blocking_send_of_a_reply_in_many_chunks_returns_it_whole_without_stalling() {
    let agent = |_request: Request| async {
        let chunks = (0..500).map(|n| Ok::<_, AgentError>(format!("{n} ")));
        Ok(Reply::stream(futures::stream::iter(chunks)))
    };
    let server = spawn(builder(agent).build().unwrap()).await;
    let expected: String = (0..500).map(|n| format!("{n} ")).collect();
    // The timeout only turns a hang into a failure; no timing is asserted.
    let task = tokio::time::timeout(
        Duration::from_secs(20),
        server.result("message/send", text_message("go")),
    )
    .await
    .expect("message/send stalled");
    assert_eq!(
        task["status"]["message"]["parts"],
        json!([{"kind": "text", "text": expected}])
    );
}
