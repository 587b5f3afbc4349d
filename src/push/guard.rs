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
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::time::Duration;

use reqwest::Url;

/// Why an address may not receive webhooks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Forbidden {
    /// 127.0.0.0/8, ::1.
    Loopback,
    /// 10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16.
    Private,
    /// 100.64.0.0/10 (carrier-grade NAT).
    Shared,
    /// 169.254.0.0/16 (cloud metadata endpoints), fe80::/10.
    LinkLocal,
    /// fc00::/7, and the deprecated site-local fec0::/10.
    UniqueLocal,
    /// 224.0.0.0/4, ff00::/8.
    Multicast,
    /// 0.0.0.0/8, ::.
    Unspecified,
    /// 255.255.255.255.
    Broadcast,
    /// 192.0.2.0/24, 198.51.100.0/24, 203.0.113.0/24, 2001:db8::/32.
    Documentation,
    /// 240.0.0.0/4, 192.0.0.0/24, 198.18.0.0/15, and other special-purpose ranges.
    Reserved,
}

impl Forbidden {
    /// How the address class reads in a refusal.
    pub fn describe(self) -> &'static str {
        match self {
            Forbidden::Loopback => "a loopback address",
            Forbidden::Private => "a private address",
            Forbidden::Shared => "a shared (carrier-grade NAT) address",
            Forbidden::LinkLocal => "a link-local address (cloud metadata endpoints live there)",
            Forbidden::UniqueLocal => "a unique-local address",
            Forbidden::Multicast => "a multicast address",
            Forbidden::Unspecified => "an unspecified address",
            Forbidden::Broadcast => "the broadcast address",
            Forbidden::Documentation => "a documentation address",
            Forbidden::Reserved => "a reserved address",
        }
    }
}

/// The class that forbids `ip` as a webhook address, or `None` for a public address.
///
/// # Example
///
/// ```
/// use a2ui_agent::push::{Forbidden, classify};
///
/// assert_eq!(classify("169.254.169.254".parse().unwrap()), Some(Forbidden::LinkLocal));
/// assert_eq!(classify("::ffff:10.0.0.1".parse().unwrap()), Some(Forbidden::Private));
/// assert_eq!(classify("93.184.215.14".parse().unwrap()), None);
/// ```
pub fn classify(ip: IpAddr) -> Option<Forbidden> {
    match ip {
        IpAddr::V4(v4) => classify_v4(v4),
        IpAddr::V6(v6) => classify_v6(v6),
    }
}

fn classify_v4(ip: Ipv4Addr) -> Option<Forbidden> {
    let [a, b, c, _] = ip.octets();
    let class = match (a, b, c) {
        (0, ..) => Forbidden::Unspecified,
        (127, ..) => Forbidden::Loopback,
        (10, ..) | (172, 16..=31, _) | (192, 168, _) => Forbidden::Private,
        (100, 64..=127, _) => Forbidden::Shared,
        (169, 254, _) => Forbidden::LinkLocal,
        (192, 0, 2) | (198, 51, 100) | (203, 0, 113) => Forbidden::Documentation,
        (192, 0, 0) | (198, 18..=19, _) => Forbidden::Reserved,
        (224..=239, ..) => Forbidden::Multicast,
        _ if ip == Ipv4Addr::BROADCAST => Forbidden::Broadcast,
        (240..=255, ..) => Forbidden::Reserved,
        _ => return None,
    };
    Some(class)
}

