//! Signed agent cards (A2A 1.0 §8.4): a JWS over the card's canonical form, so a client that
//! trusts the agent's key can tell the card is the agent's and unchanged.
//!
//! A signature is an entry of the card's `signatures`: `protected` (the base64url JWS
//! protected header: `alg`, `typ: "JOSE"`, `kid`, and `jku` when set) and `signature` (the
//! base64url signature of `protected.base64url(payload)`), with the payload detached: it
//! is the card itself, without `signatures` and without members at their default value,
//! canonicalized by RFC 8785 (see [`canonical_payload`]). The official Python and
//! JavaScript SDKs verify these signatures, and theirs verify here.
//!
//! [`sign_card`] adds a signature with a [`CardSigningKey`] (ES256, RS256 or EdDSA, read
//! from a PKCS#8 PEM file); [`verify_card`] accepts a card when one of its signatures is
//! valid by one of the [`TrustedKey`]s. The server signs its cards once, when it is built
//! (`ServerBuilder::card_signing_key`); the client checks them when it fetches them
//! (`ClientBuilder::trust_key`).
//!
//! # Example
//!
//! ```
//! use a2ui_agent::a2a::card_signing::{CardSigningKey, sign_card, verify_card};
//!
//! # let pem = "-----BEGIN PRIVATE KEY-----\n\
//! #   MC4CAQAwBQYDK2VwBCIEIK3WSCIX1PxcQbSY+qjoE5IyFJYhszcJfBFLBt0x0vqX\n\
//! #   -----END PRIVATE KEY-----\n";
//! let key = CardSigningKey::from_pem(pem)?;
//! let card = serde_json::json!({"name": "Weather", "version": "1.0.0"});
//! let signed = sign_card(&card, &key)?;
//! verify_card(&signed, &[key.public_key()])?;
//!
//! let mut tampered = signed.clone();
//! tampered["name"] = "Not weather".into();
//! assert!(verify_card(&tampered, &[key.public_key()]).is_err());
//! # Ok::<(), a2ui_agent::a2a::card_signing::CardSignatureError>(())
//! ```

mod der;
mod error;
mod jcs;
mod keys;
mod payload;

pub use error::CardSignatureError;
pub use keys::{CardSigningKey, TrustedKey};

use serde_json::{Map, Value, json};

use super::base64::{decode_url, encode_url};

/// The longest `protected` header read (a real one is under 300 bytes).
const MAX_PROTECTED: usize = 4096;
/// The most signatures of one card tried.
const MAX_SIGNATURES: usize = 16;

/// The text a signature of `card` covers: the card without `signatures`, without empty
/// members (`""`, `[]`, `{}`, `null`) and without the non-`optional` booleans of the 1.0
/// card at `false` (an extension's `required`, an OAuth flow's `pkceRequired`),
/// canonicalized per RFC 8785. Members the 1.0 card does not define are covered as they are.
///
/// # Errors
///
/// [`CardSignatureError::Card`] when `card` is not an object, or nests deeper than 128.
///
/// # Example
///
/// ```
/// use a2ui_agent::a2a::card_signing::canonical_payload;
///
/// let card = serde_json::json!({"version": "1", "name": "A", "skills": [], "signatures": []});
/// assert_eq!(canonical_payload(&card)?, r#"{"name":"A","version":"1"}"#);
/// # Ok::<(), a2ui_agent::a2a::card_signing::CardSignatureError>(())
/// ```
pub fn canonical_payload(card: &Value) -> Result<String, CardSignatureError> {
    let card = card
        .as_object()
        .ok_or_else(|| CardSignatureError::Card("not a JSON object".into()))?;
    payload::signed_payload(card).map_err(|error| CardSignatureError::Card(error.to_string()))
}

