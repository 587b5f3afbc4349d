//! Who watches: a running task's chunks are published only while another instance watches it.
//!
//! Most of a run's events are chunks (`working` updates that keep its state), one every few
//! tens of milliseconds while a model writes, and a notification for each costs the runner
//! a query and every instance a wake-up. Nobody needs them unless a client follows the task
//! through another instance. So an instance that watches a task it does not run announces
//! it, and the runner publishes chunks only once it has heard of a watcher, until the run
//! ends; state changes and the final update are always published (and stored), so a late
//! watcher reads the current state and then gets the live chunks.
//!
//! The signal: a watcher (`Cluster::watch`) registers its local receiver, then in one
//! statement locks the task's row (`FOR SHARE`), inserts `(task, instance)` into
//! `a2ui_watchers` and sends `{"t": task, "w": watcher, "n": nonce, "o": runner}` on
//! `a2ui_watch`, `o` being the instance that runs the task as stored. A runner registers
//! each run here (`Cluster::run`) before the run first stores the task as running; when it
//! hears a watch of a task it runs, it marks the run watched, and if it is `o` it answers
//! `{..., "a": true}` on the same channel. The watcher returns once that answer is back
//! (at most [`ACK_WAIT`]), so a chunk the runner makes after `watch` returned is published,
//! and the watcher, listening since before its announcement, receives it.
//!
//! Why no watcher is missed: a watcher that finds the task running (its owner `o`) can only
//! see a row the runner wrote after registering the run, so the runner hears the
//! announcement while the run is registered, and answers. A continuation (the task waited
//! for input) is the other case: the watcher may find it not running and not wait, while
//! a run starts right after. The runner then reads `a2ui_watchers` after its write that
//! moves the task to running (`Cluster::announced`), and the row lock orders the two: the
//! watcher's statement either commits before that write (the runner reads its row) or runs
//! after it (the watcher finds the task running and waits for the answer). An announcement
//! heard before the run registered is in the table the runner reads after.
//!
//! A watcher on the runner's own instance (a subscriber that came just as a continuation
//! started here, so the task manager found no run and went through the channel) counts like
//! any other: the runner marks the run watched itself, and reads its own rows too.
//!
//! How far it holds: while both instances' listening connections are up and the runner
//! answers within [`ACK_WAIT`]. A runner that does not answer in time (it died: its lease
//! sweep publishes the final update; it is overloaded) lets the watcher go on anyway, and
//! chunks made before the runner hears of it are not sent. A runner whose listener was
//! down rereads the table for all its runs once it listens again, and watches heard then
//! count from then on. A watcher's rows are deleted by its lease beat once it no longer
//! watches the task, and with it when its lease lapses. Instances of versions before this
//! protocol neither announce nor answer: upgrade every instance together (the schema step
//! that adds the table makes an older instance refuse to start).

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use tokio::sync::oneshot;

use super::super::{Inner, pg_error};
use crate::store::{StoreError, Watched};

/// The channel watchers announce themselves on, and runners answer on.
pub(in super::super) const WATCHES: &str = "a2ui_watch";

/// How long a watcher waits for the runner's answer before it goes on without.
const ACK_WAIT: Duration = Duration::from_secs(1);

/// The runs of this instance, and the answers its watchers wait for.
#[derive(Default)]
pub(in super::super) struct Interest {
    /// Each task running here and whether another instance watches it.
    runs: Mutex<HashMap<String, Arc<AtomicBool>>>,
    /// The watches waiting for the runner's answer, by nonce.
    answers: Mutex<HashMap<i64, oneshot::Sender<()>>>,
    next_nonce: AtomicI64,
}

fn locked<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// A note on [`WATCHES`]: an announcement, or (`ack`) the runner's answer to one.
#[derive(Serialize, Deserialize)]
struct WatchNote {
    #[serde(rename = "t")]
    task_id: String,
    #[serde(rename = "w")]
    watcher: String,
    #[serde(rename = "n")]
    nonce: i64,
    /// The instance running the task as the watcher found it stored.
    #[serde(rename = "o", default)]
    runner: Option<String>,
    #[serde(rename = "a", default)]
    ack: bool,
}

/// A run's entry in [`Interest::runs`], removed when the run ends.
struct Registration {
    store: Weak<Inner>,
    id: String,
    flag: Arc<AtomicBool>,
}

impl Drop for Registration {
    fn drop(&mut self) {
        if let Some(inner) = self.store.upgrade() {
            let mut runs = locked(&inner.interest.runs);
            if runs
                .get(&self.id)
                .is_some_and(|flag| Arc::ptr_eq(flag, &self.flag))
            {
                runs.remove(&self.id);
            }
        }
    }
}

impl Inner {
    /// Registers a run of task `id` here (see the module doc).
    pub(in super::super) fn run(self: &Arc<Self>, id: &str) -> Watched {
        let flag = Arc::new(AtomicBool::new(false));
        locked(&self.interest.runs).insert(id.to_owned(), flag.clone());
        let registration = Registration {
            store: Arc::downgrade(self),
            id: id.to_owned(),
            flag: flag.clone(),
        };
        Watched::new(flag, registration)
    }

    /// Whether an instance announced a watch of task `id` (its row is kept). This one's
    /// count too: a subscriber here that found the task not running follows it through the
    /// channel like any other watcher.
    pub(in super::super) async fn announced(&self, id: &str) -> Result<bool, StoreError> {
        let db = self.conn.session()?;
        db.bounded(db.query_one(
            "SELECT EXISTS (SELECT 1 FROM a2ui_watchers WHERE task_id = $1)",
            &[&id],
        ))
        .await?
        .try_get(0)
        .map_err(pg_error)
    }

