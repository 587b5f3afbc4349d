//! Which A2A protocol version a request speaks: the `A2A-Version` header and the method.
//!
//! A2A 1.0 §3.6: clients send `A2A-Version: Major.Minor`; an absent header means 0.3; a
//! version the server does not serve gets `VersionNotSupportedError` (-32009). JSON-RPC
//! method names tell the generations apart too (`message/send` is 0.3, `SendMessage` 1.0),
//! and real clients rely on that: the Python SDK's 0.3 transport sends `A2A-Version: 1.0`
//! with its 0.3 methods. So the method decides, and the header only refuses a version we
//! do not speak, or a 1.0 method asked for as 0.3.

use axum::http::HeaderMap;

use crate::a2a::jsonrpc::{ErrorCode, RpcError};

/// An A2A protocol version this server speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Version {
    /// A2A 0.3: slash method names, `kind` tags.
    V0_3,
    /// A2A 1.0: PascalCase methods, ProtoJSON, the HTTP+JSON binding.
    V1_0,
}

impl Version {
    /// The versions served, as `A2A-Version` names them.
    pub(crate) const SERVED: &'static str = "0.3, 1.0";
}

/// The version the `A2A-Version` header (or `A2A-Version` query parameter, given as
/// `query`) asks for: `Ok(None)` when absent.
///
/// # Errors
///
/// `VersionNotSupportedError` for a version other than 0.3 and 1.0 (patch ignored).
pub(crate) fn requested(
    headers: &HeaderMap,
    query: Option<&str>,
) -> Result<Option<Version>, RpcError> {
    let value = match headers.get("a2a-version") {
        Some(value) => Some(value.to_str().unwrap_or("?").trim()),
        None => query.map(str::trim),
    };
    let Some(value) = value.filter(|value| !value.is_empty()) else {
        return Ok(None);
    };
    let mut numbers = value.split('.');
    let major_minor = (numbers.next(), numbers.next());
    match major_minor {
        (Some("0"), Some("3")) => Ok(Some(Version::V0_3)),
        (Some("1"), Some("0")) => Ok(Some(Version::V1_0)),
        _ => Err(not_supported(value)),
    }
}

/// The `A2A-Version` query parameter of `query` (the name compared without case), if any.
pub(crate) fn from_query(query: &str) -> Option<String> {
    serde_urlencoded::from_str::<Vec<(String, String)>>(query)
        .ok()?
        .into_iter()
        .find(|(key, _)| key.eq_ignore_ascii_case("A2A-Version"))
        .map(|(_, value)| value)
}

/// `VersionNotSupportedError` for `value`.
pub(crate) fn not_supported(value: &str) -> RpcError {
    let shown: String = value.chars().take(32).collect();
    RpcError::new(
        ErrorCode::VersionNotSupported,
        format!(
            "A2A version {shown:?} is not supported; this agent speaks {}",
            Version::SERVED
        ),
    )
    .with_data(serde_json::json!({"supportedVersions": Version::SERVED}))
}

/// The version of a JSON-RPC `method`: slash names are 0.3, the others 1.0.
pub(crate) fn of_method(method: &str) -> Version {
    if method.contains('/') {
        Version::V0_3
    } else {
        Version::V1_0
    }
}

#[cfg(test)]
mod tests {
    use axum::http::HeaderValue;

    use super::*;

    fn with(value: &'static str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert("A2A-Version", HeaderValue::from_static(value));
        headers
    }

    #[test]
    fn major_minor_decides_and_patch_is_ignored() {
        assert_eq!(requested(&HeaderMap::new(), None), Ok(None));
        assert_eq!(requested(&with("1.0"), None), Ok(Some(Version::V1_0)));
        assert_eq!(requested(&with("1.0.1"), None), Ok(Some(Version::V1_0)));
        assert_eq!(requested(&with("0.3"), None), Ok(Some(Version::V0_3)));
        assert_eq!(
            requested(&HeaderMap::new(), Some("1.0")),
            Ok(Some(Version::V1_0))
        );
        let error = requested(&with("0.5"), None).unwrap_err();
        assert_eq!(error.code, ErrorCode::VersionNotSupported);
        assert!(error.message.contains("0.3, 1.0"), "{}", error.message);
    }
}
