//! The agent card: what a client reads first to find the interface and its capabilities.
//!
//! A2A 1.0 clients get the 1.0 card (which the 1.0 card schema accepts) at
//! `/.well-known/agent-card.json`; 0.3 clients get the 0.3 card there with `A2A-Version: 0.3`,
//! and at `/.well-known/agent.json`. Both list the JSON-RPC 0.3 interface.

mod shared_reference;
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
    card_with(url, host, ".well-known/agent-card.json", None).await
}

async fn card_with(url: &str, host: Option<&str>, path: &str, version: Option<&str>) -> Value {
    let client = reqwest::Client::new();
    let mut request = client.get(format!("{url}{path}"));
    if let Some(version) = version {
        request = request.header("A2A-Version", version);
    }
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
    assert_eq!(
        card["supportedInterfaces"],
        json!([
            {"url": "https://agents.example.com/planner/", "protocolBinding": "JSONRPC",
             "protocolVersion": "1.0"},
            {"url": "https://agents.example.com/planner", "protocolBinding": "HTTP+JSON",
             "protocolVersion": "1.0"},
            {"url": "https://agents.example.com/planner/", "protocolBinding": "JSONRPC",
             "protocolVersion": "0.3"},
        ])
    );
    assert_eq!(card["version"], "2.1.0");
    assert_eq!(card["skills"][0]["id"], "plan");
    assert_eq!(card["skills"][0]["tags"], json!([]));
    assert_eq!(
        card["capabilities"]["extensions"],
        json!([{"uri": "https://example.com/ext/v1", "required": false}])
    );
    assert_eq!(card["defaultInputModes"], json!(["text/plain"]));
    assert_eq!(card["capabilities"]["extendedAgentCard"], false);
    for member in [
        "url",
        "preferredTransport",
        "protocolVersion",
        "additionalInterfaces",
        "supportsAuthenticatedExtendedCard",
    ] {
        assert!(card.get(member).is_none(), "the 1.0 card has {member}");
    }
    assert!(card["capabilities"].get("stateTransitionHistory").is_none());
}

#[tokio::test]
async fn a_0_3_client_finds_its_interface_in_the_0_3_card() {
    let card = AgentCard::builder("Planner")
        .url("https://agents.example.com/planner/")
        .build();
    let server = spawn(A2uiServer::builder(card, echo).build().unwrap()).await;
    let by_header = card_with(
        &server.url,
        None,
        ".well-known/agent-card.json",
        Some("0.3"),
    )
    .await;
    let by_path = card_with(&server.url, None, ".well-known/agent.json", None).await;
    assert_eq!(by_header, by_path);
    assert_eq!(by_path["url"], "https://agents.example.com/planner/");
    assert_eq!(by_path["preferredTransport"], "JSONRPC");
    assert_eq!(by_path["protocolVersion"], "0.3.0");
    assert_eq!(by_path["supportsAuthenticatedExtendedCard"], false);
    let asked_for_1_0 = card_with(
        &server.url,
        None,
        ".well-known/agent-card.json",
        Some("1.0"),
    )
    .await;
    assert!(asked_for_1_0.get("url").is_none());
}

#[tokio::test]
async fn the_1_0_card_validates_against_the_tck_card_schema() {
    let Some(tck) = shared_reference::a2a_tck() else {
        return;
    };
    let text = std::fs::read_to_string(tck.join("specification/a2a.json")).unwrap();
    let spec: Value = serde_json::from_str(&text).unwrap();
    let mut definitions = spec["definitions"].clone();
    local_refs(&mut definitions, &spec["definitions"]);
    let schema = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$ref": "#/definitions/Agent%20Card",
        "definitions": definitions,
    });
    let validator = jsonschema::validator_for(&schema).unwrap();
    let card = AgentCard::builder("Planner")
        .description("Plans trips")
        .skill(AgentSkill::new("plan", "Plan", "Plans a trip"))
        .extension(AgentExtension::new("https://example.com/ext/v1"))
        .build();
    let extended = AgentCard::builder("Planner, for members").build();
    let server = spawn(
        A2uiServer::builder(card, echo)
            .extended_card(extended)
            .auth_token("secret")
            .build()
            .unwrap(),
    )
    .await;
    let card = card_at(&server.url, None).await;
    let errors: Vec<String> = validator
        .iter_errors(&card)
        .map(|e| e.to_string())
        .collect();
    assert!(errors.is_empty(), "{errors:?} in {card:#}");
    assert_eq!(card["capabilities"]["extendedAgentCard"], true);
}

#[tokio::test]
async fn without_a_configured_url_the_card_points_at_the_host_the_client_used() {
    let card = AgentCard::builder("Echo").build();
    let server = spawn(A2uiServer::builder(card, echo).build().unwrap()).await;
    let card = card_at(&server.url, Some("agent.internal:9000")).await;
    assert_eq!(
        card["supportedInterfaces"][0]["url"],
        "http://agent.internal:9000/"
    );
    let card = card_at(&server.url, Some("evil.example/<script>")).await;
    assert_eq!(card["supportedInterfaces"][0]["url"], "http://localhost/");
    let card = card_with(
        &server.url,
        Some("agent.internal:9000"),
        ".well-known/agent.json",
        None,
    )
    .await;
    assert_eq!(card["url"], "http://agent.internal:9000/");
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

/// The TCK's schema names its definitions by file (`lf.a2a.v1.AgentSkill.jsonschema.json`
/// for "Agent Skill"), as its own validator resolves them: point each at its definition.
fn local_refs(schema: &mut Value, definitions: &Value) {
    match schema {
        Value::Object(map) => {
            if let Some(Value::String(target)) = map.get_mut("$ref") {
                let name = target
                    .strip_suffix(".jsonschema.json")
                    .and_then(|stem| stem.rsplit('.').next())
                    .and_then(|camel| {
                        definitions
                            .as_object()?
                            .keys()
                            .find(|name| name.replace(' ', "") == camel)
                    });
                if let Some(name) = name {
                    // A JSON pointer in a URI fragment: the names' spaces are percent-encoded.
                    *target = format!("#/definitions/{}", name.replace(' ', "%20"));
                }
            }
            for value in map.values_mut() {
                local_refs(value, definitions);
            }
        }
        Value::Array(items) => items
            .iter_mut()
            .for_each(|item| local_refs(item, definitions)),
        _ => {}
    }
}
