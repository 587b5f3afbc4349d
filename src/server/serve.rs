//! Accepting connections: [`A2uiServer::serve`].
//!
//! `axum::serve` reads headers, bodies and idle keep-alive connections without a deadline,
//! accepts every connection it can and, when shutting down gracefully, waits for every
//! connection however long it takes. One client holding sockets open can then lock everyone
//! out, and one half-sent request keeps the process alive after SIGTERM. This module serves
//! each connection with hyper-util's connection builder instead, so it can set the
//! [`Limits`]: a header-read timeout, a bound on a request's head, a send timeout (a client
//! that stops taking bytes), an idle timeout (a
//! connection with a request or an SSE stream in flight is never idle), a cap on open
//! connections, and a shutdown that drains up to a deadline, ends the tasks still running
//! with a `failed` update and then exits.

use std::convert::Infallible;
use std::future::{Future, IntoFuture};
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::ConnectInfo;
use http_body_util::BodyExt;
use hyper::body::Incoming;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto;
use tokio::net::{TcpListener, TcpSocket, TcpStream};
use tokio::sync::watch;
use tokio::task::JoinSet;
use tokio::time::Instant;
use tower::ServiceExt;

use super::connections::{Idle, Slot, Slots};
use super::send_timeout::SendTimeout;
use super::{A2uiServer, Limits};

/// What a task still running at the drain deadline ends with.
pub(crate) const STOPPING: &str = "The server is stopping; the task was ended before it finished.";

/// How long, after the drain deadline, the final `failed` updates get to reach their clients.
const FINAL_GRACE: Duration = Duration::from_secs(1);

/// How long a connection closed for idleness gets to say goodbye before it is dropped.
const IDLE_GRACE: Duration = Duration::from_secs(1);

/// The default listen backlog of [`bind`]: 1024 pending connections.
pub const DEFAULT_BACKLOG: u32 = 1024;

/// Binds a listener on `address` with room for `backlog` connections waiting to be accepted
/// (a burst of clients, or clients waiting while the server is at
/// [`Limits::max_connections`]).
///
/// # Errors
///
/// The socket's error: the address is taken, not local, or not allowed.
pub fn bind(address: SocketAddr, backlog: u32) -> io::Result<TcpListener> {
    let socket = if address.is_ipv4() {
        TcpSocket::new_v4()?
    } else {
        TcpSocket::new_v6()?
    };
    #[cfg(unix)]
    socket.set_reuseaddr(true)?;
    socket.bind(address)?;
    socket.listen(backlog)
}

/// A server accepting connections on a listener; a future (`.await` it) that ends when the
/// shutdown signal has fired and the connections are drained. See [`A2uiServer::serve`].
#[must_use = "a Serve does nothing until awaited"]
pub struct Serve<S> {
    server: A2uiServer,
    listener: TcpListener,
    signal: S,
}

impl<S> std::fmt::Debug for Serve<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Serve")
            .field("server", &self.server)
            .field("listener", &self.listener)
            .finish_non_exhaustive()
    }
}

impl A2uiServer {
    /// Serves the agent on `listener` until the future returned by
    /// [`Serve::with_graceful_shutdown`] fires (without it: forever), applying the
    /// connection [`Limits`].
    ///
    /// When `listener` is bound to a loopback address and no
    /// [`allowed_hosts`](super::ServerBuilder::allowed_hosts) were set, requests whose `Host`
    /// is not a loopback name or address are refused with 403 (DNS rebinding).
    ///
    /// # Example
    ///
    /// ```no_run
    /// use a2ui_agent::{A2uiServer, AgentCard, Request};
    ///
    /// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
    /// let echo = |request: Request| async move { request.text() };
    /// let server = A2uiServer::builder(AgentCard::builder("Echo").build(), echo).build()?;
    /// let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await?;
    /// server
    ///     .serve(listener)
    ///     .with_graceful_shutdown(async { tokio::signal::ctrl_c().await.unwrap_or(()) })
    ///     .await?;
    /// # Ok(())
    /// # }
    /// ```
    pub fn serve(&self, listener: TcpListener) -> Serve<std::future::Pending<()>> {
        Serve {
            server: self.clone(),
            listener,
            signal: std::future::pending(),
        }
    }
}

