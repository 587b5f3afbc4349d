//! Live events and cancel requests between instances, over LISTEN/NOTIFY.
//!
//! Every instance listens on two channels on a connection of its own: `a2ui_events` carries
//! the status updates of running tasks, `a2ui_cancel` the ids of tasks a client asked some
//! instance to cancel. An event is sent as `{"t": task id, "e": event}`; one whose JSON does
//! not fit a notification (PostgreSQL's limit is 8000 bytes) is written to `a2ui_events` and
//! sent as `{"t": task id, "ref": row id}`, read back only by an instance that watches that
//! task. Events of one task come from the one instance that runs it, in order, and
//! PostgreSQL delivers one sender's notifications in order.
//!
//! A watcher that does not take its events (its buffer of [`WATCH_BUFFER`] is full) is cut
//! off rather than slowing every other watcher; its stream ends.

use std::sync::{Arc, Weak};

use futures::StreamExt;
use futures::future::BoxFuture;
use serde_json::{Value, json};
use tokio::sync::mpsc;
use tokio_postgres::{AsyncMessage, Client, NoTls, Notification};

use super::{Inner, PostgresStore, pg_error};
use crate::a2a::v0_3::{decode_message, encode_message};
use crate::a2a::{StreamEvent, TaskState, TaskStatus, TaskStatusUpdateEvent};
use crate::task::{Cluster, StoreError};

const EVENTS: &str = "a2ui_events";
const CANCELS: &str = "a2ui_cancel";

/// The largest notification payload sent as is (PostgreSQL refuses 8000 bytes and more).
const NOTIFY_LIMIT: usize = 7_900;
/// How many notifications wait for the dispatcher before the listening connection waits.
const NOTE_BUFFER: usize = 1_024;
/// How many events wait for one watcher before it is cut off.
const WATCH_BUFFER: usize = 256;
/// How many cancel requests wait for the manager (more are dropped: requesters ask again).
pub(super) const CANCEL_BUFFER: usize = 256;

/// Opens the listening connection: its client, and the notifications it receives.
pub(super) async fn listen(
    url: &str,
) -> Result<(Client, mpsc::Receiver<Notification>), StoreError> {
    let (client, mut connection) = tokio_postgres::connect(url, NoTls)
        .await
        .map_err(pg_error)?;
    let (sender, receiver) = mpsc::channel(NOTE_BUFFER);
    tokio::spawn(async move {
        let mut messages = futures::stream::poll_fn(move |cx| connection.poll_message(cx));
        while let Some(message) = messages.next().await {
            match message {
                Ok(AsyncMessage::Notification(note)) => {
                    if sender.send(note).await.is_err() {
                        break;
                    }
                }
                Ok(_) => {}
                Err(error) => {
                    tracing::error!(error = %pg_error(error), "the PostgreSQL listener ended");
                    break;
                }
            }
        }
    });
    client
        .batch_execute(&format!("LISTEN {EVENTS}; LISTEN {CANCELS};"))
        .await
        .map_err(pg_error)?;
    Ok((client, receiver))
}

/// Routes notifications: events to the watchers of their task, cancel requests to the
/// manager. Ends when the store is dropped or the listener stops.
pub(super) async fn dispatch(
    store: Weak<Inner>,
    mut notes: mpsc::Receiver<Notification>,
    cancels: mpsc::Sender<String>,
) {
    while let Some(note) = notes.recv().await {
        let Some(inner) = store.upgrade() else {
            break;
        };
        match note.channel() {
            CANCELS => {
                // A full queue drops the request: the instance that sent it asks again.
                let _ = cancels.try_send(note.payload().to_owned());
            }
            EVENTS => inner.route(note.payload()).await,
            _ => {}
        }
    }
}

impl Inner {
    /// Hands the event in a notification to the watchers of its task, if any.
    async fn route(&self, payload: &str) {
        let Ok(Value::Object(note)) = serde_json::from_str::<Value>(payload) else {
            tracing::warn!("ignoring a malformed task event notification");
            return;
        };
        let Some(task_id) = note.get("t").and_then(Value::as_str) else {
            return;
        };
        if !self.watched(task_id) {
            return;
        }
        let event = match (note.get("e"), note.get("ref").and_then(Value::as_i64)) {
            (Some(event), _) => decode_event(event),
            (None, Some(id)) => self.read_large(id).await,
            (None, None) => None,
        };
        let Some(event) = event else {
            tracing::warn!(task_id, "ignoring a task event that does not decode");
            return;
        };
        let last = matches!(&event, StreamEvent::StatusUpdate(update) if update.is_final);
        let event = Arc::new(event);
        let mut watchers = self.watchers();
        if let Some(list) = watchers.get_mut(task_id) {
            list.retain(|watcher| watcher.try_send(event.clone()).is_ok());
            if last || list.is_empty() {
                watchers.remove(task_id);
            }
        }
    }

