//! The parts [`ServerBuilder::build`](super::ServerBuilder::build) assembles a server from:
//! the cards as served (and signed), the store and its pusher, the checked endpoint paths.
//!
//! They live apart from the builder so that the builder's file stays what a newcomer reads to
//! learn what can be set, and each step of the assembly can be read on its own.

use std::sync::Arc;

use super::signed_cards::{CardKeys, SignedCards};
use super::{BuildError, auth, card};
use crate::a2a::card::AgentCard;
use crate::a2ui::ClientCapabilities;
use crate::clock::Clock;
use crate::generator::Generator;
use crate::observe::{Meter, TimedStore};
use crate::store::{InMemoryStore, TaskStore};

/// The URIs of the extensions the card declares itself, beside A2UI's.
pub(super) fn extension_uris(card: &AgentCard) -> Vec<String> {
    card.capabilities
        .extensions
        .iter()
        .map(|e| e.uri.clone())
        .collect()
}

/// The MCP endpoint's path, checked, and never the AG-UI endpoint's.
#[cfg(feature = "mcp")]
pub(super) fn mcp_path(
    mcp: Option<String>,
    ag_ui: Option<&String>,
) -> Result<Option<String>, BuildError> {
    match mcp.map(super::mcp::checked_path).transpose()? {
        Some(path) if ag_ui == Some(&path) => Err(BuildError::InvalidMcpPath(format!(
            "{path:?} is taken by AG-UI"
        ))),
        path => Ok(path),
    }
}

/// The card and the extended card as served: the A2UI extensions of `generators` advertised,
/// the `auth` methods declared, an interface listed per tenant.
pub(super) fn published_cards(
    mut card: AgentCard,
    mut extended_card: Option<AgentCard>,
    generators: &[Generator],
    auth: &[auth::AuthMethod],
    tenants: &[String],
) -> Result<(AgentCard, Option<AgentCard>), BuildError> {
    card::advertise_a2ui(&mut card, generators);
    if let Some(extended) = &mut extended_card {
        if auth.is_empty() {
            return Err(BuildError::ExtendedCardWithoutAuth);
        }
        card.supports_authenticated_extended_card = true;
        extended.supports_authenticated_extended_card = true;
        auth::declare(extended, auth);
    }
    auth::declare(&mut card, auth);
    if !card.url.is_empty() {
        card::list_grpc(&mut card);
        card::list_tenants(&mut card, tenants);
    }
    Ok((card, extended_card))
}

/// The store the tasks are kept in (in memory unless one was given) and, with push on, the
/// sender of its tasks' push notifications.
///
/// With metrics on (`meter`), every store operation is timed and the pusher's counters are
/// read at every scrape.
pub(super) fn store_and_pusher(
    store: Option<Arc<dyn TaskStore>>,
    push: Option<crate::push::PushSettings>,
    clock: &Arc<dyn Clock>,
    meter: &Meter,
) -> Result<(Arc<dyn TaskStore>, Option<crate::push::Pusher>), BuildError> {
    let store = store.unwrap_or_else(|| {
        Arc::new(InMemoryStore::new().clock_arc(clock.clone())) as Arc<dyn TaskStore>
    });
    let store = if meter.is_on() || crate::observe::trace::wanted() {
        TimedStore::wrap(store, meter.clone())
    } else {
        store
    };
    let push = push
        .map(|settings| crate::push::Pusher::new(store.clone(), settings))
        .transpose()
        .map_err(|error| BuildError::Push(error.to_string()))?;
    if let Some(pusher) = &push {
        let pusher = pusher.clone();
        meter.watch_push(move || pusher.stats());
    }
    Ok((store, push))
}

/// The capabilities a request that declares none is read with, if given.
pub(super) fn parsed_capabilities(
    default: Option<&serde_json::Value>,
) -> Result<Option<ClientCapabilities>, BuildError> {
    default
        .map(ClientCapabilities::parse)
        .transpose()
        .map_err(|e| BuildError::InvalidDefaultCapabilities(e.to_string()))
}

/// The cards signed with `keys`; `None` when there are none. An extended card without a URL
/// of its own takes `card`'s, with the interfaces of `tenants`.
///
/// # Errors
///
/// [`BuildError::CardSigning`] when `card` has no fixed URL or a key fails to sign.
#[cfg(feature = "card-signing")]
pub(super) fn signed_cards(
    keys: CardKeys,
    card: &AgentCard,
    extended: Option<&AgentCard>,
    tenants: &[String],
) -> Result<Option<Arc<SignedCards>>, BuildError> {
    use super::version::Version;
    use crate::a2a::card_signing::sign_card;
    use serde_json::Value;
    if keys.keys.is_empty() {
        return Ok(None);
    }
    if card.url.is_empty() {
        return Err(BuildError::CardSigning(
            "a signed card needs a fixed URL: set the card's url \
             (ServerBuilder::card_url, serve --card-url)"
                .into(),
        ));
    }
    let jku = format!("{}/.well-known/jwks.json", card.url.trim_end_matches('/'));
    let keys: Vec<_> = keys
        .keys
        .into_iter()
        .map(|key| match key.jku() {
            Some(_) => key,
            None => key.with_jku(jku.clone()),
        })
        .collect();
    let both = |card: &AgentCard| -> Result<[Value; 2], BuildError> {
        let signed = |shape| {
            keys.iter()
                .try_fold(card::shaped(card, shape), |card, key| {
                    sign_card(&card, key)
                        .map_err(|error| BuildError::CardSigning(error.to_string()))
                })
        };
        Ok([signed(Version::V1_0)?, signed(Version::V0_3)?])
    };
    let [v1_0, v0_3] = both(card)?;
    let extended = extended
        .map(|extended| both(&with_url_of(extended, card, tenants)))
        .transpose()?;
    let jwks: Vec<Value> = keys.iter().map(|key| key.public_key().to_jwk()).collect();
    Ok(Some(Arc::new(SignedCards {
        card: [v1_0.to_string(), v0_3.to_string()],
        extended,
        jwks: serde_json::json!({ "keys": jwks }).to_string(),
    })))
}

/// Without the `card-signing` feature there are no keys: nothing is signed.
#[cfg(not(feature = "card-signing"))]
pub(super) fn signed_cards(
    _keys: CardKeys,
    _card: &AgentCard,
    _extended: Option<&AgentCard>,
    _tenants: &[String],
) -> Result<Option<Arc<SignedCards>>, BuildError> {
    Ok(None)
}

/// `extended` with `card`'s URL (and the interfaces that go with it) when it has none.
#[cfg(feature = "card-signing")]
fn with_url_of(extended: &AgentCard, card: &AgentCard, tenants: &[String]) -> AgentCard {
    let mut extended = extended.clone();
    if extended.url.is_empty() {
        extended.set_url(card.url.clone());
        card::list_grpc(&mut extended);
        card::list_tenants(&mut extended, tenants);
    }
    extended
}
