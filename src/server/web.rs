//! `GET /`: a chat page that talks to the agent and draws its A2UI surfaces with the official
//! renderer, so a person can see the agent work with nothing but a browser.
//!
//! The page is built from `web/` (`@a2a-js/sdk` and `@a2ui/lit`, bundled with esbuild) into
//! `web/dist/`, which is committed and embedded here: serving it needs no npm and no files
//! next to the binary. Turn it on with [`ServerBuilder::web_page`](super::ServerBuilder::web_page).
//!
//! - `GET /` — the page (`?a2ui=v0.8` picks the v0.8 renderer, v0.9 otherwise);
//! - `GET /web/a2ui-v0_9.js`, `GET /web/a2ui-v0_8.js` — the two bundles; the official renderer
//!   defines the same element names for both versions, so a page loads exactly one.

use axum::extract::Path;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

/// The page.
const INDEX: &[u8] = include_bytes!("../../web/dist/index.html");

/// The bundles, by the file name the page asks for.
const ASSETS: [(&str, &[u8]); 2] = [
    (
        "a2ui-v0_9.js",
        include_bytes!("../../web/dist/a2ui-v0_9.js"),
    ),
    (
        "a2ui-v0_8.js",
        include_bytes!("../../web/dist/a2ui-v0_8.js"),
    ),
];

/// `GET /`.
pub(crate) async fn index() -> Response {
    asset_response(INDEX, "text/html; charset=utf-8")
}

/// `GET /web/{file}`: a bundle, or 404 for any other name.
pub(crate) async fn asset(Path(file): Path<String>) -> Response {
    match ASSETS.iter().find(|(name, _)| *name == file) {
        Some((_, bytes)) => asset_response(bytes, "text/javascript; charset=utf-8"),
        None => StatusCode::NOT_FOUND.into_response(),
    }
}

fn asset_response(bytes: &'static [u8], content_type: &'static str) -> Response {
    (
        [
            (header::CONTENT_TYPE, HeaderValue::from_static(content_type)),
            // The bytes change with the binary, not with time: let the browser revalidate.
            (header::CACHE_CONTROL, HeaderValue::from_static("no-cache")),
            (
                header::X_CONTENT_TYPE_OPTIONS,
                HeaderValue::from_static("nosniff"),
            ),
        ],
        bytes,
    )
        .into_response()
}
