//! Whose an MCP session is: the caller that opened it, and no one else.
//!
//! `rmcp` keeps the sessions (`Mcp-Session-Id`) but knows nothing of callers. In front of
//! it, [`owned_by_caller`] records the owner of each session it sees opened and refuses
//! any request naming a session of another owner — or one it does not know — with the
//! very answer an unknown session gets (HTTP 404), so a caller learns nothing of others'
//! sessions. A tenant in the path must be the caller's own. Each caller holds at most a
//! few sessions: opening one more closes its oldest, so memory stays bounded per caller.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, Method, StatusCode, header::CONTENT_TYPE};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use rmcp::transport::streamable_http_server::session::SessionManager;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;

use super::super::tenancy::{self, Named, PathTenant};
use crate::request::Principal;
use crate::store::Owner;

/// The header naming a request's session.
const SESSION_HEADER: &str = "mcp-session-id";

/// The owners of the sessions the endpoint opened.
pub(super) struct Sessions {
    manager: Arc<LocalSessionManager>,
    /// Session id → its owner and when it was opened (a counter: the oldest is smallest).
    owners: Mutex<HashMap<String, (Owner, u64)>>,
    opened: Mutex<u64>,
    per_caller: usize,
}

impl Sessions {
    /// The owners of `manager`'s sessions, each caller holding at most `per_caller`.
    pub(super) fn new(manager: Arc<LocalSessionManager>, per_caller: usize) -> Self {
        Self {
            manager,
            owners: Mutex::new(HashMap::new()),
            opened: Mutex::new(0),
            per_caller: per_caller.max(1),
        }
    }

    fn owners(&self) -> MutexGuard<'_, HashMap<String, (Owner, u64)>> {
        self.owners
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Whether session `id` is `owner`'s.
    fn is_owned_by(&self, id: &str, owner: &Owner) -> bool {
        self.owners()
            .get(id)
            .is_some_and(|(holder, _)| holder == owner)
    }

    /// Records that `owner` opened session `id`, and closes the owner's oldest sessions
    /// past its allowance (and forgets the sessions `rmcp` has closed).
    async fn opened(&self, id: String, owner: Owner) {
        let order = {
            let mut opened = self
                .opened
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            *opened += 1;
            *opened
        };
        let mine: Vec<(String, u64)> = {
            let mut owners = self.owners();
            owners.insert(id, (owner.clone(), order));
            owners
                .iter()
                .filter(|(_, (holder, _))| *holder == owner)
                .map(|(id, (_, order))| (id.clone(), *order))
                .collect()
        };
        let mut live = Vec::with_capacity(mine.len());
        for (id, order) in mine {
            match self.manager.has_session(&id.as_str().into()).await {
                Ok(true) => live.push((id, order)),
                _ => {
                    self.owners().remove(&id);
                }
            }
        }
        live.sort_by_key(|(_, order)| *order);
        let excess = live.len().saturating_sub(self.per_caller);
        for (id, _) in live.into_iter().take(excess) {
            tracing::debug!("an MCP caller opened more sessions than allowed: closing its oldest");
            self.owners().remove(&id);
            let _ = self.manager.close_session(&id.as_str().into()).await;
        }
    }
}

/// Lets a request through to the MCP service only if the session it names is its caller's
/// (and the tenant its path names, the caller's own); records who opened a new session.
pub(crate) async fn owned_by_caller(
    State(sessions): State<Arc<Sessions>>,
    principal: Principal,
    request: Request,
    next: Next,
) -> Response {
    let path = request.extensions().get::<PathTenant>();
    if tenancy::check(&principal, path, &Named::default()).is_err() {
        return not_found();
    }
    let owner = principal.owner();
    let named = request
        .headers()
        .get(SESSION_HEADER)
        .map(|id| id.to_str().map(str::to_owned));
    let closing = request.method() == Method::DELETE;
    let json = request
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| value.trim_start().starts_with("application/json"));
    match named {
        Some(Ok(id)) if sessions.is_owned_by(&id, &owner) => {
            let mut response = parse_error_for_unreadable(json, next.run(request).await);
            if closing && response.status().is_success() {
                sessions.owners().remove(&id);
                // `rmcp` answers 202; clients (Python's) expect the plain 200 of a done
                // request.
                *response.status_mut() = StatusCode::OK;
            }
            response
        }
        Some(_) => {
            tracing::debug!("refused an MCP request naming a session that is not its caller's");
            not_found()
        }
        None => {
            let response = parse_error_for_unreadable(json, next.run(request).await);
            let opened = response
                .headers()
                .get(SESSION_HEADER)
                .and_then(|id| id.to_str().ok());
            if let Some(id) = opened {
                sessions.opened(id.to_owned(), owner).await;
            }
            response
        }
    }
}

/// `rmcp` answers a JSON body it cannot read as one JSON-RPC message with 415 and the
/// parser's words; for a body that says it is JSON that is JSON-RPC's parse error, a 400
/// with a JSON-RPC error that says no more than that.
fn parse_error_for_unreadable(json: bool, response: Response) -> Response {
    if !json || response.status() != StatusCode::UNSUPPORTED_MEDIA_TYPE {
        return response;
    }
    let body = r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: the body is not one JSON-RPC 2.0 message"}}"#;
    json_response(StatusCode::BAD_REQUEST, body)
}

/// The answer to a request naming a session that is not there (for this caller).
fn not_found() -> Response {
    let body =
        r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32001,"message":"Session not found"}}"#;
    json_response(StatusCode::NOT_FOUND, body)
}

/// A JSON `body` with `status`.
fn json_response(status: StatusCode, body: &'static str) -> Response {
    let mut response = (status, Body::from(body)).into_response();
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}
