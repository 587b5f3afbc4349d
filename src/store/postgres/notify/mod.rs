//! Live events and cancel requests between instances, over LISTEN/NOTIFY.
//!
//! Every instance listens on three channels on a connection of its own: `a2ui_events`
//! carries the status updates of running tasks, `a2ui_cancel` the ids of tasks a client
//! asked some instance to cancel, `a2ui_watch` the announcements of instances that watch a
//! task they do not run, and the runners' answers (a run's chunks are published only while
//! it is watched: see `interest`). An event is sent as `{"t": task id, "e": event}`; one whose JSON does
//! not fit a notification (PostgreSQL's limit is 8000 bytes) is written to `a2ui_events` and
//! sent as `{"t": task id, "ref": row id}`, read back only by an instance that watches that
//! task. Events of one task come from the one instance that runs it, in order, and
//! PostgreSQL delivers one sender's notifications in order.
//!
//! A watcher that does not take its events (its buffer of [`WATCH_BUFFER`] is full) is cut
//! off rather than slowing every other watcher; its stream ends.
//!
//! The listening connection is re-established when lost (with the backoff of `conn`), and
//! pinged every [`PING_EVERY`] so that one that died silently is noticed (and an idle
//! connection killer sees traffic). Notifications sent while it was down are lost, so once
//! it listens again, every watcher is settled from the table: a watched task that ended or
//! waits for input meanwhile gets its stored status as its final update (its message
//! included, since the updates that carried it may be lost) and its stream ends; one that
//! still runs keeps its watchers, which see its updates from then on (those sent during the
//! outage are missing); one no longer stored has its watchers' streams end. Cancel requests
//! sent during the outage are lost too: requesters ask again until the task settles. A
//! large event that cannot be read back (the query connection is down) is followed by the
//! same settling, once the table can be read. Watch announcements sent during the outage
//! are read back from `a2ui_watchers` for the runs of this instance at the same time.

mod interest;
mod note_json;

use std::collections::HashSet;
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use futures::StreamExt;
use futures::future::BoxFuture;
use serde_json::json;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio_postgres::{AsyncMessage, Client, Notification};

use super::super::codec;
use super::super::projection::Projection;
use super::super::row::COLUMNS;
use super::conn::{self, PgConnection, QUERY_TIMEOUT};
use super::tls::Target;
use super::{ENGINE, Inner, PostgresStore, pg_error, read_row};
use crate::a2a::{StreamEvent, TaskStatusUpdateEvent};
use crate::store::{Cluster, StoreError, Watched};
pub(super) use interest::Interest;
use interest::WATCHES;
use note_json::{EventOut, NoteIn, NoteOut, decode_event};

const EVENTS: &str = "a2ui_events";
const CANCELS: &str = "a2ui_cancel";
/// The ids of tasks whose push configs changed (see `outbox`).
pub(super) const PUSH_CONFIGS: &str = "a2ui_push_configs";

/// The largest notification payload sent as is (PostgreSQL refuses 8000 bytes and more).
const NOTIFY_LIMIT: usize = 7_900;
/// How many notifications wait for the dispatcher before the listening connection waits.
const NOTE_BUFFER: usize = 1_024;
/// How many events wait for one watcher before it is cut off.
const WATCH_BUFFER: usize = 256;
/// How many cancel requests wait for the manager (more are dropped: requesters ask again).
pub(super) const CANCEL_BUFFER: usize = 256;
/// How often the listening connection is checked.
const PING_EVERY: Duration = Duration::from_secs(15);

/// What the listening connection hands the dispatcher.
pub(super) enum Note {
    /// A notification on one of the channels.
    Notification(Notification),
    /// The connection was lost and listens again: notifications may have been missed.
    Resumed,
}

/// The listening connection, kept up by a task of its own while this lives.
pub(super) struct Listener(JoinHandle<()>);

impl Drop for Listener {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Opens the listening connection: its keeper, and the notes it hands on.
pub(super) async fn listen(
    target: &Target,
) -> Result<(Listener, mpsc::Receiver<Note>), StoreError> {
    let (sender, receiver) = mpsc::channel(NOTE_BUFFER);
    let session = Session::open(target, &sender).await?;
    let keeper = tokio::spawn(keep_listening(target.clone(), sender, session));
    Ok((Listener(keeper), receiver))
}

/// One listening connection: its client (the connection lives as long as it) and the task
/// that forwards its notifications, which ends with the connection.
struct Session {
    client: Client,
    pump: JoinHandle<()>,
}

impl Session {
    /// Connects and listens on every channel.
    async fn open(target: &Target, notes: &mpsc::Sender<Note>) -> Result<Session, StoreError> {
        let (client, connection) = conn::open(target).await?;
        let session = Session {
            client,
            pump: tokio::spawn(pump(connection, notes.clone())),
        };
        let listening =
            format!("LISTEN {EVENTS}; LISTEN {CANCELS}; LISTEN {WATCHES}; LISTEN {PUSH_CONFIGS};");
        answered(session.client.batch_execute(&listening)).await?;
        Ok(session)
    }

