//! Our client's push notification config methods against our server (push on, webhooks on
//! 127.0.0.1 allowed), over JSON-RPC 1.0, HTTP+JSON 1.0 and JSON-RPC 0.3: a config set with
//! a token and credentials reads back without the credentials, lists, deletes; and a
//! `WebhookReceiver` on a real socket receives the task's updates as the server's push
//! delivery POSTs them, refusing a stranger without the token.
#![cfg(feature = "client")]

use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Mutex};
use std::time::Duration;

use a2ui_agent::a2a::{Part, PushAuthentication, PushConfig, StreamEvent, TaskState};
use a2ui_agent::agent::{AgentError, Reply, ReplyEvent};
use a2ui_agent::client::{Client, SendResult, Transport, WebhookReceiver, text_request};
use a2ui_agent::push::PushSettings;
use a2ui_agent::request::Request;
use a2ui_agent::{A2uiServer, AgentCard};
use futures::StreamExt;
use tokio::sync::{Notify, mpsc};

/// The gate each "gated ..." task waits behind, by its text.
static GATES: LazyLock<Mutex<HashMap<String, Arc<Notify>>>> = LazyLock::new(Default::default);

fn gate(text: &str) -> Arc<Notify> {
    GATES
        .lock()
        .unwrap()
        .entry(text.to_owned())
        .or_default()
        .clone()
}

/// "ask": waits for input. "gated ...": waits for its gate, then three artifact chunks and
/// completed.
async fn agent(request: Request) -> Result<Reply, AgentError> {
    let text = request.text();
    if text == "ask" {
        return Ok(Reply::text("more?").with_final_state(TaskState::InputRequired));
    }
    let gate = gate(&text);
    let events = async_stream::stream! {
        gate.notified().await;
        for n in 1..=3 {
            yield Ok::<_, AgentError>(ReplyEvent::chunk(vec![Part::text(format!("part-{n}"))], n == 3));
        }
    };
    Ok(Reply::events(events).with_final_state(TaskState::Completed))
}

/// Our server with push on, on a real socket; its base URL.
async fn start() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/", listener.local_addr().unwrap());
    let settings = PushSettings::default()
        .allow_http(true)
        .allow_host("127.0.0.1")
        .timeout(Duration::from_secs(2));
    let card = AgentCard::builder("push").url(&url).build();
    let server = A2uiServer::builder(card, agent)
        .push(settings)
        .build()
        .unwrap();
    tokio::spawn(async move { axum::serve(listener, server.router()).await });
    url
}

async fn client_over(url: &str, transport: Transport) -> Client {
    Client::builder(url)
        .prefer([transport])
        .connect()
        .await
        .unwrap()
}

/// A config with a token and Bearer credentials.
fn hook(id: &str, url: &str) -> PushConfig {
    let mut config = PushConfig::new(id, url);
    config.token = Some("tok-en".into());
    config.authentication = Some(PushAuthentication {
        schemes: vec!["Bearer".into()],
        credentials: Some("s3cret".into()),
    });
    config
}

#[tokio::test]
async fn configs_are_set_read_listed_and_deleted_over_every_interface() {
    let url = start().await;
    for transport in Transport::ALL {
        let client = client_over(&url, transport).await;
        let SendResult::Task(task) = client.send(text_request("ask")).await.unwrap() else {
            panic!("{transport}: expected a task");
        };
        let mine = client
            .set_push_config(&task.id, hook("mine", "http://127.0.0.1:9/hook"))
            .await
            .unwrap();
        assert_eq!(
            (mine.id.as_str(), mine.token.as_deref()),
            ("mine", Some("tok-en")),
            "{transport}"
        );
        let shown = mine.authentication.as_ref().expect("the scheme is shown");
        assert_eq!(shown.schemes, ["Bearer"], "{transport}");
        assert_eq!(
            shown.credentials, None,
            "{transport}: credentials are not shown"
        );
        let chosen = client
            .set_push_config(&task.id, PushConfig::new("", "http://127.0.0.1:9/other"))
            .await
            .unwrap();
        assert!(!chosen.id.is_empty(), "{transport}: the server chose an id");

        let read = client.get_push_config(&task.id, "mine").await.unwrap();
        assert_eq!(read.url, "http://127.0.0.1:9/hook", "{transport}");
        let mut listed: Vec<String> = client
            .list_push_configs(&task.id)
            .await
            .unwrap()
            .into_iter()
            .map(|config| config.id)
            .collect();
        listed.sort();
        let mut expected = vec!["mine".to_owned(), chosen.id.clone()];
        expected.sort();
        assert_eq!(listed, expected, "{transport}");

        client.delete_push_config(&task.id, "mine").await.unwrap();
        let left = client.list_push_configs(&task.id).await.unwrap();
        assert_eq!(left.len(), 1, "{transport}: {left:?}");
        let gone = client.get_push_config(&task.id, "mine").await.unwrap_err();
        assert!(gone.agent_code().is_some(), "{transport}: {gone}");
        let unknown = client
            .set_push_config("no-such-task", hook("x", "http://127.0.0.1:9/hook"))
            .await
            .unwrap_err();
        assert_eq!(unknown.agent_code(), Some(-32001), "{transport}: {unknown}");
    }
}

