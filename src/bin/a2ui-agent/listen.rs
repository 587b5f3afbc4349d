//! Where a server command listens: `--host` and `--port`, one group that `serve` and
//! `orchestrate` both flatten, so the two agree on names, defaults and parsing.

use std::net::SocketAddr;

/// The address of `a2ui-agent serve` and `a2ui-agent orchestrate`.
#[derive(Debug, clap::Args)]
pub struct Listen {
    /// The address to listen on.
    #[arg(long, default_value = "127.0.0.1")]
    host: String,
    /// The port to listen on (0: any free port).
    #[arg(long, default_value_t = 8080)]
    port: u16,
}

impl Listen {
    /// The socket address: an IPv4 or IPv6 host (bracketed or not) and the port.
    ///
    /// # Errors
    ///
    /// When the host is not an IP address.
    pub fn address(&self) -> Result<SocketAddr, String> {
        format!("{}:{}", self.host, self.port)
            .parse()
            .or_else(|_| format!("[{}]:{}", self.host, self.port).parse())
            .map_err(|_| format!("--host {}: not an IP address", self.host))
    }
}
