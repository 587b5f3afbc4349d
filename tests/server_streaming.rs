//! SSE behaviour: keep-alive comments while the agent is silent, resubscribing to a running
//! task, and the framing of every event.

mod support;

use std::sync::Arc;
use std::time::Duration;

use a2ui_agent::a2a::TaskState;
use a2ui_agent::agent::{AgentError, Reply};
use a2ui_agent::request::Request;
use futures::StreamExt;
use serde_json::json;
use support::{SseReader, builder, spawn, text_message};
use tokio::sync::Semaphore;

#[tokio::test]
async fn a_silent_agent_gets_keep_alive_comments_and_its_stream_still_completes() {
    let agent = |_request: Request| async {
        tokio::time::sleep(Duration::from_millis(300)).await;
        Ok::<_, AgentError>(Reply::text("finally").with_final_state(TaskState::Completed))
    };
    let server = spawn(
        builder(agent)
            .keep_alive(Duration::from_millis(20))
            .build()
            .unwrap(),
    )
    .await;
    let sse = server.stream("message/stream", text_message("go")).await;
    assert!(sse.comments >= 1, "no keep-alive comment arrived");
    assert!(sse.other_lines.is_empty(), "{:?}", sse.other_lines);
    let results = sse.results();
    let texts: Vec<&str> = results
        .iter()
        .filter_map(|result| result["status"]["message"]["parts"][0]["text"].as_str())
        .collect();
    assert_eq!(texts, ["finally"]);
    let last = results.last().unwrap();
    assert_eq!(last["status"]["state"], "completed");
    assert_eq!(last["final"], true);
}

#[tokio::test]
async fn keep_alive_comments_read_keep_alive() {
    let agent = |_request: Request| async {
        tokio::time::sleep(Duration::from_millis(100)).await;
        Ok::<_, AgentError>(Reply::text("ok"))
    };
    let server = spawn(
        builder(agent)
            .keep_alive(Duration::from_millis(10))
            .build()
            .unwrap(),
    )
    .await;
    let response = server
        .open_stream("message/stream", text_message("go"))
        .await;
    let body = response.text().await.unwrap();
    let comments: Vec<&str> = body.lines().filter(|line| line.starts_with(':')).collect();
    assert!(!comments.is_empty());
    assert!(
        comments.iter().all(|line| *line == ": keep-alive"),
        "{comments:?}"
    );
}

/// An agent whose chunks are released one by one through a semaphore.
fn gated_agent(
    gate: Arc<Semaphore>,
) -> impl Fn(Request) -> futures::future::Ready<Result<Reply, AgentError>> + Send + Sync + 'static {
    move |_request| {
        let gate = gate.clone();
        let chunks = futures::stream::iter(["one", "two", "three"]).then(move |chunk| {
            let gate = gate.clone();
            async move {
                gate.acquire().await.unwrap().forget();
                Ok::<_, AgentError>(chunk.to_owned())
            }
        });
        futures::future::ready(Ok(Reply::stream(chunks)))
    }
}

#[tokio::test]
async fn resubscribing_gives_the_current_task_then_the_events_that_follow() {
    let gate = Arc::new(Semaphore::new(0));
    let server = spawn(builder(gated_agent(gate.clone())).build().unwrap()).await;
    let mut original = SseReader::new(
        server
            .open_stream("message/stream", text_message("go"))
            .await,
    );
    let id = original.next_event().await.unwrap()["result"]["id"].clone();
    gate.add_permits(1);
    loop {
        let event = original.next_event().await.unwrap();
        if event["result"]["status"]["message"]["parts"][0]["text"] == "one" {
            break;
        }
    }
    let mut late = SseReader::new(
        server
            .open_stream("tasks/resubscribe", json!({"id": id}))
            .await,
    );
    let current = late.next_event().await.unwrap();
    assert_eq!(current["id"], "s-1");
    assert_eq!(current["result"]["kind"], "task");
    assert_eq!(current["result"]["status"]["state"], "working");
    gate.add_permits(2);
    let mut texts = Vec::new();
    let mut last = None;
    while let Some(event) = late.next_event().await {
        if let Some(text) = event["result"]["status"]["message"]["parts"][0]["text"].as_str() {
            texts.push(text.to_owned());
        }
        last = Some(event);
    }
    // Both chunks may be released before the server reads the first: then they come joined.
    assert_eq!(texts.concat(), "twothree");
    assert_eq!(last.unwrap()["result"]["final"], true);
}

#[tokio::test]
async fn resubscribing_to_a_task_waiting_for_input_gives_the_task_and_closes() {
    let agent = |_request: Request| async { Ok::<_, AgentError>(Reply::text("your turn")) };
    let server = spawn(builder(agent).build().unwrap()).await;
    let task = server.result("message/send", text_message("go")).await;
    let sse = server
        .stream("tasks/resubscribe", json!({"id": task["id"]}))
        .await;
    assert_eq!(sse.events.len(), 1);
    assert_eq!(sse.events[0]["result"]["status"]["state"], "input-required");
}

