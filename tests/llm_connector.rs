//! The OpenAI-compatible connector against a scripted model server over real HTTP: every case
//! of a streamed chat completion (role-only and empty deltas, finish reason, usage chunk,
//! `[DONE]`, an error mid-stream, a cut-off body), the retries of 429 and 5xx, the timeouts,
//! a canceled task closing the model's connection, and an API key that never leaks.
#![cfg(feature = "llm")]

mod llm_support;
mod support;

use std::time::Duration;

use a2ui_agent::llm::{ChatMessage, LlmError, OpenAiChat};
use futures::StreamExt;
use llm_support::{Answer, MockModel, fixture_content};
use serde_json::json;

const KEY: &str = "sk-test-0123456789abcdef";

fn client(mock: &MockModel) -> OpenAiChat {
    OpenAiChat::builder(&mock.base_url, "mock-model")
        .api_key(KEY)
        .temperature(0.25)
        .max_tokens(512)
        .header("x-team", "ui")
        .idle_timeout(Duration::from_secs(2))
        .retries(2, Duration::from_millis(10), Duration::from_secs(5))
        .build()
        .unwrap()
}

/// The answer's deltas, or the error that ended it.
async fn ask(chat: &OpenAiChat) -> Result<Vec<String>, LlmError> {
    let mut stream = Box::pin(chat.stream(&[ChatMessage::user("hi")]).await?);
    let mut deltas = Vec::new();
    while let Some(delta) = stream.next().await {
        deltas.push(delta?);
    }
    Ok(deltas)
}

#[tokio::test]
async fn a_streamed_answer_yields_its_content_deltas_and_nothing_else() {
    let mock = MockModel::start(vec![Answer::fixture("text.sse")]).await;
    let deltas = ask(&client(&mock)).await.unwrap();
    assert!(deltas.iter().all(|d| !d.is_empty()), "{deltas:?}");
    assert!(deltas.len() > 3, "token-sized deltas: {deltas:?}");
    assert_eq!(deltas.concat(), fixture_content("text.sse"));
    assert_eq!(deltas.concat(), "Hello there! How can I help?");
    let body = &mock.requests()[0];
    assert_eq!(body["model"], "mock-model");
    assert_eq!(body["stream"], true);
    assert_eq!(body["stream_options"]["include_usage"], true);
    assert_eq!(body["temperature"], 0.25);
    assert_eq!(body["max_tokens"], 512);
    assert_eq!(body["messages"], json!([{"role": "user", "content": "hi"}]));
    let headers = &mock.headers()[0];
    assert_eq!(headers["authorization"], format!("Bearer {KEY}").as_str());
    assert_eq!(headers["x-team"], "ui");
}

#[tokio::test]
async fn a_stream_with_a_finish_reason_but_no_done_marker_is_complete() {
    let mock = MockModel::start(vec![Answer::fixture("no_done.sse")]).await;
    assert_eq!(ask(&client(&mock)).await.unwrap().concat(), "Hello there!");
}

#[tokio::test]
async fn a_body_cut_off_before_the_finish_reason_is_an_error() {
    let mock = MockModel::start(vec![Answer::fixture("cut_off.sse")]).await;
    let error = ask(&client(&mock)).await.unwrap_err();
    assert!(matches!(error, LlmError::Interrupted(_)), "{error:?}");
    assert!(error.to_string().contains("cut off"), "{error}");
}

#[tokio::test]
async fn an_error_object_mid_stream_ends_the_answer_with_its_message() {
    let mock = MockModel::start(vec![Answer::fixture("error_mid_stream.sse")]).await;
    let error = ask(&client(&mock)).await.unwrap_err();
    assert_eq!(
        error.to_string(),
        "The model failed while answering: The server had an error while processing your \
         request. (server_error, internal_error)"
    );
}

#[tokio::test]
async fn a_429_is_retried_after_its_retry_after_then_the_answer_streams() {
    let mock = MockModel::start(vec![
        Answer::Status {
            status: 429,
            retry_after: Some("0"),
            body: r#"{"error": {"message": "Rate limit reached", "type": "requests"}}"#.into(),
        },
        Answer::fixture("text.sse"),
    ])
    .await;
    let deltas = ask(&client(&mock)).await.unwrap();
    assert_eq!(deltas.concat(), "Hello there! How can I help?");
    assert_eq!(mock.requests().len(), 2);
}

#[tokio::test]
async fn server_errors_are_retried_a_bounded_number_of_times() {
    let mock = MockModel::start(vec![Answer::Status {
        status: 503,
        retry_after: None,
        body: r#"{"error": {"message": "overloaded", "type": "server_error"}}"#.into(),
    }])
    .await;
    let error = ask(&client(&mock)).await.unwrap_err();
    assert_eq!(mock.requests().len(), 3, "one call and two retries");
    assert_eq!(
        error.to_string(),
        "The model server answered HTTP 503 (after 3 attempts): overloaded (server_error)"
    );
}

#[tokio::test]
async fn a_retry_after_longer_than_the_limit_fails_at_once() {
    let mock = MockModel::start(vec![Answer::Status {
        status: 429,
        retry_after: Some("3600"),
        body: "{}".into(),
    }])
    .await;
    let error = ask(&client(&mock)).await.unwrap_err();
    assert_eq!(mock.requests().len(), 1);
    assert!(
        error
            .to_string()
            .starts_with("The model server answered HTTP 429"),
        "{error}"
    );
}

