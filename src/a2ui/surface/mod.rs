//! A renderer's model of surfaces, without a UI toolkit: apply an agent's A2UI messages (v0.8
//! and v0.9 on) to surfaces and their data models, draw them as a text [`Outline`], and
//! answer a press of one of their buttons with the message a renderer would send.
//!
//! Anything that shows or follows what an agent drew without a browser needs this: the
//! command line's `call` and `chat` print the outline, and an orchestrator can track the
//! surfaces each agent drew and the data model that goes back to it. It knows A2UI only (no
//! A2A, no HTTP): the caller takes the messages out of whatever carried them.
//!
//! # Example
//!
//! ```
//! use a2ui_agent::a2ui::Surfaces;
//! use serde_json::json;
//!
//! let mut surfaces = Surfaces::new();
//! for message in [
//!     json!({"beginRendering": {"surfaceId": "hi", "root": "top"}}),
//!     json!({"surfaceUpdate": {"surfaceId": "hi", "components": [
//!         {"id": "top", "component": {"Text": {"text": {"path": "/greeting"}}}}]}}),
//!     json!({"dataModelUpdate": {"surfaceId": "hi", "contents": [
//!         {"key": "greeting", "valueString": "Hello from v0.8"}]}}),
//! ] {
//!     surfaces.apply(&message).unwrap();
//! }
//! assert_eq!(surfaces.outline(["hi"]).text(), "surface hi\n  Text: Hello from v0.8\n");
//! ```

mod data;
mod error;
mod outline;
mod press;
mod state;
mod values;

pub use error::SurfaceError;
pub use outline::{Button, Outline};
pub use state::{Surface, Surfaces};