#[tokio::test]
async fn resubscribing_to_a_finished_task_is_an_unsupported_operation() {
    let agent = |_request: Request| async {
        Ok::<_, AgentError>(Reply::text("done").with_final_state(TaskState::Completed))
    };
    let server = spawn(builder(agent).build().unwrap()).await;
    let task = server.result("message/send", text_message("go")).await;
    let sse = server
        .stream("tasks/resubscribe", json!({"id": task["id"]}))
        .await;
    assert_eq!(sse.events.len(), 1);
    assert_eq!(sse.events[0]["error"]["code"], -32004);
}

#[tokio::test]
async fn model_text_with_newlines_and_sse_syntax_stays_inside_one_data_line() {
    let hostile = "line one\n\ndata: fake\r\n: comment\nevent: x\nid: 7";
    let agent = move |_request: Request| async move {
        Ok::<_, AgentError>(Reply::stream(futures::stream::iter([Ok(
            hostile.to_owned()
        )])))
    };
    let server = spawn(builder(agent).build().unwrap()).await;
    let sse = server.stream("message/stream", text_message("go")).await;
    assert!(sse.other_lines.is_empty(), "{:?}", sse.other_lines);
    assert_eq!(sse.comments, 0);
    let texts: Vec<&str> = sse
        .results()
        .into_iter()
        .filter_map(|result| result["status"]["message"]["parts"][0]["text"].as_str())
        .collect();
    assert_eq!(texts[0], hostile);
}

#[tokio::test]
async fn many_concurrent_streams_each_get_their_own_complete_reply() {
    let agent = |request: Request| async move {
        let text = request.text();
        let words: Vec<Result<String, AgentError>> = text
            .split_inclusive(' ')
            .map(|word| Ok(word.to_owned()))
            .collect();
        Ok(Reply::stream(futures::stream::iter(words)))
    };
    let server = Arc::new(spawn(builder(agent).build().unwrap()).await);
    let mut handles = Vec::new();
    for n in 0..20 {
        let server = server.clone();
        handles.push(tokio::spawn(async move {
            let text = format!("client {n} says hello");
            let sse = server.stream("message/stream", text_message(&text)).await;
            let joined: String = sse
                .results()
                .into_iter()
                .filter(|result| result["final"] == false)
                .filter_map(|result| result["status"]["message"]["parts"][0]["text"].as_str())
                .collect();
            assert_eq!(joined, text);
        }));
    }
    for handle in handles {
        handle.await.unwrap();
    }
}

#[tokio::test]
async fn a_fast_agent_streaming_thousands_of_chunks_loses_none_to_a_slower_client() {
    const CHUNKS: usize = 5_000;
    let agent = |_request: Request| async {
        // One chunk at a time, as from a socket (chunks already waiting would be joined).
        let chunks = futures::stream::iter(0..CHUNKS).then(|n| async move {
            tokio::task::yield_now().await;
            Ok::<_, AgentError>(format!("{n},"))
        });
        Ok(Reply::stream(chunks))
    };
    let server = spawn(builder(agent).build().unwrap()).await;
    let response = server
        .open_stream("message/stream", text_message("go"))
        .await;
    let mut reader = SseReader::new(response);
    let mut received = 0;
    let mut last = None;
    while let Some(event) = reader.next_event().await {
        assert!(event.get("error").is_none(), "{event}");
        if event["result"]["final"] == false && event["result"]["status"]["message"].is_object() {
            received += 1;
            // Read slower than the agent writes.
            if received % 500 == 0 {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        }
        last = Some(event);
    }
    assert_eq!(received, CHUNKS);
    assert_eq!(last.unwrap()["result"]["final"], true);
}

#[tokio::test]
async fn a_large_request_metadata_is_not_repeated_in_the_streamed_updates() {
    let agent = |_request: Request| async {
        let chunks = (0..50).map(|at| Ok::<_, AgentError>(format!("chunk {at} ")));
        Ok::<_, AgentError>(Reply::stream(futures::stream::iter(chunks)))
    };
    let server = spawn(builder(agent).build().unwrap()).await;
    let mut message = text_message("go");
    let capabilities = "c".repeat(256 * 1024);
    message["message"]["metadata"] = json!({"note": capabilities});
    let sse = server.stream("message/stream", message).await;
    let results = sse.results();
    assert!(results.len() > 2, "{} events", results.len());
    // The first event is the task as created (its history holds the request once); every
    // update after it is the size of what it adds.
    for update in &results[1..] {
        let bytes = update.to_string().len();
        assert!(
            bytes < 4096,
            "an update of {bytes} bytes: {}",
            &update.to_string()[..200]
        );
    }
}
