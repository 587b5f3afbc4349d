//! Callers with JWT bearer tokens, verified against the public keys of a JWKS.
//!
//! What is checked, in order: the header names an asymmetric algorithm that the key it
//! picks (by `kid`, else every key) is for (`alg: none` does not even decode, and an HMAC
//! token is refused before any key is tried, so a public key can never serve as an HMAC
//! secret); the signature; the issuer and audience when configured; `exp` (required) and
//! `nbf` against the server's clock, with a leeway for clock skew. The principal is the
//! string value of a claim you name (`sub` by default), the tenant optionally another's,
//! the scopes `scope` (space-separated) or `scp` (a list).

use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use jsonwebtoken::jwk::{AlgorithmParameters, EllipticCurve, JwkSet};
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde_json::Value;

use crate::request::Principal;

/// Verifies JWT bearer tokens (`serve --jwt-jwks FILE`).
///
/// # Example
///
/// ```
/// use std::time::Duration;
/// use a2ui_agent::server::JwtAuth;
///
/// let jwks = r#"{"keys": [{"kty": "OKP", "crv": "Ed25519", "kid": "k1",
///                "x": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}]}"#;
/// let auth = JwtAuth::from_jwks(jwks)
///     .unwrap()
///     .issuer("https://issuer.example")
///     .audience("my-agent")
///     .leeway(Duration::from_secs(30))
///     .principal_claim("sub");
/// # let _ = auth;
/// assert!(JwtAuth::from_jwks(r#"{"keys": []}"#).is_err());
/// ```
#[derive(Clone)]
pub struct JwtAuth {
    keys: Vec<Key>,
    issuer: Option<String>,
    audience: Option<String>,
    leeway: Duration,
    principal_claim: String,
    tenant_claim: Option<String>,
}

#[derive(Clone)]
struct Key {
    id: Option<String>,
    key: DecodingKey,
    algorithms: Vec<Algorithm>,
}

/// Why a JWKS was refused.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum JwksError {
    /// The file cannot be read.
    #[error("cannot read the JWKS file {path}: {source}")]
    Io {
        /// The file.
        path: std::path::PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
    /// The text is not a JWKS.
    #[error("not a JWKS: {0}")]
    Malformed(String),
    /// A key is not an RSA, EC (P-256, P-384) or Ed25519 public key.
    #[error("JWKS key {index}: {reason}")]
    UnusableKey {
        /// The key's place in the set, from 0.
        index: usize,
        /// Why.
        reason: String,
    },
    /// The set holds no key.
    #[error("the JWKS holds no key")]
    Empty,
}

/// Why a token was refused (logged at debug level; the client only gets a 401).
#[derive(Debug, thiserror::Error)]
pub(crate) enum JwtRefusal {
    #[error("the token does not decode: {0}")]
    Malformed(jsonwebtoken::errors::Error),
    #[error("the token's algorithm {0:?} is not one of the keys'")]
    Algorithm(Algorithm),
    #[error("no key verifies the token")]
    Signature,
    #[error("the token has expired")]
    Expired,
    #[error("the token is not valid yet")]
    NotYet,
    #[error("the token has no `exp` claim")]
    NoExpiry,
    #[error("the token has no string claim {0:?}")]
    NoPrincipal(String),
}

impl std::fmt::Debug for JwtAuth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JwtAuth")
            .field("keys", &self.keys.len())
            .field("issuer", &self.issuer)
            .field("audience", &self.audience)
            .field("leeway", &self.leeway)
            .field("principal_claim", &self.principal_claim)
            .field("tenant_claim", &self.tenant_claim)
            .finish()
    }
}

impl JwtAuth {
    /// The verifier of tokens signed by a key of the JWKS `json`; principal claim `sub`,
    /// 60 s leeway, issuer and audience not checked until set.
    ///
    /// # Errors
    ///
    /// [`JwksError`] when the text is not a JWKS, a key is not an asymmetric public key
    /// this crate can verify with (symmetric `oct` keys are refused), or there is none.
    pub fn from_jwks(json: &str) -> Result<Self, JwksError> {
        let set: JwkSet =
            serde_json::from_str(json).map_err(|error| JwksError::Malformed(error.to_string()))?;
        let mut keys = Vec::new();
        for (index, jwk) in set.keys.iter().enumerate() {
            let unusable = |reason: &str| JwksError::UnusableKey {
                index,
                reason: reason.to_owned(),
            };
            let algorithms = match &jwk.algorithm {
                AlgorithmParameters::RSA(_) => vec![
                    Algorithm::RS256,
                    Algorithm::RS384,
                    Algorithm::RS512,
                    Algorithm::PS256,
                    Algorithm::PS384,
                    Algorithm::PS512,
                ],
                AlgorithmParameters::EllipticCurve(ec) => match ec.curve {
                    EllipticCurve::P256 => vec![Algorithm::ES256],
                    EllipticCurve::P384 => vec![Algorithm::ES384],
                    _ => return Err(unusable("only the P-256 and P-384 curves are supported")),
                },
                AlgorithmParameters::OctetKeyPair(okp) => match okp.curve {
                    EllipticCurve::Ed25519 => vec![Algorithm::EdDSA],
                    _ => return Err(unusable("only Ed25519 is supported")),
                },
                AlgorithmParameters::OctetKey(_) => {
                    return Err(unusable("a symmetric key has no place in a public JWKS"));
                }
            };
            let key = DecodingKey::from_jwk(jwk).map_err(|error| unusable(&error.to_string()))?;
            keys.push(Key {
                id: jwk.common.key_id.clone(),
                key,
                algorithms,
            });
        }
        if keys.is_empty() {
            return Err(JwksError::Empty);
        }
        Ok(Self {
            keys,
            issuer: None,
            audience: None,
            leeway: Duration::from_secs(60),
            principal_claim: "sub".to_owned(),
            tenant_claim: None,
        })
    }

