//! Push notification delivery to a real webhook receiver on 127.0.0.1 (allow-listed): every
//! update of a task arrives, in order, as the payload of the config's protocol version
//! (1.0 `StreamResponse`, 0.3 `Task`), with the config's token and `Authorization`; a
//! receiver that fails twice gets the update on the third attempt, order kept; a receiver
//! that hangs holds neither the task nor another webhook of it.

mod support;

use std::time::Duration;

use a2ui_agent::a2a::{Part, TaskState};
use a2ui_agent::agent::{AgentError, Reply, ReplyEvent};
use a2ui_agent::push::PushSettings;
use a2ui_agent::request::Request;
use a2ui_agent::server::A2uiServer;
use serde_json::{Value, json};
use support::webhook::{Behaviour, Received, Receiver};
use support::{TestServer, builder, spawn, text_message, text_message_v1};

/// "ask": waits for input. Anything else: three artifact chunks, then completed.
async fn agent(request: Request) -> Result<Reply, AgentError> {
    if request.text() == "ask" {
        return Ok(Reply::text("more?").with_final_state(TaskState::InputRequired));
    }
    let chunks = (1..=3).map(|n| {
        Ok::<_, AgentError>(ReplyEvent::chunk(
            vec![Part::text(format!("part-{n}"))],
            n == 3,
        ))
    });
    Ok(Reply::events(futures::stream::iter(chunks)).with_final_state(TaskState::Completed))
}

fn settings() -> PushSettings {
    PushSettings::default()
        .allow_http(true)
        .allow_host("127.0.0.1")
        .timeout(Duration::from_millis(500))
        .max_attempts(3)
        .retry_waits(Duration::from_millis(20), Duration::from_millis(100))
}

async fn server() -> (A2uiServer, TestServer) {
    let server = builder(agent).push(settings()).build().unwrap();
    (server.clone(), spawn(server).await)
}

fn state_of(received: &Received) -> Option<&str> {
    received.body["statusUpdate"]["status"]["state"].as_str()
}

fn completed_v1(received: &[Received]) -> bool {
    received
        .iter()
        .any(|r| state_of(r) == Some("TASK_STATE_COMPLETED"))
}

/// The states of the status updates and the texts of the artifact updates, in order.
fn updates(received: &[Received]) -> (Vec<String>, Vec<String>) {
    let mut states = Vec::new();
    let mut texts = Vec::new();
    for r in received {
        if let Some(state) = state_of(r) {
            states.push(state.to_owned());
        }
        for part in r.body["artifactUpdate"]["artifact"]["parts"]
            .as_array()
            .into_iter()
            .flatten()
        {
            texts.push(part["text"].as_str().unwrap_or_default().to_owned());
        }
    }
    (states, texts)
}

#[tokio::test]
async fn every_update_arrives_in_order_as_a_1_0_stream_response_with_its_auth() {
    let (_, server) = server().await;
    let hook = Receiver::start(Behaviour::Ack).await;
    let mut send = text_message_v1("go");
    send["configuration"] = json!({"taskPushNotificationConfig": {"url": hook.url,
        "token": "tok-1", "authentication": {"scheme": "Bearer", "credentials": "s3cret"}}});
    let answer = server.call_v1("SendMessage", send).await;
    let task_id = answer["result"]["task"]["id"].as_str().unwrap().to_owned();
    let received = hook.wait_for(completed_v1).await;
    for r in &received {
        assert_eq!(r.headers["authorization"], "Bearer s3cret");
        assert_eq!(r.headers["x-a2a-notification-token"], "tok-1");
        let keys: Vec<&String> = r.body.as_object().unwrap().keys().collect();
        assert_eq!(keys.len(), 1, "one StreamResponse member: {}", r.body);
        assert!(["statusUpdate", "artifactUpdate"].contains(&keys[0].as_str()));
        let update = &r.body[keys[0].as_str()];
        assert_eq!(update["taskId"], task_id.as_str());
    }
    let (states, texts) = updates(&received);
    assert_eq!(
        states.first().map(String::as_str),
        Some("TASK_STATE_SUBMITTED")
    );
    assert_eq!(
        states.last().map(String::as_str),
        Some("TASK_STATE_COMPLETED")
    );
    assert!(
        states[1..states.len() - 1]
            .iter()
            .all(|s| s == "TASK_STATE_WORKING"),
        "{states:?}"
    );
    assert_eq!(texts, ["part-1", "part-2", "part-3"]);
}

