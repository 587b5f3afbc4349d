//! [`ServerState`]: what every handler of a server reads, built once by the builder.

use std::sync::Arc;
use std::time::Duration;

use super::admission::Admission;
use super::subscribers;
use crate::a2a::budget::DecodeBudget;
use crate::a2a::card::AgentCard;
use crate::request::adapter::A2uiAdapter;
use crate::task::manager::TaskManager;

/// State shared by every handler.
pub(crate) struct ServerState {
    pub(crate) card: AgentCard,
    /// When the card was made: its `Last-Modified`.
    pub(crate) card_modified: std::time::SystemTime,
    /// The card authenticated callers get from `GetExtendedAgentCard`, if configured.
    pub(crate) extended_card: Option<AgentCard>,
    /// The cards as signed when the server was built, served instead of these; `None`:
    /// the cards are not signed.
    pub(crate) signed: Option<Arc<super::signed_cards::SignedCards>>,
    pub(crate) tasks: Arc<TaskManager>,
    pub(crate) a2ui: A2uiAdapter,
    pub(crate) keep_alive: Duration,
    pub(crate) cancel_on_disconnect: bool,
    pub(crate) admission: Arc<Admission>,
    /// How many stream subscriptions each caller holds, against its cap.
    pub(crate) subscribers: Arc<subscribers::CallerSubscribers>,
    /// Whether requests may name a tenant (`/{tenant}/` paths, `tenant` members).
    pub(crate) tenancy: bool,
    /// The tenants the card lists interfaces for.
    pub(crate) tenants: Vec<String>,
    /// What a request body may hold, checked before it is decoded.
    pub(crate) budget: DecodeBudget,
    /// The push notification sender; `None`: push is off.
    pub(crate) push: Option<crate::push::Pusher>,
    /// Where requests, streams and shed requests are counted.
    pub(crate) meter: crate::observe::Meter,
}