/// `card` with a signature by `key` added to its `signatures` (any it had are kept).
///
/// # Errors
///
/// [`CardSignatureError::Card`] as [`canonical_payload`]; [`CardSignatureError::Key`] if
/// the key fails to sign.
pub fn sign_card(card: &Value, key: &CardSigningKey) -> Result<Value, CardSignatureError> {
    let payload = canonical_payload(card)?;
    let mut header = Map::new();
    header.insert("alg".into(), key.algorithm().into());
    header.insert("typ".into(), "JOSE".into());
    header.insert("kid".into(), key.kid().into());
    if let Some(jku) = key.jku() {
        header.insert("jku".into(), jku.into());
    }
    let protected = encode_url(Value::Object(header).to_string().as_bytes());
    let input = format!("{protected}.{}", encode_url(payload.as_bytes()));
    let signature = encode_url(&key.sign(input.as_bytes())?);
    let mut signed = card.clone();
    let entry = json!({"protected": protected, "signature": signature});
    match signed.get_mut("signatures") {
        Some(Value::Array(signatures)) => signatures.push(entry),
        _ => signed["signatures"] = json!([entry]),
    }
    Ok(signed)
}

/// Accepts `card` when one of its signatures (the first 16 are tried) is valid by one of
/// `trusted`: a key bound to a key id checks the signatures that name it, a key bound to
/// none checks every signature of its algorithm. The signature's `alg` must be the key's
/// (`ES256`, `RS256` or `EdDSA`; `none` and HMAC never pass).
///
/// # Errors
///
/// [`CardSignatureError::Unsigned`] for a card with no signature;
/// [`CardSignatureError::Untrusted`] when none is valid by a trusted key (a card changed
/// after signing, a key not trusted, a malformed signature), saying why for each;
/// [`CardSignatureError::Card`] as [`canonical_payload`].
pub fn verify_card(card: &Value, trusted: &[TrustedKey]) -> Result<(), CardSignatureError> {
    let signatures = match card.get("signatures") {
        Some(Value::Array(signatures)) if !signatures.is_empty() => signatures,
        _ => return Err(CardSignatureError::Unsigned),
    };
    let payload = encode_url(canonical_payload(card)?.as_bytes());
    let mut reasons = Vec::new();
    for (i, entry) in signatures.iter().take(MAX_SIGNATURES).enumerate() {
        match verify_one(entry, &payload, trusted) {
            Ok(()) => return Ok(()),
            Err(why) => reasons.push(format!("signature {}: {why}", i + 1)),
        }
    }
    Err(CardSignatureError::Untrusted(reasons.join("; ")))
}

/// Whether one `signatures` entry is valid over `payload` (base64url) by a trusted key.
fn verify_one(entry: &Value, payload: &str, trusted: &[TrustedKey]) -> Result<(), String> {
    let text = |name: &str| entry.get(name).and_then(Value::as_str);
    let protected = text("protected").ok_or("no protected header")?;
    let signature = text("signature").ok_or("no signature")?;
    if protected.len() > MAX_PROTECTED {
        return Err("a protected header too large".into());
    }
    let header: Value = decode_url(protected)
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
        .ok_or("a protected header that is not base64url JSON")?;
    let algorithm = header.get("alg").and_then(Value::as_str).ok_or("no alg")?;
    // RFC 7515 §4.1.11: a critical extension we do not know makes the signature invalid.
    if header.get("crit").is_some() {
        return Err("a crit header parameter".into());
    }
    let kid = header.get("kid").and_then(Value::as_str);
    let signature = decode_url(signature).ok_or("a signature that is not base64url")?;
    let input = format!("{protected}.{payload}");
    let mut candidates = trusted
        .iter()
        .filter(|key| key.kid().is_none() || key.kid() == kid)
        .filter(|key| key.algorithm() == algorithm)
        .peekable();
    if candidates.peek().is_none() {
        return Err(format!("no trusted {algorithm} key for kid {kid:?}"));
    }
    if candidates.any(|key| key.verifies(algorithm, input.as_bytes(), &signature)) {
        Ok(())
    } else {
        Err(format!(
            "invalid by the trusted {algorithm} keys for kid {kid:?}"
        ))
    }
}

#[cfg(test)]
mod tests;
