//! The agent card is cacheable: `Cache-Control`, an `ETag` and `Last-Modified`, and a
//! conditional GET that matches is answered 304 Not Modified (A2A 1.0 §8.6.1).

mod support;

use std::time::{Duration, UNIX_EPOCH};

use a2ui_agent::agent::{AgentError, Reply};
use a2ui_agent::clock::ManualClock;
use a2ui_agent::request::Request;
use support::{builder, spawn};

async fn echo(request: Request) -> Result<Reply, AgentError> {
    Ok(Reply::text(request.text()))
}

#[tokio::test]
async fn the_card_carries_its_caching_headers_and_matching_conditional_gets_get_304() {
    let built_at = UNIX_EPOCH + Duration::from_secs(1_780_000_000);
    let server = spawn(
        builder(echo)
            .clock(ManualClock::new(built_at))
            .build()
            .unwrap(),
    )
    .await;
    let url = format!("{}.well-known/agent-card.json", server.url);
    let first = server.client.get(&url).send().await.unwrap();
    assert_eq!(first.status(), 200);
    let headers = first.headers().clone();
    let cache_control = headers["cache-control"].to_str().unwrap();
    assert!(cache_control.contains("max-age="), "{cache_control}");
    let etag = headers["etag"].to_str().unwrap().to_owned();
    assert!(etag.starts_with('"') && etag.ends_with('"'), "{etag}");
    let last_modified = headers["last-modified"].to_str().unwrap().to_owned();
    assert_eq!(last_modified, httpdate::fmt_http_date(built_at));
    let body = first.text().await.unwrap();

    // The same card again: the same validator.
    let again = server.client.get(&url).send().await.unwrap();
    assert_eq!(again.headers()["etag"].to_str().unwrap(), etag);
    assert_eq!(again.text().await.unwrap(), body);

    let by_etag = server
        .client
        .get(&url)
        .header("If-None-Match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(by_etag.status(), 304);
    assert_eq!(by_etag.headers()["etag"].to_str().unwrap(), etag);
    assert!(by_etag.bytes().await.unwrap().is_empty());

    let by_date = server
        .client
        .get(&url)
        .header("If-Modified-Since", &last_modified)
        .send()
        .await
        .unwrap();
    assert_eq!(by_date.status(), 304);

    let stale_etag = server
        .client
        .get(&url)
        .header("If-None-Match", "\"something-else\"")
        .send()
        .await
        .unwrap();
    assert_eq!(stale_etag.status(), 200);
    let older = httpdate::fmt_http_date(built_at - Duration::from_secs(60));
    let stale_date = server
        .client
        .get(&url)
        .header("If-Modified-Since", older)
        .send()
        .await
        .unwrap();
    assert_eq!(stale_date.status(), 200);
}

#[tokio::test]
async fn each_card_shape_has_its_own_etag() {
    let server = spawn(builder(echo).build().unwrap()).await;
    let etag_of = |path: &'static str| {
        let request = server.client.get(format!("{}{path}", server.url));
        async move {
            let response = request.send().await.unwrap();
            response.headers()["etag"].to_str().unwrap().to_owned()
        }
    };
    let v1_0 = etag_of(".well-known/agent-card.json").await;
    let v0_3 = etag_of(".well-known/agent.json").await;
    assert_ne!(v1_0, v0_3);
}
