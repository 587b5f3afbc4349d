//! [`TaskState`]: where a task is in its lifecycle, and its protocol names.

use std::fmt;

/// The state of a task.
///
/// `submitted` → `working` → `input-required` | `auth-required` | `completed` | `failed` |
/// `canceled` | `rejected`; an interrupted task (`input-required`, `auth-required`) goes back to
/// `working` when the client answers. The task lifecycle (`task::Lifecycle`) enforces the
/// transitions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TaskState {
    /// Received, not started.
    Submitted,
    /// The agent runs.
    Working,
    /// The agent waits for the user.
    InputRequired,
    /// The agent waits for authentication.
    AuthRequired,
    /// Done.
    Completed,
    /// Stopped by the client.
    Canceled,
    /// The agent failed.
    Failed,
    /// The agent refused the task.
    Rejected,
    /// Unknown state.
    Unknown,
}

impl TaskState {
    /// Every state, in the order the specification lists them.
    pub const ALL: [TaskState; 9] = [
        TaskState::Submitted,
        TaskState::Working,
        TaskState::InputRequired,
        TaskState::Completed,
        TaskState::Canceled,
        TaskState::Failed,
        TaskState::Rejected,
        TaskState::AuthRequired,
        TaskState::Unknown,
    ];

    /// Whether no transition leaves this state: completed, canceled, failed, rejected.
    ///
    /// # Example
    ///
    /// ```
    /// use a2ui_agent::a2a::TaskState;
    ///
    /// assert!(TaskState::Completed.is_terminal());
    /// assert!(!TaskState::InputRequired.is_terminal());
    /// ```
    pub fn is_terminal(self) -> bool {
        matches!(
            self,
            TaskState::Completed | TaskState::Canceled | TaskState::Failed | TaskState::Rejected
        )
    }

    /// Whether the task waits for the client: input-required or auth-required.
    pub fn is_interrupted(self) -> bool {
        matches!(self, TaskState::InputRequired | TaskState::AuthRequired)
    }

    /// Whether the agent is done with the task, for good or for now: terminal or
    /// interrupted. A task stops running in a settled state.
    ///
    /// # Example
    ///
    /// ```
    /// use a2ui_agent::a2a::TaskState;
    ///
    /// assert!(TaskState::InputRequired.is_settled());
    /// assert!(TaskState::Failed.is_settled());
    /// assert!(!TaskState::Working.is_settled());
    /// ```
    pub fn is_settled(self) -> bool {
        self.is_terminal() || self.is_interrupted()
    }

    /// The protocol name of the state (`"input-required"`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            TaskState::Submitted => "submitted",
            TaskState::Working => "working",
            TaskState::InputRequired => "input-required",
            TaskState::AuthRequired => "auth-required",
            TaskState::Completed => "completed",
            TaskState::Canceled => "canceled",
            TaskState::Failed => "failed",
            TaskState::Rejected => "rejected",
            TaskState::Unknown => "unknown",
        }
    }

    /// The state named `name` (`"input-required"`, ...).
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|state| state.as_str() == name)
    }
}

impl fmt::Display for TaskState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Reads a state's protocol name, as [`TaskState::from_name`].
///
/// # Example
///
/// ```
/// use a2ui_agent::a2a::TaskState;
///
/// assert_eq!("input-required".parse(), Ok(TaskState::InputRequired));
/// assert_eq!(
///     "done".parse::<TaskState>().unwrap_err().to_string(),
///     "unknown task state 'done' (expected one of submitted, working, input-required, \
///      completed, canceled, failed, rejected, auth-required, unknown)"
/// );
/// ```
impl std::str::FromStr for TaskState {
    type Err = UnknownTaskState;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        Self::from_name(name).ok_or_else(|| UnknownTaskState(name.to_owned()))
    }
}

/// A name that is not a task state (the [`FromStr`](std::str::FromStr) error of
/// [`TaskState`]); holds the name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown task state '{}' (expected one of {})", .0, state_names())]
pub struct UnknownTaskState(pub String);

/// Every task state's name, for [`UnknownTaskState`].
fn state_names() -> String {
    let names: Vec<&str> = TaskState::ALL.iter().map(|s| s.as_str()).collect();
    names.join(", ")
}
