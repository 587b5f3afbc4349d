//! Which IP addresses are not on the public internet: the one set of rules for every place
//! the server judges an address it did not choose.
//!
//! Two places need them: webhook delivery (an address the agent POSTs to from inside its own
//! network, where 169.254.169.254 is the cloud metadata endpoint) and the URL policy on
//! what a model writes into a UI (an address a renderer fetches from inside the user's
//! network). Both refuse the same ranges, so the rules live here once: loopback, private
//! (10/8, 172.16/12, 192.168/16), shared (100.64/10, CGNAT), link-local (169.254/16,
//! fe80::/10), unique-local (fc00::/7), site-local, multicast, unspecified, broadcast,
//! reserved, benchmarking and documentation ranges, including the same IPv4 addresses
//! written inside IPv6 (IPv4-mapped `::ffff:a.b.c.d`, IPv4-compatible, NAT64
//! `64:ff9b::/96`, 6to4 `2002::/16`).

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// Why an address is not a public one (and so may not receive webhooks or be fetched by a
/// renderer).
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

/// The class that forbids `ip` (as a webhook address, or in a URL a renderer fetches), or
/// `None` for a public address.
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

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

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
