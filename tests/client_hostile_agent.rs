//! Our client against a hostile agent: a small server in this test that answers garbage,
//! truncated streams, huge and endless bodies, deep JSON, the wrong request id or task, slow
//! bytes and silence. Each call ends with the `ClientError` a caller can act on, within the
//! client's timeouts and size limits, never a panic. Also here: the card cache (`max-age`,
//! `ETag` and 304) and the retries (the card again after a 503, a send never).
#![cfg(feature = "client")]

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use a2ui_agent::a2a::{StreamEvent, TaskQuery};
use a2ui_agent::client::{Client, ClientError, text_request};
use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use futures::StreamExt;
use serde_json::{Value, json};

/// What the hostile server counts and answers.
#[derive(Default)]
struct Hostile {
    base: String,
    /// Card requests, and POSTs, per scenario.
    cards: Mutex<HashMap<String, usize>>,
    posts: Mutex<HashMap<String, usize>>,
    /// 304 answers given.
    not_modified: Mutex<usize>,
    /// The body the `random` scenarios answer.
    random: Mutex<Vec<u8>>,
}

type Shared = Arc<Hostile>;

fn count(map: &Mutex<HashMap<String, usize>>, scenario: &str) -> usize {
    let mut map = map.lock().unwrap();
    let seen = map.entry(scenario.to_owned()).or_default();
    *seen += 1;
    *seen
}

fn task_json(id: &str) -> Value {
    json!({"id": id, "contextId": "c", "status": {"state": "TASK_STATE_COMPLETED"}})
}

fn body(status: StatusCode, content_type: &str, body: impl Into<Body>) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, content_type.to_owned())],
        body.into(),
    )
        .into_response()
}

