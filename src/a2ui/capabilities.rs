//! What the renderer says it can draw: the capabilities object, read and bounded. Which
//! catalogs that leaves active is the generator's negotiation
//! ([`resolve_catalogs`](crate::generator::resolve_catalogs)).
//!
//! Renderers send `a2uiClientCapabilities` (v1.0 drafts: `a2uiRendererCapabilities`) in the
//! metadata of every message: flat in v0.8 (`{supportedCatalogIds, inlineCatalogs}`), keyed
//! by version from v0.9 on (`{"v0.9": {...}}`, with `"v0.9"` and `"v0.9.1"` naming the same
//! schema). Inline catalogs come from the client, so their number and size are capped.

use serde_json::{Map, Value};

use super::ProtocolVersion;
use super::catalog::Catalog;
use super::error::CatalogError;
use super::tree::escape;

/// Metadata keys that carry renderer capabilities, in order of preference.
pub const CAPABILITIES_KEYS: [&str; 2] = ["a2uiClientCapabilities", "a2uiRendererCapabilities"];

/// Caps on the inline catalogs a renderer may send.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InlineLimits {
    /// Most inline catalogs per version entry (default 8).
    pub max_catalogs: usize,
    /// Largest inline catalog, in bytes of compact JSON (default 256 KiB).
    pub max_bytes: usize,
}

impl Default for InlineLimits {
    fn default() -> Self {
        Self {
            max_catalogs: 8,
            max_bytes: 256 * 1024,
        }
    }
}

/// A capabilities object that does not have the documented shape.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid A2UI capabilities at {}: {message}", if pointer.is_empty() { "/" } else { pointer })]
pub struct CapabilitiesError {
    /// JSON pointer into the capabilities object.
    pub pointer: String,
    /// What is wrong.
    pub message: String,
}

impl CapabilitiesError {
    pub(crate) fn new(pointer: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            pointer: pointer.into(),
            message: message.into(),
        }
    }
}

/// What a renderer supports under one protocol version.
#[derive(Debug, Clone, PartialEq)]
pub struct RendererCatalogs {
    version: ProtocolVersion,
    key: String,
    supported_catalog_ids: Vec<String>,
    inline_catalogs: Vec<Value>,
}

impl RendererCatalogs {
    /// The version this entry is for.
    pub fn version(&self) -> ProtocolVersion {
        self.version
    }

    /// The catalog ids the renderer supports, in its order of preference.
    pub fn supported_catalog_ids(&self) -> &[String] {
        &self.supported_catalog_ids
    }

    /// The inline catalog documents, as sent (count and size already within limits).
    pub fn inline_catalogs(&self) -> &[Value] {
        &self.inline_catalogs
    }

    /// Loads the inline catalogs as catalogs of `version`.
    ///
    /// # Errors
    ///
    /// The first catalog that does not load, with its position in the message.
    pub fn load_inline(&self, version: ProtocolVersion) -> Result<Vec<Catalog>, CatalogError> {
        self.inline_catalogs
            .iter()
            .enumerate()
            .map(|(i, document)| {
                Catalog::from_value(version, document.clone()).map_err(|e| match e {
                    CatalogError::Malformed { pointer, message } => CatalogError::Malformed {
                        pointer: format!("{}/inlineCatalogs/{i}{pointer}", self.pointer_prefix()),
                        message,
                    },
                    other => other,
                })
            })
            .collect()
    }

    fn pointer_prefix(&self) -> String {
        if self.key.is_empty() {
            String::new()
        } else {
            format!("/{}", escape(&self.key))
        }
    }
}

/// A renderer's capabilities, every version it described.
///
/// # Example
///
/// ```
/// use a2ui_agent::a2ui::{ClientCapabilities, ProtocolVersion};
/// use serde_json::json;
///
/// let caps = ClientCapabilities::parse(&json!({
///     "v0.9": {"supportedCatalogIds": ["b", "a"]}
/// })).unwrap();
/// let v0_9_1 = caps.get(ProtocolVersion::V0_9_1).unwrap(); // "v0.9" answers for v0.9.1
/// assert_eq!(v0_9_1.supported_catalog_ids(), ["b", "a"]);
/// ```
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ClientCapabilities {
    entries: Vec<RendererCatalogs>,
}

