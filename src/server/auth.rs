//! Who may call the agent, as tower layers: a shared secret on the agent's API, and CORS for
//! the browser origins allowed to call it.
//!
//! The secret is accepted as a bearer token (`Authorization: Bearer <token>`) or an API key
//! (`X-API-Key: <token>`), and the card declares both in `securitySchemes`/`security` so
//! clients know what to send. Both bindings are guarded, the JSON-RPC endpoint and every
//! HTTP+JSON route (`/message:send`, `/tasks`, the extended card...); the agent card and the
//! web page stay public, since clients read the card to learn how to authenticate. Without allowed origins (the default)
//! no CORS header is sent and browsers keep other sites from reading any answer.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::{Request, State};
use axum::http::header::{AUTHORIZATION, CONTENT_TYPE, WWW_AUTHENTICATE};
use axum::http::{HeaderName, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde_json::json;
use tower_http::cors::{AllowOrigin, CorsLayer};

use crate::a2a::card::AgentCard;

/// The API-key header.
const API_KEY: HeaderName = HeaderName::from_static("x-api-key");

/// The names of the schemes in the card.
const BEARER_SCHEME: &str = "bearer";
const API_KEY_SCHEME: &str = "apiKey";

/// The secret a request must carry (`None`: every request passes).
pub(crate) type Secret = Option<Arc<str>>;

/// Declares the bearer and API-key schemes in `card`; a request needs either one.
pub(crate) fn declare(card: &mut AgentCard) {
    card.security_schemes.insert(
        BEARER_SCHEME.to_owned(),
        json!({"type": "http", "scheme": "bearer",
               "description": "Authorization: Bearer <token>"}),
    );
    card.security_schemes.insert(
        API_KEY_SCHEME.to_owned(),
        json!({"type": "apiKey", "in": "header", "name": "X-API-Key",
               "description": "The same token, as an API key"}),
    );
    card.security = vec![
        BTreeMap::from([(BEARER_SCHEME.to_owned(), Vec::new())]),
        BTreeMap::from([(API_KEY_SCHEME.to_owned(), Vec::new())]),
    ];
}

/// Lets a request through when it carries the secret; else 401 with `WWW-Authenticate`.
pub(crate) async fn require(
    State(secret): State<Secret>,
    request: Request,
    next: Next,
) -> Response {
    let Some(secret) = secret else {
        return next.run(request).await;
    };
    let headers = request.headers();
    let bearer = headers
        .get(AUTHORIZATION)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.split_once(' '))
        .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
        .map(|(_, token)| token.trim());
    let api_key = headers.get(API_KEY).and_then(|value| value.to_str().ok());
    let offered = bearer.or(api_key);
    if offered.is_some_and(|token| same_secret(token.as_bytes(), secret.as_bytes())) {
        return next.run(request).await;
    }
    let challenge = if offered.is_some() {
        r#"Bearer realm="a2a", error="invalid_token""#
    } else {
        r#"Bearer realm="a2a""#
    };
    tracing::debug!(
        offered = offered.is_some(),
        "refused a request without valid credentials"
    );
    let mut response = (
        StatusCode::UNAUTHORIZED,
        "send the token as Authorization: Bearer <token> or X-API-Key: <token>\n",
    )
        .into_response();
    response
        .headers_mut()
        .insert(WWW_AUTHENTICATE, HeaderValue::from_static(challenge));
    response
}

/// Compares in time independent of where the first difference is (the length may show).
fn same_secret(offered: &[u8], secret: &[u8]) -> bool {
    offered.len() == secret.len()
        && offered
            .iter()
            .zip(secret)
            .fold(0u8, |diff, (a, b)| diff | (a ^ b))
            == 0
}

/// CORS for `origins` (`*`: any origin); `None` when there are none.
pub(crate) fn cors(origins: &[String]) -> Option<CorsLayer> {
    if origins.is_empty() {
        return None;
    }
    let allow = if origins.iter().any(|origin| origin == "*") {
        AllowOrigin::any()
    } else {
        AllowOrigin::list(
            origins
                .iter()
                .filter_map(|origin| HeaderValue::from_str(origin.trim_end_matches('/')).ok()),
        )
    };
    let a2a_headers = [
        HeaderName::from_static("x-a2a-extensions"),
        HeaderName::from_static("a2a-extensions"),
        HeaderName::from_static("a2a-version"),
    ];
    Some(
        CorsLayer::new()
            .allow_origin(allow)
            .allow_methods([Method::GET, Method::POST])
            .allow_headers([
                CONTENT_TYPE,
                AUTHORIZATION,
                API_KEY,
                a2a_headers[0].clone(),
                a2a_headers[1].clone(),
                a2a_headers[2].clone(),
            ])
            .expose_headers(a2a_headers)
            .max_age(Duration::from_secs(600)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_match_only_when_equal() {
        assert!(same_secret(b"s3cret", b"s3cret"));
        assert!(!same_secret(b"s3creT", b"s3cret"));
        assert!(!same_secret(b"s3cre", b"s3cret"));
        assert!(!same_secret(b"", b"s3cret"));
    }

    #[test]
    fn the_card_declares_both_schemes_either_of_which_suffices() {
        let mut card = AgentCard::builder("A").build();
        declare(&mut card);
        let json = serde_json::to_value(&card).unwrap();
        assert_eq!(json["securitySchemes"]["bearer"]["scheme"], "bearer");
        assert_eq!(json["securitySchemes"]["apiKey"]["name"], "X-API-Key");
        assert_eq!(json["security"], json!([{"bearer": []}, {"apiKey": []}]));
    }
}
