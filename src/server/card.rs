//! `GET /.well-known/agent-card.json` (and the older `/.well-known/agent.json`), and the A2UI
//! entries the card gets from the server's generators.

use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::http::header::HOST;

use serde_json::json;

use super::ServerState;
use crate::a2a::card::{AgentCard, AgentExtension};
use crate::generator::Generator;

/// Adds one A2UI extension per generator to `card` (the first generator of a version wins;
/// an entry the card already has is kept), the A2UI MIME types to its output modes, and
/// turns streaming on.
pub(crate) fn advertise_a2ui(card: &mut AgentCard, generators: &[Generator]) {
    if generators.is_empty() {
        return;
    }
    card.capabilities.streaming = true;
    for generator in generators {
        let version = generator.version();
        let uri = version.extension_uri();
        if card.capabilities.extensions.iter().any(|e| e.uri == uri) {
            continue;
        }
        let mut extension = AgentExtension::new(uri);
        extension.description = Some(format!(
            "A2UI {}: the agent answers with user interfaces built from the listed catalogs.",
            version.as_str()
        ));
        extension.required = false;
        extension.params = Some(json!({
            "supportedCatalogIds": generator.supported_catalog_ids(),
            "acceptsInlineCatalogs": generator.accepts_inline_catalogs(),
        }));
        card.capabilities.extensions.push(extension);
        let mime = version.mime_type();
        if !card.default_output_modes.iter().any(|m| m == mime) {
            card.default_output_modes.push(mime.to_owned());
        }
    }
}

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
        card.set_url(format!("http://{host}/"));
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
