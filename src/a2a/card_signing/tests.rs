//! Signing and verifying with real keys of each algorithm, and what a verifier refuses.

use serde_json::{Value, json};

use super::*;

const ED: &str = include_str!("../../../tests/card_signing_keys/ed.pem");
const EC: &str = include_str!("../../../tests/card_signing_keys/ec.pem");
const RSA: &str = include_str!("../../../tests/card_signing_keys/rsa.pem");
const ED_PUB: &str = include_str!("../../../tests/card_signing_keys/ed.pub.pem");
const EC_PUB: &str = include_str!("../../../tests/card_signing_keys/ec.pub.pem");
const RSA_PUB: &str = include_str!("../../../tests/card_signing_keys/rsa.pub.pem");

fn card() -> Value {
    json!({
        "name": "Weather", "description": "Forecasts", "version": "1.0.0",
        "supportedInterfaces": [{"url": "https://w.example/", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
        "capabilities": {"streaming": true, "pushNotifications": false,
            "extensions": [{"uri": "https://a2ui.org/a2a-extension/a2ui/v0.9", "required": false,
                "params": {"supportedCatalogIds": ["c"], "acceptsInlineCatalogs": false}}]},
        "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
        "skills": [{"id": "f", "name": "Forecast", "description": "d", "tags": ["weather"]}]
    })
}

fn keys() -> Vec<(CardSigningKey, &'static str, &'static str)> {
    vec![
        (CardSigningKey::from_pem(ED).unwrap(), "EdDSA", ED_PUB),
        (CardSigningKey::from_pem(EC).unwrap(), "ES256", EC_PUB),
        (CardSigningKey::from_pem(RSA).unwrap(), "RS256", RSA_PUB),
    ]
}

fn header(signed: &Value, i: usize) -> Value {
    let protected = signed["signatures"][i]["protected"].as_str().unwrap();
    serde_json::from_slice(&decode_url(protected).unwrap()).unwrap()
}

#[test]
fn each_algorithm_signs_a_card_its_public_key_verifies() {
    for (key, algorithm, public_pem) in keys() {
        assert_eq!(key.algorithm(), algorithm);
        let signed = sign_card(&card(), &key).unwrap();
        assert_eq!(
            header(&signed, 0),
            json!({"alg": algorithm, "typ": "JOSE", "kid": key.kid()})
        );
        // The public half from the private key, from its PEM, and from its JWK all verify.
        let from_pem = TrustedKey::from_pem(public_pem).unwrap();
        let from_jwk = TrustedKey::from_jwk(&key.public_key().to_jwk()).unwrap();
        assert_eq!(from_pem.thumbprint(), key.kid(), "{algorithm}");
        for trusted in [key.public_key(), from_pem, from_jwk] {
            verify_card(&signed, &[trusted]).unwrap();
        }
    }
}

#[test]
fn a_card_changed_after_signing_is_refused() {
    let changes: [fn(&mut Value); 6] = [
        |card| card["name"] = "Evil".into(),
        |card| card["supportedInterfaces"][0]["url"] = "https://evil.example/".into(),
        |card| card["capabilities"]["pushNotifications"] = true.into(),
        |card| card["capabilities"]["extensions"][0]["required"] = true.into(),
        |card| card["skills"][0]["tags"] = json!(["weather", "payments"]),
        |card| card["x-added"] = "anything".into(),
    ];
    for (key, algorithm, _) in keys() {
        let signed = sign_card(&card(), &key).unwrap();
        for (i, change) in changes.iter().enumerate() {
            let mut tampered = signed.clone();
            change(&mut tampered);
            let error = verify_card(&tampered, &[key.public_key()]).unwrap_err();
            assert!(
                matches!(error, CardSignatureError::Untrusted(_)),
                "{algorithm} change {i}: {error}"
            );
        }
    }
}

#[test]
fn what_the_canonical_form_leaves_out_may_change_without_breaking_the_signature() {
    let key = CardSigningKey::from_pem(ED).unwrap();
    let signed = sign_card(&card(), &key).unwrap();
    let mut reshaped = signed.clone();
    reshaped["iconUrl"] = Value::Null;
    reshaped["capabilities"]["extensions"][0]
        .as_object_mut()
        .unwrap()
        .remove("required");
    reshaped["documentationUrl"] = "".into();
    verify_card(&reshaped, &[key.public_key()]).unwrap();
}

#[test]
fn a_key_not_trusted_or_bound_to_another_kid_does_not_verify() {
    let [(ed, ..), (ec, ..), (rsa, ..)] = <[_; 3]>::try_from(keys()).ok().unwrap();
    let signed = sign_card(&card(), &ed).unwrap();
    let error = verify_card(&signed, &[ec.public_key(), rsa.public_key()]).unwrap_err();
    assert!(
        error.to_string().contains("no trusted EdDSA key"),
        "{error}"
    );
    let other_kid = ed.public_key().with_kid("another");
    assert!(verify_card(&signed, &[other_kid]).is_err());
    // Two signatures: one by a key not trusted, one by a trusted key.
    let both = sign_card(&signed, &ec).unwrap();
    verify_card(&both, &[ec.public_key()]).unwrap();
    assert_eq!(
        verify_card(&card(), &[ec.public_key()]),
        Err(CardSignatureError::Unsigned)
    );
}

#[test]
fn kid_and_jku_go_in_the_protected_header() {
    let key = CardSigningKey::from_pem(EC)
        .unwrap()
        .with_kid("2026-05")
        .with_jku("https://w.example/jwks.json");
    let signed = sign_card(&card(), &key).unwrap();
    assert_eq!(
        header(&signed, 0),
        json!({"alg": "ES256", "typ": "JOSE", "kid": "2026-05", "jku": "https://w.example/jwks.json"})
    );
    let trusted = TrustedKey::from_pem(EC_PUB).unwrap().with_kid("2026-05");
    verify_card(&signed, &[trusted]).unwrap();
}

#[test]
fn forged_headers_never_pass() {
    let key = CardSigningKey::from_pem(EC).unwrap();
    let signed = sign_card(&card(), &key).unwrap();
    let entry = &signed["signatures"][0];
    let forge = |header: Value, signature: &str| {
        let mut forged = signed.clone();
        forged["signatures"] = json!([{
            "protected": encode_url(header.to_string().as_bytes()),
            "signature": signature,
        }]);
        verify_card(&forged, &[key.public_key()])
    };
    let signature = entry["signature"].as_str().unwrap();
    for header in [
        json!({"alg": "none", "kid": key.kid()}),
        json!({"alg": "HS256", "kid": key.kid()}),
        json!({"alg": "RS256", "kid": key.kid()}),
        json!({"alg": "ES256", "kid": key.kid(), "crit": ["exp"]}),
        json!(["not", "an", "object"]),
    ] {
        assert!(forge(header.clone(), signature).is_err(), "{header}");
    }
    for entry in [
        json!({}),
        json!({"protected": "!!", "signature": "x"}),
        json!("x"),
    ] {
        let mut forged = signed.clone();
        forged["signatures"] = json!([entry]);
        assert!(verify_card(&forged, &[key.public_key()]).is_err());
    }
}

#[test]
fn keys_the_signer_cannot_use_are_refused_saying_why() {
    for (pem, why) in [
        (
            include_str!("../../../tests/card_signing_keys/p384.pem"),
            "P-256",
        ),
        (
            include_str!("../../../tests/card_signing_keys/rsa1024.pem"),
            "rejected",
        ),
        (
            include_str!("../../../tests/card_signing_keys/rsa-pkcs1.pem"),
            "PKCS#8",
        ),
        (ED_PUB, "PRIVATE KEY"),
        ("not a key", "PEM"),
    ] {
        let error = CardSigningKey::from_pem(pem).unwrap_err();
        assert!(error.to_string().contains(why), "{why}: {error}");
    }
    assert!(TrustedKey::from_pem(ED).is_err());
    assert!(TrustedKey::from_jwk(&json!({"kty": "oct", "k": "c2VjcmV0"})).is_err());
}

#[test]
fn the_debug_output_never_shows_the_private_key() {
    let key = CardSigningKey::from_pem(ED).unwrap();
    let shown = format!("{key:?}");
    assert!(
        shown.contains("EdDSA") && shown.contains(key.kid()),
        "{shown}"
    );
    assert!(!shown.contains("MC4CAQ"), "{shown}");
}

#[test]
fn the_thumbprint_is_rfc_7638s() {
    // RFC 7638 §3.1: the example RSA key and its thumbprint.
    let jwk = json!({
        "kty": "RSA",
        "n": "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw",
        "e": "AQAB", "alg": "RS256", "kid": "2011-04-29"
    });
    let key = TrustedKey::from_jwk(&jwk).unwrap();
    assert_eq!(
        key.thumbprint(),
        "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs"
    );
}
