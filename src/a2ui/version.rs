//! The A2UI protocol versions this crate speaks, and the names each one goes by on the wire.
//!
//! A version shows up in four places: the A2A extension URI a client activates, the MIME type
//! of the DataParts that carry messages, the key of the renderer's capabilities object, and the
//! `version` field of each message (absent in v0.8). v0.9 and v0.9.1 share their schemas and
//! their basic catalog, so the v0.9.1 names are aliases of the v0.9 ones.

use std::fmt;

/// One A2UI protocol version.
///
/// Ordered by age: a newer version compares greater, so `max()` over a set of versions picks
/// the one to activate. [`ProtocolVersion::ALL`] lists them newest first.
///
/// # Example
///
/// ```
/// use a2ui_agent::a2ui::ProtocolVersion;
///
/// let v = ProtocolVersion::from_extension_uri("https://a2ui.org/a2a-extension/a2ui/v0.9").unwrap();
/// assert_eq!(v, ProtocolVersion::V0_9);
/// assert!(ProtocolVersion::V1_0 > v);
/// assert_eq!(v.mime_type(), "application/json+a2ui");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ProtocolVersion {
    /// v0.8: nested component shape, no `version` field in messages.
    V0_8,
    /// v0.9: flat component shape, `"version": "v0.9"`.
    V0_9,
    /// v0.9.1: the v0.9 schemas under a new extension URI and MIME type.
    V0_9_1,
    /// v1.0 (a draft still changing upstream).
    V1_0,
}

const V0_9_BASIC: &str = "https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json";
const V0_9_1_BASIC: &str = "https://a2ui.org/specification/v0_9_1/catalogs/basic/catalog.json";
/// The id CopilotKit's A2UI renderer (`@copilotkit/a2ui-renderer`) registers the v0.9 basic
/// catalog under, and so the id AG-UI frontends built on it name.
const V0_9_BASIC_COPILOTKIT: &str = "https://a2ui.org/specification/v0_9/basic_catalog.json";

/// Reads a version name, with or without its `v`: `"v0.9"`, `"0.9"`, `"v0.9.1"`.
///
/// # Example
///
/// ```
/// use a2ui_agent::a2ui::ProtocolVersion;
///
/// assert_eq!("0.8".parse(), Ok(ProtocolVersion::V0_8));
/// assert_eq!("v0.9.1".parse(), Ok(ProtocolVersion::V0_9_1));
/// assert_eq!(
///     "v2".parse::<ProtocolVersion>().unwrap_err().to_string(),
///     "unknown A2UI version 'v2' (expected v0.8, v0.9, v0.9.1 or v1.0)"
/// );
/// ```
impl std::str::FromStr for ProtocolVersion {
    type Err = UnknownVersion;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let name = text.strip_prefix('v').unwrap_or(text);
        Self::ALL
            .into_iter()
            .find(|v| &v.as_str()[1..] == name)
            .ok_or_else(|| UnknownVersion(text.to_owned()))
    }
}

/// Whether `mime` is the DataPart MIME type of some A2UI version (ASCII case and surrounding
/// space ignored): what tells an A2UI message apart from other data wherever parts are read.
#[cfg(feature = "server")]
pub(crate) fn is_a2ui_mime(mime: &str) -> bool {
    let mime = mime.trim();
    ProtocolVersion::ALL
        .iter()
        .any(|version| mime.eq_ignore_ascii_case(version.mime_type()))
}

/// A name that is not an A2UI version (the [`FromStr`](std::str::FromStr) error of
/// [`ProtocolVersion`]); holds the name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown A2UI version '{0}' (expected v0.8, v0.9, v0.9.1 or v1.0)")]
pub struct UnknownVersion(pub String);

impl ProtocolVersion {
    /// Every version, newest first.
    pub const ALL: [ProtocolVersion; 4] = [Self::V1_0, Self::V0_9_1, Self::V0_9, Self::V0_8];