impl ClientCapabilities {
    /// Parses a capabilities object with the default [`InlineLimits`].
    ///
    /// # Errors
    ///
    /// A [`CapabilitiesError`] pointing at what is malformed.
    pub fn parse(value: &Value) -> Result<Self, CapabilitiesError> {
        Self::parse_with(value, InlineLimits::default())
    }

    /// Parses a capabilities object: flat (v0.8) and/or keyed by version. Keys that name no
    /// known version are ignored, so a newer renderer's extra entries do no harm.
    ///
    /// # Errors
    ///
    /// A [`CapabilitiesError`] pointing at what is malformed or over `limits`.
    pub fn parse_with(value: &Value, limits: InlineLimits) -> Result<Self, CapabilitiesError> {
        let map = value
            .as_object()
            .ok_or_else(|| CapabilitiesError::new("", "must be a JSON object"))?;
        let mut entries = Vec::new();
        if map.contains_key("supportedCatalogIds") || map.contains_key("inlineCatalogs") {
            entries.push(parse_entry(ProtocolVersion::V0_8, "", map, limits)?);
        }
        for (key, entry) in map {
            let Some(version) = ProtocolVersion::from_capabilities_key(key) else {
                continue;
            };
            let pointer = format!("/{}", escape(key));
            let entry = entry
                .as_object()
                .ok_or_else(|| CapabilitiesError::new(&pointer, "must be a JSON object"))?;
            entries.push(parse_entry(version, key, entry, limits)?);
        }
        Ok(Self { entries })
    }

    /// Finds and parses the capabilities in an A2A message's (or a DataPart's) metadata,
    /// under `a2uiClientCapabilities` or `a2uiRendererCapabilities`.
    ///
    /// # Errors
    ///
    /// As [`ClientCapabilities::parse`], with the metadata key in the pointer.
    pub fn from_metadata(metadata: &Map<String, Value>) -> Result<Option<Self>, CapabilitiesError> {
        for key in CAPABILITIES_KEYS {
            if let Some(value) = metadata.get(key) {
                return Self::parse(value).map(Some).map_err(|e| CapabilitiesError {
                    pointer: format!("/{key}{}", e.pointer),
                    message: e.message,
                });
            }
        }
        Ok(None)
    }

    /// The entry for `version`. v0.9 and v0.9.1 answer for each other when the exact key is
    /// absent.
    pub fn get(&self, version: ProtocolVersion) -> Option<&RendererCatalogs> {
        self.entries
            .iter()
            .find(|e| e.version == version)
            .or_else(|| {
                self.entries
                    .iter()
                    .find(|e| e.version.schema_family() == version.schema_family())
            })
    }

    /// The versions described, newest first.
    pub fn versions(&self) -> Vec<ProtocolVersion> {
        let mut versions: Vec<_> = self.entries.iter().map(|e| e.version).collect();
        versions.sort_by(|a, b| b.cmp(a));
        versions.dedup();
        versions
    }

    /// The entry of the newest version described.
    pub fn newest(&self) -> Option<&RendererCatalogs> {
        self.entries.iter().max_by_key(|e| e.version)
    }

    /// The newest entry's catalog ids, in the renderer's order (empty if none).
    pub fn supported_catalog_ids(&self) -> &[String] {
        self.newest().map_or(&[], |e| e.supported_catalog_ids())
    }

    /// The newest entry's inline catalog documents (empty if none).
    pub fn inline_catalogs(&self) -> &[Value] {
        self.newest().map_or(&[], |e| e.inline_catalogs())
    }
}

