//! What a caller has seen of one task's events, so that a stream picked up again after a
//! dropped connection neither repeats nor skips anything.
//!
//! A re-subscription starts with the task as it is now. [`Seen::snapshot`] turns that task
//! into the events the caller missed: each artifact that is new or grew (the grown part as
//! an append when what the caller holds is a prefix of it, else the whole artifact), then the
//! status when it changed (the last event, final when the state is settled). [`Seen::live`]
//! passes the events of a stream through, dropping a status the caller already holds and an
//! artifact update that changes nothing, and tracks what the caller holds by applying each
//! artifact update (appends included) as a renderer would.

use crate::a2a::{
    Artifact, StreamEvent, Task, TaskArtifactUpdateEvent, TaskStatus, TaskStatusUpdateEvent,
};

/// What the caller has been given of one task.
#[derive(Debug, Default)]
pub(super) struct Seen {
    /// The task, once an event named it.
    pub(super) task_id: Option<String>,
    context_id: String,
    /// The last status given.
    status: Option<TaskStatus>,
    /// Each artifact as the caller holds it, updates applied, in first-seen order.
    artifacts: Vec<Artifact>,
    /// Whether the last event given ended the stream.
    pub(super) ended: bool,
}

impl Seen {
    /// Nothing seen of task `task_id` yet (`None`: the first event names it).
    pub(super) fn new(task_id: Option<String>) -> Self {
        Self {
            task_id,
            ..Self::default()
        }
    }

    /// Whether the caller has been given anything of the task (a snapshot is then a
    /// catch-up, not the start).
    pub(super) fn started(&self) -> bool {
        self.status.is_some()
    }

    /// What the caller gets of `event` of a live stream: the event, nothing when it
    /// repeats what the caller holds, or (a task in the middle of a stream) what the task
    /// changes.
    pub(super) fn live(&mut self, event: StreamEvent) -> Vec<StreamEvent> {
        let event = match event {
            StreamEvent::Task(task) => return self.snapshot(task),
            StreamEvent::StatusUpdate(update) => {
                let repeated = self
                    .status
                    .as_ref()
                    .is_some_and(|status| same_status(status, &update.status));
                // A repeat is still given when it is the final event not given yet.
                let ends_stream = update.is_final && !self.ended;
                if repeated && !ends_stream {
                    return Vec::new();
                }
                self.note_ids(&update.task_id, &update.context_id);
                self.status = Some(update.status.clone());
                StreamEvent::StatusUpdate(update)
            }
            StreamEvent::ArtifactUpdate(update) => {
                if !self.apply(&update) {
                    return Vec::new();
                }
                self.note_ids(&update.task_id, &update.context_id);
                StreamEvent::ArtifactUpdate(update)
            }
            StreamEvent::Message(message) => StreamEvent::Message(message),
        };
        self.ended = event.is_final();
        vec![event]
    }

    /// The events that bring the caller from what it holds to `task` (the task as a
    /// re-subscription or a read shows it), in order: artifacts, then the status.
    pub(super) fn snapshot(&mut self, task: Task) -> Vec<StreamEvent> {
        if !self.started() {
            self.take_task(&task);
            self.ended = task.status.state.is_settled();
            return vec![StreamEvent::Task(task)];
        }
        self.note_ids(&task.id, &task.context_id);
        let mut missed = Vec::new();
        for artifact in &task.artifacts {
            let held = self
                .artifacts
                .iter()
                .find(|held| held.artifact_id == artifact.artifact_id);
            let update = match held {
                Some(held) if held == artifact => continue,
                Some(held) if grows(held, artifact) => {
                    let mut tail = artifact.clone();
                    tail.parts.drain(..held.parts.len());
                    (tail, Some(true))
                }
                _ => (artifact.clone(), None),
            };
            let update = TaskArtifactUpdateEvent {
                task_id: task.id.clone(),
                context_id: task.context_id.clone(),
                artifact: update.0,
                append: update.1,
                last_chunk: None,
                metadata: None,
            };
            self.apply(&update);
            missed.push(StreamEvent::ArtifactUpdate(update));
        }
        let settled = task.status.state.is_settled();
        let changed = !self
            .status
            .as_ref()
            .is_some_and(|status| same_status(status, &task.status));
        if changed || (settled && !self.ended) {
            self.status = Some(task.status.clone());
            missed.push(StreamEvent::StatusUpdate(TaskStatusUpdateEvent::of(
                &task, settled,
            )));
        }
        self.ended = settled;
        missed
    }

    fn take_task(&mut self, task: &Task) {
        self.note_ids(&task.id, &task.context_id);
        self.status = Some(task.status.clone());
        self.artifacts = task.artifacts.clone();
    }

    fn note_ids(&mut self, task_id: &str, context_id: &str) {
        if self.task_id.is_none() {
            self.task_id = Some(task_id.to_owned());
        }
        if self.context_id.is_empty() {
            context_id.clone_into(&mut self.context_id);
        }
    }