    /// Waits until the connection ends or stops answering; why.
    async fn lost(&mut self) -> String {
        let mut pings = tokio::time::interval(PING_EVERY);
        pings.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        pings.tick().await;
        loop {
            tokio::select! {
                _ = &mut self.pump => return "the connection ended".to_owned(),
                _ = pings.tick() => {
                    if let Err(error) = answered(self.client.batch_execute("SELECT 1")).await {
                        return error.to_string();
                    }
                }
            }
        }
    }
}

/// Waits for `query` on the listening connection at most [`QUERY_TIMEOUT`].
async fn answered(
    query: impl std::future::Future<Output = Result<(), tokio_postgres::Error>>,
) -> Result<(), StoreError> {
    match tokio::time::timeout(QUERY_TIMEOUT, query).await {
        Ok(answer) => answer.map_err(pg_error),
        Err(_) => Err(StoreError::Timeout {
            engine: ENGINE,
            from: "the listening connection",
            after: QUERY_TIMEOUT,
        }),
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        self.pump.abort();
    }
}

/// Forwards the notifications of `connection` until it ends or nobody takes them.
async fn pump(mut connection: PgConnection, notes: mpsc::Sender<Note>) {
    let mut messages = futures::stream::poll_fn(move |cx| connection.poll_message(cx));
    while let Some(message) = messages.next().await {
        match message {
            Ok(AsyncMessage::Notification(note)) => {
                if notes.send(Note::Notification(note)).await.is_err() {
                    break;
                }
            }
            Ok(_) => {}
            Err(error) => {
                tracing::debug!(error = %pg_error(error), "the PostgreSQL listener ended");
                break;
            }
        }
    }
}

/// Keeps a listening connection up: when `session` is lost, connects and listens again,
/// then tells the dispatcher it resumed. Ends when nobody takes the notes.
async fn keep_listening(target: Target, notes: mpsc::Sender<Note>, mut session: Session) {
    loop {
        let why = session.lost().await;
        drop(session);
        if notes.is_closed() {
            return;
        }
        tracing::warn!(reason = %why,
            "lost the PostgreSQL listening connection; updates from other instances wait");
        let lost = Instant::now();
        session = conn::retry("listening to PostgreSQL again", || {
            Session::open(&target, &notes)
        })
        .await;
        tracing::info!(
            down_ms = lost.elapsed().as_millis() as u64,
            "the PostgreSQL listening connection is back"
        );
        if notes.send(Note::Resumed).await.is_err() {
            return;
        }
    }
}

/// Routes notes: events to the watchers of their task, cancel requests to the manager;
/// after the listener resumed, settles the watchers from the table. Ends when the store is
/// dropped or the listener stops.
pub(super) async fn dispatch(
    store: Weak<Inner>,
    mut notes: mpsc::Receiver<Note>,
    cancels: mpsc::Sender<String>,
) {
    // One resync at a time, apart from this loop (the query connection may still be down
    // while notes keep flowing). A miss while one runs queues one more pass, which covers
    // every miss before it; a full queue already holds that pass.
    let (resync_wanted, resync_asked) = mpsc::channel(1);
    tokio::spawn(resync_each(store.clone(), resync_asked));
    while let Some(note) = notes.recv().await {
        let Some(inner) = store.upgrade() else {
            break;
        };
        let missed = match note {
            Note::Resumed => {
                // Changes may have been missed: any task's configs may have changed.
                inner.config_feed.tell(None);
                true
            }
            Note::Notification(note) => match note.channel() {
                PUSH_CONFIGS => {
                    inner.config_feed.tell(Some(note.payload().to_owned()));
                    false
                }
                CANCELS => {
                    // A full queue drops the request: the instance that sent it asks again.
                    let _ = cancels.try_send(note.payload().to_owned());
                    false
                }
                EVENTS => !inner.route(note.payload()).await,
                WATCHES => {
                    inner.heard_watch(note.payload());
                    false
                }
                _ => false,
            },
        };
        if missed {
            let _ = resync_wanted.try_send(());
        }
    }
}

/// Runs a [`resync`] for each request, until the dispatcher that asks is gone.
async fn resync_each(store: Weak<Inner>, mut asked: mpsc::Receiver<()>) {
    while asked.recv().await.is_some() {
        resync(store.clone()).await;
    }
}

/// Settles the watchers from the table (see the module doc), retrying with backoff until
/// it can read the table or the store is dropped.
async fn resync(store: Weak<Inner>) {
    conn::retry("settling the watchers after the listener resumed", || {
        let store = store.clone();
        async move {
            match store.upgrade() {
                Some(inner) => {
                    inner.rewatch_runs().await?;
                    inner.settle_watchers().await
                }
                None => Ok(()),
            }
        }
    })
    .await;
}

impl Inner {
    /// Reads the watched tasks; gives each settled one its stored status as a final update
    /// and ends the watchers of those no longer stored.
    async fn settle_watchers(&self) -> Result<(), StoreError> {
        let ids: Vec<String> = self.watchers().keys().cloned().collect();
        if ids.is_empty() {
            return Ok(());
        }
        let db = self.conn.session()?;
        let rows = db
            .bounded(db.query(
                &format!("SELECT {COLUMNS} FROM a2ui_tasks WHERE id = ANY($1)"),
                &[&ids],
            ))
            .await?;
        let mut gone: HashSet<String> = ids.into_iter().collect();
        let mut settled = Vec::new();
        for row in &rows {
            // Only the status is sent: history and artifacts are left undecoded.
            let task = read_row(row)?.decode_wanted(ENGINE, Projection::STATUS)?;
            gone.remove(&task.id);
            if task.status.state.is_settled() {
                settled.push(TaskStatusUpdateEvent::of(&task, true));
            }
        }
        let mut watchers = self.watchers();
        for update in settled {
            if let Some(list) = watchers.remove(&update.task_id) {
                let event = Arc::new(StreamEvent::StatusUpdate(update));
                for watcher in list {
                    let _ = watcher.try_send(event.clone());
                }
            }
        }
        // A task no longer stored sends nothing more: its watchers' streams end.
        watchers.retain(|id, _| !gone.contains(id));
        Ok(())
    }

