//! The task state machine: which state may follow which, and the one function that moves a
//! task.
//!
//! Every status change of a task goes through [`transition`] (or [`settle`], which is
//! [`transition`] with a fallback to `failed`): it checks the rule table of [`Lifecycle`] and
//! writes the new [`TaskStatus`]. The state lives in the task's status and nowhere else, so
//! what the rules check is always what clients see.

use crate::a2a::{Message, Task, TaskState, TaskStatus};

use super::TaskError;

/// A task's state, changed only through legal transitions.
///
/// - `submitted` → `working`, or straight to `canceled`, `rejected` or `failed`;
/// - `working` → `working` (progress), `input-required`, `auth-required`, `completed`,
///   `failed`, `canceled`, `rejected`;
/// - `input-required` / `auth-required` → `working` (the client answered), `canceled`,
///   `failed`;
/// - terminal states (`completed`, `canceled`, `failed`, `rejected`) and `unknown` → nothing.
///
/// # Example
///
/// ```
/// use a2ui_agent::a2a::TaskState;
/// use a2ui_agent::task::Lifecycle;
///
/// let mut task = Lifecycle::new();
/// task.transition(TaskState::Working).unwrap();
/// task.transition(TaskState::InputRequired).unwrap();
/// task.transition(TaskState::Working).unwrap(); // the user answered
/// task.transition(TaskState::Completed).unwrap();
/// assert!(task.transition(TaskState::Working).is_err());
/// assert_eq!(task.state(), TaskState::Completed);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lifecycle {
    state: TaskState,
}

impl Default for Lifecycle {
    fn default() -> Self {
        Self::new()
    }
}

impl Lifecycle {
    /// A new task: `submitted`.
    pub fn new() -> Self {
        Self {
            state: TaskState::Submitted,
        }
    }

    /// A task found in `state` (e.g. read back from a store).
    pub fn resume(state: TaskState) -> Self {
        Self { state }
    }

    /// The current state.
    pub fn state(self) -> TaskState {
        self.state
    }

    /// Whether `from` → `to` is legal.
    pub fn allows(from: TaskState, to: TaskState) -> bool {
        use TaskState::*;
        match from {
            Submitted => matches!(to, Working | Canceled | Rejected | Failed),
            Working => matches!(
                to,
                Working | InputRequired | AuthRequired | Completed | Failed | Canceled | Rejected
            ),
            InputRequired | AuthRequired => matches!(to, Working | Canceled | Failed),
            Completed | Canceled | Failed | Rejected | Unknown => false,
        }
    }

    /// Moves to `to`.
    ///
    /// # Errors
    ///
    /// [`TaskError::IllegalTransition`] when the rules above forbid it; the state is then
    /// unchanged.
    pub fn transition(&mut self, to: TaskState) -> Result<(), TaskError> {
        if Self::allows(self.state, to) {
            self.state = to;
            Ok(())
        } else {
            Err(TaskError::IllegalTransition {
                from: self.state,
                to,
            })
        }
    }
}

/// Moves `task` to `to` with `message` as its status message, stamped `at`: the one way a
/// task's status changes.
///
/// # Errors
///
/// [`TaskError::IllegalTransition`] when [`Lifecycle::allows`] forbids it; the task is then
/// unchanged.
pub(crate) fn transition(
    task: &mut Task,
    to: TaskState,
    message: Option<Message>,
    at: String,
) -> Result<(), TaskError> {
    Lifecycle::resume(task.status.state).transition(to)?;
    task.status = TaskStatus {
        state: to,
        message,
        timestamp: Some(at),
    };
    Ok(())
}

/// Ends a run: moves `task` to `to`, or to `failed` when the rules forbid `to` (a server bug,
/// logged). A task that cannot fail either (it already ended) keeps its status.
pub(crate) fn settle(task: &mut Task, to: TaskState, message: Option<Message>, at: String) {
    let Err(error) = transition(task, to, message.clone(), at.clone()) else {
        return;
    };
    tracing::error!(task_id = %task.id, %error, "forcing the task to failed");
    if let Err(error) = transition(task, TaskState::Failed, message, at) {
        tracing::error!(task_id = %task.id, %error, "the task cannot fail either");
    }
}

/// Moves the task's status message (the agent's last answer, or its question) into the
/// history, before the status changes to one without it.
pub(crate) fn archive_reply(task: &mut Task) {
    if let Some(reply) = task.status.message.take() {
        task.history.push(reply);
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn a_terminal_task_accepts_no_transition() {
        for from in TaskState::ALL.into_iter().filter(|s| s.is_terminal()) {
            for to in TaskState::ALL {
                let mut task = Lifecycle::resume(from);
                assert!(task.transition(to).is_err(), "{from} -> {to}");
                assert_eq!(task.state(), from);
            }
        }
    }

    #[test]
    fn an_interrupted_task_continues_by_working_again() {
        for interrupted in [TaskState::InputRequired, TaskState::AuthRequired] {
            let mut task = Lifecycle::resume(interrupted);
            assert!(task.transition(TaskState::Completed).is_err());
            task.transition(TaskState::Working).unwrap();
        }
    }

    #[test]
    fn a_refused_transition_leaves_the_status_alone() {
        let mut task = Task::new("t", "c", TaskState::Completed);
        let before = task.status.clone();
        assert!(transition(&mut task, TaskState::Working, None, "now".into()).is_err());
        assert_eq!(task.status, before);
    }

    #[test]
    fn a_task_forced_to_failed_takes_no_later_progress() {
        // `submitted` cannot follow `working`: settling there forces `failed`, and the state
        // the rules check next is that `failed`, not the `working` the run had before.
        let mut task = Task::new("t", "c", TaskState::Working);
        settle(&mut task, TaskState::Submitted, None, "t1".into());
        assert_eq!(task.status.state, TaskState::Failed);
        assert!(transition(&mut task, TaskState::Working, None, "t2".into()).is_err());
        assert_eq!(task.status.state, TaskState::Failed);
        assert_eq!(task.status.timestamp.as_deref(), Some("t1"));
    }

    proptest! {
        /// Random event sequences: refused events leave the state unchanged, and the
        /// accepted path never breaks the protocol's rules.
        #[test]
        fn random_events_never_reach_an_illegal_state(
            events in proptest::collection::vec(0..TaskState::ALL.len(), 0..40)
        ) {
            let mut task = Lifecycle::new();
            let mut worked = false;
            for index in events {
                let to = TaskState::ALL[index];
                let before = task.state();
                match task.transition(to) {
                    Ok(()) => {
                        prop_assert!(!before.is_terminal(), "left terminal {before}");
                        prop_assert_ne!(to, TaskState::Submitted);
                        prop_assert_ne!(to, TaskState::Unknown);
                        if to == TaskState::Completed || to.is_interrupted() {
                            prop_assert!(worked, "{to} before the agent worked");
                            prop_assert_eq!(before, TaskState::Working);
                        }
                        if before.is_interrupted() {
                            prop_assert!(matches!(to, TaskState::Working | TaskState::Canceled | TaskState::Failed));
                        }
                        worked |= to == TaskState::Working;
                    }
                    Err(_) => prop_assert_eq!(task.state(), before),
                }
            }
        }
    }
}
