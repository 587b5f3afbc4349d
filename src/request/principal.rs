//! Who is calling: the [`Principal`] a request acts for, which the agent reads on its
//! [`Request`](super::Request).
//!
//! The server's authentication (or your own middleware, see [`crate::server`]) decides the
//! principal; the task layer scopes every task to its [`Owner`], and the agent gets it to
//! authorize its own actions by the principal's scopes. The server itself enforces no scope:
//! A2A defines none, so what a scope allows is the agent's to say.

use crate::store::Owner;

/// The authenticated caller of a request: an opaque id, the tenant it acts in (if any),
/// and the scopes it was granted.
///
/// Tasks belong to the principal's [`Owner`] (its id and tenant): a caller finds, lists,
/// cancels, continues and subscribes to its own tasks only, and another caller's task reads
/// as one that does not exist.
///
/// # Example
///
/// Mount the agent behind your own authentication: a middleware that turns the request's
/// credentials into a `Principal` extension.
///
/// ```
/// use axum::extract::Request;
/// use axum::http::StatusCode;
/// use axum::middleware::{self, Next};
/// use axum::response::Response;
/// use a2ui_agent::a2a::card::AgentCard;
/// use a2ui_agent::agent::{AgentError, Reply};
/// use a2ui_agent::request::Request as AgentRequest;
/// use a2ui_agent::server::{A2uiServer, Principal};
///
/// async fn authenticate(mut request: Request, next: Next) -> Result<Response, StatusCode> {
///     // Your own check: a session cookie, mTLS, a gateway's header you trust...
///     let user = request
///         .headers()
///         .get("x-verified-user")
///         .and_then(|value| value.to_str().ok())
///         .ok_or(StatusCode::UNAUTHORIZED)?
///         .to_owned();
///     request
///         .extensions_mut()
///         .insert(Principal::new(user).with_tenant("acme"));
///     Ok(next.run(request).await)
/// }
///
/// async fn agent(request: AgentRequest) -> Result<Reply, AgentError> {
///     Ok(Reply::text(format!("Hello, {}", request.text())))
/// }
///
/// let card = AgentCard::builder("Mine").url("https://example.com/agent").build();
/// let server = A2uiServer::builder(card, agent).build().unwrap();
/// let app = axum::Router::new()
///     .nest("/agent", server.router())
///     .layer(middleware::from_fn(authenticate));
/// # let _ = app;
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Principal {
    id: String,
    tenant: Option<String>,
    scopes: Vec<String>,
}

impl Principal {
    /// The caller `id`, in no tenant, with no scopes.
    pub fn new(id: impl Into<String>) -> Self {
        Self {
            id: id.into(),
            tenant: None,
            scopes: Vec::new(),
        }
    }

    /// The caller of every request when no authentication is configured.
    pub fn anonymous() -> Self {
        Self::default()
    }

    /// This caller acting in `tenant`.
    #[must_use]
    pub fn with_tenant(mut self, tenant: impl Into<String>) -> Self {
        self.tenant = Some(tenant.into());
        self
    }

    /// This caller with `scopes` granted.
    #[must_use]
    pub fn with_scopes(mut self, scopes: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// The caller's id (empty for the anonymous principal).
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The tenant the caller acts in.
    pub fn tenant(&self) -> Option<&str> {
        self.tenant.as_deref()
    }

    /// The scopes granted to the caller.
    pub fn scopes(&self) -> &[String] {
        &self.scopes
    }

    /// The owner of the tasks this caller creates, and the only one whose tasks it finds.
    pub fn owner(&self) -> Owner {
        let owner = Owner::new(self.id.clone());
        match &self.tenant {
            Some(tenant) => owner.with_tenant(tenant.clone()),
            None => owner,
        }
    }
}