#[tokio::test]
async fn a_server_without_push_answers_push_not_supported() {
    let url = support_server().await;
    for transport in Transport::ALL {
        let client = client_over(&url, transport).await;
        let error = client.list_push_configs("t").await.unwrap_err();
        assert_eq!(error.agent_code(), Some(-32003), "{transport}: {error}");
    }
}

/// Our server without push.
async fn support_server() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/", listener.local_addr().unwrap());
    let card = AgentCard::builder("no-push").url(&url).build();
    let server = A2uiServer::builder(card, agent).build().unwrap();
    tokio::spawn(async move { axum::serve(listener, server.router()).await });
    url
}

/// A `WebhookReceiver` for `token` on a real socket: its URL and what it accepts.
async fn receiver(token: &str) -> (String, mpsc::UnboundedReceiver<StreamEvent>) {
    let (sent, received) = mpsc::unbounded_channel();
    let app = WebhookReceiver::new(token)
        .authorization("Bearer s3cret")
        .router("/hook", move |event| {
            let sent = sent.clone();
            async move {
                let _ = sent.send(event);
            }
        });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/hook", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    (url, received)
}

/// The state and artifact texts an update shows (a 0.3 notification is the whole task).
fn seen(event: &StreamEvent, states: &mut Vec<TaskState>, texts: &mut Vec<String>) {
    let text_of = |part: &Part| match part {
        Part::Text { text, .. } => text.to_string(),
        _ => String::new(),
    };
    match event {
        StreamEvent::StatusUpdate(update) => states.push(update.status.state),
        StreamEvent::ArtifactUpdate(update) => {
            texts.extend(update.artifact.parts.iter().map(text_of))
        }
        StreamEvent::Task(task) => {
            states.push(task.status.state);
            *texts = task
                .artifacts
                .iter()
                .flat_map(|artifact| artifact.parts.iter().map(text_of))
                .collect();
        }
        StreamEvent::Message(_) => {}
    }
}

#[tokio::test]
async fn a_webhook_receiver_gets_every_update_the_server_pushes_and_refuses_strangers() {
    let url = start().await;
    for transport in Transport::ALL {
        let (hook_url, mut received) = receiver("tok-en").await;
        let client = client_over(&url, transport).await;
        let text = format!("gated {transport}");
        let mut stream = client.send_streaming(text_request(&text)).await.unwrap();
        let Some(Ok(StreamEvent::Task(task))) = stream.next().await else {
            panic!("{transport}: expected the task first");
        };
        client
            .set_push_config(&task.id, hook("", &hook_url))
            .await
            .unwrap();
        gate(&text).notify_one();
        let (mut states, mut texts) = (Vec::new(), Vec::new());
        while states.last() != Some(&TaskState::Completed) {
            let event = tokio::time::timeout(Duration::from_secs(30), received.recv())
                .await
                .unwrap_or_else(|_| panic!("{transport}: no notification; saw {states:?}"))
                .unwrap();
            seen(&event, &mut states, &mut texts);
        }
        assert_eq!(texts, ["part-1", "part-2", "part-3"], "{transport}");

        let stranger = reqwest::Client::new()
            .post(&hook_url)
            .header("X-A2A-Notification-Token", "a guess")
            .header("content-type", "application/json")
            .body("{}")
            .send()
            .await
            .unwrap();
        assert_eq!(stranger.status(), 401, "{transport}");
        assert!(
            received.try_recv().is_err(),
            "{transport}: nothing more was accepted"
        );
    }
}
