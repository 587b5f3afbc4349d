//! What a host name in a UI's URL resolves to, judged before the URL goes out.
//!
//! The URL policy refuses a literal loopback or private address and a name that only means an
//! inside host (`localhost`, `*.internal`), but a public-looking name can be made to resolve
//! to 127.0.0.1 or 169.254.169.254: the conversation may name it, and the renderer would then
//! fetch it from inside the user's network. So a name a URL passed every other rule with is
//! resolved, through the [`HostResolver`] the server owns, and the URL is refused when any
//! address it resolves to is not public (the same rules as the webhook guard, `address`).
//!
//! A name this server cannot resolve, or not within [`LOOKUP_TIMEOUT`], is refused too: a
//! renderer on a network that can resolve it is on a network this server cannot see (an
//! inside name), and one that cannot would show a broken image. The operator reads why in
//! the server's log (a warning naming the host and the lookup's error); the model's repair
//! turn reads that the host did not resolve to a public address, never the inside address.
//!
//! Lookups are off the per-chunk path: a message whose host is not yet judged is held (the
//! pipeline's step says which hosts to look up), the runner awaits the lookups, and the
//! message is screened again. Verdicts are kept for the reply (a host is judged once per
//! reply, so a message cannot pass with an answer a later one is refused with) and, for
//! [`CACHE_TTL`], in a cache the server shares across replies, bounded at [`CACHE_MAX`]
//! hosts. The system resolver ([`SystemResolver`]) runs `getaddrinfo` on tokio's blocking
//! pool, never on the runtime's threads.

use std::collections::HashMap;
use std::fmt;
use std::io;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures::future::BoxFuture;

use crate::address::{Forbidden, classify};

/// How long a host's lookup may take before the host is refused.
pub const LOOKUP_TIMEOUT: Duration = Duration::from_secs(3);

/// How long the server keeps a host's verdict for later replies.
const CACHE_TTL: Duration = Duration::from_secs(60);

/// How long a failed lookup is kept: a short outage does not refuse a host for long.
const FAILURE_TTL: Duration = Duration::from_secs(5);

/// The most hosts the server's cache holds.
const CACHE_MAX: usize = 1024;

/// Resolves a host name to its addresses, for the URL policy. The server's default is the
/// system resolver ([`SystemResolver`]); a test, or a server with its own DNS client, gives
/// another to [`ServerBuilder::ui_host_resolver`](crate::server::ServerBuilder::ui_host_resolver).
///
/// # Example
///
/// ```
/// use std::net::IpAddr;
///
/// use a2ui_agent::pipeline::HostResolver;
/// use futures::future::BoxFuture;
///
/// /// Every name is this one public address.
/// struct Fixed(IpAddr);
///
/// impl HostResolver for Fixed {
///     fn resolve(&self, _host: &str) -> BoxFuture<'static, std::io::Result<Vec<IpAddr>>> {
///         let ip = self.0;
///         Box::pin(async move { Ok(vec![ip]) })
///     }
/// }
/// ```
pub trait HostResolver: Send + Sync + 'static {
    /// The addresses `host` (lowercase, no trailing dot) resolves to, or why it does not.
    fn resolve(&self, host: &str) -> BoxFuture<'static, io::Result<Vec<IpAddr>>>;
}

/// The operating system's resolver (`getaddrinfo`, on tokio's blocking pool).
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemResolver;

impl HostResolver for SystemResolver {
    fn resolve(&self, host: &str) -> BoxFuture<'static, io::Result<Vec<IpAddr>>> {
        let host = host.to_owned();
        Box::pin(async move {
            let addrs = tokio::net::lookup_host((host.as_str(), 443)).await?;
            Ok(addrs.map(|addr| addr.ip()).collect())
        })
    }
}

/// What a host resolves to, as the URL policy reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum HostVerdict {
    /// Every address is public.
    Public,
    /// An address that is not public, and its class.
    Inside(IpAddr, Forbidden),
    /// The lookup failed or timed out: why, as the refusal shows it.
    Unresolved(&'static str),
}

/// The server's resolver and its cache of verdicts (see the module docs).
pub(crate) struct HostCheck {
    resolver: Arc<dyn HostResolver>,
    timeout: Duration,
    cache: Mutex<HashMap<String, (Instant, HostVerdict)>>,
}

impl fmt::Debug for HostCheck {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HostCheck")
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

impl Default for HostCheck {
    fn default() -> Self {
        Self::new(Arc::new(SystemResolver))
    }
}

impl HostCheck {
    pub(crate) fn new(resolver: Arc<dyn HostResolver>) -> Self {
        Self::with_timeout(resolver, LOOKUP_TIMEOUT)
    }

    pub(crate) fn with_timeout(resolver: Arc<dyn HostResolver>, timeout: Duration) -> Self {
        Self {
            resolver,
            timeout,
            cache: Mutex::new(HashMap::new()),
        }
    }

    /// The verdict on `host` the cache still holds.
    pub(crate) fn cached(&self, host: &str) -> Option<HostVerdict> {
        let cache = self.cache.lock().ok()?;
        let (until, verdict) = cache.get(host)?;
        (*until > Instant::now()).then(|| verdict.clone())
    }

