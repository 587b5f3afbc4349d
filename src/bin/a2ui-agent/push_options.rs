//! The `serve` options of push notifications: on or off, what the SSRF guard lets through,
//! and the delivery timeouts, retries and limits.

use std::time::Duration;

use a2ui_agent::push::PushSettings;
use a2ui_agent::server::ServerBuilder;

/// Push notifications of `a2ui-agent serve`.
#[derive(Debug, clap::Args)]
pub struct PushArgs {
    /// Turn push notifications on: clients may register webhooks for their tasks, and every
    /// status and artifact update is POSTed to them. Webhooks must be https on public
    /// addresses unless the options below allow more.
    #[arg(long)]
    push: bool,
    /// Allow plain http webhook URLs (development and tests only).
    #[arg(long, requires = "push")]
    push_allow_http: bool,
    /// A webhook host (name or address) that skips the address check, say a receiver on
    /// this machine; repeatable.
    #[arg(long, value_name = "HOST", requires = "push")]
    push_allow_host: Vec<String>,
    /// Seconds one delivery attempt may take, connecting included.
    #[arg(long, value_name = "SECONDS", requires = "push",
        default_value_t = PushSettings::DEFAULT_TIMEOUT.as_secs_f64())]
    push_timeout: f64,
    /// How many times one update is tried before it is given up on.
    #[arg(long, value_name = "N", requires = "push",
        default_value_t = PushSettings::DEFAULT_MAX_ATTEMPTS)]
    push_max_attempts: u32,
    /// Seconds before the first retry (doubling, with jitter, up to 30 s).
    #[arg(long, value_name = "SECONDS", requires = "push",
        default_value_t = PushSettings::DEFAULT_FIRST_RETRY.as_secs_f64())]
    push_first_retry: f64,
    /// How many updates may wait for one webhook; more are dropped, logged and counted.
    #[arg(long, value_name = "N", requires = "push",
        default_value_t = PushSettings::DEFAULT_QUEUE)]
    push_queue: usize,
    /// How many webhooks one task may have.
    #[arg(long, value_name = "N", requires = "push",
        default_value_t = PushSettings::DEFAULT_MAX_CONFIGS_PER_TASK)]
    push_max_configs: usize,
    /// The longest webhook URL taken, in bytes.
    #[arg(long, value_name = "BYTES", requires = "push",
        default_value_t = PushSettings::DEFAULT_MAX_URL_LEN)]
    push_max_url_len: usize,
}

impl PushArgs {
    /// `builder` with push on as the options say, or as it is when `--push` is absent.
    pub fn apply(self, builder: ServerBuilder) -> Result<ServerBuilder, String> {
        if !self.push {
            return Ok(builder);
        }
        let seconds = |value: f64, flag: &str| {
            Duration::try_from_secs_f64(value)
                .ok()
                .filter(|wait| *wait <= Duration::from_secs(3600))
                .ok_or_else(|| format!("{flag}: {value} is not 0 to 3600 seconds"))
        };
        let mut settings = PushSettings::default()
            .allow_http(self.push_allow_http)
            .timeout(seconds(self.push_timeout, "--push-timeout")?)
            .max_attempts(self.push_max_attempts)
            .retry_waits(
                seconds(self.push_first_retry, "--push-first-retry")?,
                PushSettings::DEFAULT_MAX_RETRY,
            )
            .queue(self.push_queue)
            .max_configs_per_task(self.push_max_configs)
            .max_url_len(self.push_max_url_len);
        for host in self.push_allow_host {
            settings = settings.allow_host(host);
        }
        if settings.allow_http || !settings.allow_hosts.is_empty() {
            tracing::warn!(allow_http = settings.allow_http, allow_hosts = ?settings.allow_hosts,
                "push notifications may reach more than public https webhooks");
        }
        Ok(builder.push(settings))
    }
}