    fn watchers(
        &self,
    ) -> std::sync::MutexGuard<'_, std::collections::HashMap<String, Vec<Watcher>>> {
        self.watchers
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn watched(&self, task_id: &str) -> bool {
        self.watchers().contains_key(task_id)
    }

    /// An event written to `a2ui_events` because it was too large to notify.
    async fn read_large(&self, id: i64) -> Option<StreamEvent> {
        let row = self
            .client
            .query_opt("SELECT payload FROM a2ui_events WHERE id = $1", &[&id])
            .await
            .ok()??;
        let payload: String = row.try_get(0).ok()?;
        decode_event(&serde_json::from_str(&payload).ok()?)
    }

    /// Sends `event` to the instances watching its task.
    pub(super) async fn publish(&self, event: &StreamEvent) -> Result<(), StoreError> {
        let Some(encoded) = encode_event(event) else {
            return Ok(());
        };
        let task_id = match event {
            StreamEvent::StatusUpdate(update) => update.task_id.as_str(),
            _ => return Ok(()),
        };
        let mut payload = json!({"t": task_id, "e": encoded}).to_string();
        if payload.len() > NOTIFY_LIMIT {
            let id: i64 = self
                .client
                .query_one(
                    "INSERT INTO a2ui_events (payload) VALUES ($1) RETURNING id",
                    &[&encoded.to_string()],
                )
                .await
                .map_err(pg_error)?
                .try_get(0)
                .map_err(pg_error)?;
            payload = json!({"t": task_id, "ref": id}).to_string();
        }
        self.notify(EVENTS, &payload).await
    }

    async fn notify(&self, channel: &str, payload: &str) -> Result<(), StoreError> {
        self.client
            .execute("SELECT pg_notify($1, $2)", &[&channel, &payload])
            .await
            .map_err(pg_error)?;
        Ok(())
    }
}

type Watcher = mpsc::Sender<Arc<StreamEvent>>;

/// A status update as JSON (other events are not carried: the task manager sends none).
fn encode_event(event: &StreamEvent) -> Option<Value> {
    let StreamEvent::StatusUpdate(update) = event else {
        return None;
    };
    Some(json!({
        "taskId": update.task_id,
        "contextId": update.context_id,
        "final": update.is_final,
        "state": update.status.state.as_str(),
        "timestamp": update.status.timestamp,
        "message": update.status.message.as_ref().map(encode_message),
    }))
}

fn decode_event(value: &Value) -> Option<StreamEvent> {
    let text = |key: &str| value.get(key).and_then(Value::as_str);
    let state = text("state")?;
    let state = TaskState::ALL
        .into_iter()
        .find(|known| known.as_str() == state)?;
    let message = match value.get("message") {
        None | Some(Value::Null) => None,
        Some(message) => Some(decode_message(message, "message").ok()?),
    };
    Some(StreamEvent::StatusUpdate(TaskStatusUpdateEvent {
        task_id: text("taskId")?.to_owned(),
        context_id: text("contextId")?.to_owned(),
        status: TaskStatus {
            state,
            message,
            timestamp: text("timestamp").map(str::to_owned),
        },
        is_final: value.get("final")?.as_bool()?,
        metadata: None,
    }))
}

impl Cluster for PostgresStore {
    fn publish<'a>(&'a self, event: &'a StreamEvent) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(self.inner.publish(event))
    }

    fn watch<'a>(
        &'a self,
        id: &'a str,
    ) -> BoxFuture<'a, Result<mpsc::Receiver<Arc<StreamEvent>>, StoreError>> {
        let (sender, receiver) = mpsc::channel(WATCH_BUFFER);
        let mut watchers = self.inner.watchers();
        watchers.retain(|_, list| {
            list.retain(|watcher| !watcher.is_closed());
            !list.is_empty()
        });
        watchers.entry(id.to_owned()).or_default().push(sender);
        drop(watchers);
        Box::pin(futures::future::ready(Ok(receiver)))
    }

    fn request_cancel<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(self.inner.notify(CANCELS, id))
    }

    fn cancel_requests(&self) -> Option<mpsc::Receiver<String>> {
        self.inner
            .cancels
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .take()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::a2a::{Message, Part};

    #[test]
    fn a_status_update_survives_the_trip_through_a_notification() {
        let event = StreamEvent::StatusUpdate(TaskStatusUpdateEvent {
            task_id: "t".into(),
            context_id: "c".into(),
            status: TaskStatus {
                state: TaskState::Working,
                message: Some(Message::agent("m", vec![Part::text("hello")])),
                timestamp: Some("2026-01-01T00:00:00.000Z".into()),
            },
            is_final: false,
            metadata: None,
        });
        let encoded = encode_event(&event).unwrap();
        let decoded = decode_event(&serde_json::from_str(&encoded.to_string()).unwrap());
        assert_eq!(decoded, Some(event));
        assert_eq!(decode_event(&json!({"state": "nope"})), None);
    }
}
