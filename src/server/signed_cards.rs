//! Signed agent cards on the server (A2A 1.0 §8.4): the keys a server signs its cards with,
//! and the cards as signed once, when the server is built, with the JWK Set that publishes
//! the keys' public halves at `/.well-known/jwks.json`.
//!
//! The cards are signed once and served as the same bytes every time, so a card's `ETag`
//! stays the same and a client that verified it once can keep it. That needs a card whose
//! content does not depend on the request: a signed card has a fixed URL (the card's `url`,
//! `ServerBuilder::card_url`, `serve --card-url`), never the `Host` the client used.
//! `assembly` signs them; without the `card-signing` feature there are no keys and nothing
//! is signed.

use axum::http::header::{CACHE_CONTROL, CONTENT_TYPE};
use axum::response::{IntoResponse, Response};
use serde_json::Value;

use super::version::Version;

/// The keys the cards are signed with, in the order given (none: the cards are unsigned).
#[derive(Default)]
pub(crate) struct CardKeys {
    #[cfg(feature = "card-signing")]
    pub(crate) keys: Vec<crate::a2a::card_signing::CardSigningKey>,
}

/// The signed cards as served, in each shape, and the JWK Set of the keys that signed them.
#[derive(Debug)]
pub(crate) struct SignedCards {
    /// The public card's body: the 1.0 shape, then the 0.3 one.
    pub(crate) card: [String; 2],
    /// The extended card, if one is served: the 1.0 shape, then the 0.3 one.
    pub(crate) extended: Option<[Value; 2]>,
    /// `{"keys": [...]}`: the public keys, with their ids.
    pub(crate) jwks: String,
}

impl SignedCards {
    /// The public card's body in `shape`.
    pub(crate) fn card(&self, shape: Version) -> &str {
        &self.card[index(shape)]
    }

    /// The extended card in `shape`, if the server has one.
    pub(crate) fn extended(&self, shape: Version) -> Option<&Value> {
        self.extended.as_ref().map(|cards| &cards[index(shape)])
    }

    /// The answer to `GET /.well-known/jwks.json`.
    pub(crate) fn jwks_response(&self) -> Response {
        (
            [
                (CONTENT_TYPE, "application/jwk-set+json"),
                (CACHE_CONTROL, "public, max-age=300"),
            ],
            self.jwks.clone(),
        )
            .into_response()
    }
}

/// Where the cards of `shape` are kept.
fn index(shape: Version) -> usize {
    match shape {
        Version::V1_0 => 0,
        Version::V0_3 => 1,
    }
}
