//! `GET /.well-known/agent-card.json` (and the older `/.well-known/agent.json`).

use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::http::header::HOST;

use super::ServerState;
use crate::a2a::card::AgentCard;

/// Serves the card; an empty `url` becomes the URL the client used (`http://<Host>/`).
pub(crate) async fn agent_card(
    State(state): State<Arc<ServerState>>,
    headers: HeaderMap,
) -> Json<AgentCard> {
    let mut card = state.card.clone();
    if card.url.is_empty() {
        let host = headers
            .get(HOST)
            .and_then(|host| host.to_str().ok())
            .filter(|host| is_plausible_host(host))
            .unwrap_or("localhost");
        card.url = format!("http://{host}/");
    }
    Json(card)
}

/// A `Host` header we are willing to echo into a URL: `name[:port]` or `[v6][:port]`.
fn is_plausible_host(host: &str) -> bool {
    !host.is_empty()
        && host.len() <= 255
        && host
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-.:[]_".contains(&b))
}
