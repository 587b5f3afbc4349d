//! `a2ui-agent call` and `a2ui-agent chat` as a person uses them: the real binary talking to
//! the real demo server (`a2ui-agent serve`) on a real socket. The restaurant cards print as
//! an outline with numbered buttons, a press reaches the agent and its answer prints, `--json`
//! prints only JSON lines, `chat` keeps the conversation across piped lines, and an agent
//! that cannot be reached is one clear error line.
#![cfg(feature = "cli")]

mod cli;
mod support;

use std::process::Output;
use std::time::Duration;

use cli::{json_lines, run, run_with_stdin, stdout};
use serde_json::Value;
use support::{serve_command, spawn_binary};

/// `a2ui-agent serve` (the demo agent, no pauses) on a free port: the child and its URL.
async fn demo() -> (tokio::process::Child, String) {
    let command = serve_command(&["--min-delay-ms", "0", "--max-delay-ms", "0"]);
    spawn_binary(command, Duration::from_secs(30)).await
}

/// Runs the binary off the runtime, so the server's log keeps being drained meanwhile.
async fn a2ui_agent(args: &[&str], stdin: &str) -> Output {
    let args: Vec<String> = args.iter().map(|a| (*a).to_owned()).collect();
    let stdin = stdin.to_owned();
    tokio::task::spawn_blocking(move || {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        run_with_stdin(&args, &stdin)
    })
    .await
    .unwrap()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// The number shown before the first `Button: LABEL` line of `outline` (`[N] Button: LABEL`).
fn button_number(outline: &str, label: &str) -> usize {
    outline
        .lines()
        .find_map(|line| {
            let line = line.trim();
            let (number, rest) = line.strip_prefix('[')?.split_once("] ")?;
            (rest == format!("Button: {label}")).then(|| number.parse().ok())?
        })
        .unwrap_or_else(|| panic!("no button {label:?} in:\n{outline}"))
}

#[tokio::test(flavor = "multi_thread")]
async fn call_prints_the_restaurant_cards_with_numbered_book_buttons() {
    let (_server, url) = demo().await;
    for version in ["v0.9", "v0.8"] {
        let output = a2ui_agent(&["call", &url, "Dinner for two?", "--a2ui", version], "").await;
        assert!(output.status.success(), "{version}: {}", stderr(&output));
        let shown = stdout(&output);
        assert!(
            shown.starts_with("Here are three restaurants near you with tables tonight:\n"),
            "{version}: {shown}"
        );
        assert!(shown.contains("surface results\n"), "{version}: {shown}");
        for (i, name) in ["Trattoria Alba", "Sakura House", "Casa Verde"]
            .iter()
            .enumerate()
        {
            assert!(
                shown.contains(&format!("Text: {name}\n")),
                "{version}: {shown}"
            );
            assert!(
                shown.contains(&format!("[{}] Button: Book\n", i + 1)),
                "{version}: {shown}"
            );
        }
        assert!(
            shown.contains("Text: Japanese · rated 4.5"),
            "{version}: {shown}"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn pressing_book_then_confirm_books_the_table_on_every_interface() {
    let (_server, url) = demo().await;
    let first = stdout(&a2ui_agent(&["call", &url, "Dinner?"], "").await);
    // Sakura House is the second card: its Book button is the one to press.
    let sakura = first.find("Sakura House").unwrap();
    let book = button_number(&first[sakura..], "Book");
    assert_eq!(book, 2);
    for transport in ["jsonrpc", "http-json", "jsonrpc-0.3"] {
        let book = book.to_string();
        let output = a2ui_agent(
            &[
                "call",
                &url,
                "Dinner?",
                "--transport",
                transport,
                "--press",
                &book,
            ],
            "",
        )
        .await;
        assert!(output.status.success(), "{transport}: {}", stderr(&output));
        let shown = stdout(&output);
        let answer = shown
            .split("> [2] Book\n")
            .nth(1)
            .unwrap_or_else(|| panic!("{shown}"));
        assert!(
            answer.starts_with("Great choice. Let's book a table at Sakura House."),
            "{transport}: {answer}"
        );
        assert!(answer.contains("TextField: Party size = \"2\""), "{answer}");
        let confirm = button_number(answer, "Confirm").to_string();
        let output = a2ui_agent(
            &[
                "call",
                &url,
                "Dinner?",
                "--transport",
                transport,
                "--press",
                &book,
                "--press",
                &confirm,
            ],
            "",
        )
        .await;
        assert!(output.status.success(), "{transport}: {}", stderr(&output));
        let shown = stdout(&output);
        assert!(
            shown.contains("All set! Your table at Sakura House is booked."),
            "{transport}: {shown}"
        );
        assert!(
            shown.contains("Text: Guest at Sakura House, 2 people, 19:30."),
            "{shown}"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn json_output_is_one_event_per_line_and_nothing_else() {
    let (_server, url) = demo().await;
    let output = a2ui_agent(&["call", &url, "Dinner?", "--json", "--press", "1"], "").await;
    assert!(output.status.success(), "{}", stderr(&output));
    let events = json_lines(&output);
    let kinds: Vec<&str> = events.iter().map(|e| e["kind"].as_str().unwrap()).collect();
    for kind in ["status", "text", "a2ui", "outline", "press"] {
        assert!(kinds.contains(&kind), "{kind} missing from {kinds:?}");
    }
    let text: String = events
        .iter()
        .filter(|e| e["kind"] == "text")
        .map(|e| e["text"].as_str().unwrap())
        .collect();
    assert!(text.starts_with("Here are three restaurants"), "{text}");
    let outline = events.iter().find(|e| e["kind"] == "outline").unwrap();
    assert_eq!(outline["buttons"][1]["label"], "Book");
    assert_eq!(outline["buttons"][1]["action"], "select");
    let press = events.iter().find(|e| e["kind"] == "press").unwrap();
    assert_eq!(press["message"]["action"]["name"], "select");
    assert_eq!(
        press["message"]["action"]["context"]["restaurant"],
        "Trattoria Alba"
    );
    // The press went on the same conversation, and its answer is the booking form.
    let contexts: Vec<&Value> = events
        .iter()
        .filter(|e| e["kind"] == "status")
        .map(|e| &e["contextId"])
        .collect();
    assert!(contexts.windows(2).all(|w| w[0] == w[1]), "{contexts:?}");
    let last = events
        .iter()
        .rev()
        .find(|e| e["kind"] == "outline")
        .unwrap();
    assert_eq!(last["surfaces"][0], "booking");
}

#[tokio::test(flavor = "multi_thread")]
async fn chat_on_piped_input_keeps_the_conversation_across_turns() {
    let (_server, url) = demo().await;
    // Turn one asks; the line "3" presses Casa Verde's Book; then the form's Confirm.
    let output = a2ui_agent(
        &["chat", &url],
        "Dinner for two?\n3\n1\n/quit\nnever sent\n",
    )
    .await;
    assert!(output.status.success(), "{}", stderr(&output));
    let shown = stdout(&output);
    assert!(shown.contains("[3] Button: Book"), "{shown}");
    assert!(
        shown.contains("> [3] Book\nGreat choice. Let's book a table at Casa Verde."),
        "{shown}"
    );
    assert!(
        shown.contains("> [1] Confirm\nAll set! Your table at Casa Verde is booked."),
        "{shown}"
    );
    assert!(!shown.contains("never sent"));
    // In JSON, every turn's events name the same context.
    let output = a2ui_agent(&["chat", &url, "--json"], "Dinner?\nAnything else?\n").await;
    assert!(output.status.success(), "{}", stderr(&output));
    let events = json_lines(&output);
    let contexts: Vec<&Value> = events
        .iter()
        .filter(|e| e["kind"] == "status")
        .map(|e| &e["contextId"])
        .collect();
    assert!(contexts.len() >= 4, "{contexts:?}");
    assert!(
        contexts.iter().all(|c| *c == contexts[0] && c.is_string()),
        "{contexts:?}"
    );
    // The demo waits for input after each answer: the second turn continues its task.
    let tasks: Vec<&Value> = events
        .iter()
        .filter(|e| e["kind"] == "status")
        .map(|e| &e["taskId"])
        .collect();
    assert!(
        tasks.iter().all(|t| *t == tasks[0] && t.is_string()),
        "{tasks:?}"
    );
    let outlines = events.iter().filter(|e| e["kind"] == "outline").count();
    assert_eq!(outlines, 2);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_button_that_is_not_there_is_a_clear_error() {
    let (_server, url) = demo().await;
    let output = a2ui_agent(&["call", &url, "Dinner?", "--press", "9"], "").await;
    assert_eq!(output.status.code(), Some(1));
    let error = stderr(&output);
    assert_eq!(
        error.trim(),
        "error: there is no button [9]: the last answer showed 3",
        "{error}"
    );
}

#[test]
fn an_unreachable_agent_is_one_clear_error_line_and_no_panic() {
    // A port nothing listens on: bind one, then free it.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("http://127.0.0.1:{port}/");
    for command in ["call", "chat"] {
        let mut args = vec![command, url.as_str()];
        if command == "call" {
            args.push("hello");
        }
        args.extend(["--timeout", "5"]);
        let output = run(&args);
        assert_eq!(output.status.code(), Some(1), "{command}");
        let error = stderr(&output);
        assert_eq!(error.lines().count(), 1, "{command}: {error}");
        assert!(
            error.starts_with(&format!("error: {url}: could not talk to the agent")),
            "{error}"
        );
        assert!(!error.contains("panicked"), "{error}");
        assert!(output.stdout.is_empty());
    }
    let output = run(&["call", "not a url", "hi"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).starts_with("error: not a url: invalid client configuration"),
        "{}",
        stderr(&output)
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_failed_task_exits_non_zero_with_the_agents_reason() {
    // A model server nothing listens on: the agent's task fails.
    let command = serve_command(&["--model-url", "http://127.0.0.1:1/v1", "--model", "m"]);
    let (_server, url) = spawn_binary(command, Duration::from_secs(30)).await;
    let output = a2ui_agent(&["call", &url, "hello"], "").await;
    assert_eq!(output.status.code(), Some(1));
    let error = stderr(&output);
    assert_eq!(error.lines().count(), 1, "{error}");
    assert!(
        error.starts_with("error: the agent's task ended failed: Could not reach the model server"),
        "{error}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_card_that_is_not_a_card_is_a_clear_error() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/", listener.local_addr().unwrap());
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            let mut request = [0_u8; 4096];
            let _ = socket.read(&mut request).await;
            let body = r#"{"name": 7, "supportedInterfaces": "none"}"#;
            let answer = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
            let _ = socket.write_all(answer.as_bytes()).await;
        }
    });
    let output = a2ui_agent(&["call", &url, "hello"], "").await;
    assert_eq!(output.status.code(), Some(1));
    let error = stderr(&output);
    assert_eq!(error.lines().count(), 1, "{error}");
    assert!(
        error.starts_with(&format!("error: {url}: the agent card is unusable")),
        "{error}"
    );
}