    /// The A2A extension URI that activates this version.
    pub fn extension_uri(self) -> &'static str {
        match self {
            Self::V0_8 => "https://a2ui.org/a2a-extension/a2ui/v0.8",
            Self::V0_9 => "https://a2ui.org/a2a-extension/a2ui/v0.9",
            Self::V0_9_1 => "https://a2ui.org/a2a-extension/a2ui/v0.9.1",
            Self::V1_0 => "https://a2ui.org/a2a-extension/a2ui/v1.0",
        }
    }

    /// The `metadata.mimeType` of a DataPart carrying one message of this version.
    pub fn mime_type(self) -> &'static str {
        match self {
            Self::V0_8 | Self::V0_9 => "application/json+a2ui",
            Self::V0_9_1 | Self::V1_0 => "application/a2ui+json",
        }
    }

    /// The short name, as used for capabilities keys and in messages: `"v0.9"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::V0_8 => "v0.8",
            Self::V0_9 => "v0.9",
            Self::V0_9_1 => "v0.9.1",
            Self::V1_0 => "v1.0",
        }
    }

    /// The `version` field this version's messages carry, `None` for v0.8 (which has none).
    pub fn message_version(self) -> Option<&'static str> {
        match self {
            Self::V0_8 => None,
            other => Some(other.as_str()),
        }
    }

    /// The version an extension URI activates. A trailing `/` is ignored.
    pub fn from_extension_uri(uri: &str) -> Option<Self> {
        let uri = uri.trim().trim_end_matches('/');
        Self::ALL.into_iter().find(|v| v.extension_uri() == uri)
    }

    /// The version a key of the capabilities object names (`"v0.9"`, `"v0.9.1"`, `"v1.0"`).
    ///
    /// v0.8 capabilities are flat, but `"v0.8"` is recognised so that a keyed object that
    /// only has a v0.8 entry is understood rather than ignored.
    pub fn from_capabilities_key(key: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|v| v.as_str() == key)
    }

    /// The version a message's `version` field names. `"v0.9"` maps to [`Self::V0_9`], which
    /// v0.9.1 renderers also accept.
    pub fn from_message_version(version: &str) -> Option<Self> {
        match version {
            "v0.8" => None,
            other => Self::from_capabilities_key(other),
        }
    }

    /// Whether messages of `other` are valid messages of `self`: the same version, or v0.9
    /// messages under v0.9.1.
    pub fn accepts_messages_of(self, other: ProtocolVersion) -> bool {
        self == other || (self == Self::V0_9_1 && other == Self::V0_9)
    }

    /// The id of this version's basic (v0.8: standard) catalog.
    pub fn basic_catalog_id(self) -> &'static str {
        match self {
            Self::V0_8 => "https://a2ui.org/specification/v0_8/standard_catalog_definition.json",
            Self::V0_9 | Self::V0_9_1 => V0_9_BASIC,
            Self::V1_0 => "https://a2ui.org/specification/v1_0/catalogs/basic/catalog.json",
        }
    }

    /// Other ids renderers use for this version's basic catalog. The v0.9.1 id seen in the
    /// wild, and the id CopilotKit's renderer registers, name the same catalog as v0.9's.
    pub fn catalog_id_aliases(self) -> &'static [&'static str] {
        match self {
            Self::V0_9 | Self::V0_9_1 => &[V0_9_1_BASIC, V0_9_BASIC_COPILOTKIT],
            Self::V0_8 | Self::V1_0 => &[],
        }
    }

    /// Whether `id` names this version's basic catalog, by its id or an alias.
    pub fn is_basic_catalog_id(self, id: &str) -> bool {
        id == self.basic_catalog_id() || self.catalog_id_aliases().contains(&id)
    }

    /// The version whose schema files this version uses (v0.9.1 uses v0.9's).
    pub(crate) fn schema_family(self) -> ProtocolVersion {
        match self {
            Self::V0_9_1 => Self::V0_9,
            other => other,
        }
    }
}

impl fmt::Display for ProtocolVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_version_round_trips_through_its_names() {
        for v in ProtocolVersion::ALL {
            assert_eq!(
                ProtocolVersion::from_extension_uri(v.extension_uri()),
                Some(v)
            );
            assert_eq!(ProtocolVersion::from_capabilities_key(v.as_str()), Some(v));
            if let Some(mv) = v.message_version() {
                assert_eq!(ProtocolVersion::from_message_version(mv), Some(v));
            }
        }
    }

    #[test]
    fn all_is_newest_first_and_agrees_with_ord() {
        let mut sorted = ProtocolVersion::ALL;
        sorted.sort_by(|a, b| b.cmp(a));
        assert_eq!(sorted, ProtocolVersion::ALL);
        assert_eq!(
            ProtocolVersion::ALL.iter().max(),
            Some(&ProtocolVersion::V1_0)
        );
    }

    #[test]
    fn v0_9_1_basic_catalog_id_is_an_alias_of_v0_9() {
        let alias = "https://a2ui.org/specification/v0_9_1/catalogs/basic/catalog.json";
        assert!(ProtocolVersion::V0_9.is_basic_catalog_id(alias));
        assert!(
            ProtocolVersion::V0_9_1.is_basic_catalog_id(ProtocolVersion::V0_9.basic_catalog_id())
        );
        assert!(!ProtocolVersion::V1_0.is_basic_catalog_id(alias));
    }

    #[test]
    fn unknown_names_are_not_versions() {
        assert_eq!(
            ProtocolVersion::from_extension_uri("https://a2ui.org/a2a-extension/a2ui/v2"),
            None
        );
        assert_eq!(ProtocolVersion::from_message_version("v0.8"), None);
        assert_eq!(ProtocolVersion::from_capabilities_key("0.9"), None);
    }
}