    /// Hands the event in a notification to the watchers of its task, if any.
    /// Returns false when the event was written to the table and could not be read back
    /// (the query connection is down): the caller settles the watchers later.
    async fn route(&self, payload: &str) -> bool {
        let Ok(note) = serde_json::from_str::<NoteIn<'_>>(payload) else {
            tracing::warn!("ignoring a malformed task event notification");
            return true;
        };
        let task_id = note.task_id.as_str();
        if !self.watched(task_id) {
            return true;
        }
        let event = match (note.event, note.reference) {
            (Some(event), _) => decode_event(event.get()),
            (None, Some(id)) => match self.read_large(id).await {
                Ok(event) => event,
                Err(error) => {
                    tracing::debug!(task_id, %error, "could not read a large task event");
                    return false;
                }
            },
            (None, None) => None,
        };
        let Some(event) = event else {
            tracing::warn!(task_id, "ignoring a task event that does not decode");
            return true;
        };
        let last = event.is_final();
        let event = Arc::new(event);
        let mut watchers = self.watchers();
        if let Some(list) = watchers.get_mut(task_id) {
            list.retain(|watcher| watcher.try_send(event.clone()).is_ok());
            if last || list.is_empty() {
                watchers.remove(task_id);
            }
        }
        true
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

    /// An event written to `a2ui_events` because it was too large to notify; `None` when
    /// it is gone or does not decode.
    async fn read_large(&self, id: i64) -> Result<Option<StreamEvent>, StoreError> {
        let db = self.conn.session()?;
        let row = db
            .bounded(db.query_opt("SELECT payload FROM a2ui_events WHERE id = $1", &[&id]))
            .await?;
        Ok(row.and_then(|row| {
            let payload: String = row.try_get(0).ok()?;
            decode_event(&payload)
        }))
    }

    /// Sends `event` to the instances watching its task.
    pub(super) async fn publish(&self, event: &StreamEvent) -> Result<(), StoreError> {
        // Other events are not carried: the task manager sends none.
        let Some(out) = EventOut::of(event) else {
            return Ok(());
        };
        let task_id = out.task_id();
        let mut payload = codec::to_json(&NoteOut {
            task_id,
            event: &out,
        });
        if payload.len() > NOTIFY_LIMIT {
            let encoded = codec::to_json(&out);
            let db = self.conn.session()?;
            let id: i64 = db
                .bounded(db.query_one(
                    "INSERT INTO a2ui_events (payload) VALUES ($1) RETURNING id",
                    &[&encoded],
                ))
                .await?
                .try_get(0)
                .map_err(pg_error)?;
            payload = json!({"t": task_id, "ref": id}).to_string();
        }
        self.notify(EVENTS, &payload).await
    }

    async fn notify(&self, channel: &str, payload: &str) -> Result<(), StoreError> {
        let db = self.conn.session()?;
        db.bounded(db.execute("SELECT pg_notify($1, $2)", &[&channel, &payload]))
            .await?;
        Ok(())
    }
}

type Watcher = mpsc::Sender<Arc<StreamEvent>>;

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
        // Listening already: whatever the runner sends once it heard of us arrives.
        Box::pin(async move {
            self.inner.announce(id).await?;
            Ok(receiver)
        })
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

    fn run(&self, id: &str) -> Watched {
        self.inner.run(id)
    }

    fn announced<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<bool, StoreError>> {
        Box::pin(self.inner.announced(id))
    }
}

#[cfg(test)]
mod tests;
