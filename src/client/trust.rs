//! Which agent cards the client accepts: with trusted keys configured
//! ([`ClientBuilder::trust_key`](super::ClientBuilder::trust_key)), only a card one of them
//! signed (A2A 1.0 §8.4), checked on the card as the agent sent it, before it is decoded.
//! Without trusted keys every card is taken as it comes, signed or not.

use serde_json::Value;

use super::error::ClientError;
use crate::a2a::card_signing::{CardSignatureError, TrustedKey, verify_card};

/// `card` (`which` names it in the error: "the card", "the extended card") when no keys are
/// trusted or one of `trusted` signed it.
///
/// # Errors
///
/// [`ClientError::BadCard`] for an unsigned card, one no trusted key signed, or one
/// changed after it was signed, saying which.
pub(super) fn check(trusted: &[TrustedKey], card: &Value, which: &str) -> Result<(), ClientError> {
    if trusted.is_empty() {
        return Ok(());
    }
    verify_card(card, trusted).map_err(|error| {
        ClientError::BadCard(match error {
            CardSignatureError::Unsigned => {
                format!("{which} is not signed, and the client trusts only signed cards")
            }
            other => format!("{which} is refused: {other}"),
        })
    })
}