#[tokio::test]
async fn a_client_error_is_not_retried_and_never_shows_the_key() {
    let mock = MockModel::start(vec![Answer::Status {
        status: 401,
        retry_after: None,
        body: format!(
            r#"{{"error": {{"message": "Incorrect API key provided: {KEY}", "type": "invalid_request_error", "code": "invalid_api_key"}}}}"#
        ),
    }])
    .await;
    let error = ask(&client(&mock)).await.unwrap_err();
    assert_eq!(mock.requests().len(), 1);
    let text = error.to_string();
    assert!(!text.contains(KEY), "{text}");
    assert!(
        text.contains("HTTP 401") && text.contains("[redacted]"),
        "{text}"
    );
    assert!(!format!("{:?}", client(&mock)).contains(KEY));
}

#[tokio::test]
async fn a_server_that_stops_sending_hits_the_idle_timeout() {
    // Silent after its first tokens: the idle timeout's to end, not the first token's.
    let mock = MockModel::start(vec![Answer::Hang {
        prefix: llm_support::fixture("text.sse")
            .split_inclusive("\n\n")
            .take(3)
            .collect(),
    }])
    .await;
    let chat = OpenAiChat::builder(&mock.base_url, "m")
        .first_token_timeout(Duration::from_secs(30))
        .idle_timeout(Duration::from_millis(300))
        .build()
        .unwrap();
    let error = tokio::time::timeout(Duration::from_secs(10), ask(&chat))
        .await
        .expect("the idle timeout did not end the answer")
        .unwrap_err();
    assert!(matches!(error, LlmError::Idle(_)), "{error:?}");
    assert!(mock.wait_dropped(1).await, "the connection was not closed");
}

#[tokio::test]
async fn a_model_that_is_slow_but_never_idle_for_long_finishes_however_long_it_takes() {
    // Each event comes 120 ms after the last: the whole answer takes longer than the idle
    // timeout several times over, but no single wait does.
    let body = llm_support::fixture("text.sse");
    let events = body.split_inclusive("\n\n").count();
    let mock = MockModel::start(vec![Answer::Sse {
        body,
        pause: Duration::from_millis(120),
    }])
    .await;
    let chat = OpenAiChat::builder(&mock.base_url, "m")
        .idle_timeout(Duration::from_millis(300))
        .build()
        .unwrap();
    let started = std::time::Instant::now();
    let deltas = ask(&chat).await.unwrap();
    assert!(
        started.elapsed() > Duration::from_millis(300 * 2),
        "{events} events came too fast to test anything"
    );
    assert_eq!(deltas.concat(), fixture_content("text.sse"));
}

#[tokio::test]
async fn an_unreachable_server_fails_with_its_address() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap();
    drop(listener);
    let chat = OpenAiChat::builder(format!("http://{address}/v1"), "m")
        .build()
        .unwrap();
    let error = ask(&chat).await.unwrap_err();
    assert!(matches!(error, LlmError::Connect { .. }), "{error:?}");
    assert!(error.to_string().contains(&address.to_string()), "{error}");
}

#[test]
fn unusable_options_are_refused_when_built() {
    for (url, header) in [
        ("localhost:11434", "x"),
        ("ftp://h/v1", "x"),
        ("http://h/v1", "bad header"),
    ] {
        let built = OpenAiChat::builder(url, "m").header(header, "v").build();
        assert!(matches!(built, Err(LlmError::Config(_))), "{url} {header}");
    }
}

#[tokio::test]
async fn canceling_the_task_closes_the_models_connection() {
    let mock = MockModel::start(vec![Answer::Hang {
        prefix: llm_support::fixture("text.sse")
            .split_inclusive("\n\n")
            .take(4)
            .collect(),
    }])
    .await;
    let server = support::spawn(support::builder(client(&mock)).build().unwrap()).await;
    let response = server
        .open_stream("message/stream", support::text_message("hi"))
        .await;
    let mut events = support::SseReader::new(response);
    let mut id = None;
    // The task, `working`, then the first words of the answer.
    while let Some(event) = events.next_event().await {
        let result = &event["result"];
        id = id.or_else(|| result["id"].as_str().map(str::to_owned));
        if result["status"]["message"]["parts"][0]["text"] == "Hello" {
            break;
        }
    }
    let id = id.unwrap();
    assert_eq!(mock.dropped(), 0);
    let canceled = server.result("tasks/cancel", json!({"id": id})).await;
    assert_eq!(canceled["status"]["state"], "canceled");
    assert!(
        mock.wait_dropped(1).await,
        "the model's connection stayed open"
    );
}

#[tokio::test]
async fn a_model_failure_fails_the_task_with_a_readable_message_and_no_detail() {
    let mock = MockModel::start(vec![Answer::fixture("error_mid_stream.sse")]).await;
    let server = support::spawn(support::builder(client(&mock)).build().unwrap()).await;
    let sse = server
        .stream("message/stream", support::text_message("hi"))
        .await;
    let last = sse.results().last().cloned().unwrap().clone();
    assert_eq!(last["status"]["state"], "failed");
    let text = last["status"]["message"]["parts"][0]["text"]
        .as_str()
        .unwrap();
    // The kind of failure, and an id to find the logged detail by; not the server's words.
    assert!(
        text.starts_with("The model failed while answering (error id "),
        "{text}"
    );
    assert!(!text.contains("server had an error"), "{text}");
}