impl<S> Serve<S> {
    /// Stops accepting when `signal` resolves, lets running requests and streams go on for
    /// up to [`Limits::drain_deadline`], then ends the tasks still running with a `failed`
    /// update saying the server is stopping, closes every connection left and returns.
    pub fn with_graceful_shutdown<G>(self, signal: G) -> Serve<G>
    where
        G: Future<Output = ()> + Send + 'static,
    {
        Serve {
            server: self.server,
            listener: self.listener,
            signal,
        }
    }
}

impl<S> IntoFuture for Serve<S>
where
    S: Future<Output = ()> + Send + 'static,
{
    type Output = io::Result<()>;
    type IntoFuture = Pin<Box<dyn Future<Output = io::Result<()>> + Send>>;

    fn into_future(self) -> Self::IntoFuture {
        Box::pin(run(self.server, self.listener, self.signal))
    }
}

async fn run(
    server: A2uiServer,
    listener: TcpListener,
    signal: impl Future<Output = ()> + Send,
) -> io::Result<()> {
    let limits = server.limits.clone();
    let loopback = listener.local_addr()?.ip().is_loopback();
    let router = server.app(loopback);
    let builder = Arc::new(http_builder(&limits));
    let slots = Arc::new(Slots::new(limits.max_connections));
    let (stop, stopping) = watch::channel(false);
    let mut connections = JoinSet::new();
    tokio::pin!(signal);
    loop {
        let (stream, peer) = tokio::select! {
            () = &mut signal => break,
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(error) => {
                    accept_failed(&error).await;
                    continue;
                }
            },
        };
        // No Nagle: an HTTP/2 answer (gRPC's headers, message and trailers) is several small
        // writes, and the client's delayed ACK would hold each unary call ~40 ms.
        if let Err(error) = stream.set_nodelay(true) {
            tracing::debug!(%error, "TCP_NODELAY could not be set");
        }
        // At the cap, the connection just accepted waits for a slot (and the ones after it
        // in the backlog); only a connection actually waiting makes an idle one give way.
        let vacancy = tokio::select! {
            () = &mut signal => break,
            vacancy = slots.take() => vacancy,
        };
        while connections.try_join_next().is_some() {}
        // A client that takes no bytes for the send timeout fails the connection's write,
        // which ends it (and the stream it stopped reading).
        connections.spawn(connection(
            builder.clone(),
            router.clone(),
            SendTimeout::new(stream, limits.send_timeout),
            peer,
            Idle {
                first: limits.header_read_timeout.min(limits.idle_timeout),
                later: limits.idle_timeout,
            },
            stopping.clone(),
            slots.occupy(vacancy),
        ));
    }
    drop(listener);
    drain(&server, connections, &limits, &stop).await;
    tracing::info!("stopped");
    Ok(())
}

/// The HTTP/1 and HTTP/2 connection settings the limits ask for.
fn http_builder(limits: &Limits) -> auto::Builder<TokioExecutor> {
    let mut builder = auto::Builder::new(TokioExecutor::new());
    builder
        .http1()
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_read_timeout)
        // hyper panics below its floor, so a smaller limit counts as the floor.
        .max_buf_size(
            limits
                .max_request_head_bytes
                .max(Limits::DEFAULT_MAX_REQUEST_HEAD_BYTES),
        );
    builder.http2().timer(TokioTimer::new());
    builder
}

