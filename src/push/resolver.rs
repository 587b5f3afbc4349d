//! The webhook client's DNS resolver: resolves a name, refuses it when any answer is a
//! forbidden address ([`super::guard`]), and hands the HTTP client only the addresses it
//! checked. The client connects to exactly those, so an answer that changes between the
//! check and the connect (DNS rebinding) cannot slip an internal address through.
//! Allow-listed hosts are resolved without the check.

use std::net::SocketAddr;
use std::sync::Arc;

use reqwest::dns::{Addrs, Name, Resolve, Resolving};

use super::guard::Policy;

/// A [`Resolve`] that checks every answer against the push [`Policy`].
#[derive(Clone)]
pub(crate) struct GuardedResolver {
    policy: Arc<Policy>,
}

impl GuardedResolver {
    pub(crate) fn new(policy: Arc<Policy>) -> Self {
        Self { policy }
    }
}

impl Resolve for GuardedResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let policy = self.policy.clone();
        let host = name.as_str().trim_end_matches('.').to_ascii_lowercase();
        Box::pin(async move {
            // The port is the URL's: the client sets it on each address.
            let addrs: Vec<SocketAddr> =
                tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
            if !policy.allows_host(&host) {
                Policy::check_resolved(&host, &addrs)?;
            }
            let addrs: Addrs = Box::new(addrs.into_iter());
            Ok(addrs)
        })
    }
}

#[cfg(test)]
mod tests {
    use std::str::FromStr;

    use super::*;

    fn resolver(allow: &[&str]) -> GuardedResolver {
        GuardedResolver::new(Arc::new(Policy {
            allow_http: true,
            allow_hosts: allow.iter().map(|host| (*host).to_owned()).collect(),
            max_url_len: 2048,
        }))
    }

    #[tokio::test]
    async fn a_name_resolving_to_loopback_is_refused_at_connect_time_unless_allowed() {
        let name = || Name::from_str("localhost").unwrap();
        let refused = resolver(&[]).resolve(name()).await.err().unwrap();
        assert!(refused.to_string().contains("resolves to"), "{refused}");
        let addrs: Vec<SocketAddr> = resolver(&["localhost"])
            .resolve(name())
            .await
            .unwrap()
            .collect();
        assert!(
            addrs.iter().all(|addr| addr.ip().is_loopback()),
            "{addrs:?}"
        );
    }
}