#[tokio::test]
async fn a_0_3_config_receives_the_task_as_a_0_3_object() {
    let (_, server) = server().await;
    let hook = Receiver::start(Behaviour::Ack).await;
    let mut send = text_message("go");
    send["configuration"] = json!({"pushNotificationConfig": {"url": hook.url, "token": "t03"}});
    let task = server.result("message/send", send).await;
    let received = hook
        .wait_for(|received| {
            received
                .iter()
                .any(|r| r.body["status"]["state"] == "completed")
        })
        .await;
    for r in &received {
        assert_eq!(r.body["kind"], "task", "{}", r.body);
        assert_eq!(r.body["id"], task["id"]);
        assert_eq!(r.headers["x-a2a-notification-token"], "t03");
        assert!(r.headers.get("authorization").is_none());
    }
    let last = &received.last().unwrap().body;
    assert_eq!(
        last["artifacts"][0]["parts"].as_array().map(Vec::len),
        Some(3),
        "{last}"
    );
}

#[tokio::test]
async fn a_receiver_that_fails_twice_gets_the_update_on_the_third_attempt() {
    let (handle, server) = server().await;
    let hook = Receiver::start(Behaviour::FailFirst(2)).await;
    let mut send = text_message_v1("go");
    send["configuration"] = json!({"taskPushNotificationConfig": {"url": hook.url}});
    server.call_v1("SendMessage", send).await;
    let received = hook.wait_for(completed_v1).await;
    let (states, texts) = updates(&received);
    // The first update was retried, and nothing overtook it.
    assert_eq!(
        states.first().map(String::as_str),
        Some("TASK_STATE_SUBMITTED")
    );
    assert_eq!(texts, ["part-1", "part-2", "part-3"]);
    assert_eq!(hook.seen(), received.len() + 2);
    let stats = handle.push_stats().unwrap();
    assert_eq!(
        (stats.retried, stats.failed, stats.dropped),
        (2, 0, 0),
        "{stats:?}"
    );
}

#[tokio::test]
async fn a_hanging_receiver_holds_neither_the_task_nor_another_webhook() {
    let (handle, server) = server().await;
    let hung = Receiver::start(Behaviour::Hang).await;
    let live = Receiver::start(Behaviour::Ack).await;
    let first = server.call_v1("SendMessage", text_message_v1("ask")).await;
    let task_id = first["result"]["task"]["id"].as_str().unwrap().to_owned();
    for (id, url) in [("hung", &hung.url), ("live", &live.url)] {
        let created = server
            .call_v1(
                "CreateTaskPushNotificationConfig",
                json!({"taskId": task_id, "id": id, "url": url}),
            )
            .await;
        assert!(created.get("result").is_some(), "{created}");
    }
    let mut next = text_message_v1("go");
    next["message"]["taskId"] = Value::from(task_id.as_str());
    let answer = server.call_v1("SendMessage", next).await;
    assert_eq!(
        answer["result"]["task"]["status"]["state"],
        "TASK_STATE_COMPLETED"
    );
    let received = live.wait_for(completed_v1).await;
    let (states, texts) = updates(&received);
    assert_eq!(
        states.first().map(String::as_str),
        Some("TASK_STATE_WORKING")
    );
    assert_eq!(texts, ["part-1", "part-2", "part-3"]);
    assert!(hung.seen() >= 1);
    assert!(hung.received().is_empty());
    // The hung webhook's updates time out and are given up on, one at a time.
    for _ in 0..200 {
        if handle.push_stats().unwrap().failed >= 1 {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the hung webhook's first update was never given up on");
}

#[tokio::test]
async fn updates_beyond_a_webhooks_queue_are_dropped_and_counted() {
    let settings = settings().queue(1).max_attempts(1);
    let handle = builder(agent).push(settings).build().unwrap();
    let server = spawn(handle.clone()).await;
    let hung = Receiver::start(Behaviour::Hang).await;
    let mut send = text_message_v1("go");
    send["configuration"] = json!({"taskPushNotificationConfig": {"url": hung.url}});
    let answer = server.call_v1("SendMessage", send).await;
    assert_eq!(
        answer["result"]["task"]["status"]["state"],
        "TASK_STATE_COMPLETED"
    );
    for _ in 0..200 {
        if handle.push_stats().unwrap().dropped >= 1 {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("no update was dropped: {:?}", handle.push_stats());
}
