//! `a2ui-agent serve --push`: the card declares push notifications, a config is taken, and
//! without the flag the push flags are refused (they need `--push`).
#![cfg(feature = "cli")]

mod support;

use std::time::Duration;

use serde_json::Value;

#[tokio::test]
async fn serve_push_turns_push_on() {
    let command = support::serve_command(&["--push", "--push-max-configs", "2"]);
    let (_child, url) = support::spawn_binary(command, Duration::from_secs(60)).await;
    let card: Value = reqwest::get(format!("{url}.well-known/agent-card.json"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(card["capabilities"]["pushNotifications"], true);

    let refused = support::serve_command(&["--push-allow-http"])
        .output()
        .await
        .unwrap();
    assert!(!refused.status.success());
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(stderr.contains("--push"), "{stderr}");
}
