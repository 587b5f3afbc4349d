//! The keys: [`CardSigningKey`] (a private key that signs cards) and [`TrustedKey`] (a
//! public key a verifier trusts), for ES256 (P-256), RS256 (RSA) and EdDSA (Ed25519).
//!
//! The algorithm is read from the key itself, so one PEM file is all a server needs. A key's
//! id (`kid`) defaults to its RFC 7638 JWK thumbprint: stable for the key, different for
//! every other key, and computable by anyone who holds the public key.

use std::fmt;
use std::path::Path;

use ring::rand::SystemRandom;
use ring::signature::{
    self, EcdsaKeyPair, Ed25519KeyPair, KeyPair, RsaKeyPair, RsaPublicKeyComponents,
    UnparsedPublicKey,
};
use serde_json::{Value, json};

use super::der::{self, KeyKind};
use super::error::CardSignatureError;
use super::jcs;
use crate::a2a::base64::{decode_url, encode_url};

/// The private key that signs agent cards: ES256 (an EC P-256 key), RS256 (an RSA key of
/// 2048 bits or more) or EdDSA (an Ed25519 key), from a PKCS#8 PEM file such as `openssl
/// genpkey` writes.
///
/// Its `Debug` output shows the algorithm and the key id, never the key.
///
/// # Example
///
/// ```no_run
/// use a2ui_agent::a2a::card_signing::CardSigningKey;
///
/// // openssl genpkey -algorithm ed25519 -out card-key.pem
/// let key = CardSigningKey::from_pem_file("card-key.pem")?.with_kid("card-key-2026");
/// assert_eq!(key.algorithm(), "EdDSA");
/// // What clients pin: the public half, as a JWK.
/// println!("{}", key.public_key().to_jwk());
/// # Ok::<(), a2ui_agent::a2a::card_signing::CardSignatureError>(())
/// ```
pub struct CardSigningKey {
    pair: Pair,
    kid: String,
    jku: Option<String>,
}

enum Pair {
    Es256(EcdsaKeyPair),
    Rs256(RsaKeyPair),
    EdDsa(Ed25519KeyPair),
}

impl fmt::Debug for CardSigningKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CardSigningKey")
            .field("algorithm", &self.algorithm())
            .field("kid", &self.kid)
            .field("jku", &self.jku)
            .finish_non_exhaustive()
    }
}

impl CardSigningKey {
    /// The key in PEM `text` (`-----BEGIN PRIVATE KEY-----`, PKCS#8); its algorithm is the
    /// key's: ES256 for EC P-256, RS256 for RSA, EdDSA for Ed25519. Its key id is its JWK
    /// thumbprint until [`with_kid`](Self::with_kid) names another.
    ///
    /// # Errors
    ///
    /// [`CardSignatureError::Key`] when `text` is not a PKCS#8 PEM private key of one of
    /// the three algorithms (an RSA key under 2048 bits, an EC key on another curve, a
    /// PKCS#1 `BEGIN RSA PRIVATE KEY` or an encrypted key are refused, saying so).
    pub fn from_pem(text: &str) -> Result<Self, CardSignatureError> {
        let key = |why: String| CardSignatureError::Key(why);
        let (label, der) = der::pem(text).map_err(key)?;
        if label != "PRIVATE KEY" {
            return Err(key(format!(
                "a {label} PEM block; expected PRIVATE KEY (PKCS#8: \
                 `openssl pkcs8 -topk8 -nocrypt` converts one)"
            )));
        }
        let rejected =
            |error: ring::error::KeyRejected| key(format!("the key is rejected: {error}"));
        let pair = match der::private_key_info(&der).map_err(key)? {
            KeyKind::P256 => Pair::Es256(
                EcdsaKeyPair::from_pkcs8(
                    &signature::ECDSA_P256_SHA256_FIXED_SIGNING,
                    &der,
                    &SystemRandom::new(),
                )
                .map_err(rejected)?,
            ),
            KeyKind::Rsa => Pair::Rs256(RsaKeyPair::from_pkcs8(&der).map_err(rejected)?),
            KeyKind::Ed25519 => {
                Pair::EdDsa(Ed25519KeyPair::from_pkcs8_maybe_unchecked(&der).map_err(rejected)?)
            }
        };
        let mut signing = Self {
            pair,
            kid: String::new(),
            jku: None,
        };
        signing.kid = signing.public_key().thumbprint();
        Ok(signing)
    }

