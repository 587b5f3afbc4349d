//! What the server does with a finished A2UI message that does not validate: the
//! [`OnInvalid`] policy and how many repair turns a reply may take.
//!
//! It lives apart from the guard that applies it because the server's builder and command
//! line set it, and they need nothing else of the pipeline.

use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

use super::hosts::HostCheck;
use super::url_policy::UrlPolicy;

/// What the server does with a finished A2UI message that does not validate.
///
/// # Example
///
/// ```
/// use a2ui_agent::OnInvalid;
///
/// assert_eq!("fail".parse::<OnInvalid>(), Ok(OnInvalid::Fail));
/// assert_eq!(OnInvalid::default(), OnInvalid::Repair);
/// assert!("retry".parse::<OnInvalid>().is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OnInvalid {
    /// Hold it back and call the agent again with the validation errors (see
    /// [`Request::repairs`](crate::request::Request::repairs)), up to the server's `max_repairs` times; then fail the task
    /// with the errors. The default.
    #[default]
    Repair,
    /// Hold it back and fail the task with the validation errors.
    Fail,
    /// Send it as it is. For pass-through setups (conformance suites) where the client
    /// judges the messages itself.
    Forward,
}

impl FromStr for OnInvalid {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text {
            "repair" => Ok(OnInvalid::Repair),
            "fail" => Ok(OnInvalid::Fail),
            "forward" => Ok(OnInvalid::Forward),
            other => Err(format!(
                "unknown policy '{other}' (expected repair, fail or forward)"
            )),
        }
    }
}

impl fmt::Display for OnInvalid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            OnInvalid::Repair => "repair",
            OnInvalid::Fail => "fail",
            OnInvalid::Forward => "forward",
        })
    }
}

/// The server's policy: what to do, how many repair turns a reply may take, and where the
/// URLs a reply shows may point (with the resolver that judges their host names).
#[derive(Debug, Clone)]
pub(crate) struct RepairPolicy {
    pub(crate) on_invalid: OnInvalid,
    pub(crate) max_repairs: usize,
    pub(crate) urls: Arc<UrlPolicy>,
    pub(crate) hosts: Arc<HostCheck>,
}

impl Default for RepairPolicy {
    fn default() -> Self {
        Self {
            on_invalid: OnInvalid::Repair,
            max_repairs: 2,
            urls: Arc::default(),
            hosts: Arc::default(),
        }
    }
}
