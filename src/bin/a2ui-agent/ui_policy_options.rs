//! The `--ui-*` options: where a URL in a reply's UI may point. One group that `serve` (for
//! its model's A2UI) and `orchestrate` (for its sub-agents') both flatten, so the two judge
//! URLs by the same flags.

use a2ui_agent::pipeline::{DEFAULT_DATA_URL_MAX, UrlPolicy};

/// The URL and media policy of a server command's replies.
#[derive(Debug, clap::Args)]
pub struct UiPolicyArgs {
    /// A host whose URLs a reply's UI may show without their having appeared in the
    /// conversation (and which skips the address check); repeatable.
    #[arg(long, value_name = "HOST")]
    ui_allow_host: Vec<String>,
    /// Whether a URL in a reply's UI must have appeared in the conversation (the user's
    /// messages, tool results, the agent's instructions): `on` or `off`.
    #[arg(long, value_name = "on|off", default_value = "on", value_parser = on_off)]
    ui_url_provenance: bool,
    /// The largest `data:` image URL a reply's UI may hold, in bytes (0: none).
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_DATA_URL_MAX)]
    ui_data_url_max: usize,
}

impl UiPolicyArgs {
    /// The URL policy the flags set.
    pub fn policy(&self) -> UrlPolicy {
        let policy = UrlPolicy::default()
            .provenance(self.ui_url_provenance)
            .data_url_max(self.ui_data_url_max);
        self.ui_allow_host
            .iter()
            .fold(policy, |policy, host| policy.allow_host(host.as_str()))
    }
}

/// `on` or `off`.
fn on_off(text: &str) -> Result<bool, String> {
    match text {
        "on" => Ok(true),
        "off" => Ok(false),
        other => Err(format!("expected on or off, not '{other}'")),
    }
}