    /// The key in the PEM file at `path`; see [`from_pem`](Self::from_pem).
    ///
    /// # Errors
    ///
    /// [`CardSignatureError::Key`] when the file cannot be read, or as `from_pem`.
    pub fn from_pem_file(path: impl AsRef<Path>) -> Result<Self, CardSignatureError> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path)
            .map_err(|error| CardSignatureError::Key(format!("{}: {error}", path.display())))?;
        Self::from_pem(&text)
    }

    /// Names the key `kid` in the signatures (default: its JWK thumbprint).
    #[must_use]
    pub fn with_kid(mut self, kid: impl Into<String>) -> Self {
        self.kid = kid.into();
        self
    }

    /// Puts `url` in the signatures' protected header as `jku`: where a verifier may fetch
    /// the JWK Set that holds the public key (default: none).
    #[must_use]
    pub fn with_jku(mut self, url: impl Into<String>) -> Self {
        self.jku = Some(url.into());
        self
    }

    /// The JWS algorithm: `"ES256"`, `"RS256"` or `"EdDSA"`.
    pub fn algorithm(&self) -> &'static str {
        match self.pair {
            Pair::Es256(_) => "ES256",
            Pair::Rs256(_) => "RS256",
            Pair::EdDsa(_) => "EdDSA",
        }
    }

    /// The key id the signatures name.
    pub fn kid(&self) -> &str {
        &self.kid
    }

    /// The `jku` the signatures carry, if any.
    pub fn jku(&self) -> Option<&str> {
        self.jku.as_deref()
    }

    /// The public half, with this key's id: what a client trusts.
    pub fn public_key(&self) -> TrustedKey {
        let material = match &self.pair {
            Pair::Es256(pair) => Material::Es256(pair.public_key().as_ref().to_vec()),
            Pair::EdDsa(pair) => Material::EdDsa(pair.public_key().as_ref().to_vec()),
            Pair::Rs256(pair) => {
                let parts = RsaPublicKeyComponents::<Vec<u8>>::from(pair.public());
                Material::Rs256 {
                    n: parts.n,
                    e: parts.e,
                }
            }
        };
        TrustedKey {
            material,
            kid: (!self.kid.is_empty()).then(|| self.kid.clone()),
        }
    }

    /// The signature of `input` (the JWS signing input), as the JWS algorithm defines it.
    pub(super) fn sign(&self, input: &[u8]) -> Result<Vec<u8>, CardSignatureError> {
        let rng = SystemRandom::new();
        let failed = |_| CardSignatureError::Key("the key failed to sign".into());
        match &self.pair {
            Pair::Es256(pair) => Ok(pair.sign(&rng, input).map_err(failed)?.as_ref().to_vec()),
            Pair::EdDsa(pair) => Ok(pair.sign(input).as_ref().to_vec()),
            Pair::Rs256(pair) => {
                let mut out = vec![0; pair.public().modulus_len()];
                pair.sign(&signature::RSA_PKCS1_SHA256, &rng, input, &mut out)
                    .map_err(failed)?;
                Ok(out)
            }
        }
    }
}

/// A public key a verifier trusts to sign agent cards, optionally bound to a key id: with
/// one, it checks only signatures that name it; without, any signature of its algorithm.
///
/// # Example
///
/// ```
/// use a2ui_agent::a2a::card_signing::TrustedKey;
///
/// let jwk = serde_json::json!({
///     "kty": "OKP", "crv": "Ed25519", "kid": "card-key-2026",
///     "x": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"
/// });
/// let key = TrustedKey::from_jwk(&jwk)?;
/// assert_eq!((key.algorithm(), key.kid()), ("EdDSA", Some("card-key-2026")));
/// # Ok::<(), a2ui_agent::a2a::card_signing::CardSignatureError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrustedKey {
    material: Material,
    kid: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Material {
    /// The uncompressed P-256 point.
    Es256(Vec<u8>),
    /// Modulus and exponent, big-endian.
    Rs256 { n: Vec<u8>, e: Vec<u8> },
    /// The 32 bytes of the Ed25519 key.
    EdDsa(Vec<u8>),
}

