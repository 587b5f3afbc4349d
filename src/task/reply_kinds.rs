//! The reply kinds beyond text: a bare message before any task, artifacts, status text, and
//! the explicit outcomes (completed, input-required, auth-required, rejected, failed).
//!
//! A2A lets the agent's first answer decide whether a task exists at all: a bare `Message`
//! answers without one. So when the client waits for the answer (a blocking send, a
//! stream) and the message starts no task, the runner calls the agent *before* the task is
//! created ([`TaskManager::answer_first`]); only a reply that is not a bare message creates
//! and stores it. A store without room refuses first (`TaskStore::has_room`), so a full
//! store still turns the client away before the agent works. A non-blocking send returns its task at once, before the agent has
//! answered; there, as in a continued task, a bare message is an invalid agent response.

use super::TaskError;
use super::call;
use super::handoff::{Begun, First, Outcome};
use super::lifecycle::transition;
use super::manager::{Running, TaskManager, agent_message, status_event};
use crate::a2a::{Artifact, Message, Part, StreamEvent, Task, TaskArtifactUpdateEvent, TaskState};
use crate::agent::{ArtifactChunk, Reply, status_part};
use crate::request::prepared::Prepared;

/// Where the artifacts of one reply go: the id an empty-id chunk appends to.
#[derive(Default)]
pub(super) struct ArtifactLog {
    latest: Option<String>,
}

/// For a message that starts a new task: builds its request and calls the agent before
/// the task exists. A bare message answers the send (`Ok(Err)`); anything else is what
/// the task starts with. A store without room for the task refuses before the agent is
/// called.
pub(super) async fn answer_first(
    tasks: &TaskManager,
    prepared: Prepared,
) -> Result<Result<(Message, First), Begun>, TaskError> {
    tasks.store.has_room().await?;
    let Prepared {
        mut message,
        decided,
    } = prepared;
    let context_id = message
        .context_id
        .clone()
        .unwrap_or_else(|| tasks.ids.new_id());
    let task_id = tasks.ids.new_id();
    message.context_id = Some(context_id.clone());
    let mut filed = message.clone();
    filed.task_id = Some(task_id.clone());
    let (request, activated) = decided.into_request(filed, &task_id, &context_id, Vec::new());
    let called = match &request {
        // Counted, so that a shutdown stops it: no task runs it yet.
        Ok(request) => Some(
            tasks
                .deciding
                .run(call::call(tasks, request.clone()))
                .await?,
        ),
        Err(_) => None,
    };
    if let Some(Ok(Reply::Message { parts })) = called {
        let mut answer = Message::agent(tasks.ids.new_id(), parts);
        answer.context_id = Some(context_id);
        tracing::debug!(context_id = ?answer.context_id, "answered with a bare message");
        return Ok(Err(Begun::Message {
            message: answer,
            activated,
        }));
    }
    Ok(Ok((
        message,
        First {
            task_id,
            context_id,
            request,
            activated,
            called,
        },
    )))
}

/// Ends a reply of an explicit kind (not text, not a stream): adds its artifacts and
/// names the outcome.
pub(super) async fn explicit(tasks: &TaskManager, running: &Running, reply: Reply) -> Outcome {
    let settled = |state, parts| Outcome::Settled { state, parts };
    match reply {
        Reply::Completed { artifacts, parts } => {
            let mut log = ArtifactLog::default();
            for artifact in artifacts {
                let chunk = ArtifactChunk {
                    artifact,
                    append: false,
                    last_chunk: true,
                };
                add_artifact(tasks, running, chunk, &mut log).await;
            }
            settled(TaskState::Completed, parts)
        }
        Reply::InputRequired { parts } => settled(TaskState::InputRequired, parts),
        Reply::AuthRequired { message } => {
            settled(TaskState::AuthRequired, vec![Part::text(message)])
        }
        Reply::Reject { message } => settled(TaskState::Rejected, vec![Part::text(message)]),
        Reply::Error { reason } => Outcome::Failed(reason),
        Reply::Message { .. } => Outcome::Invalid(
            "the agent answered with a bare message, but the client already holds this \
             task (a continued task or a non-blocking send)"
                .to_owned(),
        ),
        Reply::Text { .. } | Reply::Stream { .. } => Outcome::Invalid(
            "a text reply reached the explicit reply path (a server bug)".to_owned(),
        ),
    }
}

