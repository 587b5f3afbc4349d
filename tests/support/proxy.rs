//! A TCP proxy that can cut every connection it carries and refuse new ones: what a dropped
//! stream looks like to a client, for the tests of `Client::follow` (against our server and
//! against the SDK servers).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use tokio::net::{TcpListener, TcpStream};
use tokio::task::AbortHandle;

/// A proxy to one upstream address.
pub struct Proxy {
    open: Mutex<Vec<AbortHandle>>,
    refusing: AtomicBool,
}

impl Proxy {
    /// Starts a proxy to `upstream` on `listener`.
    pub fn start(listener: TcpListener, upstream: std::net::SocketAddr) -> Arc<Self> {
        let proxy = Arc::new(Proxy {
            open: Mutex::default(),
            refusing: AtomicBool::new(false),
        });
        let shared = proxy.clone();
        tokio::spawn(async move {
            loop {
                let Ok((mut downstream, _)) = listener.accept().await else {
                    return;
                };
                if shared.refusing.load(Ordering::SeqCst) {
                    drop(downstream);
                    continue;
                }
                let carried = tokio::spawn(async move {
                    if let Ok(mut upstream) = TcpStream::connect(upstream).await {
                        let _ = tokio::io::copy_bidirectional(&mut downstream, &mut upstream).await;
                    }
                });
                shared.open.lock().unwrap().push(carried.abort_handle());
            }
        });
        proxy
    }

    /// Cuts every connection and refuses new ones until [`Proxy::reopen`].
    pub fn cut(&self) {
        self.refusing.store(true, Ordering::SeqCst);
        for connection in self.open.lock().unwrap().drain(..) {
            connection.abort();
        }
    }

    /// Lets connections in again.
    pub fn reopen(&self) {
        self.refusing.store(false, Ordering::SeqCst);
    }
}
