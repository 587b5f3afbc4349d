//! What the crate knows about A2UI itself: versions, catalogs, capabilities, validation.
//!
//! A2UI messages are JSON objects that build and update UI surfaces from a catalog of
//! components. This module knows nothing of A2A or HTTP; it answers five questions:
//!
//! - which protocol version a name means ([`ProtocolVersion`]),
//! - which components and functions a surface may use ([`Catalog`]; the basic catalog of each
//!   version ships with the crate, custom ones load from files, values or capabilities),
//! - what the renderer said it supports ([`ClientCapabilities`]; which catalogs that leaves
//!   active is the generator's [`resolve_catalogs`](crate::generator::resolve_catalogs)),
//! - whether a message, or a whole response, is something the renderer can draw
//!   ([`Validator`], whose errors convert to the protocol's `VALIDATION_FAILED` feedback),
//! - what a renderer holds once it has applied the messages, and what it sends back when a
//!   button is pressed ([`Surfaces`], drawn as text by [`Surfaces::outline`]).
//!
//! # Example
//!
//! ```
//! use a2ui_agent::a2ui::{ProtocolVersion, Validator};
//! use serde_json::json;
//!
//! let validator = Validator::basic(ProtocolVersion::V0_9);
//! let message = json!({"version": "v0.9", "updateComponents": {"surfaceId": "main",
//!     "components": [{"id": "root", "component": "Text", "text": "Hello", "colour": "red"}]}});
//! let error = validator.check_message(&message).unwrap_err();
//! assert_eq!(error.pointer, "/updateComponents/components/0");
//! assert!(error.message.contains("'colour'"));
//! ```

mod capabilities;
mod catalog;
mod client_message;
mod embedded;
mod error;
mod order;
mod report;
mod schema;
mod schema_bundle;
mod surface;
mod tree;
mod validate;
mod version;
mod watch;

pub use capabilities::{
    CAPABILITIES_KEYS, CapabilitiesError, ClientCapabilities, InlineLimits, RendererCatalogs,
};
pub use catalog::Catalog;
#[cfg(feature = "server")]
pub(crate) use catalog::UrlProperties;
pub use client_message::check_client_message;
pub use error::{CatalogError, ValidationError};
pub use surface::{Button, Outline, Surface, SurfaceError, Surfaces};
pub use validate::{MAX_ERRORS, Validator, message_kinds};
#[cfg(feature = "server")]
pub(crate) use version::is_a2ui_mime;
pub use version::{ProtocolVersion, UnknownVersion};
pub use watch::TreeWatch;

/// The embedded message schema and common types, for the prompt builder.
pub(crate) use schema::parsed as schema_documents;
pub(crate) use schema::{call_key, path_key};