async fn card(
    State(hostile): State<Shared>,
    Path(scenario): Path<String>,
    headers: HeaderMap,
) -> Response {
    let seen = count(&hostile.cards, &scenario);
    let card = json!({"name": scenario, "supportedInterfaces": [{
        "url": format!("{}{scenario}/rpc", hostile.base),
        "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
        "capabilities": {"streaming": true}});
    let json_type = "application/json";
    match scenario.as_str() {
        "huge-card" => body(
            StatusCode::OK,
            json_type,
            format!("[\"{}\"]", "x".repeat(2 << 20)),
        ),
        "garbage-card" => body(StatusCode::OK, json_type, "<html>not a card</html>"),
        "deep-card" => body(StatusCode::OK, json_type, "[".repeat(10_000)),
        "grpc-only-card" => {
            let mut card = card;
            card["supportedInterfaces"][0]["protocolBinding"] = json!("GRPC");
            body(StatusCode::OK, json_type, card.to_string())
        }
        "flaky-card" if seen == 1 => body(StatusCode::SERVICE_UNAVAILABLE, "text/plain", "busy"),
        "revalidated" => {
            let etag = "\"v1\"";
            if headers
                .get(header::IF_NONE_MATCH)
                .and_then(|v| v.to_str().ok())
                == Some(etag)
            {
                *hostile.not_modified.lock().unwrap() += 1;
                return (StatusCode::NOT_MODIFIED, [(header::ETAG, etag)]).into_response();
            }
            let headers = [(header::ETAG, etag), (header::CACHE_CONTROL, "max-age=0")];
            (headers, axum::Json(card)).into_response()
        }
        _ => ([(header::CACHE_CONTROL, "max-age=300")], axum::Json(card)).into_response(),
    }
}

/// A frame of a JSON-RPC stream answering request `id`.
fn frame(id: &Value, result: Value) -> String {
    format!(
        "data: {}\n\n",
        json!({"jsonrpc": "2.0", "id": id, "result": result})
    )
}

/// A body that yields `chunk` every `every`, forever.
fn endless(chunk: &'static [u8], every: Duration) -> Body {
    let stream = futures::stream::unfold((), move |()| async move {
        tokio::time::sleep(every).await;
        Some((Ok::<_, std::io::Error>(Bytes::from_static(chunk)), ()))
    });
    Body::from_stream(stream)
}

async fn rpc(
    State(hostile): State<Shared>,
    Path(scenario): Path<String>,
    request: Bytes,
) -> Response {
    count(&hostile.posts, &scenario);
    let request: Value = serde_json::from_slice(&request).unwrap_or(Value::Null);
    let id = request["id"].clone();
    let ok = |result: Value| json!({"jsonrpc": "2.0", "id": id, "result": result}).to_string();
    let json_type = "application/json";
    let sse = "text/event-stream";
    match scenario.as_str() {
        "garbage" => body(StatusCode::OK, json_type, "<html>oops</html>"),
        "wrong-id" => body(
            StatusCode::OK,
            json_type,
            json!({"jsonrpc": "2.0", "id": 9999, "result": {"task": task_json("t")}}).to_string(),
        ),
        "agent-error" => body(
            StatusCode::OK,
            json_type,
            json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32099, "message": "custom"}})
                .to_string(),
        ),
        "huge" => body(
            StatusCode::OK,
            json_type,
            format!("\"{}\"", "x".repeat(2 << 20)),
        ),
        "endless" => body(
            StatusCode::OK,
            json_type,
            endless(&[b' '; 4096], Duration::ZERO),
        ),
        "deep" => body(StatusCode::OK, json_type, "[".repeat(50_000)),
        "wrong-task" => body(StatusCode::OK, json_type, ok(task_json("someone-elses"))),
        "status-500" => body(
            StatusCode::INTERNAL_SERVER_ERROR,
            "text/html",
            "<h1>oops</h1>",
        ),
        "busy" => body(StatusCode::SERVICE_UNAVAILABLE, "text/plain", "busy"),
        "slow" => body(
            StatusCode::OK,
            json_type,
            endless(b" ", Duration::from_millis(50)),
        ),
        "sse-truncated" => body(
            StatusCode::OK,
            sse,
            frame(&id, json!({"task": task_json_working("t")})),
        ),
        "sse-cut-mid-frame" => body(StatusCode::OK, sse, "data: {\"jsonrpc\":\"2.0\""),
        "sse-silent" => {
            // One comment, so the stream has started, then nothing.
            let hello = futures::stream::once(async { Ok(Bytes::from_static(b": hello\n\n")) });
            let silence = futures::stream::pending::<Result<Bytes, std::io::Error>>();
            body(StatusCode::OK, sse, Body::from_stream(hello.chain(silence)))
        }
        "sse-wrong-task" => {
            let update = json!({"statusUpdate": {"taskId": "other", "contextId": "c",
                "status": {"state": "TASK_STATE_WORKING"}}});
            let frames = frame(&id, json!({"task": task_json_working("t")})) + &frame(&id, update);
            body(StatusCode::OK, sse, frames)
        }
        "sse-html" => body(StatusCode::OK, "text/html", "<html></html>"),
        "sse-keepalive-forever" => body(
            StatusCode::OK,
            sse,
            endless(b": keep-alive\n\n", Duration::from_millis(20)),
        ),
        "sse-slowloris" => body(
            StatusCode::OK,
            sse,
            endless(b"d", Duration::from_millis(20)),
        ),
        "sse-huge-event" => body(StatusCode::OK, sse, endless(&[b'x'; 4096], Duration::ZERO)),
        "random" => body(
            StatusCode::OK,
            json_type,
            hostile.random.lock().unwrap().clone(),
        ),
        "random-sse" => body(StatusCode::OK, sse, hostile.random.lock().unwrap().clone()),
        _ => body(StatusCode::NOT_FOUND, "text/plain", "no such scenario"),
    }
}

fn task_json_working(id: &str) -> Value {
    json!({"id": id, "contextId": "c", "status": {"state": "TASK_STATE_WORKING"}})
}

/// Starts the hostile server on a runtime of its own (so that proptest cases, which run
/// outside any runtime, can share it); returns its state.
fn hostile() -> Shared {
    static SERVER: OnceLock<Shared> = OnceLock::new();
    SERVER
        .get_or_init(|| {
            let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            listener.set_nonblocking(true).unwrap();
            let base = format!("http://{}/", listener.local_addr().unwrap());
            let hostile = Arc::new(Hostile {
                base,
                ..Hostile::default()
            });
            let app = Router::new()
                .route("/{scenario}/.well-known/agent-card.json", get(card))
                .route("/{scenario}/rpc", post(rpc))
                .with_state(hostile.clone());
            std::thread::spawn(move || {
                let runtime = tokio::runtime::Runtime::new().unwrap();
                runtime.block_on(async move {
                    let listener = tokio::net::TcpListener::from_std(listener).unwrap();
                    axum::serve(listener, app).await
                })
            });
            hostile
        })
        .clone()
}

