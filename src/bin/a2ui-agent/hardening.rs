//! The `serve` options that protect the server: limits, allowed hosts, auth and CORS. One
//! flattened group, so `serve`'s own options stay readable and each group merges on its own.

use std::time::Duration;

use a2ui_agent::server::{DEFAULT_BACKLOG, Limits, ServerBuilder};

/// Limits, hosts, authentication and CORS of `a2ui-agent serve`.
#[derive(Debug, clap::Args)]
pub struct Hardening {
    /// Seconds a client may take to send a request's headers.
    #[arg(long, value_name = "SECONDS", value_parser = seconds,
          default_value_t = Limits::DEFAULT_HEADER_READ_TIMEOUT.as_secs_f64())]
    header_read_timeout: f64,
    /// The most bytes an HTTP/1.1 request line and headers may take (then 431); at least
    /// 8192. Each open connection keeps a read buffer of this size.
    #[arg(long, value_name = "BYTES", default_value_t = Limits::DEFAULT_MAX_REQUEST_HEAD_BYTES)]
    max_request_head_bytes: usize,
    /// Seconds a client may take to send a request body (then 408).
    #[arg(long, value_name = "SECONDS", value_parser = seconds,
          default_value_t = Limits::DEFAULT_BODY_TIMEOUT.as_secs_f64())]
    body_timeout: f64,
    /// Seconds a client may take no bytes while the server has some for it (a stream it
    /// stopped reading); then its connection is closed (0: never).
    #[arg(long, value_name = "SECONDS", value_parser = seconds,
          default_value_t = Limits::DEFAULT_SEND_TIMEOUT.as_secs_f64())]
    send_timeout: f64,
    /// Seconds a connection may stay open with no request or stream in flight.
    #[arg(long, value_name = "SECONDS", value_parser = seconds,
          default_value_t = Limits::DEFAULT_IDLE_TIMEOUT.as_secs_f64())]
    idle_timeout: f64,
    /// The most connections open at once; more wait in the listen backlog.
    #[arg(long, default_value_t = Limits::DEFAULT_MAX_CONNECTIONS)]
    max_connections: usize,
    /// The listen backlog: connections waiting to be accepted.
    #[arg(long, default_value_t = DEFAULT_BACKLOG)]
    backlog: u32,
    /// Seconds running streams may go on after SIGTERM or Ctrl-C before their tasks are
    /// ended `failed` and the server exits.
    #[arg(long, value_name = "SECONDS", value_parser = seconds,
          default_value_t = Limits::DEFAULT_DRAIN_DEADLINE.as_secs_f64())]
    drain_deadline: f64,
    /// The most tasks running at once; beyond it, a "server busy" error.
    #[arg(long, default_value_t = Limits::DEFAULT_MAX_RUNNING_TASKS)]
    max_running_tasks: usize,
    /// The most tasks one client may have running at once.
    #[arg(long, default_value_t = Limits::DEFAULT_MAX_RUNNING_TASKS_PER_CLIENT)]
    max_running_tasks_per_client: usize,
    /// The largest request body in bytes (then 413).
    #[arg(long, value_name = "BYTES", default_value_t = ServerBuilder::DEFAULT_BODY_LIMIT)]
    body_limit: usize,
    /// The most parts one message may have (then -32602, or 400).
    #[arg(long, default_value_t = Limits::default().max_parts_per_message)]
    max_parts_per_message: usize,
    /// The most bytes one part may take as sent (then -32602, or 400).
    #[arg(long, value_name = "BYTES", default_value_t = Limits::default().max_part_bytes)]
    max_part_bytes: usize,
    /// The most bytes one message may take as sent (then -32602, or 400).
    #[arg(long, value_name = "BYTES", default_value_t = Limits::default().max_message_bytes)]
    max_message_bytes: usize,
    /// The most JSON values one request body may hold (then -32602, or 400).
    #[arg(long, default_value_t = Limits::default().max_json_values)]
    max_json_values: usize,
    /// How many proxies in front of the server append the client's address to
    /// X-Forwarded-For; the per-client cap then keys clients by the entry the outermost one
    /// appended (the Nth from the right). Default 0: the peer's IP address.
    #[arg(long, value_name = "N", default_value_t = 0)]
    trusted_proxies: usize,
    /// The header the trusted proxies write the client into instead of X-Forwarded-For
    /// (e.g. X-Real-IP), read right to left like it, with at least one trusted hop.
    #[arg(long, value_name = "HEADER")]
    client_key_header: Option<String>,
    /// Cancel a task when its `message/stream` client disconnects (saves a real model's
    /// tokens; the client can then not resubscribe).
    #[arg(long)]
    cancel_on_disconnect: bool,
    /// A host name the server answers for (repeatable); default: on a loopback address,
    /// loopback names only; otherwise any.
    #[arg(long = "allowed-host", value_name = "HOST")]
    allowed_hosts: Vec<String>,
    /// Require the token in this environment variable on every API request (JSON-RPC and
    /// HTTP+JSON), as
    /// `Authorization: Bearer <token>` or `X-API-Key: <token>`.
    #[arg(long, value_name = "VAR")]
    auth_token_env: Option<String>,
    /// A browser origin allowed to call the agent (repeatable; `*` for any).
    #[arg(long = "cors-origin", value_name = "ORIGIN")]
    cors_origins: Vec<String>,
    /// Several callers, each seeing only its own tasks.
    #[command(flatten)]
    callers: crate::callers::Callers,
}

