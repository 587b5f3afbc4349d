//! Signed agent cards (A2A 1.0 §8.4) across the three implementations: the card the real
//! `a2ui-agent serve` signs (ES256, RS256, EdDSA) passes the verifiers of the Python
//! `a2a-sdk` 1.3.0 and of `@a2a-js/sdk` 1.3.0, fetched over a socket by their own card
//! resolvers, and our client's; a card either SDK signs passes our client; a card changed
//! after signing is refused by all three; a card signed with two keys (a rotation) passes
//! with either key trusted alone.
//!
//! The SDK scripts are `tests/interop/python/card_signing.py` and
//! `tests/interop/js/card_signing.mjs`. Skipped (with a message) when `.venv` or the Node
//! packages are absent, unless `A2UI_REQUIRE_INTEROP=1`.
#![cfg(feature = "cli")]

#[allow(dead_code)]
#[path = "interop/support.rs"]
mod interop;
mod support;

use std::path::PathBuf;
use std::time::Duration;

use a2ui_agent::a2a::card_signing::TrustedKey;
use a2ui_agent::client::{Client, ClientError};
use axum::http::header::{CONTENT_TYPE, ETAG, IF_NONE_MATCH};
use axum::routing::get;
use serde_json::{Value, json};
use tokio::net::TcpListener;

/// The fixed URL the signed cards name (a signature cannot depend on the `Host` a client used).
const CARD_URL: &str = "https://agent.example/";

/// The key files under `tests/card_signing_keys`, by algorithm.
const KEYS: [(&str, &str); 3] = [("ES256", "ec"), ("RS256", "rsa"), ("EdDSA", "ed")];

fn key_file(name: &str) -> PathBuf {
    interop::crate_root().join(format!("tests/card_signing_keys/{name}.pem"))
}

fn public_key(name: &str) -> TrustedKey {
    let pem = std::fs::read_to_string(key_file(&format!("{name}.pub"))).unwrap();
    TrustedKey::from_pem(&pem).unwrap()
}

/// `a2ui-agent serve` signing its card with each `(file, kid)`; the child and its base URL.
async fn signing_server(keys: &[(&str, &str)]) -> (tokio::process::Child, String) {
    let mut args = vec!["--card-url".to_owned(), CARD_URL.to_owned()];
    for (name, kid) in keys {
        let path = key_file(name).display().to_string();
        args.extend(["--card-signing-key".into(), path]);
        args.extend(["--card-signing-kid".into(), (*kid).to_owned()]);
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let command = support::serve_command(&args);
    support::spawn_binary(command, Duration::from_secs(60)).await
}

/// Serves `card` and `jwks` at their well-known paths on a fresh port; the base URL.
async fn serve_card(card: Value, jwks: Value) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/", listener.local_addr().unwrap());
    let json = |value: Value| {
        move || async move { ([(CONTENT_TYPE, "application/json")], value.to_string()) }
    };
    let app = axum::Router::new()
        .route("/.well-known/agent-card.json", get(json(card)))
        .route("/.well-known/jwks.json", get(json(jwks)));
    tokio::spawn(async move { axum::serve(listener, app).await });
    url
}

async fn get_json(url: &str) -> Value {
    reqwest::get(url).await.unwrap().json().await.unwrap()
}

/// The card at `base`, and the same card with its description changed after signing,
/// served with the same keys: the base URL of the changed one.
async fn tampered_copy(base: &str) -> String {
    let mut card = get_json(&format!("{base}.well-known/agent-card.json")).await;
    card["description"] = "Sends your card number to the attacker".into();
    let jwks = get_json(&format!("{base}.well-known/jwks.json")).await;
    serve_card(card, jwks).await
}

/// What an SDK's `verify` said of the card at `base` with the keys of `jwks_base` (only
/// `kids`, when given); `None` when that SDK is not installed.
async fn sdk_verifies(sdk: Sdk, base: &str, jwks_base: &str, kids: &[&str]) -> Option<Value> {
    let jwks = format!("{jwks_base}.well-known/jwks.json");
    let mut args = vec!["verify", base, &jwks];
    args.extend(kids);
    Some(sdk.run(&args).await?.passed("verify"))
}

#[derive(Clone, Copy, Debug)]
enum Sdk {
    Python,
    Js,
}