/// A client of `scenario` with small limits and short timeouts, and no retries.
async fn client(scenario: &str) -> Result<Client, ClientError> {
    Client::builder(format!("{}{scenario}/", hostile().base))
        .max_answer_bytes(64 * 1024)
        .max_card_bytes(64 * 1024)
        .request_timeout(Duration::from_millis(500))
        .stream_idle_timeout(Duration::from_millis(300))
        .stream_timeout(Duration::from_secs(1))
        .retries(0, Duration::ZERO)
        .connect()
        .await
}

/// What a blocking send to `scenario` fails with.
async fn send_error(scenario: &str) -> ClientError {
    let client = client(scenario).await.unwrap();
    client.send(text_request("hi")).await.unwrap_err()
}

/// Every item of a streamed send to `scenario`, ending at its first error.
async fn stream_items(scenario: &str) -> Vec<Result<StreamEvent, ClientError>> {
    let client = client(scenario).await.unwrap();
    match client.send_streaming(text_request("hi")).await {
        Err(error) => vec![Err(error)],
        Ok(stream) => stream.collect().await,
    }
}

/// The error `items` ended with.
fn last_error(items: &[Result<StreamEvent, ClientError>]) -> &ClientError {
    match items.last() {
        Some(Err(error)) => error,
        other => panic!("expected the stream to end with an error, got {other:?}"),
    }
}

#[tokio::test]
async fn answers_that_are_not_a2a_are_bad_answers() {
    for scenario in ["garbage", "wrong-id"] {
        let error = send_error(scenario).await;
        assert!(
            matches!(error, ClientError::BadAnswer(_)),
            "{scenario}: {error}"
        );
    }
    let client = client("wrong-task").await.unwrap();
    let query = TaskQuery {
        id: "mine".into(),
        history_length: None,
    };
    let error = client.get_task(query).await.unwrap_err();
    assert!(error.to_string().contains("someone-elses"), "{error}");
}

#[tokio::test]
async fn the_agents_own_error_keeps_its_code_and_message() {
    let error = send_error("agent-error").await;
    assert!(
        matches!(&error, ClientError::Agent { code: -32099, message, .. } if message == "custom"),
        "{error:?}"
    );
    let error = send_error("status-500").await;
    assert!(
        matches!(&error, ClientError::Http { status: 500, body } if body.contains("oops")),
        "{error:?}"
    );
}

#[tokio::test]
async fn huge_endless_and_deep_answers_are_too_large() {
    for scenario in ["huge", "endless", "deep"] {
        let error = send_error(scenario).await;
        assert!(
            matches!(error, ClientError::TooLarge(_)),
            "{scenario}: {error}"
        );
    }
    let items = stream_items("sse-huge-event").await;
    assert!(
        matches!(last_error(&items), ClientError::TooLarge(_)),
        "{items:?}"
    );
}

#[tokio::test]
async fn slow_bytes_and_a_silent_stream_end_in_a_timeout() {
    let error = send_error("slow").await;
    assert!(
        matches!(error, ClientError::Timeout { what: "answer", .. }),
        "{error}"
    );
    let items = stream_items("sse-silent").await;
    assert!(
        matches!(
            last_error(&items),
            ClientError::Timeout {
                what: "stream idle",
                ..
            }
        ),
        "{items:?}"
    );
}

#[tokio::test]
async fn a_stream_that_stays_alive_but_never_ends_is_bounded_by_the_stream_timeout() {
    // Keep-alives forever, and one byte of an event at a time that never completes: each
    // arrival is a sign of life, so only the bound on the whole stream ends it.
    for scenario in ["sse-keepalive-forever", "sse-slowloris"] {
        let items = stream_items(scenario).await;
        assert!(
            matches!(
                last_error(&items),
                ClientError::Timeout { what: "stream", .. }
            ),
            "{scenario}: {items:?}"
        );
    }
}

#[tokio::test]
async fn a_stream_cut_short_or_about_another_task_is_a_bad_answer_after_what_was_good() {
    let items = stream_items("sse-truncated").await;
    assert!(
        matches!(items.first(), Some(Ok(StreamEvent::Task(_)))),
        "{items:?}"
    );
    assert!(
        last_error(&items)
            .to_string()
            .contains("ended before its last event"),
        "{items:?}"
    );
    let items = stream_items("sse-cut-mid-frame").await;
    assert_eq!(items.len(), 1, "{items:?}");
    assert!(
        matches!(last_error(&items), ClientError::BadAnswer(_)),
        "{items:?}"
    );
    let items = stream_items("sse-wrong-task").await;
    assert_eq!(items.len(), 2, "{items:?}");
    assert!(
        last_error(&items).to_string().contains("\"other\""),
        "{items:?}"
    );
    let items = stream_items("sse-html").await;
    assert!(
        last_error(&items).to_string().contains("text/html"),
        "{items:?}"
    );
}

