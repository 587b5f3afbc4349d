//! `examples/restaurant_agent` wired as its doc comment says, against a scripted model: the
//! page on `/`, the three tools offered, a search call answered from its data set, a booking
//! call that books (and one for a full restaurant refused in words the model reads).
#![cfg(feature = "llm")]

mod llm_support;

use std::process::Stdio;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use llm_support::{Answer, MockModel, call, sse, text};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};

fn example() -> std::path::PathBuf {
    let exe = std::env::current_exe().unwrap();
    let dir = exe.parent().and_then(|deps| deps.parent()).unwrap();
    let path = dir
        .join("examples")
        .join(format!("restaurant_agent{}", std::env::consts::EXE_SUFFIX));
    assert!(
        path.exists(),
        "{} is not built (cargo build --examples --all-features)",
        path.display()
    );
    path
}

/// The example against `mock` with `args`, and the URL it listens on.
async fn start(mock: &MockModel, args: &[&str]) -> (tokio::process::Child, String) {
    let mut child = tokio::process::Command::new(example())
        .args(["--model-url", &mock.base_url, "--model", "m", "--port", "0"])
        .args(args)
        .stdout(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let line = tokio::time::timeout(Duration::from_secs(30), lines.next_line())
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    let url = line.strip_prefix("listening on ").unwrap().to_owned();
    (child, url)
}

/// Message ids, one per message sent.
static NEXT_ID: AtomicUsize = AtomicUsize::new(1);

/// `message/send` of a new message holding `part`: the JSON-RPC answer.
async fn send(url: &str, part: Value) -> Value {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": {"message": {
        "kind": "message", "role": "user", "messageId": format!("m{}", NEXT_ID.fetch_add(1, Ordering::Relaxed)),
        "parts": [part]}}});
    let answer = reqwest::Client::new().post(url).json(&body).send().await;
    answer.unwrap().json().await.unwrap()
}

fn answer(deltas: &[Value], finish: &str) -> Answer {
    Answer::Sse {
        body: sse(deltas, finish),
        pause: Duration::ZERO,
    }
}

#[tokio::test]
async fn the_restaurant_agent_searches_and_books_through_its_tools() {
    let mock = MockModel::start(vec![
        answer(
            &[call(
                0,
                Some("s"),
                Some("search_restaurants"),
                r#"{"cuisine": "thai", "city": "Paris"}"#,
            )],
            "tool_calls",
        ),
        answer(&[text("Two Thai places.")], "stop"),
        answer(
            &[
                call(
                    0,
                    Some("b1"),
                    Some("book_table"),
                    r#"{"restaurantId": "r1", "name": "Ada", "partySize": "2", "time": "20:00"}"#,
                ),
                call(
                    1,
                    Some("b2"),
                    Some("book_table"),
                    r#"{"restaurantId": "r2", "name": "Ada", "partySize": 2, "time": "20:00"}"#,
                ),
            ],
            "tool_calls",
        ),
        answer(&[text("Booked.")], "stop"),
    ])
    .await;
    let (_child, url) = start(&mock, &[]).await;
    let http = reqwest::Client::new();
    let page = http.get(&url).send().await.unwrap().text().await.unwrap();
    assert!(
        page.contains("<html") || page.contains("<!doctype"),
        "{page:.200}"
    );

    let ask = |text: &str, task: Option<String>| {
        let mut message = json!({"kind": "message", "role": "user", "messageId": format!("m-{text}"),
            "parts": [{"kind": "text", "text": text}]});
        if let Some(task) = task {
            message["taskId"] = json!(task);
        }
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": {"message": message}});
        http.post(&url).json(&body).send()
    };
    let first: Value = ask("Thai food in Paris?", None)
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let task = first["result"]["id"].as_str().unwrap().to_owned();
    let requests = mock.requests();
    let names: Vec<&str> = requests[0]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["search_restaurants", "check_availability", "book_table"]
    );
    let found = requests[1]["messages"].as_array().unwrap().last().unwrap()["content"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        found.contains("Baan Thai") && found.contains("Siam Garden"),
        "{found}"
    );
    assert!(
        !found.contains("Thai Orchid"),
        "Lyon's is not in Paris: {found}"
    );
    // What the model is told is what a person reads on the card.
    assert!(found.contains("\"rating\":4.6}"), "{found}");

    let _second: Value = ask("Book both at 20:00 for Ada, 2 people", Some(task))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let messages = mock.requests()[3]["messages"].as_array().unwrap().clone();
    let results: Vec<&str> = messages
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| m["content"].as_str().unwrap())
        .collect();
    let n = results.len();
    assert!(
        results[n - 2].contains("\"bookingId\":\"B001\""),
        "{results:?}"
    );
    assert_eq!(results[n - 1], "Error: Siam Garden is full at 20:00");
}

