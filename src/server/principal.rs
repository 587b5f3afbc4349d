//! Who is calling: the [`Principal`] a request acts for, read from the request's extensions.
//!
//! This is the one seam between authentication and the task layer. The server's own
//! authentication (a token file, JWT bearer tokens) puts a [`Principal`] in each request it
//! lets through; an application that mounts the router behind its own middleware does the
//! same with [`axum::Extension`] or `request.extensions_mut().insert(..)`. The handlers read
//! it and scope every task operation to it. A request without one is the anonymous
//! principal's: with no authentication at all, every caller shares one set of tasks.

use std::convert::Infallible;

use axum::extract::FromRequestParts;
use axum::http::request::Parts;

use crate::request::Principal;

/// The request's principal: the extension authentication put there, else the anonymous one.
impl<S: Send + Sync> FromRequestParts<S> for Principal {
    type Rejection = Infallible;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Infallible> {
        Ok(parts
            .extensions
            .get::<Principal>()
            .cloned()
            .unwrap_or_default())
    }
}
