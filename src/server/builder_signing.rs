//! The [`ServerBuilder`] options of the card's identity: its fixed URL, and the keys that
//! sign it (the `card-signing` feature). Apart from the builder's file only for its size.

use super::ServerBuilder;

impl ServerBuilder {
    /// Serves the card at `url` whatever `Host` a client used (default: the card's own
    /// `url`; empty, `http://<Host>/`): the base URL clients reach the agent at, say
    /// `https://agent.example.com/`. A [signed card](Self::card_signing_key) needs one.
    pub fn card_url(mut self, url: impl Into<String>) -> Self {
        self.card.set_url(url.into());
        self
    }

    /// Signs the public card and the extended card with `key` (A2A 1.0 §8.4; repeatable:
    /// each key adds a signature, which is how a new key is rolled in before the old one
    /// goes), and serves the public keys as a JWK Set at `/.well-known/jwks.json`, named by
    /// each signature's `jku` unless the key has its own. The card needs a fixed URL
    /// ([`card_url`](Self::card_url)), or [`build`](Self::build) fails.
    #[cfg(feature = "card-signing")]
    pub fn card_signing_key(mut self, key: crate::a2a::card_signing::CardSigningKey) -> Self {
        self.card_keys.keys.push(key);
        self
    }
}