impl TrustedKey {
    /// The public key in PEM `text` (`-----BEGIN PUBLIC KEY-----`, as `openssl pkey -pubout`
    /// writes it), trusted for any key id until [`with_kid`](Self::with_kid) binds one.
    ///
    /// # Errors
    ///
    /// [`CardSignatureError::Key`] when `text` is not such a key of RSA, EC P-256 or
    /// Ed25519.
    pub fn from_pem(text: &str) -> Result<Self, CardSignatureError> {
        let key = CardSignatureError::Key;
        let (label, der) = der::pem(text).map_err(key)?;
        if label != "PUBLIC KEY" {
            return Err(key(format!("a {label} PEM block; expected PUBLIC KEY")));
        }
        let (kind, bits) = der::public_key_info(&der).map_err(key)?;
        let material = match kind {
            KeyKind::P256 if bits.len() == 65 && bits.first() == Some(&4) => {
                Material::Es256(bits.to_vec())
            }
            KeyKind::Ed25519 if bits.len() == 32 => Material::EdDsa(bits.to_vec()),
            KeyKind::Rsa => {
                let (n, e) = der::rsa_public_key(bits).map_err(key)?;
                Material::Rs256 { n, e }
            }
            _ => return Err(key("a malformed EC or Ed25519 public key".into())),
        };
        Ok(Self {
            material,
            kid: None,
        })
    }

    /// The public key in the JWK `jwk` (`kty` `EC` with `crv` `P-256`, `RSA`, or `OKP` with
    /// `crv` `Ed25519`), bound to its `kid` member if it has one.
    ///
    /// # Errors
    ///
    /// [`CardSignatureError::Key`] for a JWK of another type or curve, or with a member
    /// missing or not base64url.
    pub fn from_jwk(jwk: &Value) -> Result<Self, CardSignatureError> {
        let member = |name: &str| -> Result<Vec<u8>, CardSignatureError> {
            jwk.get(name)
                .and_then(Value::as_str)
                .and_then(decode_url)
                .ok_or_else(|| {
                    CardSignatureError::Key(format!("the JWK has no base64url {name:?}"))
                })
        };
        let text = |name: &str| jwk.get(name).and_then(Value::as_str);
        let material = match (text("kty"), text("crv")) {
            (Some("EC"), Some("P-256")) => {
                let (x, y) = (member("x")?, member("y")?);
                if x.len() != 32 || y.len() != 32 {
                    return Err(CardSignatureError::Key(
                        "a P-256 JWK with short x or y".into(),
                    ));
                }
                Material::Es256([&[4][..], &x, &y].concat())
            }
            (Some("OKP"), Some("Ed25519")) => match member("x")? {
                x if x.len() == 32 => Material::EdDsa(x),
                _ => {
                    return Err(CardSignatureError::Key(
                        "an Ed25519 JWK whose x is not 32 bytes".into(),
                    ));
                }
            },
            (Some("RSA"), _) => Material::Rs256 {
                n: member("n")?,
                e: member("e")?,
            },
            (kty, crv) => {
                return Err(CardSignatureError::Key(format!(
                    "a JWK of kty {kty:?} crv {crv:?}; expected EC P-256, RSA or OKP Ed25519"
                )));
            }
        };
        Ok(Self {
            material,
            kid: text("kid").map(str::to_owned),
        })
    }