/// The blocks the agent's instructions show the model (`<a2ui>` … `</a2ui>`).
fn blocks(text: &str) -> Vec<&str> {
    text.split("<a2ui>")
        .skip(1)
        .filter_map(|rest| rest.split_once("</a2ui>").map(|(block, _)| block))
        .collect()
}

#[tokio::test]
async fn every_block_the_tools_guides_show_the_model_compiles_to_valid_ui() {
    use a2ui_agent::a2ui::{Catalog, ProtocolVersion, Validator};
    use a2ui_agent::format::express::Express;

    // A small model copies the shape of what it is shown: a block that does not compile is
    // a mistake it makes on every turn. Both tools answer in one round, so the next request
    // carries both guides; the Book action brings the form's.
    let mock = MockModel::start(vec![
        answer(
            &[
                call(
                    0,
                    Some("s"),
                    Some("search_restaurants"),
                    r#"{"city": "Paris"}"#,
                ),
                call(
                    1,
                    Some("b"),
                    Some("book_table"),
                    r#"{"restaurantId": "r1", "name": "Ada", "partySize": 2, "time": "20:00"}"#,
                ),
            ],
            "tool_calls",
        ),
        answer(&[text("Done.")], "stop"),
        answer(&[text("A form.")], "stop"),
    ])
    .await;
    let (_child, url) = start(&mock, &["--format", "express"]).await;
    let sent = send(&url, json!({"kind": "text", "text": "Thai food in Paris?"})).await;
    assert!(sent["result"]["id"].is_string(), "{sent}");
    // The user presses Book: the form's guide follows the action.
    let action = json!({"version": "v0.9", "action": {"name": "book", "surfaceId": "results",
        "sourceComponentId": "b", "timestamp": "2026-01-01T00:00:00Z",
        "context": {"restaurantId": "r1", "name": "Baan Thai"}}});
    let pressed = send(&url, json!({"kind": "data", "data": action})).await;
    assert!(pressed["result"]["id"].is_string(), "{pressed}");
    let requests = mock.requests();
    let last_of = |request: &Value| {
        let last = request["messages"]
            .as_array()
            .unwrap()
            .last()
            .cloned()
            .unwrap();
        assert_eq!(last["role"], "system", "{last}");
        last["content"].as_str().unwrap().to_owned()
    };
    let guides = format!("{}\n{}", last_of(&requests[1]), last_of(&requests[2]));
    let shown = blocks(&guides);
    assert_eq!(
        shown.len(),
        3,
        "the results, the booking and the form: {guides}"
    );
    let version = ProtocolVersion::V0_9;
    let express = Express::bound(version, vec![Catalog::basic(version)]).unwrap();
    let validator = Validator::basic(version);
    for block in shown {
        let messages = express
            .compile(block)
            .unwrap_or_else(|e| panic!("{e}\n{block}"));
        validator
            .check_response(&messages)
            .unwrap_or_else(|e| panic!("{e:?}\n{block}"));
        assert!(
            messages.iter().any(|m| m.get("createSurface").is_some()),
            "{block}"
        );
    }
}
