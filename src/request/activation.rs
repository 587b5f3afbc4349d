//! Which A2UI extension a request activates (WIRE.md §5).
//!
//! A client asks for extensions by URI, in headers and in `message.extensions`. The agent
//! advertises one A2UI extension per generator. The activated one is the **newest** URI both
//! sides name; versions compare numerically (`v1.10.0` is newer than `v1.2.0`), so the choice
//! does not depend on the order the client listed them in.

use std::cmp::Ordering;

/// The numeric version at the end of an extension URI: `.../a2ui/v0.9.1` gives `[0, 9, 1]`.
/// `None` when the URI does not end in `v<number>(.<number>)*`.
pub(crate) fn uri_version(uri: &str) -> Option<Vec<u64>> {
    let last = uri.trim().trim_end_matches('/').rsplit('/').next()?;
    let digits = last.strip_prefix('v').or_else(|| last.strip_prefix('V'))?;
    digits
        .split('.')
        .map(|n| n.parse::<u64>().ok())
        .collect::<Option<Vec<u64>>>()
        .filter(|parts| !parts.is_empty() && parts.len() <= 8)
}

/// Compares two numeric versions, `1.2` equal to `1.2.0`.
fn compare(a: &[u64], b: &[u64]) -> Ordering {
    let len = a.len().max(b.len());
    (0..len)
        .map(|i| {
            a.get(i)
                .copied()
                .unwrap_or(0)
                .cmp(&b.get(i).copied().unwrap_or(0))
        })
        .find(|ordering| ordering.is_ne())
        .unwrap_or(Ordering::Equal)
}

/// Two URIs name the same extension: equal once trimmed and without a trailing `/`.
pub(crate) fn same_uri(a: &str, b: &str) -> bool {
    a.trim().trim_end_matches('/') == b.trim().trim_end_matches('/')
}

/// The extension to activate: the newest URI that is both requested and advertised.
/// Versions at the end of the URIs compare as numbers (`v1.10.0` is newer than `v1.2.0`);
/// URIs without a version lose to any with one. `None` when nothing requested is advertised.
///
/// # Example
///
/// ```
/// use a2ui_agent::request::newest_extension;
///
/// let requested = ["https://a2ui.org/a2a-extension/a2ui/v0.8".to_owned(),
///                  "https://a2ui.org/a2a-extension/a2ui/v0.9".to_owned()];
/// let advertised = ["https://a2ui.org/a2a-extension/a2ui/v0.9",
///                   "https://a2ui.org/a2a-extension/a2ui/v0.8"];
/// assert_eq!(newest_extension(&requested, &advertised), Some(advertised[0]));
/// ```
pub fn newest_extension<'a>(requested: &[String], advertised: &[&'a str]) -> Option<&'a str> {
    advertised
        .iter()
        .copied()
        .filter(|uri| requested.iter().any(|r| same_uri(r, uri)))
        .max_by(|a, b| match (uri_version(a), uri_version(b)) {
            (Some(a), Some(b)) => compare(&a, &b),
            (Some(_), None) => Ordering::Greater,
            (None, Some(_)) => Ordering::Less,
            (None, None) => Ordering::Equal,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn owned(uris: &[&str]) -> Vec<String> {
        uris.iter().map(|u| (*u).to_owned()).collect()
    }

    #[test]
    fn the_newest_common_version_wins_whatever_the_order() {
        let requested = owned(&["https://x/a2ui/v0.8", "https://x/a2ui/v0.9"]);
        let advertised = ["https://x/a2ui/v0.9", "https://x/a2ui/v0.8"];
        assert_eq!(
            newest_extension(&requested, &advertised),
            Some("https://x/a2ui/v0.9")
        );
        let reversed: Vec<String> = requested.into_iter().rev().collect();
        assert_eq!(
            newest_extension(&reversed, &advertised),
            Some("https://x/a2ui/v0.9")
        );
    }

    #[test]
    fn versions_compare_as_numbers_not_as_text() {
        let requested = owned(&["u/v1.2.0", "u/v1.10.0"]);
        assert_eq!(
            newest_extension(&requested, &["u/v1.2.0", "u/v1.10.0"]),
            Some("u/v1.10.0")
        );
    }

    #[test]
    fn a_uri_requested_but_not_advertised_is_not_activated() {
        assert_eq!(newest_extension(&owned(&["u/v2.0"]), &["u/v0.8"]), None);
        assert_eq!(newest_extension(&[], &["u/v0.8"]), None);
    }

    #[test]
    fn a_trailing_slash_does_not_change_the_uri() {
        assert_eq!(
            newest_extension(&owned(&["u/v0.8/"]), &["u/v0.8"]),
            Some("u/v0.8")
        );
    }

    #[test]
    fn uris_without_a_numeric_version_have_none() {
        assert_eq!(uri_version("urn:other"), None);
        assert_eq!(uri_version("u/vx.1"), None);
        assert_eq!(uri_version("u/v0.9.1"), Some(vec![0, 9, 1]));
    }
}
