//! The SSRF guard: which webhook URLs and addresses the agent may POST to.
//!
//! A webhook URL comes from a caller, and the agent POSTs to it from inside its own network:
//! without a guard, a caller could make the agent reach its cloud metadata endpoint
//! (169.254.169.254), a database on 10.x, or a service on loopback. So a URL is refused
//! when it is not `https` (unless `allow_http`), and when any address its host names or
//! resolves to is loopback, private (10/8, 172.16/12, 192.168/16), shared (100.64/10,
//! CGNAT), link-local (169.254/16, fe80::/10), unique-local (fc00::/7), site-local,
//! multicast, unspecified, broadcast, reserved, benchmarking or documentation, including the
//! same addresses written inside IPv6 (IPv4-mapped `::ffff:a.b.c.d`, IPv4-compatible,
//! NAT64 `64:ff9b::/96`, 6to4 `2002::/16`). Hosts named in `allow_hosts` skip the address
//! check (development, tests).
//!
//! The check runs when the config is set (a clear error for the caller) and again at every
//! delivery: literal addresses here, names in the HTTP client's resolver
//! (the push module's `resolver`), which hands the client only addresses it checked, so the address
//! connected to is the one checked (no window for a DNS answer that changes in between).

use std::fmt;
use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

use reqwest::Url;

pub use crate::address::{Forbidden, classify};

/// Why a webhook URL is refused: each says what to change.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    /// The URL is longer than the server takes.
    #[error("the webhook URL is {length} bytes long; this server takes at most {max}")]
    TooLong {
        /// Its length.
        length: usize,
        /// The limit.
        max: usize,
    },
    /// The URL does not parse.
    #[error("the webhook URL is not a valid absolute URL: {0}")]
    Malformed(String),
    /// Not `https` (or `http` where allowed).
    #[error(
        "the webhook URL must use https, not {scheme}{}",
        if *.http_allowed { " (or http)" } else { "" }
    )]
    Scheme {
        /// The scheme given.
        scheme: String,
        /// Whether `http` would be taken.
        http_allowed: bool,
    },
    /// `http` while the server takes only `https`.
    #[error(
        "the webhook URL must use https: this server does not send push notifications over \
         plain http (its operator can allow that for development with --push-allow-http)"
    )]
    PlainHttp,
    /// The URL holds a user name or password.
    #[error("the webhook URL must not hold credentials; give them as the config's authentication")]
    Credentials,
    /// The host, or an address it resolves to, is not a public address.
    #[error("{}", address_refusal(.host, .ip, *.resolved, *.class))]
    Address {
        /// The host as written.
        host: String,
        /// The address refused.
        ip: IpAddr,
        /// Whether the host is a name that resolved to `ip`.
        resolved: bool,
        /// Why it is refused.
        class: Forbidden,
    },
}

fn address_refusal(host: &str, ip: &IpAddr, resolved: bool, class: Forbidden) -> String {
    let what = if resolved {
        format!(
            "the webhook host {host} resolves to {ip}, {}",
            class.describe()
        )
    } else {
        format!("the webhook address {ip} is {}", class.describe())
    };
    format!(
        "{what}; webhooks must be reachable on the public internet (its operator can allow \
         a host with --push-allow-host)"
    )
}

/// What the guard lets through.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Policy {
    /// Whether `http` URLs are taken (development, tests).
    pub allow_http: bool,
    /// Hosts (names or addresses, lowercase, IPv6 without brackets) that skip the address
    /// check.
    pub allow_hosts: Vec<String>,
    /// The longest URL taken, in bytes.
    pub max_url_len: usize,
}

/// A URL the guard took: its host (lowercase), port, and whether it skips the address check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Checked {
    pub(crate) host: String,
    pub(crate) port: u16,
    /// The host is an address (already checked, or allowed).
    pub(crate) ip: Option<IpAddr>,
    pub(crate) allowed: bool,
}

impl Policy {
    /// Whether `host` (lowercase) skips the address check.
    pub(crate) fn allows_host(&self, host: &str) -> bool {
        self.allow_hosts.iter().any(|allowed| allowed == host)
    }