impl Hardening {
    /// The listen backlog.
    pub fn backlog(&self) -> u32 {
        self.backlog
    }

    /// `builder` with these options.
    ///
    /// # Errors
    ///
    /// When the variable named by `--auth-token-env` is unset or empty.
    pub async fn apply(self, mut builder: ServerBuilder) -> Result<ServerBuilder, String> {
        let limits = Limits {
            header_read_timeout: Duration::from_secs_f64(self.header_read_timeout),
            max_request_head_bytes: self.max_request_head_bytes,
            body_timeout: Duration::from_secs_f64(self.body_timeout),
            send_timeout: Duration::from_secs_f64(self.send_timeout),
            idle_timeout: Duration::from_secs_f64(self.idle_timeout),
            max_connections: self.max_connections,
            drain_deadline: Duration::from_secs_f64(self.drain_deadline),
            max_running_tasks: self.max_running_tasks,
            max_running_tasks_per_client: self.max_running_tasks_per_client,
            trusted_proxies: self.trusted_proxies,
            client_key_header: self.client_key_header,
            max_parts_per_message: self.max_parts_per_message,
            max_part_bytes: self.max_part_bytes,
            max_message_bytes: self.max_message_bytes,
            max_json_values: self.max_json_values,
        };
        builder = builder
            .limits(limits)
            .body_limit(self.body_limit)
            .cancel_on_disconnect(self.cancel_on_disconnect)
            .cors_origins(self.cors_origins);
        if !self.allowed_hosts.is_empty() {
            builder = builder.allowed_hosts(self.allowed_hosts);
        }
        if let Some(var) = self.auth_token_env {
            match std::env::var(&var) {
                Ok(token) if !token.is_empty() => builder = builder.auth_token(token),
                _ => return Err(format!("--auth-token-env: ${var} is unset or empty")),
            }
        }
        self.callers.apply(builder).await
    }
}

/// A number of seconds, at least 0 and at most a day.
fn seconds(text: &str) -> Result<f64, String> {
    let value: f64 = text
        .parse()
        .map_err(|_| format!("'{text}' is not a number of seconds"))?;
    if (0.0..=86_400.0).contains(&value) {
        Ok(value)
    } else {
        Err(format!("{text} seconds is out of range (0 to 86400)"))
    }
}
