//! Why a task operation was refused, and the JSON-RPC error each reason becomes.

use std::sync::Arc;

use crate::a2a::TaskState;
use crate::a2a::jsonrpc::{ErrorCode, RpcError};
use crate::store::StoreError;

/// Why a task operation was refused.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum TaskError {
    /// No task with this id (-32001).
    #[error("Task not found: {id}")]
    NotFound {
        /// The id asked for.
        id: String,
    },
    /// Cancel of a task that cannot be canceled: it already ended, or the instance that runs
    /// it did not stop it in time (-32002).
    #[error("Task cannot be canceled: {id} is {state}")]
    NotCancelable {
        /// The task.
        id: String,
        /// The state it was in when the cancel was refused: a terminal one, or `submitted`
        /// or `working` when the instance running it did not cancel it in time.
        state: TaskState,
    },
    /// A message or resubscribe to a task that already stopped (-32004).
    #[error("Unsupported operation: task {id} is {state}")]
    Terminal {
        /// The task.
        id: String,
        /// Its terminal state.
        state: TaskState,
    },
    /// A message to a task the agent is still working on (-32004).
    #[error("Unsupported operation: task {id} is {state}; wait for it to ask for input")]
    Busy {
        /// The task.
        id: String,
        /// Its state.
        state: TaskState,
    },
    /// The message's `contextId` is not the task's (-32602).
    #[error("params.message.contextId: {given:?} is not the context {expected:?} of task {id}")]
    ContextMismatch {
        /// The task.
        id: String,
        /// The task's context.
        expected: String,
        /// The message's context.
        given: String,
    },
    /// A transition the lifecycle forbids (-32603: a server bug).
    #[error("illegal task transition from {from} to {to}")]
    IllegalTransition {
        /// The state the task is in.
        from: TaskState,
        /// The state asked for.
        to: TaskState,
    },
    /// A resubscribe to a task that already has as many stream subscribers as the server
    /// lets one task have (-32000, "server busy": retry later).
    #[error("Server busy: task {id} has as many stream subscribers as it may ({max}); retry later")]
    TooManySubscribers {
        /// The task.
        id: String,
        /// The server's cap.
        max: usize,
    },
    /// A push notification config for a task that holds as many as it may (-32602).
    #[error(
        "Invalid params: task {id} holds as many push notification configs as it may ({max}); \
         delete one first"
    )]
    TooManyPushConfigs {
        /// The task.
        id: String,
        /// The server's cap.
        max: usize,
    },
    /// A `ListTasks` page token this server did not write (-32602).
    #[error("params.pageToken: not a page token this server wrote")]
    BadPageToken,
    /// The task store failed (-32603).
    #[error("task store: {0}")]
    Store(#[from] StoreError),
    /// Starting the task stopped before it was stored and running (it panicked, or the
    /// runtime is shutting down) (-32603).
    #[error("starting the task stopped: {0}")]
    StartStopped(#[source] Arc<tokio::task::JoinError>),
    /// The server stopped (its drain deadline passed) while the agent was still deciding
    /// its answer to a message that starts a task (-32603).
    #[error("The server is stopping; the request was ended before the agent answered.")]
    Stopping,
}

/// What a client is told when the task store takes no writes (disk full, read-only).
const STORE_CANNOT_WRITE: &str = "The task could not be stored: the server's task store takes no writes now (full or read-only); retry later";

impl From<TaskError> for RpcError {
    fn from(error: TaskError) -> Self {
        let code = match &error {
            TaskError::NotFound { .. } => ErrorCode::TaskNotFound,
            TaskError::NotCancelable { .. } => ErrorCode::TaskNotCancelable,
            TaskError::Terminal { .. } | TaskError::Busy { .. } => ErrorCode::UnsupportedOperation,
            TaskError::ContextMismatch { .. }
            | TaskError::BadPageToken
            | TaskError::TooManyPushConfigs { .. } => ErrorCode::InvalidParams,
            TaskError::TooManySubscribers { .. } => ErrorCode::ServerBusy,
            TaskError::Store(StoreError::Unsupported(_)) => ErrorCode::UnsupportedOperation,
            TaskError::Store(full) if full.is_full() => {
                // How full is none of the client's business; it only needs to retry.
                return RpcError::new(
                    ErrorCode::ServerBusy,
                    "Server busy: the task store is full of running tasks; retry later",
                );
            }
            TaskError::Store(store) if store.cannot_write() => {
                // What the client can act on (retry later or elsewhere); not the file or why.
                return RpcError::new(ErrorCode::InternalError, STORE_CANNOT_WRITE);
            }
            // Said as it is: the client may retry elsewhere.
            TaskError::Stopping => {
                return RpcError::new(ErrorCode::InternalError, error.to_string());
            }
            TaskError::IllegalTransition { .. }
            | TaskError::Store(_)
            | TaskError::StartStopped(_) => {
                return RpcError::internal();
            }
        };
        let task_id = match &error {
            TaskError::NotFound { id }
            | TaskError::NotCancelable { id, .. }
            | TaskError::Terminal { id, .. }
            | TaskError::Busy { id, .. }
            | TaskError::ContextMismatch { id, .. }
            | TaskError::TooManySubscribers { id, .. }
            | TaskError::TooManyPushConfigs { id, .. } => Some(id.clone()),
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
    use super::*;

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
}
