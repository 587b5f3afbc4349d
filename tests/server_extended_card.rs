//! The extended agent card: served to authenticated callers by `GetExtendedAgentCard`
//! (JSON-RPC 1.0), `agent/getAuthenticatedExtendedCard` (0.3) and `GET /extendedAgentCard`;
//! the public card declares it. Without one, each answers the error its spec names.

mod support;

use a2ui_agent::a2a::card::{AgentCard, AgentSkill};
use a2ui_agent::agent::{AgentError, Reply};
use a2ui_agent::request::Request;
use a2ui_agent::server::{A2uiServer, BuildError};
use serde_json::{Value, json};
use support::{builder, spawn};

async fn echo(request: Request) -> Result<Reply, AgentError> {
    Ok(Reply::text(request.text()))
}

fn extended() -> AgentCard {
    AgentCard::builder("Members' agent")
        .skill(AgentSkill::new("secret", "Secret", "Only for members"))
        .build()
}

async fn rpc(server: &support::TestServer, token: Option<&str>, method: &str) -> (u16, Value) {
    let mut request = server
        .client
        .post(&server.url)
        .header("content-type", "application/json")
        .body(json!({"jsonrpc": "2.0", "id": 7, "method": method}).to_string());
    if method.contains('/') {
        request = request.header("A2A-Version", "0.3");
    } else {
        request = request.header("A2A-Version", "1.0");
    }
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

#[tokio::test]
async fn authenticated_callers_get_the_extended_card_over_every_binding() {
    let server = spawn(
        builder(echo)
            .extended_card(extended())
            .auth_token("s3cret")
            .build()
            .unwrap(),
    )
    .await;
    let public: Value = server
        .client
        .get(format!("{}.well-known/agent-card.json", server.url))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(public["capabilities"]["extendedAgentCard"], true);

    let (status, answer) = rpc(&server, Some("s3cret"), "GetExtendedAgentCard").await;
    assert_eq!(status, 200);
    let card = &answer["result"];
    assert_eq!(card["name"], "Members' agent", "{answer}");
    assert_eq!(card["skills"][0]["id"], "secret");
    assert!(card.get("url").is_none(), "a 1.0 card: {card}");
    assert!(card["supportedInterfaces"][0]["url"].is_string());

    let (_, answer) = rpc(
        &server,
        Some("s3cret"),
        "agent/getAuthenticatedExtendedCard",
    )
    .await;
    assert_eq!(answer["result"]["name"], "Members' agent", "{answer}");
    assert_eq!(answer["result"]["protocolVersion"], "0.3.0");

    let rest = server
        .client
        .get(format!("{}extendedAgentCard", server.url))
        .header("A2A-Version", "1.0")
        .bearer_auth("s3cret")
        .send()
        .await
        .unwrap();
    assert_eq!(rest.status(), 200);
    let card: Value = rest.json().await.unwrap();
    assert_eq!(card["skills"][0]["id"], "secret");
}

#[tokio::test]
async fn callers_without_the_token_do_not_get_it() {
    let server = spawn(
        builder(echo)
            .extended_card(extended())
            .auth_token("s3cret")
            .build()
            .unwrap(),
    )
    .await;
    let (status, _) = rpc(&server, None, "GetExtendedAgentCard").await;
    assert_eq!(status, 401);
    let (status, _) = rpc(&server, Some("wrong"), "GetExtendedAgentCard").await;
    assert_eq!(status, 401);
    let rest = server
        .client
        .get(format!("{}extendedAgentCard", server.url))
        .send()
        .await
        .unwrap();
    assert_eq!(rest.status(), 401);
}

#[tokio::test]
async fn without_an_extended_card_each_version_answers_its_error() {
    let server = spawn(builder(echo).build().unwrap()).await;
    let (_, answer) = rpc(&server, None, "GetExtendedAgentCard").await;
    // 1.0 §3.3.4: the card does not declare one, so UnsupportedOperationError.
    assert_eq!(answer["error"]["code"], -32004, "{answer}");
    let (_, answer) = rpc(&server, None, "agent/getAuthenticatedExtendedCard").await;
    assert_eq!(answer["error"]["code"], -32007, "{answer}");
    let (status, body) = server.rest("GET", "extendedAgentCard", None).await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(
        body["error"]["details"][0]["reason"],
        "UNSUPPORTED_OPERATION"
    );
}

#[test]
fn an_extended_card_without_authentication_is_refused_at_build() {
    let refused = A2uiServer::builder(AgentCard::builder("Open").build(), echo)
        .extended_card(extended())
        .build()
        .unwrap_err();
    assert_eq!(refused, BuildError::ExtendedCardWithoutAuth);
}
