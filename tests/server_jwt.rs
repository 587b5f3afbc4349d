//! JWT bearer tokens checked against a JWKS: a good token is its `sub`'s principal, and
//! an expired one, one for another audience, one signed by another key, `alg: none` and an
//! HMAC token keyed with the public key are all refused with 401. The token's scopes
//! (`scope`, or a `scp` list) reach the agent on its request, and the card says which
//! claims are read.
#![cfg(feature = "jwt")]

mod support;

use std::sync::Arc;
use std::time::{Duration, UNIX_EPOCH};

use a2ui_agent::a2a::TaskState;
use a2ui_agent::agent::{AgentError, Reply};
use a2ui_agent::clock::ManualClock;
use a2ui_agent::request::Request;
use a2ui_agent::server::JwtAuth;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::{Value, json};
use support::{TestServer, builder, spawn, text_message};

/// Ed25519 keys made with `openssl genpkey -algorithm ed25519` for these tests only:
/// PKCS#8 DER, and the public key as the JWKS `x`.
const KEY_A: &str = "302e020100300506032b65700422042018ac5236fd8da698e8732608b377b6ea8d15e1da3917b39262bb5793b8f4ae05";
const PUBLIC_A: &str = "ZSDaY5qNfZKHA8AqykXG6_ymy-Leme_5HWn1wzWOzb4";
const KEY_B: &str = "302e020100300506032b657004220420ea4221c066806828832ae3e63ce1f4bd49d05f2080e2fbea3ceffbf1cf2c1832";

const ISSUER: &str = "https://issuer.test";
const AUDIENCE: &str = "a2ui-test-agent";
/// The server's clock, in seconds since the epoch.
const NOW: u64 = 1_800_000_000;

/// Says who asked, with which scopes.
async fn echo(request: Request) -> Result<Reply, AgentError> {
    let caller = request.principal();
    Ok(Reply::text(format!(
        "hi {} as {} with [{}]",
        request.text(),
        caller.id(),
        caller.scopes().join(" ")
    ))
    .with_final_state(TaskState::InputRequired))
}

fn der(hex: &str) -> Vec<u8> {
    (0..hex.len())
        .step_by(2)
        .map(|at| u8::from_str_radix(&hex[at..at + 2], 16).unwrap())
        .collect()
}

fn base64url(bytes: &[u8]) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().fold(0u32, |n, b| n << 8 | u32::from(*b)) << (8 * (3 - chunk.len()));
        for i in 0..=chunk.len() {
            out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
        }
    }
    out
}

fn unbase64url(text: &str) -> Vec<u8> {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut bits = 0u32;
    let mut count = 0;
    let mut out = Vec::new();
    for c in text.bytes() {
        let value = ALPHABET.iter().position(|a| *a == c).unwrap() as u32;
        bits = bits << 6 | value;
        count += 6;
        if count >= 8 {
            count -= 8;
            out.push((bits >> count) as u8);
        }
    }
    out
}

fn claims(sub: &str, exp_offset: i64, audience: &str) -> Value {
    json!({"sub": sub, "iss": ISSUER, "aud": audience,
           "exp": NOW as i64 + exp_offset, "iat": NOW, "scope": "tasks:read tasks:write"})
}

fn signed(key_hex: &str, claims: &Value) -> String {
    let mut header = Header::new(Algorithm::EdDSA);
    header.kid = Some("a".into());
    jsonwebtoken::encode(&header, claims, &EncodingKey::from_ed_der(&der(key_hex))).unwrap()
}

async fn server() -> TestServer {
    let jwks = json!({"keys": [{"kty": "OKP", "crv": "Ed25519", "kid": "a", "x": PUBLIC_A}]});
    let jwt = JwtAuth::from_jwks(&jwks.to_string())
        .unwrap()
        .issuer(ISSUER)
        .audience(AUDIENCE)
        .leeway(Duration::from_secs(60));
    let clock = Arc::new(ManualClock::new(UNIX_EPOCH + Duration::from_secs(NOW)));
    spawn(builder(echo).jwt(jwt).clock(clock).build().unwrap()).await
}

