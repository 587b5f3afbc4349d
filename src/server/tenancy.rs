//! Tenants: the A2A 1.0 `tenant` of a request, held against the caller's own.
//!
//! With tenants on ([`ServerBuilder::tenants`](super::ServerBuilder::tenants)) the API is
//! also served under `/{tenant}/` (JSON-RPC at `/{tenant}/`, HTTP+JSON at
//! `/{tenant}/message:send`, ...), and a request may name its tenant in its `tenant` member
//! (JSON-RPC `params.tenant`, an HTTP+JSON body's or query's `tenant`). A request that names
//! a tenant acts in it only if it is the [`Principal`]'s own; any other — one that exists or
//! not — is answered as a task that does not exist (`TaskNotFoundError`, HTTP 404), so a
//! caller learns nothing of other tenants. A request that names none acts in the caller's
//! tenant, as without tenants. Tasks belong to the principal's owner (id and tenant), so a
//! tenant never sees another's tasks either way.

use std::collections::HashMap;

use axum::body::{Body, to_bytes};
use axum::extract::{Path, Request};
use axum::middleware::Next;
use axum::response::Response;
use serde_json::Value;

use crate::a2a::jsonrpc::{ErrorCode, RpcError};
use crate::request::Principal;
use crate::task::TaskError;

/// The tenant a request's path names (`/{tenant}/...`).
#[derive(Debug, Clone)]
pub(crate) struct PathTenant(pub(crate) String);

/// Puts the `/{tenant}` of the path in the request's extensions.
pub(crate) async fn from_path(
    Path(params): Path<HashMap<String, String>>,
    mut request: Request,
    next: Next,
) -> Response {
    if let Some(tenant) = params.get("tenant") {
        request.extensions_mut().insert(PathTenant(tenant.clone()));
    }
    next.run(request).await
}

/// The members of a request body that name its tenant and its task.
#[derive(Debug, Default)]
pub(crate) struct Named {
    tenant: Option<String>,
    id: Option<String>,
    task_id: Option<String>,
}

impl Named {
    /// What `json` (a request's params or body) names; nothing when it is not an object.
    /// A `tenant` that is not a string names the tenant of its JSON text, so it is
    /// refused rather than ignored.
    pub(crate) fn of(json: &[u8]) -> Self {
        let Ok(Value::Object(members)) = serde_json::from_slice::<Value>(json) else {
            return Self::default();
        };
        let text = |value: Option<&Value>| value.and_then(Value::as_str).map(str::to_owned);
        let tenant = match members.get("tenant") {
            None | Some(Value::Null) => None,
            Some(Value::String(tenant)) => Some(tenant.clone()),
            Some(other) => Some(other.to_string()),
        };
        Self {
            tenant,
            id: text(members.get("id")),
            task_id: text(members.get("message").and_then(|m| m.get("taskId"))),
        }
    }

    /// The task the request is about, if it names one.
    fn task(&self) -> Option<&str> {
        self.id.as_deref().or(self.task_id.as_deref())
    }
}

/// Whether `principal` may act in the tenants a request names (`path`, and `named`'s
/// member); the "not found" error if not. An empty name is no name (proto3's default).
pub(crate) fn check(
    principal: &Principal,
    path: Option<&PathTenant>,
    named: &Named,
) -> Result<(), RpcError> {
    let own = principal.tenant();
    let asked = [path.map(|p| p.0.as_str()), named.tenant.as_deref()];
    let refused = asked
        .into_iter()
        .flatten()
        .filter(|tenant| !tenant.is_empty())
        .any(|tenant| Some(tenant) != own);
    if !refused {
        return Ok(());
    }
    tracing::debug!("refused a request for another tenant");
    Err(not_found(named.task()))
}

/// The answer to a request for another tenant: the very one a missing task gets (its
/// message and its `taskId` data), made by the same conversion.
fn not_found(task: Option<&str>) -> RpcError {
    match task {
        Some(id) => RpcError::from(TaskError::NotFound { id: id.to_owned() }),
        None => RpcError::new(ErrorCode::TaskNotFound, "Task not found"),
    }
}

