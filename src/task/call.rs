//! Calling the agent: a panic in its call or its future caught, and what the client is told
//! when it fails (the message, never the detail, which goes to the log under an error id).
//!
//! Both the run's answer and the answer given before a task exists call the agent this way.

use std::any::Any;
use std::panic::AssertUnwindSafe;

use futures::future::FutureExt;

use super::handoff::{Failure, Outcome};
use super::manager::{Running, TaskManager};
use crate::agent::{AgentError, Reply};
use crate::request::Request;

/// Calls the agent, catching a panic in the call or in its future.
pub(super) async fn call(tasks: &TaskManager, request: Request) -> Result<Reply, Failure> {
    let request = request.with_reply_policy(tasks.repair.clone());
    let call = std::panic::catch_unwind(AssertUnwindSafe(|| tasks.agent.call(request)));
    let reply = match call {
        Ok(future) => AssertUnwindSafe(future).catch_unwind().await,
        Err(panic) => Err(panic),
    };
    match reply {
        Ok(Ok(reply)) => Ok(reply),
        Ok(Err(error)) => Err(Failure::Agent(error)),
        Err(panic) => Err(Failure::Panic(panic)),
    }
}

/// The outcome of a run whose agent failed.
pub(super) fn failed(tasks: &TaskManager, running: &Running, failure: Failure) -> Outcome {
    match failure {
        Failure::Agent(error) => Outcome::Failed(shown(tasks, &error)),
        Failure::Panic(panic) => panicked(running, &*panic),
    }
}

/// What the client is told of the agent's `error`: its message, and when it has a
/// detail (logged here, never sent) the id the log names it by.
fn shown(tasks: &TaskManager, error: &AgentError) -> String {
    let Some(detail) = error.detail() else {
        return error.message().to_owned();
    };
    let error_id = tasks.ids.new_id();
    tracing::error!(%error_id, %detail, "the agent failed");
    crate::observe::trace::error_id(&error_id);
    let message = error.message().trim_end_matches('.');
    format!("{message} (error id {error_id}).")
}

/// Logs an agent's panic; the client sees only that the agent failed.
pub(super) fn panicked(running: &Running, panic: &(dyn Any + Send)) -> Outcome {
    let detail = panic
        .downcast_ref::<&str>()
        .map(|text| (*text).to_owned())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_default();
    tracing::error!(task_id = %running.snapshot().id, panic = %detail, "agent panicked");
    Outcome::Failed("The agent failed unexpectedly.".to_owned())
}