/// The status of `tasks/get`-free work: sending a message with `token`.
async fn send_with(server: &TestServer, token: &str) -> (u16, Value) {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "message/send",
                      "params": text_message("hello")});
    let response = server
        .client
        .post(&server.url)
        .bearer_auth(token)
        .header("content-type", "application/json")
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

#[tokio::test]
async fn a_valid_token_is_its_subjects_principal() {
    let server = server().await;
    let carol = signed(KEY_A, &claims("carol", 600, AUDIENCE));
    let (status, sent) = send_with(&server, &carol).await;
    assert_eq!(status, 200, "{sent}");
    assert!(
        sent.to_string()
            .contains("hi hello as carol with [tasks:read tasks:write]"),
        "{sent}"
    );
    let task_id = sent["result"]["id"].as_str().unwrap().to_owned();
    // Another subject of the same issuer does not see Carol's task.
    let dave = signed(KEY_A, &claims("dave", 600, AUDIENCE));
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tasks/get", "params": {"id": task_id}});
    let get = |token: String| {
        server
            .client
            .post(&server.url)
            .bearer_auth(token)
            .header("content-type", "application/json")
            .body(body.to_string())
            .send()
    };
    let as_dave: Value = get(dave).await.unwrap().json().await.unwrap();
    assert_eq!(as_dave["error"]["code"], -32001, "{as_dave}");
    let as_carol: Value = get(carol).await.unwrap().json().await.unwrap();
    assert_eq!(as_carol["result"]["id"], json!(task_id), "{as_carol}");
}

#[tokio::test]
async fn scopes_given_as_an_scp_list_reach_the_agent_and_the_card_names_the_claims() {
    let server = server().await;
    let mut listed = claims("erin", 600, AUDIENCE);
    let claims = listed.as_object_mut().unwrap();
    claims.remove("scope");
    claims.insert("scp".into(), json!(["book", "read"]));
    let (status, sent) = send_with(&server, &signed(KEY_A, &listed)).await;
    assert_eq!(status, 200, "{sent}");
    assert!(
        sent.to_string().contains("as erin with [book read]"),
        "{sent}"
    );
    let card = server.card().await;
    let scheme = card["securitySchemes"]["jwt"].to_string();
    assert!(
        scheme.contains("`sub`") && scheme.contains("`scp`"),
        "{scheme}"
    );
    // The card names no host of the deployment's (the issuer may be internal).
    assert!(!card.to_string().contains("issuer.test"), "{card}");
}

#[tokio::test]
async fn a_token_expired_within_the_leeway_passes_and_one_beyond_it_is_refused() {
    let server = server().await;
    let skewed = signed(KEY_A, &claims("carol", -30, AUDIENCE));
    assert_eq!(send_with(&server, &skewed).await.0, 200);
    let expired = signed(KEY_A, &claims("carol", -3600, AUDIENCE));
    assert_eq!(send_with(&server, &expired).await.0, 401);
    let mut no_expiry = claims("carol", 0, AUDIENCE);
    no_expiry.as_object_mut().unwrap().remove("exp");
    assert_eq!(send_with(&server, &signed(KEY_A, &no_expiry)).await.0, 401);
}

#[tokio::test]
async fn a_token_for_another_audience_or_issuer_is_refused() {
    let server = server().await;
    let elsewhere = signed(KEY_A, &claims("carol", 600, "another-service"));
    assert_eq!(send_with(&server, &elsewhere).await.0, 401);
    let mut other_issuer = claims("carol", 600, AUDIENCE);
    other_issuer["iss"] = json!("https://evil.test");
    assert_eq!(
        send_with(&server, &signed(KEY_A, &other_issuer)).await.0,
        401
    );
}

#[tokio::test]
async fn a_token_signed_by_another_key_is_refused() {
    let server = server().await;
    let forged = signed(KEY_B, &claims("carol", 600, AUDIENCE));
    let (status, _) = send_with(&server, &forged).await;
    assert_eq!(status, 401);
}