/// For the HTTP+JSON routes: refuses a request whose path, body or query names another
/// tenant than the caller's, with the HTTP+JSON "not found" answer.
pub(crate) async fn check_rest(principal: Principal, request: Request, next: Next) -> Response {
    let (parts, body) = request.into_parts();
    // The gate already read the body within its budget: this only takes the bytes back.
    let Ok(bytes) = to_bytes(body, usize::MAX).await else {
        return super::rest::refusal(RpcError::internal());
    };
    let mut named = if bytes.is_empty() {
        Named::default()
    } else {
        Named::of(&bytes)
    };
    if let Some(query) = parts.uri.query() {
        let from_query = url_tenant(query);
        if from_query.is_some() {
            named.tenant = from_query;
        }
    }
    if named.id.is_none() {
        named.id = task_in_path(parts.uri.path());
    }
    let path = parts.extensions.get::<PathTenant>().cloned();
    if let Err(error) = check(&principal, path.as_ref(), &named) {
        return super::rest::refusal(error);
    }
    next.run(Request::from_parts(parts, Body::from(bytes)))
        .await
}

/// The `tenant` of a query string (the last, if repeated; none if it does not parse).
fn url_tenant(query: &str) -> Option<String> {
    let pairs: Vec<(String, String)> = serde_urlencoded::from_str(query).ok()?;
    pairs
        .into_iter()
        .rev()
        .find(|(name, _)| name == "tenant")
        .map(|(_, value)| value)
}

/// The task id of an HTTP+JSON path (`.../tasks/{id}[:action]`).
fn task_in_path(path: &str) -> Option<String> {
    let (_, rest) = path.split_once("/tasks/")?;
    let target = rest.split('/').next()?;
    let id = target.split_once(':').map_or(target, |(id, _)| id);
    (!id.is_empty()).then(|| id.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn named(json: &str) -> Named {
        Named::of(json.as_bytes())
    }

    #[test]
    fn only_the_callers_own_tenant_passes() {
        let acme = Principal::new("alice").with_tenant("acme");
        let in_path = |t: &str| Some(PathTenant(t.to_owned()));
        assert!(check(&acme, None, &named("{}")).is_ok());
        assert!(
            check(
                &acme,
                in_path("acme").as_ref(),
                &named(r#"{"tenant":"acme"}"#)
            )
            .is_ok()
        );
        assert!(check(&acme, None, &named(r#"{"tenant":""}"#)).is_ok());
        let refused = check(&acme, in_path("globex").as_ref(), &named(r#"{"id":"t1"}"#));
        let refused = refused.unwrap_err();
        assert_eq!(refused.code, ErrorCode::TaskNotFound);
        assert_eq!(refused.message, "Task not found: t1");
        let missing = RpcError::from(TaskError::NotFound { id: "t1".into() });
        assert_eq!(refused, missing, "the answer a missing task gets");
        // A path and a body that disagree are refused whichever is the caller's.
        assert!(check(&acme, in_path("acme").as_ref(), &named(r#"{"tenant":"x"}"#)).is_err());
        // A caller in no tenant acts in none.
        let anonymous = Principal::anonymous();
        assert!(check(&anonymous, in_path("acme").as_ref(), &named("{}")).is_err());
        assert!(check(&anonymous, None, &named("[1]")).is_ok());
        // A tenant that is not a string is not ignored.
        assert!(check(&acme, None, &named(r#"{"tenant":5}"#)).is_err());
        let repeated = named(r#"{"tenant":"acme","tenant":"globex"}"#);
        assert!(check(&acme, None, &repeated).is_err());
    }

    #[test]
    fn the_task_of_a_rest_path_and_the_tenant_of_a_query_are_found() {
        assert_eq!(task_in_path("/acme/tasks/t1:cancel").as_deref(), Some("t1"));
        assert_eq!(task_in_path("/tasks/t2").as_deref(), Some("t2"));
        assert_eq!(task_in_path("/acme/tasks"), None);
        assert_eq!(url_tenant("a=1&tenant=ac%20me").as_deref(), Some("ac me"));
        assert_eq!(url_tenant("a=1"), None);
    }
}