    /// Every key of the JWK Set `jwks` (`{"keys": [...]}`, as a server publishes at
    /// `/.well-known/jwks.json`), each bound to its `kid` if it has one.
    ///
    /// # Errors
    ///
    /// [`CardSignatureError::Key`] when `jwks` is not a JWK Set (at most 64 keys), or for
    /// its first key that [`from_jwk`](Self::from_jwk) refuses, saying which.
    ///
    /// # Example
    ///
    /// ```
    /// use a2ui_agent::a2a::card_signing::TrustedKey;
    ///
    /// let jwks = serde_json::json!({"keys": [{
    ///     "kty": "OKP", "crv": "Ed25519", "kid": "card-key-2026",
    ///     "x": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"
    /// }]});
    /// let keys = TrustedKey::from_jwks(&jwks)?;
    /// assert_eq!(keys[0].kid(), Some("card-key-2026"));
    /// # Ok::<(), a2ui_agent::a2a::card_signing::CardSignatureError>(())
    /// ```
    pub fn from_jwks(jwks: &Value) -> Result<Vec<Self>, CardSignatureError> {
        let keys = jwks
            .get("keys")
            .and_then(Value::as_array)
            .filter(|keys| keys.len() <= 64)
            .ok_or_else(|| CardSignatureError::Key("not a JWK Set of at most 64 keys".into()))?;
        keys.iter()
            .enumerate()
            .map(|(i, jwk)| {
                Self::from_jwk(jwk).map_err(|error| {
                    CardSignatureError::Key(format!("JWK Set key {}: {error}", i + 1))
                })
            })
            .collect()
    }

    /// Binds the key to `kid`: it checks only signatures that name that key id.
    #[must_use]
    pub fn with_kid(mut self, kid: impl Into<String>) -> Self {
        self.kid = Some(kid.into());
        self
    }

    /// The key id it is bound to, if any.
    pub fn kid(&self) -> Option<&str> {
        self.kid.as_deref()
    }

    /// The JWS algorithm the key verifies: `"ES256"`, `"RS256"` or `"EdDSA"`.
    pub fn algorithm(&self) -> &'static str {
        match self.material {
            Material::Es256(_) => "ES256",
            Material::Rs256 { .. } => "RS256",
            Material::EdDsa(_) => "EdDSA",
        }
    }

    /// The key as a JWK (with `kid`, `alg` and `use: "sig"`): what to publish in a JWK Set
    /// or hand to a client to pin.
    pub fn to_jwk(&self) -> Value {
        let mut jwk = self.thumbprint_members();
        if let Value::Object(members) = &mut jwk {
            members.insert("alg".into(), self.algorithm().into());
            members.insert("use".into(), "sig".into());
            if let Some(kid) = &self.kid {
                members.insert("kid".into(), kid.clone().into());
            }
        }
        jwk
    }

    /// The RFC 7638 JWK thumbprint (SHA-256, base64url).
    pub fn thumbprint(&self) -> String {
        // The required members only, no nesting or large integer: canonicalizing cannot fail.
        let canonical = jcs::canonicalize(&self.thumbprint_members()).unwrap_or_default();
        encode_url(ring::digest::digest(&ring::digest::SHA256, canonical.as_bytes()).as_ref())
    }

    /// The members RFC 7638 hashes, per key type.
    fn thumbprint_members(&self) -> Value {
        match &self.material {
            Material::Es256(point) => {
                let coordinates = point.get(1..).unwrap_or_default();
                let (x, y) = coordinates.split_at(coordinates.len() / 2);
                json!({"kty": "EC", "crv": "P-256", "x": encode_url(x), "y": encode_url(y)})
            }
            Material::Rs256 { n, e } => {
                json!({"kty": "RSA", "n": encode_url(n), "e": encode_url(e)})
            }
            Material::EdDsa(x) => json!({"kty": "OKP", "crv": "Ed25519", "x": encode_url(x)}),
        }
    }

    /// Whether `signature` over `input` is this key's, by `algorithm` (the signature's own
    /// `alg`, which must be the key's).
    pub(super) fn verifies(&self, algorithm: &str, input: &[u8], signature: &[u8]) -> bool {
        if algorithm != self.algorithm() {
            return false;
        }
        match &self.material {
            Material::Es256(point) => {
                UnparsedPublicKey::new(&signature::ECDSA_P256_SHA256_FIXED, point)
                    .verify(input, signature)
                    .is_ok()
            }
            Material::EdDsa(key) => UnparsedPublicKey::new(&signature::ED25519, key)
                .verify(input, signature)
                .is_ok(),
            Material::Rs256 { n, e } => RsaPublicKeyComponents { n, e }
                .verify(&signature::RSA_PKCS1_2048_8192_SHA256, input, signature)
                .is_ok(),
        }
    }
}
