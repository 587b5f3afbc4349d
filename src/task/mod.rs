//! Task lifecycle: creating, continuing, running, canceling and keeping A2A tasks.
//!
//! An A2A task moves through states (`submitted` → `working` → `input-required` | `completed`
//! | ...); the rules live in one place, [`Lifecycle`], so no code path can put a task in a
//! state the protocol forbids. The runner that drives an agent for a task, feeds its output
//! through the output pipeline and fans events out to stream subscribers is crate-private;
//! the pieces users can replace are public: the [`TaskStore`](crate::store::TaskStore), the
//! [`Clock`](crate::clock::Clock) and the [`IdGenerator`].

mod answer;
mod ids;
pub(crate) mod manager;
mod running;

use std::fmt;

pub(crate) use answer::Begun;
pub use ids::{IdGenerator, SequentialIds, UuidIds};

use crate::a2a::TaskState;
use crate::a2a::jsonrpc::{ErrorCode, RpcError};
use crate::store::StoreError;

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

/// Why a task operation was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TaskError {
    /// No task with this id (-32001).
    NotFound {
        /// The id asked for.
        id: String,
    },
    /// Cancel of a task that already stopped (-32002).
    NotCancelable {
        /// The task.
        id: String,
        /// Its terminal state.
        state: TaskState,
    },
    /// A message or resubscribe to a task that already stopped (-32004).
    Terminal {
        /// The task.
        id: String,
        /// Its terminal state.
        state: TaskState,
    },
    /// A message to a task the agent is still working on (-32004).
    Busy {
        /// The task.
        id: String,
        /// Its state.
        state: TaskState,
    },
    /// The message's `contextId` is not the task's (-32602).
    ContextMismatch {
        /// The task.
        id: String,
        /// The task's context.
        expected: String,
        /// The message's context.
        given: String,
    },
    /// A transition the lifecycle forbids (-32603: a server bug).
    IllegalTransition {
        /// The state the task is in.
        from: TaskState,
        /// The state asked for.
        to: TaskState,
    },
    /// A `ListTasks` page token this server did not write (-32602).
    BadPageToken,
    /// The task store failed (-32603).
    Store(StoreError),
}

impl fmt::Display for TaskError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TaskError::NotFound { id } => write!(f, "Task not found: {id}"),
            TaskError::NotCancelable { id, state } => {
                write!(f, "Task cannot be canceled: {id} is {state}")
            }
            TaskError::Terminal { id, state } => {
                write!(f, "Unsupported operation: task {id} is {state}")
            }
            TaskError::Busy { id, state } => write!(
                f,
                "Unsupported operation: task {id} is {state}; wait for it to ask for input"
            ),
            TaskError::ContextMismatch {
                id,
                expected,
                given,
            } => write!(
                f,
                "params.message.contextId: {given:?} is not the context {expected:?} of task {id}"
            ),
            TaskError::IllegalTransition { from, to } => {
                write!(f, "illegal task transition from {from} to {to}")
            }
            TaskError::BadPageToken => {
                f.write_str("params.pageToken: not a page token this server wrote")
            }
            TaskError::Store(error) => write!(f, "task store: {error}"),
        }
    }
}

impl std::error::Error for TaskError {}

impl From<StoreError> for TaskError {
    fn from(error: StoreError) -> Self {
        TaskError::Store(error)
    }
}

impl From<TaskError> for RpcError {
    fn from(error: TaskError) -> Self {
        let code = match &error {
            TaskError::NotFound { .. } => ErrorCode::TaskNotFound,
            TaskError::NotCancelable { .. } => ErrorCode::TaskNotCancelable,
            TaskError::Terminal { .. } | TaskError::Busy { .. } => ErrorCode::UnsupportedOperation,
            TaskError::ContextMismatch { .. } | TaskError::BadPageToken => ErrorCode::InvalidParams,
            TaskError::Store(StoreError::Unsupported(_)) => ErrorCode::UnsupportedOperation,
            TaskError::Store(full) if full.is_full() => {
                // How full is none of the client's business; it only needs to retry.
                return RpcError::new(
                    ErrorCode::ServerBusy,
                    "Server busy: the task store is full of running tasks; retry later",
                );
            }
            TaskError::IllegalTransition { .. } | TaskError::Store(_) => {
                return RpcError::internal();
            }
        };
        let task_id = match &error {
            TaskError::NotFound { id }
            | TaskError::NotCancelable { id, .. }
            | TaskError::Terminal { id, .. }
            | TaskError::Busy { id, .. }
            | TaskError::ContextMismatch { id, .. } => Some(id.clone()),
            _ => None,
        };
        let rpc = RpcError::new(code, error.to_string());
        match task_id {
            // 1.0 clients find it in the ErrorInfo's metadata.
            Some(id) => rpc.with_data(serde_json::json!({"taskId": id})),
            None => rpc,
        }
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
    fn a_full_store_answers_busy() {
        for full in [
            StoreError::Full { capacity: 3 },
            StoreError::OverBudget { max_bytes: 3 },
        ] {
            let error = RpcError::from(TaskError::Store(full));
            assert_eq!(error.code, ErrorCode::ServerBusy);
            assert!(
                error.message.starts_with("Server busy"),
                "{}",
                error.message
            );
        }
    }

    #[test]
    fn illegal_transitions_become_internal_errors_without_detail() {
        let error = RpcError::from(TaskError::IllegalTransition {
            from: TaskState::Completed,
            to: TaskState::Working,
        });
        assert_eq!(error.code, ErrorCode::InternalError);
        assert!(!error.message.contains("completed"));
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
