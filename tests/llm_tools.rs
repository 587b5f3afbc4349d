//! Tool calling in the OpenAI-compatible connector, against a scripted model server over real
//! HTTP: streamed `tool_calls` pieces joined (several calls, interleaved indexes, arguments
//! split anywhere), handlers run together, their results sent back as `tool` messages, the
//! loop bounded; text streamed before, between and after the rounds; a handler's error read
//! by the model; a cancel stopping the handlers; the calls kept in the task's history; the
//! first-token wait separate from the idle one and shown as a status.
#![cfg(feature = "llm")]

mod llm_support;
mod support;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use a2ui_agent::agent::{ReplyEvent, STATUS_METADATA};
use a2ui_agent::llm::{
    ChatMessage, LlmError, OpenAiChat, TOOL_CALL_METADATA, Tool, ToolError, ToolRecord,
};
use futures::StreamExt;
use llm_support::{Answer, MockModel, call, sse, text};
use serde_json::{Value, json};

fn answer(deltas: &[Value], finish: &str) -> Answer {
    Answer::Sse {
        body: sse(deltas, finish),
        pause: Duration::ZERO,
    }
}

/// Two calls whose pieces interleave, arguments split inside a key and a string.
fn two_calls() -> Answer {
    answer(
        &[
            text("Let me look."),
            call(0, Some("call_a"), Some("search"), ""),
            call(1, Some("call_b"), Some("weather"), "{\"ci"),
            call(0, None, None, "{\"cuisine\": \"th"),
            call(1, None, None, "ty\": \"Paris\"}"),
            call(0, None, None, "ai\"}"),
        ],
        "tool_calls",
    )
}

fn final_answer() -> Answer {
    answer(&[text("Found "), text("two.")], "stop")
}

fn echo(name: &'static str) -> Tool {
    Tool::new(
        name,
        format!("The {name} tool."),
        json!({"type": "object"}),
        move |arguments: Value| async move { Ok(json!({"tool": name, "got": arguments})) },
    )
}

fn client(mock: &MockModel) -> a2ui_agent::llm::OpenAiChatBuilder {
    OpenAiChat::builder(&mock.base_url, "mock-model")
        .idle_timeout(Duration::from_secs(5))
        .retries(0, Duration::ZERO, Duration::ZERO)
}

/// Every chunk of the reply, or the error that ended it.
async fn collect(chat: &OpenAiChat) -> (Vec<ReplyEvent>, Option<LlmError>) {
    let mut stream = Box::pin(chat.reply(vec![ChatMessage::user("Thai food?")]));
    let mut chunks = Vec::new();
    while let Some(item) = stream.next().await {
        match item {
            Ok(chunk) => chunks.push(chunk),
            Err(error) => return (chunks, Some(error)),
        }
    }
    (chunks, None)
}

fn records(chunks: &[ReplyEvent]) -> Vec<ToolRecord> {
    chunks
        .iter()
        .filter_map(|chunk| match chunk {
            ReplyEvent::Part(part) => ToolRecord::from_part(part),
            _ => None,
        })
        .collect()
}