impl Sdk {
    async fn run(self, args: &[&str]) -> Option<interop::ScriptRun> {
        let root = interop::crate_root();
        let (program, script, dir) = match self {
            Sdk::Python => {
                let python = interop::installed(
                    root.join(".venv/bin/python"),
                    "the Python a2a-sdk (with PyJWT)",
                )?;
                (python, "card_signing.py", root.join("tests/interop/python"))
            }
            Sdk::Js => {
                interop::installed(
                    root.join("tests/interop/js/node_modules/@a2a-js/sdk"),
                    "the @a2a-js/sdk package",
                )?;
                (
                    interop::node_on_path(),
                    "card_signing.mjs",
                    root.join("tests/interop/js"),
                )
            }
        };
        let mut all = vec![script];
        all.extend(args);
        Some(interop::run_script(&program, &all, &dir).await)
    }
}

/// Our client's verdict on the card at `base` when it trusts `keys`.
async fn our_client(base: &str, keys: Vec<TrustedKey>) -> Result<Client, ClientError> {
    keys.into_iter()
        .fold(
            Client::builder(base).retries(0, Duration::ZERO),
            |builder, key| builder.trust_key(key),
        )
        .connect()
        .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_card_serve_signs_passes_both_sdks_and_ours_and_a_changed_copy_passes_none() {
    for (alg, name) in KEYS {
        let kid = format!("{name}-2026");
        let (_child, base) = signing_server(&[(name, &kid)]).await;
        let tampered = tampered_copy(&base).await;
        for sdk in [Sdk::Python, Sdk::Js] {
            let Some(seen) = sdk_verifies(sdk, &base, &base, &[]).await else {
                continue;
            };
            assert_eq!(
                seen["verified"], true,
                "{sdk:?} refused our {alg} card: {seen}"
            );
            let seen = sdk_verifies(sdk, &tampered, &base, &[]).await.unwrap();
            assert_eq!(
                seen["verified"], false,
                "{sdk:?} took a changed {alg} card: {seen}"
            );
        }
        let client = our_client(&base, vec![public_key(name)]).await;
        let card = client.unwrap().card().await.unwrap();
        assert_eq!(card.url, CARD_URL);
        let refused = our_client(&tampered, vec![public_key(name)]).await;
        let Err(ClientError::BadCard(why)) = refused else {
            panic!("our client took a changed {alg} card: {refused:?}");
        };
        assert!(why.contains("refused"), "{why}");
    }
}

/// A 1.0 card as an SDK signs it, with text and a number JSON canonicalization must agree on.
fn their_card() -> Value {
    json!({
        "name": "Their agent",
        "description": "Signed by an official SDK — café, 日本",
        "version": "1.0.0",
        "supportedInterfaces": [
            {"url": "http://127.0.0.1:9/", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}
        ],
        "capabilities": {
            "streaming": true,
            "extensions": [{
                "uri": "https://a2ui.org/a2a-extension/a2ui/v0.9",
                "required": false,
                // 1424953923781206.25, exactly between two shortest forms: JavaScript writes
                // 1424953923781206.2.
                "params": {"ratio": f64::from_bits(0x4314_3ff3_c1cb_0959), "catalogs": ["a", "b"], "empty": ""}
            }]
        },
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain", "application/json+a2ui"],
        "skills": [{"id": "s", "name": "S", "description": "Does s", "tags": ["t"]}]
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_card_either_sdk_signs_passes_our_client_and_a_changed_copy_does_not() {
    for (alg, name) in KEYS {
        for sdk in [Sdk::Python, Sdk::Js] {
            let key = key_file(name).display().to_string();
            let card = their_card().to_string();
            let Some(run) = sdk.run(&["sign", alg, &key, "their-key", &card]).await else {
                continue;
            };
            let signed = run.passed("sign");
            let trusted = || vec![public_key(name).with_kid("their-key")];
            let base = serve_card(signed.clone(), json!({"keys": []})).await;
            let client = our_client(&base, trusted()).await;
            assert!(
                client.is_ok(),
                "our client refused {sdk:?}'s {alg} card: {client:?}"
            );
            let mut changed = signed;
            changed["skills"][0]["description"] = "Does something else".into();
            let base = serve_card(changed, json!({"keys": []})).await;
            let refused = our_client(&base, trusted()).await;
            assert!(
                matches!(refused, Err(ClientError::BadCard(_))),
                "our client took a changed {sdk:?} {alg} card: {refused:?}"
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_card_signed_with_an_old_and_a_new_key_passes_with_either_trusted_alone() {
    let (_child, base) = signing_server(&[("ec", "old"), ("ed", "new")]).await;
    let card = get_json(&format!("{base}.well-known/agent-card.json")).await;
    assert_eq!(
        card["signatures"].as_array().map(Vec::len),
        Some(2),
        "{card}"
    );
    for kid in ["old", "new"] {
        for sdk in [Sdk::Python, Sdk::Js] {
            let Some(seen) = sdk_verifies(sdk, &base, &base, &[kid]).await else {
                continue;
            };
            assert_eq!(
                seen["verified"], true,
                "{sdk:?} trusting only {kid}: {seen}"
            );
        }
    }
    for (name, kid) in [("ec", "old"), ("ed", "new")] {
        let client = our_client(&base, vec![public_key(name).with_kid(kid)]).await;
        assert!(client.is_ok(), "our client trusting only {kid}: {client:?}");
    }
    // A key the agent never signed with: refused, saying so.
    let refused = our_client(&base, vec![public_key("rsa")]).await;
    let Err(ClientError::BadCard(why)) = refused else {
        panic!("a card no trusted key signed was taken: {refused:?}");
    };
    assert!(
        why.contains("no trusted ES256 key") && why.contains("no trusted EdDSA key"),
        "{why}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_signed_card_is_the_same_bytes_for_every_host_and_revalidates_with_its_etag() {
    let (_child, base) = signing_server(&[("ed", "k")]).await;
    let url = format!("{base}.well-known/agent-card.json");
    let http = reqwest::Client::new();
    let first = http.get(&url).send().await.unwrap();
    let etag = first.headers()[ETAG].clone();
    let body = first.text().await.unwrap();
    let other_host = http
        .get(&url)
        .header("host", "localhost:1")
        .send()
        .await
        .unwrap();
    assert_eq!(other_host.headers()[ETAG], etag);
    assert_eq!(other_host.text().await.unwrap(), body);
    let again = http
        .get(&url)
        .header(IF_NONE_MATCH, etag)
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), 304);
    let jwks = get_json(&format!("{base}.well-known/jwks.json")).await;
    assert_eq!(jwks["keys"][0]["kid"], "k", "{jwks}");
    assert!(
        jwks["keys"][0].get("d").is_none(),
        "the JWK Set holds a private key: {jwks}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unsigned_card_is_refused_by_a_client_that_trusts_a_key() {
    let (_child, base) = support::spawn_binary(
        support::serve_command(&["--card-url", CARD_URL]),
        Duration::from_secs(60),
    )
    .await;
    let refused = our_client(&base, vec![public_key("ed")]).await;
    let Err(ClientError::BadCard(why)) = refused else {
        panic!("an unsigned card was taken: {refused:?}");
    };
    assert!(why.contains("not signed"), "{why}");
    // Without trusted keys the same card is taken as it comes.
    assert!(our_client(&base, Vec::new()).await.is_ok());
}

#[tokio::test]
async fn serve_refuses_a_signing_key_without_a_fixed_card_url_or_a_key_it_cannot_use() {
    let binary = env!("CARGO_BIN_EXE_a2ui-agent");
    let run = |args: &[&str]| {
        std::process::Command::new(binary)
            .args(["serve", "--port", "0"])
            .args(args)
            .output()
            .unwrap()
    };
    let key = key_file("ed").display().to_string();
    let no_url = run(&["--card-signing-key", &key]);
    assert!(!no_url.status.success());
    assert!(String::from_utf8_lossy(&no_url.stderr).contains("--card-url"));
    let short = key_file("rsa1024").display().to_string();
    let weak = run(&["--card-url", CARD_URL, "--card-signing-key", &short]);
    assert!(!weak.status.success());
    let said = String::from_utf8_lossy(&weak.stderr);
    assert!(
        said.contains("--card-signing-key") && said.contains("rsa1024"),
        "{said}"
    );
}
