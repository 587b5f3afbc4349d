//! The agent card: what a client reads first to find the interface and its capabilities.

mod support;

use a2ui_agent::a2a::card::{AgentCard, AgentExtension, AgentSkill};
use a2ui_agent::agent::{AgentError, Reply};
use a2ui_agent::request::Request;
use a2ui_agent::server::A2uiServer;
use serde_json::{Value, json};
use support::spawn;

async fn echo(request: Request) -> Result<Reply, AgentError> {
    Ok(Reply::text(request.text()))
}

async fn card_at(url: &str, host: Option<&str>) -> Value {
    let client = reqwest::Client::new();
    let mut request = client.get(format!("{url}.well-known/agent-card.json"));
    if let Some(host) = host {
        request = request.header("host", host);
    }
    let response = request.send().await.unwrap();
    assert_eq!(response.status(), 200);
    assert!(
        response.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("application/json")
    );
    response.json().await.unwrap()
}

#[tokio::test]
async fn a_configured_card_is_served_as_built_with_its_skills_and_extensions() {
    let card = AgentCard::builder("Planner")
        .description("Plans trips")
        .url("https://agents.example.com/planner/")
        .version("2.1.0")
        .skill(AgentSkill::new("plan", "Plan", "Plans a trip"))
        .extension(AgentExtension::new("https://example.com/ext/v1"))
        .build();
    let server = spawn(A2uiServer::builder(card, echo).build().unwrap()).await;
    let card = card_at(&server.url, None).await;
    assert_eq!(card["url"], "https://agents.example.com/planner/");
    assert_eq!(card["version"], "2.1.0");
    assert_eq!(card["skills"][0]["id"], "plan");
    assert_eq!(card["skills"][0]["tags"], json!([]));
    assert_eq!(
        card["capabilities"]["extensions"],
        json!([{"uri": "https://example.com/ext/v1", "required": false}])
    );
    assert_eq!(card["defaultInputModes"], json!(["text/plain"]));
    assert_eq!(card["supportsAuthenticatedExtendedCard"], false);
}

#[tokio::test]
async fn without_a_configured_url_the_card_points_at_the_host_the_client_used() {
    let card = AgentCard::builder("Echo").build();
    let server = spawn(A2uiServer::builder(card, echo).build().unwrap()).await;
    let card = card_at(&server.url, Some("agent.internal:9000")).await;
    assert_eq!(card["url"], "http://agent.internal:9000/");
    let card = card_at(&server.url, Some("evil.example/<script>")).await;
    assert_eq!(card["url"], "http://localhost/");
}

#[tokio::test]
async fn the_server_refuses_to_build_with_a_final_state_a_task_cannot_stop_in() {
    use a2ui_agent::a2a::TaskState;
    use a2ui_agent::server::BuildError;
    // A card and an agent are the builder's arguments: neither can be missing.
    let card = AgentCard::builder("x").build();
    let working = A2uiServer::builder(card, echo)
        .final_state(TaskState::Working)
        .build()
        .unwrap_err();
    assert_eq!(working, BuildError::InvalidFinalState(TaskState::Working));
}