/// Adds an artifact (or a chunk of one) to the task and sends its update.
pub(super) async fn add_artifact(
    tasks: &TaskManager,
    running: &Running,
    mut chunk: ArtifactChunk,
    log: &mut ArtifactLog,
) {
    if chunk.artifact.artifact_id.is_empty() {
        chunk.artifact.artifact_id = match (&log.latest, chunk.append) {
            (Some(latest), true) => latest.clone(),
            _ => tasks.ids.new_id(),
        };
    }
    log.latest = Some(chunk.artifact.artifact_id.clone());
    let delivery = running.update(|task| {
        // Only a running task takes artifacts (not one forced to `failed`, say).
        if task.status.state != TaskState::Working {
            return None;
        }
        apply(&mut task.artifacts, &chunk);
        Some(move |task: &Task| {
            StreamEvent::ArtifactUpdate(TaskArtifactUpdateEvent {
                task_id: task.id.clone(),
                context_id: task.context_id.clone(),
                artifact: chunk.artifact,
                append: Some(chunk.append),
                last_chunk: Some(chunk.last_chunk),
                metadata: None,
            })
        })
    });
    tasks.send(running, delivery).await;
}

/// Sends a `working` update holding `text` (progress, not part of the reply).
pub(super) async fn status_text(tasks: &TaskManager, running: &Running, text: String) {
    let timestamp = tasks.now();
    let message_id = tasks.ids.new_id();
    let delivery = running.update(|task| {
        let message = agent_message(task, &message_id, vec![status_part(text)]);
        transition(task, TaskState::Working, Some(message), timestamp).ok()?;
        Some(|task: &Task| status_event(task, false))
    });
    tasks.send(running, delivery).await;
}

/// `chunk` applied to `artifacts`: appended to the artifact with its id, or replacing it,
/// or added.
fn apply(artifacts: &mut Vec<Artifact>, chunk: &ArtifactChunk) {
    let id = &chunk.artifact.artifact_id;
    match artifacts.iter_mut().find(|kept| kept.artifact_id == *id) {
        Some(kept) if chunk.append => {
            kept.parts.extend(chunk.artifact.parts.iter().cloned());
            let piece = &chunk.artifact;
            kept.name = kept.name.take().or_else(|| piece.name.clone());
            kept.description = kept
                .description
                .take()
                .or_else(|| piece.description.clone());
            if let Some(metadata) = &piece.metadata {
                kept.metadata
                    .get_or_insert_with(Default::default)
                    .extend(metadata.iter().map(|(k, v)| (k.clone(), v.clone())));
            }
            for uri in &piece.extensions {
                if !kept.extensions.contains(uri) {
                    kept.extensions.push(uri.clone());
                }
            }
        }
        Some(kept) => *kept = chunk.artifact.clone(),
        None => artifacts.push(chunk.artifact.clone()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunk(id: &str, text: &str, append: bool) -> ArtifactChunk {
        ArtifactChunk {
            artifact: Artifact::new(id, vec![Part::text(text)]),
            append,
            last_chunk: false,
        }
    }

    #[test]
    fn chunks_append_to_their_artifact_and_whole_ones_replace_it() {
        let mut artifacts = Vec::new();
        apply(&mut artifacts, &chunk("a", "1", true));
        apply(&mut artifacts, &chunk("a", "2", true));
        apply(&mut artifacts, &chunk("b", "x", false));
        assert_eq!(artifacts.len(), 2);
        assert_eq!(artifacts[0].parts, [Part::text("1"), Part::text("2")]);
        apply(&mut artifacts, &chunk("a", "new", false));
        assert_eq!(artifacts[0].parts, [Part::text("new")]);
        assert_eq!(artifacts[1].parts, [Part::text("x")]);
    }
}
