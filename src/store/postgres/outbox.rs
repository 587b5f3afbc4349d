//! The push outbox of the PostgreSQL store: `a2ui_push_outbox`, one row per delivery not
//! acknowledged yet, naming the instance that holds it.
//!
//! A row is written when an update is queued for a webhook and deleted once the webhook
//! acknowledged it or it was given up on. An instance's rows outlive it: once its lease in
//! `a2ui_instances` has expired (by the database's clock, as for its tasks), a live instance
//! with push on takes over a webhook's rows in one statement guarded by a transaction-scoped
//! advisory lock on the webhook and naming the stopped instances it read as holding them,
//! so two instances asking together never split a webhook's deliveries between them (one
//! that took them while the other's statement waited keeps them), and sends them in id
//! order, which is the order they were held.
//!
//! When a peer fails the running task of an instance that stopped (see `lease`), it also
//! writes a row per webhook of the task, held by no instance and without a body: the final
//! update, which the instance taking the row encodes from the task as stored. Its id comes
//! after those of the updates the stopped instance held, so it is sent last.
//!
//! Setting or deleting a config notifies `a2ui_push_configs` with the task's id, which every
//! instance hears (see `notify`) and hands to its push sender: a running task's sender keeps
//! the configs it read until told they changed, instead of reading them for every update.
//! When the listener was down, every task's are read again.
//!
//! What this holds: an update queued for a webhook is delivered at least once as long as
//! some instance with push on runs (one lost between the webhook's answer and the row's
//! deletion is sent again); a webhook's updates arrive in order unless the instance holding
//! them was only cut off from the database, not dead, for longer than its lease, in which
//! case both may send them.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::a2a::Task;

use futures::future::BoxFuture;
use tokio::sync::mpsc;

use super::conn::Session;
use super::{ENGINE, Inner, PostgresStore, pg_error, read_row};
use crate::store::push_store;
use crate::store::row::COLUMNS;
use crate::store::{Adopted, Held, PendingUpdate, PushOutbox, StoreError};

/// The most webhooks taken over in one round.
const ADOPT_WEBHOOKS: i64 = 64;

/// Rows of instances whose lease expired, `$n` being the lease in seconds.
fn stale(lease: &str) -> String {
    format!(
        "NOT EXISTS (SELECT 1 FROM a2ui_instances i WHERE i.id = o.instance
            AND i.heartbeat > now() - make_interval(secs => {lease}))"
    )
}

/// Owes the final update of task `task_id`, just failed by this instance's sweep, to each
/// of its webhooks.
pub(super) async fn owe_final_update(db: &Session, task_id: &str) -> Result<(), StoreError> {
    db.bounded(db.execute(
        "INSERT INTO a2ui_push_outbox (task_id, config_id, instance, content_type, body)
         SELECT task_id, id, '', '', NULL FROM a2ui_push_configs WHERE task_id = $1
         ORDER BY seq",
        &[&task_id],
    ))
    .await
    .map(drop)
}