fn texts(chunks: &[ReplyEvent]) -> String {
    chunks
        .iter()
        .filter_map(|chunk| match chunk {
            ReplyEvent::Text(text) => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn interleaved_calls_are_joined_run_together_and_answered_as_tool_messages() {
    let mock = MockModel::start(vec![two_calls(), final_answer()]).await;
    // Each handler waits for the other: run one after the other, they would never end.
    let barrier = Arc::new(tokio::sync::Barrier::new(2));
    let tool = |name: &'static str| {
        let barrier = barrier.clone();
        Tool::new(
            name,
            "d",
            json!({"type": "object"}),
            move |arguments: Value| {
                let barrier = barrier.clone();
                async move {
                    tokio::time::timeout(Duration::from_secs(10), barrier.wait())
                        .await
                        .map_err(|_| ToolError::new("the other call never ran"))?;
                    Ok(json!({"tool": name, "got": arguments}))
                }
            },
        )
    };
    let chat = client(&mock)
        .tool(tool("search"))
        .tool(tool("weather"))
        .build()
        .unwrap();
    let (chunks, error) = collect(&chat).await;
    assert_eq!(error, None);
    assert_eq!(texts(&chunks), "Let me look.Found two.");
    let records = records(&chunks);
    assert_eq!(records.len(), 2);
    assert_eq!(records[0].call.id, "call_a");
    assert_eq!(records[0].call.arguments, r#"{"cuisine": "thai"}"#);
    assert_eq!(
        records[1].result,
        r#"{"got":{"city":"Paris"},"tool":"weather"}"#
    );
    assert!(records.iter().all(|record| !record.is_error));
    assert!(chunks.contains(&ReplyEvent::Status("Calling search, weather…".into())));

    let requests = mock.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[0]["tools"][0]["type"], "function");
    assert_eq!(requests[0]["tools"][1]["function"]["name"], "weather");
    assert_eq!(requests[0]["tools"][0]["function"]["description"], "d");
    let messages = requests[1]["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 4, "{messages:?}");
    assert_eq!(messages[1]["role"], "assistant");
    assert_eq!(messages[1]["content"], "Let me look.");
    assert_eq!(messages[1]["tool_calls"][0]["id"], "call_a");
    assert_eq!(messages[1]["tool_calls"][0]["type"], "function");
    assert_eq!(
        messages[1]["tool_calls"][1]["function"],
        json!({"name": "weather", "arguments": "{\"city\": \"Paris\"}"})
    );
    assert_eq!(
        (
            messages[2]["role"].as_str(),
            messages[2]["tool_call_id"].as_str()
        ),
        (Some("tool"), Some("call_a"))
    );
    assert_eq!(
        messages[3]["content"],
        r#"{"got":{"city":"Paris"},"tool":"weather"}"#
    );
}

#[tokio::test]
async fn a_failing_handler_or_an_unknown_tool_is_a_result_the_model_reads() {
    let calls = answer(
        &[
            call(0, Some("c1"), Some("book"), "{}"),
            call(1, Some("c2"), Some("fly"), "{}"),
        ],
        "tool_calls",
    );
    let mock = MockModel::start(vec![calls, final_answer()]).await;
    let book = Tool::new("book", "d", json!({}), |_| async {
        Err(ToolError::new("no table is free at 20:00"))
    });
    let chat = client(&mock).tool(book).build().unwrap();
    let (chunks, error) = collect(&chat).await;
    assert_eq!(error, None);
    assert_eq!(texts(&chunks), "Found two.");
    let messages = mock.requests()[1]["messages"].clone();
    assert_eq!(messages[2]["content"], "Error: no table is free at 20:00");
    assert_eq!(
        messages[3]["content"],
        "Error: There is no tool named 'fly'. The tools are: book."
    );
    let records = records(&chunks);
    assert!(records.iter().all(|record| record.is_error));
    assert!(records[0].status_line().contains("Called book({}): failed"));
}

#[tokio::test]
async fn a_model_that_keeps_calling_tools_stops_after_the_rounds_allowed() {
    let again = answer(&[call(0, None, Some("search"), "{}")], "tool_calls");
    let mock = MockModel::start(vec![again]).await;
    let chat = client(&mock)
        .tool(echo("search"))
        .max_tool_rounds(2)
        .build()
        .unwrap();
    let (chunks, error) = collect(&chat).await;
    assert_eq!(error, Some(LlmError::ToolRounds(2)));
    assert_eq!(
        mock.requests().len(),
        3,
        "two rounds of tools, then the end"
    );
    assert_eq!(records(&chunks).len(), 2);
    // A call without an id gets one, and the tool message answers it.
    let messages = mock.requests()[2]["messages"].clone();
    assert_eq!(messages[1]["tool_calls"][0]["id"], "call_0_0");
    assert_eq!(messages[2]["tool_call_id"], "call_0_0");
}

#[tokio::test]
async fn a_slow_first_token_is_waited_for_and_shown_as_a_status() {
    let mock = MockModel::start(vec![Answer::SlowStart {
        body: sse(&[text("Hi.")], "stop"),
        first: Duration::from_millis(600),
    }])
    .await;
    let chat = client(&mock)
        .idle_timeout(Duration::from_millis(200))
        .first_token_timeout(Duration::from_secs(10))
        .reading_notice(Duration::from_millis(50))
        .build()
        .unwrap();
    let (chunks, error) = collect(&chat).await;
    assert_eq!(error, None, "the idle timeout is not the first token's");
    assert_eq!(
        chunks,
        [
            ReplyEvent::Status("The model is reading the prompt…".into()),
            ReplyEvent::Text("Hi.".into())
        ]
    );
}

#[tokio::test]
async fn a_model_that_never_writes_hits_the_first_token_timeout() {
    let mock = MockModel::start(vec![Answer::Hang {
        prefix: String::new(),
    }])
    .await;
    let chat = client(&mock)
        .first_token_timeout(Duration::from_millis(300))
        .build()
        .unwrap();
    let (_, error) = collect(&chat).await;
    let error = error.unwrap();
    assert!(matches!(error, LlmError::FirstToken(_)), "{error:?}");
    assert!(error.to_string().contains("first-token timeout"), "{error}");
}

#[test]
fn a_tool_choice_that_names_no_tool_is_refused_when_built() {
    use a2ui_agent::llm::ToolChoice;
    let built = OpenAiChat::builder("http://127.0.0.1:9/v1", "m")
        .tool(echo("search"))
        .action_tool_choice("confirm", ToolChoice::Tool("book_table".into()))
        .build();
    let Err(error) = built else {
        panic!("built with a choice of a tool it does not have")
    };
    assert!(error.to_string().contains("'book_table'"), "{error}");
    assert!(
        OpenAiChat::builder("http://127.0.0.1:9/v1", "m")
            .tool(echo("book_table"))
            .tool_choice(ToolChoice::Tool("book_table".into()))
            .build()
            .is_ok()
    );
}

#[test]
fn tool_names_the_api_cannot_carry_are_refused_when_built() {
    for names in [vec!["has space"], vec![""], vec!["same", "same"]] {
        let mut builder = OpenAiChat::builder("http://127.0.0.1:1/v1", "m");
        for name in names.clone() {
            builder = builder.tool(echo(name.to_owned().leak()));
        }
        assert!(
            matches!(builder.build(), Err(LlmError::Config(_))),
            "{names:?}"
        );
    }
}

/// A server whose agent is `chat`, and the events of one streamed message.
async fn ask(server: &support::TestServer, text: &str, task: Option<&str>) -> support::Sse {
    let params = support::params(json!([{"kind": "text", "text": text}]), None, task);
    server.stream("message/stream", params).await
}

#[tokio::test]
async fn the_client_sees_text_statuses_and_calls_and_the_next_turn_has_them_again() {
    let mock = MockModel::start(vec![two_calls(), final_answer(), final_answer()]).await;
    let chat = client(&mock)
        .tool(echo("search"))
        .tool(echo("weather"))
        .build()
        .unwrap();
    let server = support::spawn(support::builder(chat).build().unwrap()).await;
    let sse = ask(&server, "Thai food?", None).await;
    let results = sse.results();
    let working: Vec<&Value> = results
        .iter()
        .filter(|r| r["kind"] == "status-update" && r["status"]["state"] == "working")
        .filter_map(|r| r["status"].get("message"))
        .collect();
    let shown: Vec<String> = working
        .iter()
        .flat_map(|m| m["parts"].as_array().unwrap().iter())
        .map(|part| part["text"].as_str().unwrap_or_default().to_owned())
        .collect();
    let first_text = shown.iter().position(|t| t == "Let me look.").unwrap();
    let status = shown
        .iter()
        .position(|t| t == "Calling search, weather…")
        .unwrap();
    let call = shown
        .iter()
        .position(|t| t.contains("Called search({\"cuisine\": \"thai\"})"))
        .unwrap();
    let after = shown.iter().position(|t| t.contains("Found")).unwrap();
    assert!(
        first_text < status && status < call && call < after,
        "{shown:?}"
    );
    // The status is marked, and its message is not the reply's.
    let status_message = working
        .iter()
        .find(|m| m["parts"][0]["text"] == "Calling search, weather…")
        .unwrap();
    assert_eq!(
        status_message["parts"][0]["metadata"][STATUS_METADATA],
        true
    );

    let last = sse.results().last().cloned().unwrap().clone();
    assert_eq!(last["status"]["state"], "input-required");
    assert_ne!(
        status_message["messageId"],
        last["status"]["message"]["messageId"]
    );
    let id = last["taskId"].as_str().unwrap().to_owned();
    let task = server.get_task(&id).await;
    let parts = task["status"]["message"]["parts"]
        .as_array()
        .unwrap()
        .clone();
    assert!(
        parts
            .iter()
            .all(|p| p["text"] != "Calling search, weather…"),
        "a passing status is not part of the reply: {parts:?}"
    );
    let recorded: Vec<&Value> = parts
        .iter()
        .filter_map(|p| p["metadata"].get(TOOL_CALL_METADATA))
        .collect();
    assert_eq!(recorded.len(), 2, "{parts:?}");
    assert_eq!(recorded[1]["name"], "weather");

    // The next turn sends the calls and their results again, in place.
    let sse = ask(&server, "And the second?", Some(&id)).await;
    assert_eq!(
        sse.results().last().unwrap()["status"]["state"],
        "input-required"
    );
    let messages = mock.requests()[2]["messages"].as_array().unwrap().clone();
    let roles: Vec<&str> = messages
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(
        roles,
        ["user", "assistant", "tool", "tool", "assistant", "user"],
        "{messages:?}"
    );
    assert_eq!(messages[1]["content"], "Let me look.");
    assert_eq!(messages[1]["tool_calls"][1]["id"], "call_b");
    assert_eq!(messages[3]["tool_call_id"], "call_b");
    assert_eq!(messages[4]["content"], "Found two.");
}

#[tokio::test]
async fn canceling_the_task_stops_the_running_handlers() {
    let calls = answer(&[call(0, Some("c1"), Some("slow"), "{}")], "tool_calls");
    let mock = MockModel::start(vec![calls]).await;
    let started = Arc::new(AtomicUsize::new(0));
    let dropped = Arc::new(AtomicBool::new(false));
    struct Guard(Arc<AtomicBool>);
    impl Drop for Guard {
        fn drop(&mut self) {
            self.0.store(true, Ordering::SeqCst);
        }
    }
    let slow = {
        let (started, dropped) = (started.clone(), dropped.clone());
        Tool::new("slow", "d", json!({}), move |_| {
            let guard = Guard(dropped.clone());
            started.fetch_add(1, Ordering::SeqCst);
            async move {
                let _guard = guard;
                std::future::pending::<()>().await;
                Ok(Value::Null)
            }
        })
    };
    let chat = client(&mock).tool(slow).build().unwrap();
    let server = support::spawn(support::builder(chat).build().unwrap()).await;
    let response = server
        .open_stream("message/stream", support::text_message("go"))
        .await;
    let mut events = support::SseReader::new(response);
    let mut id = None;
    while let Some(event) = events.next_event().await {
        let result = &event["result"];
        id = id.or_else(|| result["id"].as_str().map(str::to_owned));
        if result["status"]["message"]["parts"][0]["text"] == "Calling slow…" {
            break;
        }
    }
    let id = id.unwrap();
    for _ in 0..500 {
        if started.load(Ordering::SeqCst) == 1 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(!dropped.load(Ordering::SeqCst));
    let canceled = server.result("tasks/cancel", json!({"id": id})).await;
    assert_eq!(canceled["status"]["state"], "canceled");
    let mut stopped = false;
    for _ in 0..500 {
        if dropped.load(Ordering::SeqCst) {
            stopped = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(stopped, "the handler kept running after the cancel");
}

#[tokio::test]
async fn a_call_written_as_fenced_json_by_a_small_model_is_run_as_a_call() {
    // What Qwen2.5-Coder-0.5B behind llama.cpp writes when offered a tool.
    let written = answer(
        &[
            text("```"),
            text("json\n{\n  \"name\": \"search\",\n  \"arguments\": {\n    \"cuisine\": \"Thai\""),
            text("\n  }\n}\n```"),
        ],
        "stop",
    );
    let mock = MockModel::start(vec![written, final_answer()]).await;
    let chat = client(&mock).tool(echo("search")).build().unwrap();
    let (chunks, error) = collect(&chat).await;
    assert_eq!(error, None);
    assert_eq!(
        texts(&chunks),
        "Found two.",
        "the written call is not shown as text"
    );
    let records = records(&chunks);
    assert_eq!(records.len(), 1);
    assert_eq!(records[0].call.arguments, r#"{"cuisine":"Thai"}"#);
    let messages = mock.requests()[1]["messages"].clone();
    assert_eq!(messages[1]["tool_calls"][0]["function"]["name"], "search");
    assert_eq!(messages[2]["role"], "tool");
}

#[tokio::test]
async fn json_that_is_not_a_call_still_reaches_the_client_whole() {
    let body = "```json\n{\"name\": \"Baan Thai\", \"rating\": 4.6}\n```";
    let mock = MockModel::start(vec![answer(&[text(&body[..9]), text(&body[9..])], "stop")]).await;
    let chat = client(&mock).tool(echo("search")).build().unwrap();
    let (chunks, error) = collect(&chat).await;
    assert_eq!(error, None);
    assert_eq!(texts(&chunks), body);
    assert_eq!(mock.requests().len(), 1);
}

/// Reads one HTTP request (head and `Content-Length` body) from `socket`; `None` when the
/// client closed the connection first.
async fn read_request(socket: &mut tokio::net::TcpStream) -> Option<Vec<u8>> {
    use tokio::io::AsyncReadExt;
    let mut buf = Vec::new();
    let mut piece = [0u8; 4096];
    loop {
        if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&buf[..end]).to_ascii_lowercase();
            let length: usize = head
                .lines()
                .find_map(|line| line.strip_prefix("content-length:"))
                .and_then(|n| n.trim().parse().ok())
                .unwrap_or(0);
            if buf.len() >= end + 4 + length {
                return Some(buf);
            }
        }
        let n = socket.read(&mut piece).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&piece[..n]);
    }
}

/// An SSE answer as llama.cpp's server frames it: chunked, with a `Keep-Alive` header.
async fn write_sse(socket: &mut tokio::net::TcpStream, body: &str) {
    use tokio::io::AsyncWriteExt;
    let head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\
        Transfer-Encoding: chunked\r\nKeep-Alive: timeout=5, max=100\r\n\r\n";
    let mut out = head.as_bytes().to_vec();
    for event in body.split_inclusive("\n\n") {
        out.extend_from_slice(format!("{:x}\r\n{event}\r\n", event.len()).as_bytes());
    }
    out.extend_from_slice(b"0\r\n\r\n");
    socket.write_all(&out).await.unwrap();
}

#[tokio::test]
async fn a_kept_alive_connection_the_model_server_closed_between_rounds_is_not_a_failure() {
    // llama.cpp's server says `Keep-Alive` and then closes the connection after a streamed
    // answer. A tool round's next request goes out at once, on the connection the client
    // still holds, and finds it closed (here deterministically: the server reads the request
    // and hangs up). The request never reached the model, so it is sent again on a new one.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    let requests = Arc::new(AtomicUsize::new(0));
    let seen = requests.clone();
    let server = tokio::spawn(async move {
        let mut connections = 0;
        loop {
            let Ok((mut socket, _)) = listener.accept().await else {
                return;
            };
            connections += 1;
            let first_connection = connections == 1;
            let seen = seen.clone();
            tokio::spawn(async move {
                let call = sse(
                    &[call(
                        0,
                        Some("call_a"),
                        Some("search"),
                        "{\"city\": \"Paris\"}",
                    )],
                    "tool_calls",
                );
                while read_request(&mut socket).await.is_some() {
                    seen.fetch_add(1, Ordering::SeqCst);
                    if !first_connection {
                        write_sse(&mut socket, &sse(&[text("Found one.")], "stop")).await;
                        continue;
                    }
                    if seen.load(Ordering::SeqCst) == 1 {
                        write_sse(&mut socket, &call).await;
                    } else {
                        return; // the next request on the kept connection: hang up
                    }
                }
            });
        }
    });
    let chat = OpenAiChat::builder(&url, "mock-model")
        .idle_timeout(Duration::from_secs(5))
        .retries(0, Duration::ZERO, Duration::ZERO)
        .tool(echo("search"))
        .build()
        .unwrap();
    let (chunks, error) = collect(&chat).await;
    server.abort();
    assert_eq!(error, None, "{chunks:?}");
    assert_eq!(texts(&chunks), "Found one.");
    assert_eq!(records(&chunks).len(), 1);
    assert_eq!(
        requests.load(Ordering::SeqCst),
        3,
        "the call, the answer on the closed connection, the answer again"
    );
}

#[tokio::test]
async fn a_tools_guide_follows_its_results_once_and_not_after_a_failed_call() {
    let three_calls = answer(
        &[
            call(0, Some("c1"), Some("search"), "{}"),
            call(1, Some("c2"), Some("search"), "{\"page\": 2}"),
            call(2, Some("c3"), Some("book"), "{}"),
        ],
        "tool_calls",
    );
    let mock = MockModel::start(vec![three_calls, final_answer()]).await;
    let book = Tool::new("book", "d", json!({"type": "object"}), |_| async {
        Err(ToolError::new("full"))
    })
    .guide("Show the booking.");
    let chat = client(&mock)
        .tool(echo("search").guide("Show each result as a Card."))
        .tool(book)
        .build()
        .unwrap();
    let (_, error) = collect(&chat).await;
    assert_eq!(error, None);
    let requests = mock.requests();
    let messages = requests[1]["messages"].as_array().unwrap();
    let roles: Vec<&str> = messages.iter().filter_map(|m| m["role"].as_str()).collect();
    assert_eq!(
        roles,
        ["user", "assistant", "tool", "tool", "tool", "system"],
        "the guide comes after every result of the round"
    );
    assert_eq!(
        messages[5]["content"], "Show each result as a Card.",
        "once for two calls, and none for the call that failed"
    );
    // Without a guide the round ends with its results, as before.
    let plain = MockModel::start(vec![two_calls(), final_answer()]).await;
    let chat = client(&plain)
        .tool(echo("search"))
        .tool(echo("weather"))
        .build()
        .unwrap();
    let (_, error) = collect(&chat).await;
    assert_eq!(error, None);
    let last = plain.requests()[1]["messages"]
        .as_array()
        .unwrap()
        .last()
        .cloned()
        .unwrap();
    assert_eq!(last["role"], "tool");
}

#[test]
fn an_action_guide_follows_the_message_that_carries_its_action() {
    use a2ui_agent::a2a::{Message, Part};
    use a2ui_agent::generator::Generator;
    use a2ui_agent::request::Request;

    let chat = OpenAiChat::builder("http://127.0.0.1:9/v1", "m")
        .instructions("You book tables.")
        .action_guide("book", "an old guide")
        .action_guide("book", "Draw the booking form.")
        .action_guide("cancel", "Say it is canceled.")
        .build()
        .unwrap();
    let action = |name: &str| {
        let message = json!({"version": "v0.9", "action": {"name": name, "surfaceId": "s",
            "sourceComponentId": "b", "timestamp": "2026-01-01T00:00:00Z",
            "context": {"restaurantId": "r1"}}});
        Part::data(message.as_object().unwrap().clone())
    };
    let processor = || Generator::v0_9().negotiate(None).unwrap();
    let asked = |parts: Vec<Part>| {
        let request = Request::new(Message::user("m1", parts), "t", "c").with_a2ui(processor());
        chat.messages(&request)
    };

    let booked = asked(vec![action("book"), action("book")]);
    let roles: Vec<&str> = booked.iter().map(|m| m.role).collect();
    assert_eq!(roles, ["system", "user", "system"]);
    assert!(booked[1].content.contains("\"restaurantId\":\"r1\""));
    assert_eq!(
        booked[2].content, "Draw the booking form.",
        "the newest guide for the name, once however often the action comes"
    );
    let unguided = asked(vec![action("select")]);
    assert_eq!(unguided.last().unwrap().role, "user");
    let text = asked(vec![Part::text("book a table")]);
    assert_eq!(
        text.last().unwrap().role,
        "user",
        "a word in the text is not the action"
    );
}

#[test]
fn at_most_the_last_messages_of_the_history_go_to_the_model() {
    use a2ui_agent::a2a::{Message, Part};
    use a2ui_agent::request::Request;

    let history = vec![
        Message::user("h1", vec![Part::text("Thai food?")]),
        Message::agent("h2", vec![Part::text("Two places.")]),
        Message::user("h3", vec![Part::text("The first one.")]),
        Message::agent("h4", vec![Part::text("Baan Thai, then.")]),
    ];
    let request = Request::new(Message::user("m", vec![Part::text("Book it.")]), "t", "c")
        .with_history(history);
    let chat = |most: Option<usize>| {
        let mut builder =
            OpenAiChat::builder("http://127.0.0.1:9/v1", "m").instructions("Be brief.");
        if let Some(most) = most {
            builder = builder.max_history(most);
        }
        let said: Vec<String> = builder
            .build()
            .unwrap()
            .messages(&request)
            .into_iter()
            .map(|m| format!("{}: {}", m.role, m.content))
            .collect();
        said
    };
    assert_eq!(chat(None).len(), 6, "all of it by default");
    assert_eq!(
        chat(Some(2)),
        [
            "system: Be brief.",
            "user: The first one.",
            "assistant: Baan Thai, then.",
            "user: Book it."
        ]
    );
    assert_eq!(chat(Some(0)), ["system: Be brief.", "user: Book it."]);
    assert_eq!(chat(Some(10)), chat(None));
}

/// What the model server received for each round of a reply to `request`.
async fn rounds_sent(
    chat: impl FnOnce(a2ui_agent::llm::OpenAiChatBuilder) -> a2ui_agent::llm::OpenAiChatBuilder,
    script: Vec<Answer>,
    request: &a2ui_agent::request::Request,
) -> Vec<Value> {
    let mock = MockModel::start(script).await;
    let chat = chat(client(&mock).tool(echo("search")).tool(echo("book")))
        .build()
        .unwrap();
    let mut stream = Box::pin(chat.reply_to(request, chat.messages(request)));
    while let Some(item) = stream.next().await {
        assert!(item.is_ok(), "{item:?}");
    }
    mock.requests()
}

#[tokio::test]
async fn a_turn_made_to_call_a_tool_asks_it_in_its_first_round_only() {
    use a2ui_agent::a2a::{Message, Part};
    use a2ui_agent::a2ui::{ProtocolVersion, ValidationError};
    use a2ui_agent::format::express::Express;
    use a2ui_agent::generator::Generator;
    use a2ui_agent::llm::ToolChoice;
    use a2ui_agent::request::{Repair, Request};

    let express = || {
        Generator::builder(ProtocolVersion::V0_9)
            .format(Express::new())
            .build()
            .unwrap()
            .negotiate(None)
            .unwrap()
    };
    let action = |name: &str| {
        let message = json!({"version": "v0.9", "action": {"name": name, "surfaceId": "s",
            "sourceComponentId": "b", "timestamp": "2026-01-01T00:00:00Z", "context": {}}});
        Part::data(message.as_object().unwrap().clone())
    };
    let asked =
        |parts: Vec<Part>| Request::new(Message::user("m1", parts), "t", "c").with_a2ui(express());
    let choices = |chat: a2ui_agent::llm::OpenAiChatBuilder| {
        chat.tool_choice(ToolChoice::Required)
            .action_tool_choice("book", ToolChoice::None)
            .action_tool_choice("confirm", ToolChoice::Auto)
            .action_tool_choice("confirm", ToolChoice::Tool("book".into()))
    };
    let constrained = |chat| choices(chat).constrain("grammar");
    let one_call = || answer(&[call(0, Some("c1"), Some("search"), "{}")], "tool_calls");

    // A message: the first round must call, the one after the results may answer.
    let thai = asked(vec![Part::text("Thai?")]);
    let sent = rounds_sent(choices, vec![one_call(), final_answer()], &thai).await;
    assert_eq!(sent.len(), 2);
    assert_eq!(sent[0]["tool_choice"], "required");
    assert_eq!(sent[0]["tools"].as_array().map(Vec::len), Some(2));
    assert!(sent[1].get("tool_choice").is_none(), "{}", sent[1]);
    assert_eq!(sent[1]["tools"].as_array().map(Vec::len), Some(2));
    assert!(sent.iter().all(|s| s.get("grammar").is_none()));

    // A client that constrains answers makes the call itself: no tool offered, the tools
    // told in a last system turn, a grammar that admits one call and nothing else; the
    // call it writes runs, and the next round offers the tools again.
    let written = answer(
        &[text(
            "<tool_call>\n{\"name\": \"search\", \"arguments\": {}}\n</tool_call>",
        )],
        "stop",
    );
    let sent = rounds_sent(constrained, vec![written, final_answer()], &thai).await;
    assert_eq!(sent.len(), 2, "the written call ran");
    assert!(sent[0].get("tools").is_none() && sent[0].get("tool_choice").is_none());
    let grammar = sent[0]["grammar"].as_str().unwrap();
    assert!(
        grammar.starts_with("root ::= \"<tool_call>\\n\""),
        "{grammar}"
    );
    assert!(grammar.contains("search") && grammar.contains("book"));
    let told = sent[0]["messages"].as_array().unwrap().last().unwrap();
    assert_eq!(told["role"], "system");
    assert!(
        told["content"]
            .as_str()
            .unwrap()
            .contains("\"name\":\"search\"")
    );
    assert_eq!(sent[1]["tools"].as_array().map(Vec::len), Some(2));
    assert!(sent[1].get("grammar").is_none(), "beside tools again");
    assert_eq!(
        sent[1]["messages"][2]["tool_calls"][0]["function"]["name"],
        "search"
    );

    // An action that only draws: no tool is offered, so the format's grammar goes.
    let sent = rounds_sent(
        constrained,
        vec![final_answer()],
        &asked(vec![action("book")]),
    )
    .await;
    assert!(sent[0].get("tools").is_none() && sent[0].get("tool_choice").is_none());
    assert!(
        sent[0]["grammar"]
            .as_str()
            .is_some_and(|g| g.contains("\"Button(\""))
    );

    // The newest choice for an action that acts: that tool, named to the server, or the
    // only one the grammar and the system turn name.
    let confirm = asked(vec![action("confirm")]);
    let sent = rounds_sent(
        |chat| choices(chat).tool_choice(ToolChoice::Auto),
        vec![one_call(), final_answer()],
        &confirm,
    )
    .await;
    assert_eq!(
        sent[0]["tool_choice"],
        json!({"type": "function", "function": {"name": "book"}})
    );
    assert_eq!(sent[0]["tools"].as_array().map(Vec::len), Some(2));
    let written = answer(
        &[text(
            "<tool_call>\n{\"name\": \"book\", \"arguments\": {}}\n</tool_call>",
        )],
        "stop",
    );
    let sent = rounds_sent(constrained, vec![written, final_answer()], &confirm).await;
    let grammar = sent[0]["grammar"].as_str().unwrap();
    assert!(
        grammar.contains("book") && !grammar.contains("search"),
        "{grammar}"
    );
    assert_eq!(
        sent[1]["messages"][2]["tool_calls"][0]["function"]["name"],
        "book"
    );
    // Without the action, the client's own choice (auto: nothing sent).
    let sent = rounds_sent(
        |chat| choices(chat).tool_choice(ToolChoice::Auto),
        vec![final_answer()],
        &asked(vec![Part::text("hello")]),
    )
    .await;
    assert!(sent[0].get("tool_choice").is_none() && sent[0].get("tools").is_some());

    // A repair turn writes the UI again: it is never made to call a tool.
    let repair = thai.clone().with_repair(Repair::new(
        ProtocolVersion::V0_9,
        "<a2ui>\nroot = Text(1)\n</a2ui>",
        vec![ValidationError::new(
            "/text",
            "expected a string",
            None,
            None,
        )],
    ));
    let sent = rounds_sent(choices, vec![final_answer()], &repair).await;
    assert!(sent[0].get("tool_choice").is_none(), "{}", sent[0]);
}

/// Posts `input` to the server's `/ag-ui`; the status and the events.
async fn ag_ui(server: &support::TestServer, input: &Value) -> (u16, Vec<Value>) {
    let response = server
        .client
        .post(format!("{}ag-ui", server.url))
        .json(input)
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    let body = response.text().await.unwrap();
    let events = body
        .lines()
        .filter_map(|line| line.strip_prefix("data: "))
        .map(|json| serde_json::from_str(json).unwrap())
        .collect();
    (status, events)
}

fn kinds(events: &[Value]) -> Vec<&str> {
    events.iter().map(|e| e["type"].as_str().unwrap()).collect()
}

#[tokio::test]
async fn over_ag_ui_the_calls_are_tool_call_events_between_the_texts() {
    let mock = MockModel::start(vec![two_calls(), final_answer()]).await;
    let chat = client(&mock)
        .tool(echo("search"))
        .tool(echo("weather"))
        .build()
        .unwrap();
    let server = support::spawn(support::builder(chat).ag_ui("/ag-ui").build().unwrap()).await;
    let input = json!({"threadId": "t", "runId": "r",
        "messages": [{"id": "m", "role": "user", "content": "Thai food?"}]});
    let (_, events) = ag_ui(&server, &input).await;
    let kinds = kinds(&events);
    let calls = [
        "TOOL_CALL_START",
        "TOOL_CALL_ARGS",
        "TOOL_CALL_END",
        "TOOL_CALL_RESULT",
    ];
    let expected: Vec<&str> = ["RUN_STARTED", "TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT"]
        .into_iter()
        .chain(["TEXT_MESSAGE_END", "CUSTOM"])
        .chain(calls)
        .chain(calls)
        .chain(["TEXT_MESSAGE_START"])
        .collect();
    assert_eq!(&kinds[..expected.len()], expected, "{kinds:?}");
    assert_eq!(kinds.last(), Some(&"RUN_FINISHED"), "{kinds:?}");
    assert_eq!(events[4]["value"], "Calling search, weather…");
    let search = &events[5..9];
    assert_eq!(search[0]["toolCallName"], "search");
    assert_eq!(search[1]["delta"], "{\"cuisine\": \"thai\"}");
    assert_eq!(search[3]["toolCallId"], search[0]["toolCallId"]);
    let result: Value = serde_json::from_str(search[3]["content"].as_str().unwrap()).unwrap();
    assert_eq!(result["got"]["cuisine"], "thai");
}

#[tokio::test]
async fn a_frontend_tool_call_ends_the_run_and_its_result_continues_the_next() {
    let asks = answer(
        &[
            text("Which day?"),
            call(
                0,
                Some("call_c"),
                Some("pick_date"),
                "{\"after\": \"today\"}",
            ),
        ],
        "tool_calls",
    );
    let books = answer(&[text("Booked for "), text("Friday.")], "stop");
    let mock = MockModel::start(vec![asks, books]).await;
    let chat = client(&mock).tool(echo("search")).build().unwrap();
    let server = support::spawn(support::builder(chat).ag_ui("/ag-ui").build().unwrap()).await;
    let tools = json!([{"name": "pick_date", "description": "Asks the user for a date.",
        "parameters": {"type": "object", "properties": {"after": {"type": "string"}}}}]);
    let asked = json!({"id": "u1", "role": "user", "content": "Book a table"});
    let first = json!({"threadId": "t", "runId": "r1", "messages": [asked], "tools": tools});
    let (status, events) = ag_ui(&server, &first).await;
    assert_eq!(status, 200);
    // The call is the client's to run: opened and closed, no result, and the run ends.
    assert_eq!(
        kinds(&events),
        [
            "RUN_STARTED",
            "TEXT_MESSAGE_START",
            "TEXT_MESSAGE_CONTENT",
            "TEXT_MESSAGE_END",
            "TOOL_CALL_START",
            "TOOL_CALL_ARGS",
            "TOOL_CALL_END",
            "RUN_FINISHED",
        ]
    );
    assert_eq!(events[4]["toolCallName"], "pick_date");
    assert_eq!(events[4]["toolCallId"], "call_c");
    assert_eq!(events[5]["delta"], "{\"after\": \"today\"}");
    // Offered beside the agent's own tools.
    let requests = mock.requests();
    let offered: Vec<&str> = requests[0]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["function"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(offered, ["search", "pick_date"]);
    // The client ran it; its result comes back in the next run and the model goes on.
    let call = json!({"id": "a1", "role": "assistant", "content": "Which day?", "toolCalls": [
        {"id": "call_c", "type": "function",
            "function": {"name": "pick_date", "arguments": "{}"}}]});
    let result = json!({"id": "t1", "role": "tool", "toolCallId": "call_c", "content": "Friday"});
    let second = json!({"threadId": "t", "runId": "r2",
        "messages": [asked, call, result], "tools": tools});
    let (status, events) = ag_ui(&server, &second).await;
    assert_eq!(status, 200, "{events:?}");
    assert_eq!(kinds(&events).last(), Some(&"RUN_FINISHED"), "{events:?}");
    let said: String = events.iter().filter_map(|e| e["delta"].as_str()).collect();
    assert_eq!(said, "Booked for Friday.");
    let messages = mock.requests()[1]["messages"].as_array().unwrap().clone();
    let n = messages.len();
    assert_eq!(messages[n - 3]["content"], "Book a table");
    assert_eq!(messages[n - 2]["tool_calls"][0]["id"], "call_c");
    assert_eq!(
        messages[n - 2]["tool_calls"][0]["function"]["name"],
        "pick_date"
    );
    assert_eq!(messages[n - 1]["role"], "tool");
    assert_eq!(messages[n - 1]["tool_call_id"], "call_c");
    assert_eq!(messages[n - 1]["content"], "Friday");
    // A result for a call nobody asked the client to run is refused before the run.
    let stray = json!({"id": "t2", "role": "tool", "toolCallId": "call_x", "content": "?"});
    let third = json!({"threadId": "t", "runId": "r3", "messages": [asked, stray]});
    let (status, _) = ag_ui(&server, &third).await;
    assert_eq!(status, 400);
    assert_eq!(mock.requests().len(), 2, "the model was not asked again");
}