#[tokio::test]
async fn alg_none_and_hmac_keyed_with_the_public_key_are_refused() {
    let server = server().await;
    let payload = base64url(claims("carol", 600, AUDIENCE).to_string().as_bytes());
    for alg in ["none", "None", "NONE"] {
        let header = base64url(
            json!({"alg": alg, "typ": "JWT", "kid": "a"})
                .to_string()
                .as_bytes(),
        );
        let unsigned = format!("{header}.{payload}.");
        assert_eq!(send_with(&server, &unsigned).await.0, 401, "{alg}");
    }
    for secret in [unbase64url(PUBLIC_A), PUBLIC_A.as_bytes().to_vec()] {
        for alg in [Algorithm::HS256, Algorithm::HS384, Algorithm::HS512] {
            let mut header = Header::new(alg);
            header.kid = Some("a".into());
            let confused = jsonwebtoken::encode(
                &header,
                &claims("carol", 600, AUDIENCE),
                &EncodingKey::from_secret(&secret),
            )
            .unwrap();
            assert_eq!(send_with(&server, &confused).await.0, 401, "{alg:?}");
        }
    }
    assert_eq!(send_with(&server, "not.a.jwt").await.0, 401);
}

#[tokio::test]
async fn the_card_declares_a_jwt_bearer_scheme() {
    let server = server().await;
    let card: Value = server
        .client
        .get(format!("{}.well-known/agent-card.json", server.url))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let scheme = &card["securitySchemes"]["jwt"]["httpAuthSecurityScheme"];
    assert_eq!(scheme["scheme"], "bearer", "{card}");
    assert_eq!(scheme["bearerFormat"], "JWT", "{card}");
    assert_eq!(
        card["securityRequirements"],
        json!([{"schemes": {"jwt": {"list": []}}}]),
        "{card}"
    );
}

#[test]
fn a_jwks_with_a_symmetric_key_is_refused() {
    let jwks = json!({"keys": [{"kty": "oct", "k": "c2VjcmV0", "kid": "s"}]});
    let error = JwtAuth::from_jwks(&jwks.to_string()).unwrap_err();
    assert!(error.to_string().contains("symmetric"), "{error}");
}

/// `serve --jwt-jwks-url`: the key set fetched from a (loopback) URL at start; a token
/// signed by its key passes, one by another key does not, and a plain-http URL elsewhere is
/// refused before anything is fetched.
#[tokio::test]
async fn serve_fetches_the_jwks_from_a_url() {
    let jwks = json!({"keys": [{"kty": "OKP", "crv": "Ed25519", "kid": "a", "x": PUBLIC_A}]});
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let app = axum::Router::new().route(
        "/jwks.json",
        axum::routing::get(move || async move { jwks.to_string() }),
    );
    let keys = tokio::spawn(async move { axum::serve(listener, app).await });
    let command = support::serve_command(&[
        "--jwt-jwks-url",
        &format!("http://{address}/jwks.json"),
        "--jwt-issuer",
        ISSUER,
        "--jwt-audience",
        AUDIENCE,
    ]);
    let (_child, url) = support::spawn_binary(command, Duration::from_secs(60)).await;
    let server = TestServer::external(url);
    // The binary runs on the real clock: tokens valid from now.
    let now = std::time::SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let claims = json!({"sub": "erin", "iss": ISSUER, "aud": AUDIENCE, "exp": now + 600});
    assert_eq!(send_with(&server, &signed(KEY_A, &claims)).await.0, 200);
    assert_eq!(send_with(&server, &signed(KEY_B, &claims)).await.0, 401);
    keys.abort();

    let refused = support::serve_command(&["--jwt-jwks-url", "http://keys.example/jwks.json"])
        .output()
        .await
        .unwrap();
    assert!(!refused.status.success());
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("https"),
        "{}",
        String::from_utf8_lossy(&refused.stderr)
    );
}
