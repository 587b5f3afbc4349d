//! The SSRF guard seen from a client: webhook URLs on loopback, private, link-local
//! (cloud metadata) addresses, IPv6 loopback, and names that resolve to loopback are refused
//! when the config is set, with `InvalidParams` and a reason a person can act on; plain
//! http is refused unless the operator allows it; and a webhook that redirects is not
//! followed, even to an address that would be allowed.

mod support;

use std::time::Duration;

use a2ui_agent::a2a::TaskState;
use a2ui_agent::agent::{AgentError, Reply};
use a2ui_agent::push::PushSettings;
use a2ui_agent::request::Request;
use serde_json::json;
use support::webhook::{Behaviour, Receiver};
use support::{TestServer, builder, spawn, text_message_v1};

async fn ask(request: Request) -> Result<Reply, AgentError> {
    let state = match request.text().as_str() {
        "ask" => TaskState::InputRequired,
        _ => TaskState::Completed,
    };
    Ok(Reply::text("ok").with_final_state(state))
}

async fn refusal(server: &TestServer, url: &str) -> String {
    let task = server.call_v1("SendMessage", text_message_v1("ask")).await;
    let task_id = task["result"]["task"]["id"].clone();
    let answer = server
        .call_v1(
            "CreateTaskPushNotificationConfig",
            json!({"taskId": task_id, "url": url}),
        )
        .await;
    assert_eq!(answer["error"]["code"], -32602, "{url}: {answer}");
    answer["error"]["message"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn internal_addresses_are_refused_with_a_reason() {
    let server = spawn(builder(ask).push(PushSettings::default()).build().unwrap()).await;
    for (url, reason) in [
        ("https://127.0.0.1/hook", "127.0.0.1 is a loopback address"),
        ("https://10.0.0.1/hook", "10.0.0.1 is a private address"),
        (
            "https://169.254.169.254/latest/meta-data/",
            "169.254.169.254 is a link-local address (cloud metadata endpoints live there)",
        ),
        ("https://[::1]:8443/hook", "::1 is a loopback address"),
        ("https://[::ffff:192.168.0.1]/hook", "is a private address"),
        ("https://localhost/hook", "localhost resolves to"),
        ("http://example.com/hook", "--push-allow-http"),
        ("file:///etc/passwd", "must use https"),
    ] {
        let message = refusal(&server, url).await;
        assert!(message.contains(reason), "{url}: {message}");
        if url.contains("://1") || url.contains("[") || url.contains("localhost") {
            assert!(message.contains("--push-allow-host"), "{url}: {message}");
        }
    }
    // Inline with a send, too.
    let mut send = text_message_v1("go");
    send["configuration"] = json!({"taskPushNotificationConfig": {"url": "https://10.1.2.3/"}});
    let answer = server.call_v1("SendMessage", send).await;
    assert_eq!(answer["error"]["code"], -32602, "{answer}");
}

#[tokio::test]
async fn a_redirect_is_not_followed() {
    let target = Receiver::start(Behaviour::Ack).await;
    let redirecting = Receiver::start(Behaviour::Redirect(target.url.clone())).await;
    let settings = PushSettings::default()
        .allow_http(true)
        .allow_host("127.0.0.1")
        .retry_waits(Duration::from_millis(10), Duration::from_millis(10));
    let server = builder(ask).push(settings).build().unwrap();
    let handle = server.clone();
    let server = spawn(server).await;
    let mut send = text_message_v1("go");
    send["configuration"] = json!({"taskPushNotificationConfig": {"url": redirecting.url}});
    let answer = server.call_v1("SendMessage", send).await;
    assert_eq!(
        answer["result"]["task"]["status"]["state"],
        "TASK_STATE_COMPLETED"
    );
    for _ in 0..200 {
        if handle.push_stats().unwrap().failed >= 2 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let stats = handle.push_stats().unwrap();
    assert!(stats.failed >= 2, "{stats:?}");
    assert_eq!(stats.retried, 0, "a redirect is not tried again: {stats:?}");
    assert!(redirecting.seen() >= 2);
    assert_eq!(target.seen(), 0, "the redirect was followed");
}