    /// The verifier of the JWKS in file `path` (see [`from_jwks`](Self::from_jwks)).
    ///
    /// # Errors
    ///
    /// [`JwksError`] when the file cannot be read or is not a usable JWKS.
    pub fn from_jwks_file(path: impl AsRef<Path>) -> Result<Self, JwksError> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|source| JwksError::Io {
            path: path.to_owned(),
            source,
        })?;
        Self::from_jwks(&text)
    }

    /// Accept only tokens whose `iss` is `issuer`.
    #[must_use]
    pub fn issuer(mut self, issuer: impl Into<String>) -> Self {
        self.issuer = Some(issuer.into());
        self
    }

    /// Accept only tokens whose `aud` is or holds `audience`.
    #[must_use]
    pub fn audience(mut self, audience: impl Into<String>) -> Self {
        self.audience = Some(audience.into());
        self
    }

    /// How far `exp` and `nbf` may be off, for clocks that disagree (default 60 s).
    #[must_use]
    pub fn leeway(mut self, leeway: Duration) -> Self {
        self.leeway = leeway;
        self
    }

    /// The claim holding the caller's id (default `sub`).
    #[must_use]
    pub fn principal_claim(mut self, claim: impl Into<String>) -> Self {
        self.principal_claim = claim.into();
        self
    }

    /// The claim holding the caller's tenant (default none: no tenant).
    #[must_use]
    pub fn tenant_claim(mut self, claim: impl Into<String>) -> Self {
        self.tenant_claim = Some(claim.into());
        self
    }

    /// What the card says of this scheme: which claims it reads. Not the issuer or the
    /// audience: the public card names no host of the deployment's (an identity provider's
    /// address may be internal), and a client's token server knows them already.
    pub(crate) fn describe(&self) -> String {
        let mut text = format!(
            "Authorization: Bearer <JWT> signed by a key of the agent's JWKS, with `exp`; the \
             caller is its `{}` claim",
            self.principal_claim
        );
        if let Some(claim) = &self.tenant_claim {
            text.push_str(&format!(", the tenant its `{claim}` claim"));
        }
        text.push_str(", the scopes its `scope` or `scp` claim (the agent reads them)");
        text
    }

    /// The principal `token` proves at time `now`.
    pub(crate) fn verify(&self, token: &str, now: SystemTime) -> Result<Principal, JwtRefusal> {
        let header = jsonwebtoken::decode_header(token).map_err(JwtRefusal::Malformed)?;
        let candidates: Vec<&Key> = self
            .keys
            .iter()
            .filter(|key| header.kid.is_none() || key.id.is_none() || key.id == header.kid)
            .filter(|key| key.algorithms.contains(&header.alg))
            .collect();
        if candidates.is_empty() {
            return Err(JwtRefusal::Algorithm(header.alg));
        }
        let mut validation = Validation::new(header.alg);
        // Times are checked below against the server's clock.
        validation.validate_exp = false;
        validation.validate_nbf = false;
        validation.required_spec_claims.clear();
        match &self.audience {
            Some(audience) => validation.set_audience(&[audience]),
            None => validation.validate_aud = false,
        }
        if let Some(issuer) = &self.issuer {
            validation.set_issuer(&[issuer]);
            validation.required_spec_claims.insert("iss".to_owned());
        }
        let mut last = JwtRefusal::Signature;
        for key in candidates {
            match jsonwebtoken::decode::<Value>(token, &key.key, &validation) {
                Ok(data) => return self.principal(&data.claims, now),
                Err(error) => {
                    last = match error.kind() {
                        jsonwebtoken::errors::ErrorKind::InvalidSignature => JwtRefusal::Signature,
                        _ => JwtRefusal::Malformed(error),
                    }
                }
            }
        }
        Err(last)
    }

    fn principal(&self, claims: &Value, now: SystemTime) -> Result<Principal, JwtRefusal> {
        let now = now
            .duration_since(UNIX_EPOCH)
            .map_or(0, |since| since.as_secs());
        let leeway = self.leeway.as_secs();
        let exp = claims
            .get("exp")
            .and_then(Value::as_u64)
            .ok_or(JwtRefusal::NoExpiry)?;
        if exp.saturating_add(leeway) <= now {
            return Err(JwtRefusal::Expired);
        }
        if let Some(nbf) = claims.get("nbf").and_then(Value::as_u64)
            && nbf > now.saturating_add(leeway)
        {
            return Err(JwtRefusal::NotYet);
        }
        let claim = |name: &str| {
            claims
                .get(name)
                .and_then(Value::as_str)
                .filter(|value| !value.is_empty())
        };
        let id = claim(&self.principal_claim)
            .ok_or_else(|| JwtRefusal::NoPrincipal(self.principal_claim.clone()))?;
        let mut principal = Principal::new(id);
        if let Some(name) = &self.tenant_claim {
            let tenant = claim(name).ok_or_else(|| JwtRefusal::NoPrincipal(name.clone()))?;
            principal = principal.with_tenant(tenant);
        }
        let scopes: Vec<String> = match (claims.get("scope"), claims.get("scp")) {
            (Some(Value::String(scope)), _) => {
                scope.split_whitespace().map(str::to_owned).collect()
            }
            (_, Some(Value::Array(list))) => list
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect(),
            _ => Vec::new(),
        };
        Ok(principal.with_scopes(scopes))
    }
}
