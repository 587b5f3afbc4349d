//! Who is calling, as tower layers: the server's own ways to authenticate a caller into a
//! [`Principal`], and CORS for the browser origins allowed to call it.
//!
//! Built in are a table of tokens ([`TokenTable`]: one shared secret, or one token per
//! caller from a file), accepted as a bearer token (`Authorization: Bearer <token>`) or an
//! API key (`X-API-Key: <token>`), and JWT bearer tokens checked against a JWKS
//! ([`JwtAuth`]). The card declares what is configured in `securitySchemes`/`security` so
//! clients know what to send. Both bindings are guarded, the JSON-RPC endpoint and every
//! HTTP+JSON route (`/message:send`, `/tasks`, the extended card...); the agent card and
//! the web page stay public, since clients read the card to learn how to authenticate. A
//! request let through carries its [`Principal`] as an extension (see
//! [`super::principal`]). Without allowed origins (the default) no CORS header is sent and
//! browsers keep other sites from reading any answer.

#[cfg(feature = "jwt")]
mod jwt;
mod tokens;

#[cfg(feature = "jwt")]
pub use jwt::{JwksError, JwtAuth};
pub use tokens::{TokenFileError, TokenTable};

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::{Request, State};
use axum::http::header::{AUTHORIZATION, CONTENT_TYPE, WWW_AUTHENTICATE};
use axum::http::{HeaderMap, HeaderName, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde_json::json;
use tower_http::cors::{AllowOrigin, CorsLayer};

use crate::a2a::card::AgentCard;
#[cfg(feature = "jwt")]
use crate::clock::Clock;
use crate::request::Principal;

/// The API-key header.
const API_KEY: HeaderName = HeaderName::from_static("x-api-key");

/// The names of the schemes in the card.
const BEARER_SCHEME: &str = "bearer";
const API_KEY_SCHEME: &str = "apiKey";
#[cfg(feature = "jwt")]
const JWT_SCHEME: &str = "jwt";

/// One way to authenticate a caller.
#[derive(Clone, Debug)]
pub(crate) enum AuthMethod {
    /// A token of the table, as a bearer token or an API key.
    Tokens(Arc<TokenTable>),
    /// A JWT bearer token.
    #[cfg(feature = "jwt")]
    Jwt(Arc<JwtAuth>),
}

/// What the guard of the API needs: the ways a caller may authenticate (any one suffices)
/// and the clock that says whether a token has expired.
#[derive(Clone)]
pub(crate) struct Guard {
    pub(crate) methods: Arc<[AuthMethod]>,
    #[cfg(feature = "jwt")]
    pub(crate) clock: Arc<dyn Clock>,
}

/// Declares the schemes of `methods` in `card`; a request needs any one of them.
pub(crate) fn declare(card: &mut AgentCard, methods: &[AuthMethod]) {
    for method in methods {
        match method {
            AuthMethod::Tokens(_) => {
                card.security_schemes.insert(
                    BEARER_SCHEME.to_owned(),
                    json!({"type": "http", "scheme": "bearer",
                           "description": "Authorization: Bearer <token>; each token is one \
                                           caller, who sees only its own tasks"}),
                );
                card.security_schemes.insert(
                    API_KEY_SCHEME.to_owned(),
                    json!({"type": "apiKey", "in": "header", "name": "X-API-Key",
                           "description": "The same token, as an API key"}),
                );
                card.security
                    .push(BTreeMap::from([(BEARER_SCHEME.to_owned(), Vec::new())]));
                card.security
                    .push(BTreeMap::from([(API_KEY_SCHEME.to_owned(), Vec::new())]));
            }
            #[cfg(feature = "jwt")]
            AuthMethod::Jwt(jwt) => {
                card.security_schemes.insert(
                    JWT_SCHEME.to_owned(),
                    json!({"type": "http", "scheme": "bearer", "bearerFormat": "JWT",
                           "description": jwt.describe()}),
                );
                card.security
                    .push(BTreeMap::from([(JWT_SCHEME.to_owned(), Vec::new())]));
            }
        }
    }
}

/// The token a request offers: its bearer token, else its API key.
fn offered(headers: &HeaderMap) -> (Option<&str>, Option<&str>) {
    let bearer = headers
        .get(AUTHORIZATION)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.split_once(' '))
        .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
        .map(|(_, token)| token.trim());
    let api_key = headers.get(API_KEY).and_then(|value| value.to_str().ok());
    (bearer, api_key)
}

/// The principal the request's credentials prove, if any method accepts them.
fn authenticate(guard: &Guard, headers: &HeaderMap) -> Option<Principal> {
    let (bearer, api_key) = offered(headers);
    guard.methods.iter().find_map(|method| match method {
        AuthMethod::Tokens(table) => bearer
            .or(api_key)
            .and_then(|token| table.find(token.as_bytes()))
            .cloned(),
        #[cfg(feature = "jwt")]
        AuthMethod::Jwt(jwt) => {
            let token = bearer?;
            jwt.verify(token, guard.clock.now())
                .inspect_err(|refusal| tracing::debug!(%refusal, "refused a JWT"))
                .ok()
        }
    })
}

/// Lets a request through, with its [`Principal`] as an extension, when its credentials
/// prove one; else 401 with `WWW-Authenticate`. The credentials are never logged.
pub(crate) async fn require(
    State(guard): State<Guard>,
    mut request: Request,
    next: Next,
) -> Response {
    if let Some(principal) = authenticate(&guard, request.headers()) {
        request.extensions_mut().insert(principal);
        return next.run(request).await;
    }
    let (bearer, api_key) = offered(request.headers());
    let challenge = if bearer.or(api_key).is_some() {
        r#"Bearer realm="a2a", error="invalid_token""#
    } else {
        r#"Bearer realm="a2a""#
    };
    tracing::debug!(
        offered = bearer.or(api_key).is_some(),
        "refused a request without valid credentials"
    );
    let mut response = (
        StatusCode::UNAUTHORIZED,
        "send your credentials as Authorization: Bearer <token> (or X-API-Key: <token>)\n",
    )
        .into_response();
    response
        .headers_mut()
        .insert(WWW_AUTHENTICATE, HeaderValue::from_static(challenge));
    response
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
    fn the_card_declares_both_token_schemes_either_of_which_suffices() {
        let mut card = AgentCard::builder("A").build();
        let table = Arc::new(TokenTable::new().with(Principal::anonymous(), "t"));
        declare(&mut card, &[AuthMethod::Tokens(table)]);
        let json = serde_json::to_value(&card).unwrap();
        assert_eq!(json["securitySchemes"]["bearer"]["scheme"], "bearer");
        assert_eq!(json["securitySchemes"]["apiKey"]["name"], "X-API-Key");
        assert_eq!(json["security"], json!([{"bearer": []}, {"apiKey": []}]));
    }
}