#[tokio::test]
async fn unusable_cards_are_refused_as_bad_or_too_large() {
    for scenario in ["garbage-card", "grpc-only-card"] {
        let error = client(scenario).await.unwrap_err();
        assert!(
            matches!(error, ClientError::BadCard(_)),
            "{scenario}: {error}"
        );
    }
    for scenario in ["huge-card", "deep-card"] {
        let error = client(scenario).await.unwrap_err();
        assert!(
            matches!(error, ClientError::TooLarge(_)),
            "{scenario}: {error}"
        );
    }
}

#[tokio::test]
async fn a_fresh_card_is_reused_and_a_stale_one_revalidated_with_its_etag() {
    let fresh = client("fresh").await.unwrap();
    fresh.card().await.unwrap();
    fresh.card().await.unwrap();
    assert_eq!(
        hostile().cards.lock().unwrap()["fresh"],
        1,
        "max-age=300: asked once"
    );

    let stale = client("revalidated").await.unwrap();
    let before = *hostile().not_modified.lock().unwrap();
    let card = stale.card().await.unwrap();
    assert_eq!(card.name, "revalidated");
    assert_eq!(
        hostile().cards.lock().unwrap()["revalidated"],
        2,
        "max-age=0: asked again"
    );
    assert_eq!(
        *hostile().not_modified.lock().unwrap(),
        before + 1,
        "answered 304"
    );
}

#[tokio::test]
async fn the_card_is_fetched_again_after_a_503_but_a_send_is_never_retried() {
    let client = Client::builder(format!("{}flaky-card/", hostile().base))
        .retries(2, Duration::from_millis(10))
        .connect()
        .await
        .unwrap();
    assert_eq!(hostile().cards.lock().unwrap()["flaky-card"], 2);
    drop(client);
    let busy = Client::builder(format!("{}busy/", hostile().base))
        .retries(3, Duration::from_millis(10))
        .connect()
        .await
        .unwrap();
    let error = busy.send(text_request("hi")).await.unwrap_err();
    assert!(
        matches!(error, ClientError::Http { status: 503, .. }),
        "{error}"
    );
    assert_eq!(
        hostile().posts.lock().unwrap()["busy"],
        1,
        "a send is sent once"
    );
}

/// Answer bodies near A2A and far from it: JSON-RPC envelopes around arbitrary JSON, SSE
/// frames, and raw bytes.
fn answer_body() -> impl proptest::strategy::Strategy<Value = Vec<u8>> {
    use proptest::prelude::*;
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<i64>().prop_map(Value::from),
        "(task|TASK_STATE_WORKING|ROLE_AGENT|t|[a-z]{0,3})".prop_map(Value::from),
    ];
    let json = leaf.prop_recursive(4, 32, 5, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..3).prop_map(Value::from),
            proptest::collection::btree_map(
                "(jsonrpc|id|result|error|code|message|task|statusUpdate|status|state|taskId|contextId|parts|text)",
                inner,
                0..5
            )
            .prop_map(|map| Value::Object(map.into_iter().collect())),
        ]
    });
    prop_oneof![
        json.clone().prop_map(
            |result| json!({"jsonrpc": "2.0", "id": 1, "result": result})
                .to_string()
                .into_bytes()
        ),
        json.clone()
            .prop_map(|value| value.to_string().into_bytes()),
        json.prop_map(|value| format!("data: {value}\n\n").into_bytes()),
        proptest::collection::vec(any::<u8>(), 0..200),
    ]
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]

    /// Whatever body the agent answers, a send and a streamed send end (with a result or an
    /// error) and never panic.
    #[test]
    fn any_answer_body_ends_in_a_result_or_an_error(answer in answer_body()) {
        *hostile().random.lock().unwrap() = answer;
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        runtime.block_on(async {
            let _ = client("random").await.unwrap().send(text_request("hi")).await;
            let _ = stream_items("random-sse").await;
        });
    }
}