impl Inner {
    async fn hold(&self, held: &[Held<'_>]) -> Result<Vec<Option<i64>>, StoreError> {
        if held.is_empty() {
            return Ok(Vec::new());
        }
        let tasks: Vec<&str> = held.iter().map(|held| held.task_id).collect();
        let configs: Vec<&str> = held.iter().map(|held| held.config_id).collect();
        let types: Vec<&str> = held.iter().map(|held| held.content_type).collect();
        let bodies: Vec<&[u8]> = held.iter().map(|held| held.body).collect();
        let db = self.conn.session()?;
        let rows = db
            .bounded(db.query(
                "INSERT INTO a2ui_push_outbox (task_id, config_id, instance, content_type, body)
                 SELECT u.task_id, u.config_id, $1, u.content_type, u.body
                 FROM UNNEST($2::text[], $3::text[], $4::text[], $5::bytea[])
                    WITH ORDINALITY AS u(task_id, config_id, content_type, body, n)
                 WHERE EXISTS (SELECT 1 FROM a2ui_push_configs c
                    WHERE c.task_id = u.task_id AND c.id = u.config_id)
                 ORDER BY u.n
                 RETURNING id, task_id, config_id",
                &[&self.instance, &tasks, &configs, &types, &bodies],
            ))
            .await?;
        // Ids grow in the order the rows were inserted, which is `held`'s order; a config
        // deleted meanwhile has none of its rows inserted.
        let mut ids: Vec<(i64, String, String)> = Vec::with_capacity(rows.len());
        for row in rows {
            ids.push((
                row.try_get(0).map_err(pg_error)?,
                row.try_get(1).map_err(pg_error)?,
                row.try_get(2).map_err(pg_error)?,
            ));
        }
        ids.sort_unstable_by_key(|(id, _, _)| *id);
        let mut by_webhook: HashMap<(String, String), VecDeque<i64>> = HashMap::new();
        for (id, task, config) in ids {
            by_webhook.entry((task, config)).or_default().push_back(id);
        }
        Ok(held
            .iter()
            .map(|held| {
                by_webhook
                    .get_mut(&(held.task_id.to_owned(), held.config_id.to_owned()))?
                    .pop_front()
            })
            .collect())
    }

    async fn release(&self, ids: &[i64]) -> Result<(), StoreError> {
        if ids.is_empty() {
            return Ok(());
        }
        let db = self.conn.session()?;
        db.bounded(db.execute("DELETE FROM a2ui_push_outbox WHERE id = ANY($1)", &[&ids]))
            .await
            .map(drop)
    }

    async fn adopt(&self) -> Result<Vec<Adopted>, StoreError> {
        let lease = self.lease.as_secs_f64();
        let db = self.conn.session()?;
        let webhooks = db
            .bounded(db.query(
                &format!(
                    "SELECT o.task_id, o.config_id, array_agg(DISTINCT o.instance)
                     FROM a2ui_push_outbox o WHERE {}
                     GROUP BY o.task_id, o.config_id LIMIT $2",
                    stale("$1")
                ),
                &[&lease, &ADOPT_WEBHOOKS],
            ))
            .await?;
        let mut adopted = Vec::new();
        for webhook in webhooks {
            let task_id: String = webhook.try_get(0).map_err(pg_error)?;
            let config_id: String = webhook.try_get(1).map_err(pg_error)?;
            let holders: Vec<String> = webhook.try_get(2).map_err(pg_error)?;
            // `o.instance = ANY($5)`: a row a live peer took while this statement waited for
            // it is not taken again. PostgreSQL rechecks the row's own conditions against
            // the peer's version, but not the join the staleness check plans as (`stale`
            // passes for what it joined before the change).
            let rows = db
                .bounded(db.query(
                    &format!(
                        "UPDATE a2ui_push_outbox o SET instance = $1
                         FROM a2ui_push_configs c, a2ui_tasks t
                         WHERE o.task_id = $2 AND o.config_id = $3 AND o.instance = ANY($5)
                           AND c.task_id = o.task_id AND c.id = o.config_id
                           AND t.id = o.task_id AND {}
                           AND pg_try_advisory_xact_lock(hashtext(o.task_id),
                                hashtext(o.config_id))
                         RETURNING o.id, t.caller, c.config, o.content_type, o.body",
                        stale("$4")
                    ),
                    &[&self.instance, &task_id, &config_id, &lease, &holders],
                ))
                .await?;
            let mut taken = Vec::with_capacity(rows.len());
            for row in rows {
                let config: String = row.try_get(2).map_err(pg_error)?;
                let body: Option<Vec<u8>> = row.try_get(4).map_err(pg_error)?;
                let update = match body {
                    Some(body) => PendingUpdate::Encoded {
                        content_type: row.try_get(3).map_err(pg_error)?,
                        body,
                    },
                    None => PendingUpdate::Stopped(Box::new(self.stored(&db, &task_id).await?)),
                };
                taken.push(Adopted {
                    id: row.try_get(0).map_err(pg_error)?,
                    owner_key: row.try_get(1).map_err(pg_error)?,
                    task_id: task_id.clone(),
                    config: push_store::decode(ENGINE, &task_id, &config)?,
                    update,
                });
            }
            taken.sort_unstable_by_key(|adopted| adopted.id);
            if !taken.is_empty() {
                tracing::info!(%task_id, %config_id, deliveries = taken.len(),
                    "took over the push deliveries of an instance that stopped");
            }
            adopted.append(&mut taken);
        }
        Ok(adopted)
    }
}

/// How many changes may wait for the push sender before it is told "any task's".
const FEED: usize = 1024;

/// The ids of tasks whose push configs changed, for the push sender: nothing is kept until
/// it asks ([`ConfigFeed::open`]), and the listener never waits for it.
#[derive(Default)]
pub(super) struct ConfigFeed {
    sender: Mutex<Option<mpsc::Sender<Option<String>>>>,
    /// Set while a "any task's" waits for room, after the feed was full.
    catching_up: Arc<AtomicBool>,
}

impl ConfigFeed {
    /// The receiving end, for the first caller.
    fn open(&self) -> Option<mpsc::Receiver<Option<String>>> {
        let mut sender = self
            .sender
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if sender.is_some() {
            return None;
        }
        let (feed, receiver) = mpsc::channel(FEED);
        *sender = Some(feed);
        Some(receiver)
    }

    /// Tells the push sender, if it asked, that task `change`'s configs changed (`None`:
    /// any task's may have). When the feed is full, it is told "any task's" once there is
    /// room, which covers what did not fit.
    pub(super) fn tell(&self, change: Option<String>) {
        let Some(sender) = self
            .sender
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .clone()
        else {
            return;
        };
        if let Err(mpsc::error::TrySendError::Full(_)) = sender.try_send(change)
            && !self.catching_up.swap(true, Ordering::AcqRel)
        {
            let catching_up = self.catching_up.clone();
            tokio::spawn(async move {
                let _ = sender.send(None).await;
                catching_up.store(false, Ordering::Release);
            });
        }
    }
}

impl Inner {
    /// Task `task_id` as stored (it exists: its configs do).
    async fn stored(&self, db: &Session, task_id: &str) -> Result<Task, StoreError> {
        let row = db
            .bounded(db.query_one(
                &format!("SELECT {COLUMNS} FROM a2ui_tasks WHERE id = $1"),
                &[&task_id],
            ))
            .await?;
        read_row(&row)?.decode(ENGINE)
    }
}

impl PushOutbox for PostgresStore {
    fn hold<'a>(
        &'a self,
        held: &'a [Held<'a>],
    ) -> BoxFuture<'a, Result<Vec<Option<i64>>, StoreError>> {
        Box::pin(self.inner.hold(held))
    }

    fn release<'a>(&'a self, ids: &'a [i64]) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(self.inner.release(ids))
    }

    fn adopt(&self) -> BoxFuture<'_, Result<Vec<Adopted>, StoreError>> {
        Box::pin(self.inner.adopt())
    }

    fn adopt_every(&self) -> Duration {
        self.inner.lease / 3
    }

    fn config_changes(&self) -> Option<mpsc::Receiver<Option<String>>> {
        self.inner.config_feed.open()
    }
}
