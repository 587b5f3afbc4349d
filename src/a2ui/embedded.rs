//! The schema files this crate ships (`catalogs/`), compiled into the binary.
//!
//! They are this project's own files: the same names, properties, types, enums and required
//! sets as the official A2UI schemas (those are interoperability facts), with the official
//! `$id`s and `$ref` targets so they register in a JSON Schema registry under the URIs the
//! message schemas refer to, and descriptions written for the model's prompt.

use super::ProtocolVersion;

/// The schema documents of one schema family (v0.9.1 uses v0.9's).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Documents {
    /// Agent-to-renderer message schema.
    pub(crate) message: &'static str,
    /// Shared definitions the catalogs refer to (none in v0.8).
    pub(crate) common_types: Option<&'static str>,
    /// The basic (v0.8: standard) catalog.
    pub(crate) basic_catalog: &'static str,
    /// Renderer-to-agent message schema (not shipped for v0.8).
    pub(crate) client_message: Option<&'static str>,
}

/// The documents for `version`'s schema family.
pub(crate) fn documents(version: ProtocolVersion) -> Documents {
    match version.schema_family() {
        ProtocolVersion::V0_8 => Documents {
            message: include_str!("../../catalogs/v0_8/server_to_client.json"),
            common_types: None,
            basic_catalog: include_str!("../../catalogs/v0_8/standard_catalog.json"),
            client_message: None,
        },
        ProtocolVersion::V0_9 | ProtocolVersion::V0_9_1 => Documents {
            message: include_str!("../../catalogs/v0_9/server_to_client.json"),
            common_types: Some(include_str!("../../catalogs/v0_9/common_types.json")),
            basic_catalog: include_str!("../../catalogs/v0_9/basic_catalog.json"),
            client_message: Some(include_str!("../../catalogs/v0_9/client_to_server.json")),
        },
        ProtocolVersion::V1_0 => Documents {
            message: include_str!("../../catalogs/v1_0/agent_to_renderer.json"),
            common_types: Some(include_str!("../../catalogs/v1_0/common_types.json")),
            basic_catalog: include_str!("../../catalogs/v1_0/basic_catalog.json"),
            client_message: Some(include_str!("../../catalogs/v1_0/renderer_to_agent.json")),
        },
    }
}
