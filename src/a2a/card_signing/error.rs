//! [`CardSignatureError`]: why a card could not be signed, or a signed card was refused.

/// Why a card could not be signed or was not accepted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CardSignatureError {
    /// The key cannot be used: the reason (not a PEM key, an unsupported algorithm, ...).
    #[error("unusable card signing key: {0}")]
    Key(String),
    /// The card has no canonical form (not a JSON object, or nested too deep): the reason.
    #[error("the card cannot be canonicalized: {0}")]
    Card(String),
    /// The card carries no signature.
    #[error("the card is not signed")]
    Unsigned,
    /// None of the card's signatures is valid by a trusted key: for each, why.
    #[error("no signature of the card is valid by a trusted key ({0})")]
    Untrusted(String),
}
