//! The chat page at `GET /` (`ServerBuilder::web_page`): served from the binary next to the
//! JSON-RPC endpoint, and absent unless asked for. What it does in a browser is
//! `tests/e2e_browser.rs`.

mod support;

use a2ui_agent::a2a::card::AgentCard;
use a2ui_agent::agent::{AgentError, Reply};
use a2ui_agent::request::Request;
use a2ui_agent::server::A2uiServer;
use serde_json::{Value, json};
use support::{TestServer, spawn};

async fn echo(request: Request) -> Result<Reply, AgentError> {
    Ok(Reply::text(request.text()))
}

async fn server(web_page: bool) -> TestServer {
    spawn(
        A2uiServer::builder(AgentCard::builder("Echo").build(), echo)
            .web_page(web_page)
            .build()
            .unwrap(),
    )
    .await
}

async fn get(server: &TestServer, path: &str) -> reqwest::Response {
    server
        .client
        .get(format!("{}{path}", server.url))
        .send()
        .await
        .unwrap()
}

#[tokio::test]
async fn the_page_and_the_bundle_it_loads_are_served_with_their_types() {
    let server = server(true).await;
    let page = get(&server, "").await;
    assert_eq!(page.status(), 200);
    assert_eq!(page.headers()["content-type"], "text/html; charset=utf-8");
    let html = page.text().await.unwrap();
    assert!(html.contains(r#"aria-label="Message""#), "{html}");
    assert!(html.contains("./web/a2ui-${version}.js"), "{html}");
    for version in ["v0_9", "v0_8"] {
        let bundle = get(&server, &format!("web/a2ui-{version}.js")).await;
        assert_eq!(bundle.status(), 200, "{version}");
        assert_eq!(
            bundle.headers()["content-type"],
            "text/javascript; charset=utf-8"
        );
        assert_eq!(bundle.headers()["x-content-type-options"], "nosniff");
        assert!(bundle.bytes().await.unwrap().len() > 100_000, "{version}");
    }
}

#[tokio::test]
async fn other_file_names_under_web_are_not_found() {
    let server = server(true).await;
    for path in [
        "web/index.html",
        "web/a2ui-v1_0.js",
        "web/..%2FCargo.toml",
        "web/",
    ] {
        assert_eq!(get(&server, path).await.status(), 404, "{path}");
    }
}

#[tokio::test]
async fn json_rpc_still_answers_at_the_same_url_as_the_page() {
    let server = server(true).await;
    let answer: Value = server
        .client
        .post(&server.url)
        .json(
            &json!({"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": {
            "message": {"kind": "message", "messageId": "m1", "role": "user",
                "parts": [{"kind": "text", "text": "hi"}]}}}),
        )
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(
        answer["result"]["status"]["message"]["parts"][0]["text"],
        "hi"
    );
}

#[tokio::test]
async fn without_web_page_the_server_has_no_page() {
    let server = server(false).await;
    assert_eq!(get(&server, "").await.status(), 405);
    assert_eq!(get(&server, "web/a2ui-v0_9.js").await.status(), 404);
}