    /// Applies `update` to the artifacts held; whether it changed anything.
    fn apply(&mut self, update: &TaskArtifactUpdateEvent) -> bool {
        let id = &update.artifact.artifact_id;
        let held = self
            .artifacts
            .iter_mut()
            .find(|held| &held.artifact_id == id);
        match held {
            Some(held) if update.append == Some(true) => {
                held.parts.extend(update.artifact.parts.iter().cloned());
                true
            }
            Some(held) if *held == update.artifact => false,
            Some(held) => {
                *held = update.artifact.clone();
                true
            }
            None => {
                self.artifacts.push(update.artifact.clone());
                true
            }
        }
    }
}

/// Whether two statuses are the same for a caller: the same state and message (by its id
/// when both have one); the timestamp does not count, since a snapshot may carry one that
/// an update left out.
fn same_status(a: &TaskStatus, b: &TaskStatus) -> bool {
    a.state == b.state
        && match (&a.message, &b.message) {
            (None, None) => true,
            (Some(x), Some(y)) if !x.message_id.is_empty() && !y.message_id.is_empty() => {
                x.message_id == y.message_id
            }
            (Some(x), Some(y)) => x == y,
            _ => false,
        }
}

/// Whether `now` is `held` with more parts appended.
fn grows(held: &Artifact, now: &Artifact) -> bool {
    now.parts.len() > held.parts.len() && now.parts.starts_with(&held.parts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::a2a::{Message, Part, TaskState};

    fn task(state: TaskState, artifacts: Vec<Artifact>) -> Task {
        let mut task = Task::new("t", "c", state);
        task.artifacts = artifacts;
        task
    }

    fn status(state: TaskState, text: Option<&str>) -> StreamEvent {
        let mut task = task(state, Vec::new());
        task.status.message =
            text.map(|text| Message::agent(format!("m-{text}"), vec![Part::text(text)]));
        StreamEvent::StatusUpdate(TaskStatusUpdateEvent::of(&task, state.is_settled()))
    }

    fn chunk(id: &str, text: &str, append: bool) -> StreamEvent {
        StreamEvent::ArtifactUpdate(TaskArtifactUpdateEvent {
            task_id: "t".into(),
            context_id: "c".into(),
            artifact: Artifact::new(id, vec![Part::text(text)]),
            append: Some(append),
            last_chunk: None,
            metadata: None,
        })
    }

    #[test]
    fn a_snapshot_gives_only_the_grown_part_of_an_artifact_and_a_changed_status() {
        let mut seen = Seen::new(None);
        assert!(
            !seen
                .live(StreamEvent::Task(task(TaskState::Working, Vec::new())))
                .is_empty()
        );
        assert!(!seen.live(chunk("a", "one ", false)).is_empty());
        let now = task(
            TaskState::Completed,
            vec![
                Artifact::new("a", vec![Part::text("one "), Part::text("two")]),
                Artifact::new("b", vec![Part::text("new")]),
            ],
        );
        let missed = seen.snapshot(now);
        assert_eq!(missed.len(), 3, "{missed:?}");
        let StreamEvent::ArtifactUpdate(grown) = &missed[0] else {
            panic!("{missed:?}")
        };
        assert_eq!(
            (grown.append, grown.artifact.parts.clone()),
            (Some(true), vec![Part::text("two")])
        );
        let StreamEvent::ArtifactUpdate(new) = &missed[1] else {
            panic!("{missed:?}")
        };
        assert_eq!(new.artifact.artifact_id, "b");
        assert!(missed[2].is_final(), "{missed:?}");
        assert!(seen.ended);
    }

    #[test]
    fn a_snapshot_of_what_the_caller_holds_gives_nothing_and_repeats_are_dropped() {
        let mut seen = Seen::new(Some("t".into()));
        seen.live(StreamEvent::Task(task(TaskState::Working, Vec::new())));
        seen.live(chunk("a", "x", false));
        seen.live(status(TaskState::Working, Some("hi")));
        let mut now = task(
            TaskState::Working,
            vec![Artifact::new("a", vec![Part::text("x")])],
        );
        now.status.message = Some(Message::agent("m-hi", vec![Part::text("hi")]));
        assert_eq!(seen.snapshot(now), Vec::new());
        assert_eq!(
            seen.live(status(TaskState::Working, Some("hi"))),
            Vec::new()
        );
        assert_eq!(seen.live(chunk("a", "x", false)), Vec::new());
        assert!(
            !seen
                .live(status(TaskState::Working, Some("more")))
                .is_empty()
        );
        assert!(!seen.live(chunk("a", "y", true)).is_empty());
        assert!(!seen.ended);
    }

    #[test]
    fn a_snapshot_that_replaced_an_artifact_gives_it_whole() {
        let mut seen = Seen::new(None);
        seen.live(StreamEvent::Task(task(TaskState::Working, Vec::new())));
        seen.live(chunk("a", "draft", false));
        let missed = seen.snapshot(task(
            TaskState::Working,
            vec![Artifact::new("a", vec![Part::text("final")])],
        ));
        let [StreamEvent::ArtifactUpdate(update)] = missed.as_slice() else {
            panic!("{missed:?}")
        };
        assert_eq!(update.append, None);
        assert_eq!(update.artifact.parts, vec![Part::text("final")]);
    }
}