    /// Announces that this instance watches task `id` (its receiver registered already) and
    /// waits for the runner's answer, if the task runs elsewhere (at most [`ACK_WAIT`]).
    pub(in super::super) async fn announce(&self, id: &str) -> Result<(), StoreError> {
        let nonce = self.interest.next_nonce.fetch_add(1, Ordering::Relaxed);
        let (answered, answer) = oneshot::channel();
        locked(&self.interest.answers).insert(nonce, answered);
        let waited = self.announce_and_wait(id, nonce, answer).await;
        locked(&self.interest.answers).remove(&nonce);
        waited
    }

    async fn announce_and_wait(
        &self,
        id: &str,
        nonce: i64,
        answer: oneshot::Receiver<()>,
    ) -> Result<(), StoreError> {
        let db = self.conn.session()?;
        let runner: Option<String> = db
            .bounded(db.query_one(
                &format!(
                    "WITH task AS (SELECT owner, state FROM a2ui_tasks WHERE id = $1 FOR SHARE),
                     announced AS (
                         INSERT INTO a2ui_watchers (task_id, instance) VALUES ($1, $2)
                         ON CONFLICT DO NOTHING
                     ),
                     runner AS (
                         SELECT (SELECT owner FROM task WHERE state IN ('submitted', 'working'))
                             AS owner
                     )
                     SELECT runner.owner FROM runner, pg_notify('{WATCHES}', json_build_object(
                         't', $1::text, 'w', $2::text, 'n', $3::bigint, 'o', runner.owner)::text)"
                ),
                &[&id, &self.instance, &nonce],
            ))
            .await?
            .try_get(0)
            .map_err(pg_error)?;
        let Some(runner) = runner else {
            return Ok(());
        };
        if runner == self.instance {
            // The run is ours: it started after the task manager looked for it. Its
            // subscriber here hears it through the channel too, so it is watched.
            if let Some(flag) = locked(&self.interest.runs).get(id) {
                flag.store(true, Ordering::Release);
            }
            return Ok(());
        }
        if tokio::time::timeout(ACK_WAIT, answer).await.is_err() {
            tracing::debug!(task_id = id, %runner,
                "the instance running the task did not answer a watch in time; going on");
        }
        Ok(())
    }

    /// Takes a note heard on [`WATCHES`]: marks a run of ours watched and answers when we
    /// are the runner the watcher named, or hands a watcher of ours its answer.
    pub(in super::super) fn heard_watch(self: &Arc<Self>, payload: &str) {
        let Ok(note) = serde_json::from_str::<WatchNote>(payload) else {
            tracing::warn!("ignoring a malformed watch notification");
            return;
        };
        if note.ack {
            if note.watcher == self.instance
                && let Some(answered) = locked(&self.interest.answers).remove(&note.nonce)
            {
                let _ = answered.send(());
            }
            return;
        }
        if let Some(flag) = locked(&self.interest.runs).get(&note.task_id) {
            flag.store(true, Ordering::Release);
        }
        // The runner the watcher found answers even when its run has ended since: the
        // final update went out before the run's registration did. A watcher here waits
        // for no answer.
        if note.runner.as_deref() != Some(&*self.instance) || note.watcher == self.instance {
            return;
        }
        let answer = WatchNote {
            ack: true,
            runner: None,
            ..note
        };
        let inner = self.clone();
        tokio::spawn(async move {
            let payload = serde_json::to_string(&answer).unwrap_or_default();
            if let Err(error) = inner.notify(WATCHES, &payload).await {
                tracing::debug!(task_id = %answer.task_id, %error, "could not answer a watch");
            }
        });
    }

    /// Marks watched every run here that another instance announced a watch of (after the
    /// listener resumed: announcements sent meanwhile were not heard).
    pub(in super::super) async fn rewatch_runs(&self) -> Result<(), StoreError> {
        let ids: Vec<String> = locked(&self.interest.runs).keys().cloned().collect();
        if ids.is_empty() {
            return Ok(());
        }
        let db = self.conn.session()?;
        let rows = db
            .bounded(db.query(
                "SELECT DISTINCT task_id FROM a2ui_watchers WHERE task_id = ANY($1)",
                &[&ids],
            ))
            .await?;
        let runs = locked(&self.interest.runs);
        for row in &rows {
            let id: String = row.try_get(0).map_err(pg_error)?;
            if let Some(flag) = runs.get(&id) {
                flag.store(true, Ordering::Release);
            }
        }
        Ok(())
    }

    /// Deletes this instance's rows of tasks it no longer watches, and the rows of
    /// instances whose lease lapsed (part of the lease beat).
    pub(in super::super) async fn tidy_watches(&self) -> Result<(), StoreError> {
        let live: Vec<String> = self
            .watchers()
            .iter()
            .filter(|(_, list)| list.iter().any(|watcher| !watcher.is_closed()))
            .map(|(id, _)| id.clone())
            .collect();
        let db = self.conn.session()?;
        db.bounded(db.execute(
            "DELETE FROM a2ui_watchers w
             WHERE (w.instance = $1 AND w.task_id <> ALL($2))
                OR NOT EXISTS (SELECT 1 FROM a2ui_instances i WHERE i.id = w.instance
                    AND i.heartbeat > now() - make_interval(secs => $3))",
            &[&self.instance, &live, &self.lease.as_secs_f64()],
        ))
        .await?;
        Ok(())
    }
}