/// Shuts down after the listener closed: tells the connections to finish, waits for them
/// and the running tasks until the drain deadline, then ends the tasks and the connections.
async fn drain(
    server: &A2uiServer,
    mut connections: JoinSet<()>,
    limits: &Limits,
    stop: &watch::Sender<bool>,
) {
    let tasks = &server.state.tasks;
    tracing::info!(
        connections = connections.len(),
        deadline_s = limits.drain_deadline.as_secs_f64(),
        "shutting down: no longer accepting, draining"
    );
    stop.send_replace(true);
    let drained = tokio::time::timeout(limits.drain_deadline, async {
        while connections.join_next().await.is_some() {}
        tasks.wait_idle().await;
    })
    .await
    .is_ok();
    if !drained {
        let running = tasks.running_count();
        tracing::warn!(
            connections = connections.len(),
            tasks = running,
            "drain deadline passed: ending the running tasks and closing connections"
        );
    }
    let _ = tokio::time::timeout(FINAL_GRACE, async {
        tasks.stop_all(STOPPING).await;
        while connections.join_next().await.is_some() {}
    })
    .await;
    connections.shutdown().await;
}

/// Logs an accept error; pauses when it is about resources (out of file descriptors), so the
/// loop does not spin while none frees.
async fn accept_failed(error: &io::Error) {
    let per_connection = matches!(
        error.kind(),
        io::ErrorKind::ConnectionAborted
            | io::ErrorKind::ConnectionReset
            | io::ErrorKind::ConnectionRefused
    );
    if per_connection {
        tracing::debug!(%error, "a connection failed before it was accepted");
    } else {
        tracing::warn!(%error, "accepting a connection failed; pausing 100 ms");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Serves one connection until it ends, it stays idle too long, or the server stops.
async fn connection(
    builder: Arc<auto::Builder<TokioExecutor>>,
    router: Router,
    stream: SendTimeout<TcpStream>,
    peer: SocketAddr,
    idle: Idle,
    mut stopping: watch::Receiver<bool>,
    slot: Slot,
) {
    let activity = slot.activity().clone();
    let evicted = slot.evicted().clone();
    let service = {
        let activity = activity.clone();
        hyper::service::service_fn(move |mut request: hyper::Request<Incoming>| {
            let in_flight = activity.enter();
            request.extensions_mut().insert(ConnectInfo(peer));
            let router = router.clone();
            async move {
                let response = router.oneshot(request.map(Body::new)).await?;
                // The request stays in flight until its response body (an SSE stream) ends.
                Ok::<_, Infallible>(response.map(|body| {
                    Body::new(body.map_frame(move |frame| {
                        let _ = &in_flight;
                        frame
                    }))
                }))
            }
        })
    };
    let connection = builder.serve_connection(TokioIo::new(stream), service);
    tokio::pin!(connection);
    let mut closing = false;
    let mut drop_at: Option<Instant> = None;
    loop {
        tokio::select! {
            result = connection.as_mut() => {
                if let Err(error) = result {
                    tracing::debug!(%peer, %error, "connection ended with an error");
                }
                return;
            }
            _ = stopping.wait_for(|stop| *stop), if !closing => {
                closing = true;
                // Ends after the request in flight; with none, at once (a half-sent request
                // would otherwise hold it until the header timeout).
                drop_at = Some(Instant::now());
                connection.as_mut().graceful_shutdown();
            }
            () = evicted.notified(), if !closing => {
                tracing::debug!(%peer, "closing an idle connection to make room for a new one");
                closing = true;
                drop_at = Some(Instant::now() + IDLE_GRACE);
                connection.as_mut().graceful_shutdown();
            }
            () = activity.idle_for(idle), if !closing => {
                tracing::debug!(%peer, "closing an idle connection");
                closing = true;
                drop_at = Some(Instant::now() + IDLE_GRACE);
                connection.as_mut().graceful_shutdown();
            }
            () = sleep_until(drop_at) => {
                if activity.in_flight() == 0 {
                    tracing::debug!(%peer, "dropping a connection with nothing in flight");
                    return;
                }
                drop_at = None;
            }
        }
    }
}

async fn sleep_until(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}
