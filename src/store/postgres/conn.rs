//! The query connection, re-established whenever it is lost.
//!
//! A database restart, a failover or an idle-connection killer (pgbouncer, a firewall) ends
//! a connection. A keeper task drives the connection; when it ends, the keeper logs one
//! warning, connects again with exponential backoff ([`FIRST_RETRY`] doubling to
//! [`LAST_RETRY`]) and logs when it is back. Meanwhile every query fails at once with a
//! [`StoreError`] saying the database is unreachable; none waits for the connection.
//!
//! A connection that dies silently (no reset ever arrives) would leave queries waiting for
//! an answer forever: each query therefore gets [`QUERY_TIMEOUT`], and one that runs out
//! abandons the connection, so the keeper drops it and connects again. A request takes the
//! live connection with [`Connection::session`] and queries through [`Session::bounded`]:
//! `let db = conn.session()?; db.bounded(db.query_one("SELECT 1", &[])).await?`.

use std::future::Future;
use std::ops::Deref;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::{Notify, watch};
use tokio::task::JoinHandle;
use tokio_postgres::tls::MakeTlsConnect;
use tokio_postgres::{Client, Socket};
use tokio_postgres_rustls::MakeRustlsConnect;

use super::tls::Target;
use super::{ENGINE, pg_error};
use crate::store::StoreError;

/// The first wait before connecting again (the very first attempt is immediate).
pub(super) const FIRST_RETRY: Duration = Duration::from_millis(100);
/// The longest wait between two attempts to connect.
pub(super) const LAST_RETRY: Duration = Duration::from_secs(5);
/// How long connecting may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// How long one query may wait for its answer before the connection is given up.
pub(super) const QUERY_TIMEOUT: Duration = Duration::from_secs(15);

/// A connection as tokio-postgres drives it (over TLS or not, as `sslmode` says).
pub(super) type PgConnection =
    tokio_postgres::Connection<Socket, <MakeRustlsConnect as MakeTlsConnect<Socket>>::Stream>;

/// Connects once, within [`CONNECT_TIMEOUT`].
pub(super) async fn open(target: &Target) -> Result<(Client, PgConnection), StoreError> {
    let connecting = target.config.connect(target.tls.clone());
    match tokio::time::timeout(CONNECT_TIMEOUT, connecting).await {
        Ok(connected) => connected.map_err(connect_error),
        Err(_) => Err(StoreError::Timeout {
            engine: ENGINE,
            from: "the database while connecting",
            after: CONNECT_TIMEOUT,
        }),
    }
}

/// A failure to connect, with its causes: "error performing TLS handshake" alone does not
/// say that the certificate was signed by another CA.
fn connect_error(error: tokio_postgres::Error) -> StoreError {
    if error.as_db_error().is_some() {
        return pg_error(error);
    }
    let mut message = error.to_string();
    let mut hint = None;
    let mut cause = std::error::Error::source(&error);
    while let Some(error) = cause {
        let text = error.to_string();
        if !message.ends_with(&text) {
            message.push_str(": ");
            message.push_str(&text);
        }
        hint = hint.or_else(|| super::tls::hint(error));
        cause = error.source();
    }
    if let Some(hint) = hint {
        message.push_str(" (");
        message.push_str(hint);
        message.push(')');
    }
    StoreError::Connect {
        engine: ENGINE,
        detail: message,
    }
}

/// Calls `attempt` until it succeeds: at once, then after [`FIRST_RETRY`], doubling up to
/// [`LAST_RETRY`]. `what` names the attempt in debug logs.
pub(super) async fn retry<T, F, Fut>(what: &str, mut attempt: F) -> T
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, StoreError>>,
{
    let mut delay = FIRST_RETRY;
    loop {
        match attempt().await {
            Ok(done) => return done,
            Err(error) => {
                tracing::debug!(%error, retry_ms = delay.as_millis() as u64, "{what} failed");
            }
        }
        tokio::time::sleep(delay).await;
        delay = (delay * 2).min(LAST_RETRY);
    }
}

/// The query connection of a store, kept up by a task of its own while this lives.
pub(super) struct Connection {
    shared: Arc<Shared>,
    keeper: JoinHandle<()>,
}

struct Shared {
    target: Target,
    /// The live client and its generation; `None` while the database is unreachable.
    client: Mutex<Option<(u64, Arc<Client>)>>,
    /// Wakes the keeper when a query abandoned the connection.
    abandoned: Notify,
    /// How many connections were made: it changes each time the database is back.
    generation: watch::Sender<u64>,
}

impl Connection {
    /// Starts keeping `connection` (made from `target`); its client is [`install`]ed next.
    ///
    /// [`install`]: Connection::install
    pub(super) fn start(target: Target, connection: PgConnection) -> Connection {
        let shared = Arc::new(Shared {
            target,
            client: Mutex::new(None),
            abandoned: Notify::new(),
            generation: watch::Sender::new(0),
        });
        let keeper = tokio::spawn(keep(shared.clone(), connection));
        Connection { shared, keeper }
    }