    /// Checks `url` without resolving: length, scheme, credentials, and the host's address
    /// when it is one.
    pub(crate) fn check(&self, url: &str) -> Result<Checked, Refusal> {
        if url.len() > self.max_url_len {
            return Err(Refusal::TooLong {
                length: url.len(),
                max: self.max_url_len,
            });
        }
        let parsed = Url::parse(url).map_err(|error| Refusal::Malformed(error.to_string()))?;
        match parsed.scheme() {
            "https" => {}
            "http" if self.allow_http => {}
            "http" => return Err(Refusal::PlainHttp),
            other => {
                return Err(Refusal::Scheme {
                    scheme: other.to_owned(),
                    http_allowed: self.allow_http,
                });
            }
        }
        if !parsed.username().is_empty() || parsed.password().is_some() {
            return Err(Refusal::Credentials);
        }
        let (host, ip) = match parsed.host() {
            Some(url::Host::Domain(name)) => (name.to_ascii_lowercase(), None),
            Some(url::Host::Ipv4(v4)) => (v4.to_string(), Some(IpAddr::V4(v4))),
            Some(url::Host::Ipv6(v6)) => (v6.to_string(), Some(IpAddr::V6(v6))),
            None => return Err(Refusal::Malformed("no host".into())),
        };
        let host = host.trim_end_matches('.').to_owned();
        let allowed = self.allows_host(&host);
        if let (Some(ip), false) = (ip, allowed)
            && let Some(class) = classify(ip)
        {
            return Err(Refusal::Address {
                host,
                ip,
                resolved: false,
                class,
            });
        }
        let port = parsed.port_or_known_default().unwrap_or(443);
        Ok(Checked {
            host,
            port,
            ip,
            allowed,
        })
    }

    /// Checks every address `host` resolved to: the first forbidden one refuses the host.
    pub(crate) fn check_resolved(host: &str, addrs: &[SocketAddr]) -> Result<(), Refusal> {
        for addr in addrs {
            if let Some(class) = classify(addr.ip()) {
                return Err(Refusal::Address {
                    host: host.to_owned(),
                    ip: addr.ip(),
                    resolved: true,
                    class,
                });
            }
        }
        Ok(())
    }

    /// [`check`](Self::check), then, for a name not allowed, its DNS answer (within
    /// `timeout`). A name that does not resolve now is taken: it is checked again at each
    /// delivery, and a name that resolves later to a forbidden address is refused then.
    pub(crate) async fn check_now(&self, url: &str, timeout: Duration) -> Result<(), Refusal> {
        let checked = self.check(url)?;
        if checked.allowed || checked.ip.is_some() {
            return Ok(());
        }
        let lookup = tokio::net::lookup_host((checked.host.as_str(), checked.port));
        match tokio::time::timeout(timeout, lookup).await {
            Ok(Ok(addrs)) => {
                let addrs: Vec<SocketAddr> = addrs.collect();
                Self::check_resolved(&checked.host, &addrs)
            }
            Ok(Err(error)) => {
                tracing::debug!(host = %checked.host, %error, "webhook host does not resolve now");
                Ok(())
            }
            Err(_) => {
                tracing::debug!(host = %checked.host, "webhook host did not resolve in time");
                Ok(())
            }
        }
    }
}

impl fmt::Display for Policy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}, allowed hosts: [{}]",
            if self.allow_http {
                "https or http"
            } else {
                "https only"
            },
            self.allow_hosts.join(", ")
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy() -> Policy {
        Policy {
            allow_http: false,
            allow_hosts: Vec::new(),
            max_url_len: 2048,
        }
    }

    #[test]
    fn urls_are_refused_with_what_to_change() {
        let refused = |url: &str| policy().check(url).unwrap_err().to_string();
        assert!(refused("http://example.com/").contains("--push-allow-http"));
        assert!(refused("ftp://example.com/").contains("must use https"));
        assert!(refused("https://u:p@example.com/").contains("credentials"));
        assert!(refused("https://10.0.0.1/x").contains("10.0.0.1 is a private address"));
        assert_eq!(
            refused("https://169.254.169.254/latest"),
            "the webhook address 169.254.169.254 is a link-local address (cloud metadata \
             endpoints live there); webhooks must be reachable on the public internet (its \
             operator can allow a host with --push-allow-host)"
        );
        assert!(refused("https://[::1]:8443/").contains("loopback"));
        assert!(refused(&format!("https://e.com/{}", "a".repeat(3000))).contains("at most 2048"));
        assert!(policy().check("https://example.com/hook").is_ok());
    }

    #[test]
    fn an_allowed_host_skips_the_address_check() {
        let mut policy = policy();
        policy.allow_http = true;
        policy.allow_hosts = vec!["127.0.0.1".into(), "localhost".into()];
        assert!(policy.check("http://127.0.0.1:9/hook").is_ok());
        assert!(policy.check("http://LOCALHOST:9/hook").unwrap().allowed);
        assert!(policy.check("http://127.0.0.2:9/hook").is_err());
    }
}