    /// Resolves `host` and judges its addresses; the verdict is cached.
    pub(crate) async fn judge(&self, host: &str) -> HostVerdict {
        if let Some(verdict) = self.cached(host) {
            return verdict;
        }
        let lookup = tokio::time::timeout(self.timeout, self.resolver.resolve(host)).await;
        let verdict = match lookup {
            Ok(Ok(addrs)) if addrs.is_empty() => {
                tracing::warn!(%host, "a URL's host resolved to no address: refused");
                HostVerdict::Unresolved("it resolves to no address")
            }
            Ok(Ok(addrs)) => match addrs.iter().find_map(|&ip| Some((ip, classify(ip)?))) {
                Some((ip, class)) => {
                    tracing::warn!(%host, %ip, class = class.describe(), "a URL's host resolves to an address that is not public: refused");
                    HostVerdict::Inside(ip, class)
                }
                None => HostVerdict::Public,
            },
            Ok(Err(error)) => {
                tracing::warn!(%host, %error, "a URL's host could not be resolved: refused");
                HostVerdict::Unresolved("this server could not resolve it")
            }
            Err(_) => {
                tracing::warn!(%host, timeout = ?self.timeout, "a URL's host did not resolve in time: refused");
                HostVerdict::Unresolved("its lookup timed out")
            }
        };
        self.store(host, verdict.clone());
        verdict
    }

    fn store(&self, host: &str, verdict: HostVerdict) {
        let Ok(mut cache) = self.cache.lock() else {
            return;
        };
        let now = Instant::now();
        if cache.len() >= CACHE_MAX && !cache.contains_key(host) {
            cache.retain(|_, (until, _)| *until > now);
            if cache.len() >= CACHE_MAX
                && let Some(oldest) = cache
                    .iter()
                    .min_by_key(|(_, (until, _))| *until)
                    .map(|(host, _)| host.clone())
            {
                cache.remove(&oldest);
            }
        }
        let ttl = match verdict {
            HostVerdict::Unresolved(_) => FAILURE_TTL,
            _ => CACHE_TTL,
        };
        cache.insert(host.to_owned(), (now + ttl, verdict));
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.cache.lock().map_or(0, |cache| cache.len())
    }
}

/// The hosts a held message waits for: the runner awaits [`Lookup::run`] and gives its
/// verdicts back to the pipeline.
#[derive(Debug)]
pub(crate) struct Lookup {
    hosts: Vec<String>,
    check: Arc<HostCheck>,
}

/// Verdicts from a [`Lookup`].
#[derive(Debug, Default)]
pub(crate) struct Resolved(pub(crate) Vec<(String, HostVerdict)>);

impl Lookup {
    pub(crate) fn new(hosts: Vec<String>, check: Arc<HostCheck>) -> Self {
        Self { hosts, check }
    }

    /// Resolves every host at once.
    pub(crate) async fn run(self) -> Resolved {
        let check = &self.check;
        let verdicts = futures::future::join_all(
            self.hosts
                .iter()
                .map(|host| async move { (host.clone(), check.judge(host).await) }),
        )
        .await;
        Resolved(verdicts)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    /// A resolver from a table; counts its lookups; a name it lacks never answers.
    struct Table(Vec<(&'static str, IpAddr)>, Arc<AtomicUsize>);

    impl HostResolver for Table {
        fn resolve(&self, host: &str) -> BoxFuture<'static, io::Result<Vec<IpAddr>>> {
            self.1.fetch_add(1, Ordering::SeqCst);
            let found: Vec<IpAddr> = (self.0.iter())
                .filter(|(name, _)| *name == host)
                .map(|(_, ip)| *ip)
                .collect();
            Box::pin(async move {
                if found.is_empty() {
                    futures::future::pending::<()>().await;
                }
                Ok(found)
            })
        }
    }

    fn table() -> (HostCheck, Arc<AtomicUsize>) {
        let count = Arc::new(AtomicUsize::new(0));
        let resolver = Table(
            vec![
                ("public.example", "93.184.215.14".parse().unwrap()),
                ("split.example", "93.184.215.14".parse().unwrap()),
                ("split.example", "10.0.0.7".parse().unwrap()),
            ],
            count.clone(),
        );
        let check = HostCheck::with_timeout(Arc::new(resolver), Duration::from_millis(50));
        (check, count)
    }

    #[tokio::test]
    async fn any_inside_address_refuses_the_host_and_a_silent_lookup_times_out() {
        let (check, count) = table();
        assert_eq!(check.judge("public.example").await, HostVerdict::Public);
        assert_eq!(
            check.judge("split.example").await,
            HostVerdict::Inside("10.0.0.7".parse().unwrap(), Forbidden::Private)
        );
        assert_eq!(
            check.judge("silent.example").await,
            HostVerdict::Unresolved("its lookup timed out")
        );
        assert_eq!(check.judge("public.example").await, HostVerdict::Public);
        assert_eq!(count.load(Ordering::SeqCst), 3, "the second was cached");
    }

    #[tokio::test]
    async fn the_system_resolver_refuses_a_name_for_this_machine() {
        let check = HostCheck::default();
        // `localhost` always resolves, through the system's hosts file, to loopback.
        match check.judge("localhost").await {
            HostVerdict::Inside(ip, Forbidden::Loopback) => assert!(ip.is_loopback()),
            other => panic!("localhost judged {other:?}"),
        }
    }

    #[test]
    fn the_cache_stays_bounded() {
        let (check, _) = table();
        for at in 0..CACHE_MAX + 10 {
            check.store(&format!("h{at}.example"), HostVerdict::Public);
        }
        assert_eq!(check.len(), CACHE_MAX);
        assert_eq!(
            check.cached(&format!("h{}.example", CACHE_MAX + 9)),
            Some(HostVerdict::Public)
        );
    }
}