    /// Makes `client` (of the connection given to [`Connection::start`]) the one queries use.
    pub(super) fn install(&self, client: Client) {
        self.shared.install(client);
    }

    /// The live connection, or an error at once while the database is unreachable.
    pub(super) fn session(&self) -> Result<Session, StoreError> {
        let live = self.shared.lock().clone();
        match live {
            Some((generation, client)) if !client.is_closed() => Ok(Session {
                client,
                generation,
                shared: self.shared.clone(),
            }),
            _ => Err(StoreError::Unavailable {
                engine: ENGINE,
                reason: "the connection to the database is lost; reconnecting",
            }),
        }
    }

    /// Whether a connection is up now.
    pub(super) fn is_up(&self) -> bool {
        self.shared
            .lock()
            .as_ref()
            .is_some_and(|(_, client)| !client.is_closed())
    }

    /// Changes each time the database is back after an outage.
    pub(super) fn reconnections(&self) -> watch::Receiver<u64> {
        self.shared.generation.subscribe()
    }
}

impl Drop for Connection {
    fn drop(&mut self) {
        self.keeper.abort();
    }
}

impl Shared {
    fn lock(&self) -> std::sync::MutexGuard<'_, Option<(u64, Arc<Client>)>> {
        self.client
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn install(&self, client: Client) {
        let generation = self.generation.borrow().wrapping_add(1);
        *self.lock() = Some((generation, Arc::new(client)));
        self.generation.send_replace(generation);
    }

    /// Gives up connection `generation` (if still current): the keeper drops it.
    fn abandon(&self, generation: u64) {
        let mut live = self.lock();
        if live
            .as_ref()
            .is_some_and(|(current, _)| *current == generation)
        {
            *live = None;
            drop(live);
            self.abandoned.notify_one();
        }
    }

    fn is_abandoned(&self) -> bool {
        self.lock().is_none()
    }
}

/// Drives the connection; when it ends (or is abandoned), connects again, for ever.
async fn keep(shared: Arc<Shared>, mut connection: PgConnection) {
    loop {
        let why = loop {
            tokio::select! {
                ended = &mut connection => {
                    break match ended {
                        Ok(()) => "the server closed it".to_owned(),
                        Err(error) => pg_error(error).to_string(),
                    };
                }
                () = shared.abandoned.notified() => {
                    if shared.is_abandoned() {
                        break format!("a query got no answer within {QUERY_TIMEOUT:?}");
                    }
                }
            }
        };
        *shared.lock() = None;
        drop(connection);
        tracing::warn!(reason = %why,
            "lost the PostgreSQL connection; task requests fail until it is back");
        let lost = Instant::now();
        let mut attempts = 0u32;
        let (client, next) = retry("reconnecting to PostgreSQL", || {
            attempts += 1;
            open(&shared.target)
        })
        .await;
        connection = next;
        shared.install(client);
        tracing::info!(
            down_ms = lost.elapsed().as_millis() as u64,
            attempts,
            "the PostgreSQL connection is back"
        );
    }
}

/// The live connection as one request holds it: a client that queries through
/// [`Session::bounded`].
pub(super) struct Session {
    client: Arc<Client>,
    generation: u64,
    shared: Arc<Shared>,
}

impl Session {
    /// Waits for `query` (made on this session) at most [`QUERY_TIMEOUT`]; past that, the
    /// connection is given up (the keeper connects again) and the request fails.
    pub(super) async fn bounded<T>(
        &self,
        query: impl Future<Output = Result<T, tokio_postgres::Error>>,
    ) -> Result<T, StoreError> {
        match tokio::time::timeout(QUERY_TIMEOUT, query).await {
            Ok(answer) => answer.map_err(pg_error),
            Err(_) => {
                self.shared.abandon(self.generation);
                Err(StoreError::Timeout {
                    engine: ENGINE,
                    from: "the database (reconnecting)",
                    after: QUERY_TIMEOUT,
                })
            }
        }
    }
}

impl Deref for Session {
    type Target = Client;

    fn deref(&self) -> &Client {
        &self.client
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn retries_come_at_once_then_back_off_doubling_up_to_the_cap() {
        let start = tokio::time::Instant::now();
        let mut waits = Vec::new();
        let done = retry("test", || {
            waits.push(start.elapsed());
            let attempt = waits.len();
            async move {
                if attempt < 9 {
                    Err(StoreError::backend("down"))
                } else {
                    Ok(attempt)
                }
            }
        })
        .await;
        assert_eq!(done, 9);
        let ms: Vec<u128> = waits.iter().map(Duration::as_millis).collect();
        // 0, then +100, +200, +400, +800, +1600, +3200, then +5000 (capped) each.
        assert_eq!(ms, [0, 100, 300, 700, 1500, 3100, 6300, 11300, 16300]);
    }
}