fn classify_v6(ip: Ipv6Addr) -> Option<Forbidden> {
    let segments = ip.segments();
    // IPv4 written inside IPv6: judged as the IPv4 address.
    if let Some(v4) = ip.to_ipv4_mapped() {
        return classify_v4(v4);
    }
    let embedded = |high: u16, low: u16| {
        Ipv4Addr::new((high >> 8) as u8, high as u8, (low >> 8) as u8, low as u8)
    };
    match segments {
        [0, 0, 0, 0, 0, 0, 0, 0] => return Some(Forbidden::Unspecified),
        [0, 0, 0, 0, 0, 0, 0, 1] => return Some(Forbidden::Loopback),
        // IPv4-compatible (deprecated) ::a.b.c.d.
        [0, 0, 0, 0, 0, 0, high, low] => {
            return classify_v4(embedded(high, low)).or(Some(Forbidden::Reserved));
        }
        // NAT64 64:ff9b::/96.
        [0x64, 0xff9b, 0, 0, 0, 0, high, low] => return classify_v4(embedded(high, low)),
        // 6to4 2002:a.b.c.d::/48.
        [0x2002, high, low, ..] => return classify_v4(embedded(high, low)),
        _ => {}
    }
    let first = segments[0];
    let class = if first & 0xff00 == 0xff00 {
        Forbidden::Multicast
    } else if first & 0xffc0 == 0xfe80 {
        Forbidden::LinkLocal
    } else if first & 0xfe00 == 0xfc00 || first & 0xffc0 == 0xfec0 {
        Forbidden::UniqueLocal
    } else if first == 0x2001 && segments[1] == 0x0db8 {
        Forbidden::Documentation
    } else if first == 0x0100 && segments[1..4] == [0, 0, 0] {
        // 100::/64, the discard prefix.
        Forbidden::Reserved
    } else {
        return None;
    };
    Some(class)
}

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
        if let (Some(ip), false) = (ip, allowed) {
            if let Some(class) = classify(ip) {
                return Err(Refusal::Address {
                    host,
                    ip,
                    resolved: false,
                    class,
                });
            }
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
    use proptest::prelude::*;

    use super::*;

    fn policy() -> Policy {
        Policy {
            allow_http: false,
            allow_hosts: Vec::new(),
            max_url_len: 2048,
        }
    }

    fn class(text: &str) -> Option<Forbidden> {
        classify(text.parse().unwrap())
    }

    #[test]
    fn each_forbidden_range_is_named() {
        assert_eq!(class("127.0.0.1"), Some(Forbidden::Loopback));
        assert_eq!(class("10.0.0.1"), Some(Forbidden::Private));
        assert_eq!(class("172.31.255.255"), Some(Forbidden::Private));
        assert_eq!(class("172.32.0.1"), None);
        assert_eq!(class("192.168.1.1"), Some(Forbidden::Private));
        assert_eq!(class("100.64.0.1"), Some(Forbidden::Shared));
        assert_eq!(class("100.128.0.1"), None);
        assert_eq!(class("169.254.169.254"), Some(Forbidden::LinkLocal));
        assert_eq!(class("0.0.0.0"), Some(Forbidden::Unspecified));
        assert_eq!(class("255.255.255.255"), Some(Forbidden::Broadcast));
        assert_eq!(class("224.0.0.1"), Some(Forbidden::Multicast));
        assert_eq!(class("192.0.2.7"), Some(Forbidden::Documentation));
        assert_eq!(class("8.8.8.8"), None);
        assert_eq!(class("::1"), Some(Forbidden::Loopback));
        assert_eq!(class("::"), Some(Forbidden::Unspecified));
        assert_eq!(class("fe80::1"), Some(Forbidden::LinkLocal));
        assert_eq!(class("fd00::1"), Some(Forbidden::UniqueLocal));
        assert_eq!(class("ff02::1"), Some(Forbidden::Multicast));
        assert_eq!(class("2001:db8::1"), Some(Forbidden::Documentation));
        assert_eq!(class("::ffff:127.0.0.1"), Some(Forbidden::Loopback));
        assert_eq!(class("::ffff:169.254.169.254"), Some(Forbidden::LinkLocal));
        assert_eq!(class("64:ff9b::a00:1"), Some(Forbidden::Private));
        assert_eq!(class("2002:7f00:1::"), Some(Forbidden::Loopback));
        assert_eq!(class("2606:4700::1111"), None);
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

    proptest! {
        /// An IPv4 address and its IPv4-mapped IPv6 form are judged alike, and every
        /// address the classification lets through is outside the forbidden ranges.
        #[test]
        fn mapped_addresses_are_judged_as_their_ipv4(bits in any::<u32>()) {
            let v4 = Ipv4Addr::from(bits);
            prop_assert_eq!(classify(IpAddr::V4(v4)), classify(IpAddr::V6(v4.to_ipv6_mapped())));
            if classify(IpAddr::V4(v4)).is_none() {
                prop_assert!(!v4.is_loopback() && !v4.is_private() && !v4.is_link_local());
                prop_assert!(!v4.is_multicast() && !v4.is_unspecified() && !v4.is_broadcast());
                prop_assert!(!v4.is_documentation());
                prop_assert!(!(v4.octets()[0] == 100 && (64..128).contains(&v4.octets()[1])));
            }
        }

        /// No IPv6 address the classification lets through is loopback, unspecified,
        /// multicast, link-local, unique-local, or a mapped forbidden IPv4 address.
        #[test]
        fn public_ipv6_addresses_are_outside_every_forbidden_range(bits in any::<u128>()) {
            let v6 = Ipv6Addr::from(bits);
            if classify(IpAddr::V6(v6)).is_none() {
                prop_assert!(!v6.is_loopback() && !v6.is_unspecified() && !v6.is_multicast());
                prop_assert!(!v6.is_unicast_link_local() && !v6.is_unique_local());
                if let Some(v4) = v6.to_ipv4_mapped() {
                    prop_assert!(classify(IpAddr::V4(v4)).is_none());
                }
            }
        }

        /// The classification of a prefix's addresses does not depend on the host bits
        /// inside the forbidden /8 and /16 blocks.
        #[test]
        fn whole_blocks_are_refused(low in any::<u16>(), third in any::<u8>()) {
            let [x, y] = low.to_be_bytes();
            prop_assert_eq!(classify_v4(Ipv4Addr::new(10, third, x, y)), Some(Forbidden::Private));
            prop_assert_eq!(classify_v4(Ipv4Addr::new(127, third, x, y)), Some(Forbidden::Loopback));
            prop_assert_eq!(classify_v4(Ipv4Addr::new(169, 254, x, y)), Some(Forbidden::LinkLocal));
            prop_assert_eq!(classify_v4(Ipv4Addr::new(192, 168, x, y)), Some(Forbidden::Private));
        }
    }
}
