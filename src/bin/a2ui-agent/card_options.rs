//! The `serve` options of the agent card: the fixed URL it names, and the keys that sign it
//! (A2A 1.0 §8.4).

use std::path::PathBuf;

use a2ui_agent::a2a::card_signing::CardSigningKey;
use a2ui_agent::server::ServerBuilder;

/// The agent card of `a2ui-agent serve`.
#[derive(Debug, clap::Args)]
pub struct CardArgs {
    /// The base URL clients reach the agent at (`https://agent.example.com/`), named by the
    /// card whatever Host a client used. Default: `http://<Host>/` of each request. A
    /// signed card needs it.
    #[arg(long, value_name = "URL")]
    card_url: Option<String>,
    /// Sign the card (and the extended card) with the private key in FILE: a PKCS#8 PEM
    /// EC P-256 (ES256), RSA 2048+ (RS256) or Ed25519 (EdDSA) key, as `openssl genpkey`
    /// writes. Repeatable: every key adds a signature (key rotation). The public keys are
    /// served at /.well-known/jwks.json. Needs --card-url.
    #[arg(long, value_name = "FILE", requires = "card_url")]
    card_signing_key: Vec<PathBuf>,
    /// The key id (`kid`) of the --card-signing-key of the same position (default: the
    /// key's JWK thumbprint).
    #[arg(long, value_name = "ID", requires = "card_signing_key")]
    card_signing_kid: Vec<String>,
}

impl CardArgs {
    /// `builder` with the card's URL and signing keys as the options say.
    pub fn apply(self, builder: ServerBuilder) -> Result<ServerBuilder, String> {
        if self.card_signing_kid.len() > self.card_signing_key.len() {
            return Err("--card-signing-kid: more key ids than --card-signing-key files".into());
        }
        let mut builder = match self.card_url {
            Some(url) => builder.card_url(url),
            None => builder,
        };
        let mut kids = self.card_signing_kid.into_iter();
        for path in &self.card_signing_key {
            let failed = |error: &dyn std::fmt::Display| {
                format!("--card-signing-key {}: {error}", path.display())
            };
            let text = std::fs::read_to_string(path).map_err(|error| failed(&error))?;
            let key = CardSigningKey::from_pem(&text).map_err(|error| failed(&error))?;
            builder = builder.card_signing_key(match kids.next() {
                Some(kid) => key.with_kid(kid),
                None => key,
            });
        }
        Ok(builder)
    }
}