fn parse_entry(
    version: ProtocolVersion,
    key: &str,
    entry: &Map<String, Value>,
    limits: InlineLimits,
) -> Result<RendererCatalogs, CapabilitiesError> {
    let prefix = if key.is_empty() {
        String::new()
    } else {
        format!("/{}", escape(key))
    };
    let ids = entry.get("supportedCatalogIds").ok_or_else(|| {
        CapabilitiesError::new(
            &prefix,
            "missing 'supportedCatalogIds' (a list of catalog ids)",
        )
    })?;
    let ids = ids.as_array().ok_or_else(|| {
        CapabilitiesError::new(
            format!("{prefix}/supportedCatalogIds"),
            "must be a list of strings",
        )
    })?;
    let mut supported_catalog_ids = Vec::with_capacity(ids.len());
    for (i, id) in ids.iter().enumerate() {
        let id = id.as_str().ok_or_else(|| {
            CapabilitiesError::new(
                format!("{prefix}/supportedCatalogIds/{i}"),
                "must be a string",
            )
        })?;
        supported_catalog_ids.push(id.to_owned());
    }
    let inline_catalogs = match entry.get("inlineCatalogs") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => {
            if items.len() > limits.max_catalogs {
                return Err(CapabilitiesError::new(
                    format!("{prefix}/inlineCatalogs"),
                    format!(
                        "{} inline catalogs, more than the {} allowed",
                        items.len(),
                        limits.max_catalogs
                    ),
                ));
            }
            for (i, item) in items.iter().enumerate() {
                let at = format!("{prefix}/inlineCatalogs/{i}");
                if !item.is_object() {
                    return Err(CapabilitiesError::new(
                        at,
                        "an inline catalog is a JSON object",
                    ));
                }
                if exceeds(item, limits.max_bytes) {
                    return Err(CapabilitiesError::new(
                        at,
                        format!("inline catalog larger than {} bytes", limits.max_bytes),
                    ));
                }
            }
            items.clone()
        }
        Some(_) => {
            return Err(CapabilitiesError::new(
                format!("{prefix}/inlineCatalogs"),
                "must be a list of catalogs",
            ));
        }
    };
    Ok(RendererCatalogs {
        version,
        key: key.to_owned(),
        supported_catalog_ids,
        inline_catalogs,
    })
}

/// Whether `value` serialises to more than `limit` bytes, stopping as soon as it does.
fn exceeds(value: &Value, limit: usize) -> bool {
    struct Counter {
        left: usize,
    }
    impl std::io::Write for Counter {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            if buf.len() > self.left {
                return Err(std::io::Error::other("over the limit"));
            }
            self.left -= buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    serde_json::to_writer(&mut Counter { left: limit }, value).is_err()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn flat_v0_8_capabilities_parse() {
        let caps = ClientCapabilities::parse(&json!({"supportedCatalogIds": ["x"]})).unwrap();
        assert_eq!(
            caps.get(ProtocolVersion::V0_8)
                .unwrap()
                .supported_catalog_ids(),
            ["x"]
        );
    }

    #[test]
    fn a_non_string_catalog_id_is_reported_where_it_is() {
        let err = ClientCapabilities::parse(&json!({"v0.9": {"supportedCatalogIds": ["a", 3]}}))
            .unwrap_err();
        assert_eq!(err.pointer, "/v0.9/supportedCatalogIds/1");
    }

    #[test]
    fn too_many_or_too_large_inline_catalogs_are_refused() {
        let limits = InlineLimits {
            max_catalogs: 1,
            max_bytes: 64,
        };
        let two = json!({"v1.0": {"supportedCatalogIds": [], "inlineCatalogs": [{}, {}]}});
        assert_eq!(
            ClientCapabilities::parse_with(&two, limits)
                .unwrap_err()
                .pointer,
            "/v1.0/inlineCatalogs"
        );
        let big = json!({"v1.0": {"supportedCatalogIds": [], "inlineCatalogs": [{"catalogId": "x".repeat(100)}]}});
        assert_eq!(
            ClientCapabilities::parse_with(&big, limits)
                .unwrap_err()
                .pointer,
            "/v1.0/inlineCatalogs/0"
        );
    }

    #[test]
    fn capabilities_in_metadata_are_found_under_either_key() {
        let mut metadata = Map::new();
        metadata.insert(
            "a2uiRendererCapabilities".into(),
            json!({"v1.0": {"supportedCatalogIds": ["c"]}}),
        );
        let caps = ClientCapabilities::from_metadata(&metadata)
            .unwrap()
            .unwrap();
        assert_eq!(caps.supported_catalog_ids(), ["c"]);
    }
}
