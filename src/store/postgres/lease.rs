//! Leases: no task stays `working` after the instance running it died.
//!
//! Each instance renews its row in `a2ui_instances` every third of its lease. A task that is
//! `submitted` or `working` belongs to the instance that wrote it; when that instance's lease
//! has expired (by the database's clock, so instance clocks need not agree), whichever
//! instance sweeps first stores the task as `failed` saying the server stopped, and publishes
//! that final update so watchers on other instances see the stream end, and owes it to the
//! task's webhooks (see `outbox`). The write is
//! conditional on the task still being that instance's and still running, so it never
//! overwrites a task that settled meanwhile. The failed row keeps naming the instance as
//! its owner (a task this instance settles itself has none): should that instance come
//! back, its later writes of the task are dropped, and the failure its watchers saw stands.
//! The sweep also deletes expired tasks, old large-event rows and long-dead instances; the
//! beat deletes the watch announcements this instance no longer needs and those of
//! instances whose lease lapsed (see `notify::interest`).
//!
//! Across a lost connection: the keeper waits while the database is out of reach and beats
//! as soon as it is back, before the lease lapses if the outage was shorter. A task this
//! instance settled meanwhile could not be written, and its row would say `working` under a
//! live lease for ever: the beat writes it (only over a row still running under this
//! instance) and publishes its final update. After an outage longer than the lease, peers
//! have failed this instance's running tasks, as they would a crashed instance's; that
//! stands (see above), and the renewal logs a warning.

use std::sync::{Arc, Weak};
use std::time::SystemTime;

use super::super::row::{COLUMNS, Row, stopped};
use super::{ENGINE, Inner, pg_error, read_row, row_args};
use crate::a2a::{StreamEvent, Task, TaskStatusUpdateEvent};
use crate::store::StoreError;

/// Renews this instance's lease (creating it at start). Warns when the lease had lapsed (the
/// database was out of reach for longer than it): peers may have failed this instance's
/// running tasks meanwhile, as they should.
pub(super) async fn renew(inner: &Inner) -> Result<(), StoreError> {
    let db = inner.conn.session()?;
    let lapsed: Option<bool> = db
        .bounded(db.query_one(
            "WITH previous AS (SELECT heartbeat FROM a2ui_instances WHERE id = $1)
             INSERT INTO a2ui_instances (id, heartbeat) VALUES ($1, now())
             ON CONFLICT (id) DO UPDATE SET heartbeat = now()
             RETURNING (SELECT heartbeat < now() - make_interval(secs => $2) FROM previous)",
            &[&inner.instance, &inner.lease.as_secs_f64()],
        ))
        .await?
        .try_get(0)
        .map_err(pg_error)?;
    if lapsed == Some(true) {
        tracing::warn!(instance = %inner.instance,
            "the lease lapsed while the database was out of reach: \
             peers may have failed the tasks this instance runs");
    }
    Ok(())
}

/// Fails the running tasks of instances whose lease expired, and deletes what expired.
pub(super) async fn sweep(inner: &Inner) -> Result<(), StoreError> {
    let lease = inner.lease.as_secs_f64();
    let db = inner.conn.session()?;
    let orphans = db
        .bounded(db.query(
            &format!(
                "SELECT {COLUMNS}, owner FROM a2ui_tasks t
                 WHERE expires_ms IS NULL AND state IN ('submitted', 'working')
                   AND NOT EXISTS (SELECT 1 FROM a2ui_instances i WHERE i.id = t.owner
                       AND i.heartbeat > now() - make_interval(secs => $1))"
            ),
            &[&lease],
        ))
        .await?;
    for row in &orphans {
        let owner: Option<String> = row.try_get(8).map_err(pg_error)?;
        let task = stopped(read_row(row)?.decode(ENGINE)?, SystemTime::now());
        let encoded = Row::encode(&task);
        let changed = db
            .bounded(db.execute(
                "UPDATE a2ui_tasks SET state = $2, status_ts = $3, status_message = $4,
                    history = $5, expires_ms = $6
                 WHERE id = $1 AND owner IS NOT DISTINCT FROM $7
                    AND state IN ('submitted', 'working')",
                &[
                    &encoded.id,
                    &encoded.state,
                    &encoded.status_ts,
                    &encoded.status_message,
                    &encoded.history,
                    &inner.expiry(task.status.state),
                    &owner,
                ],
            ))
            .await?;
        if changed == 1 {
            tracing::warn!(task_id = %task.id, owner = owner.as_deref().unwrap_or("none"),
                "the instance running the task stopped renewing its lease: failed");
            let event = StreamEvent::StatusUpdate(TaskStatusUpdateEvent::of(&task, true));
            inner.publish(&event).await?;
            super::outbox::owe_final_update(&db, &task.id).await?;
        }
    }
    db.bounded(db.batch_execute(&format!(
        "DELETE FROM a2ui_tasks WHERE expires_ms <= {now};
         DELETE FROM a2ui_events WHERE created < now() - interval '5 minutes';
         DELETE FROM a2ui_instances WHERE heartbeat < now() - interval '1 day';",
        now = inner.now_ms()
    )))
    .await
}

/// Renews the lease and sweeps every third of the lease, and at once when the database is
/// back after an outage, until the store is dropped. While the query connection is down it
/// waits (the connection logs the outage).
pub(super) async fn keep(store: Weak<Inner>) {
    let Some((every, mut reconnections)) = store
        .upgrade()
        .map(|inner| (inner.lease / 3, inner.conn.reconnections()))
    else {
        return;
    };
    reconnections.mark_unchanged();
    let mut ticks = tokio::time::interval(every);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    ticks.tick().await;
    loop {
        tokio::select! {
            _ = ticks.tick() => {}
            changed = reconnections.changed() => {
                if changed.is_err() {
                    break;
                }
                ticks.reset();
            }
        }
        let Some(inner) = store.upgrade() else {
            break;
        };
        if !inner.conn.is_up() {
            continue;
        }
        if let Err(error) = beat(&inner).await {
            tracing::warn!(%error, "could not renew the PostgreSQL lease or sweep");
        }
    }
}

async fn beat(inner: &Arc<Inner>) -> Result<(), StoreError> {
    renew(inner).await?;
    let saved = save_unsaved(inner).await;
    sweep(inner).await?;
    inner.tidy_watches().await?;
    saved
}

/// Writes the tasks this instance settled while the database was out of reach (their rows
/// still say they run), then sends their final update to the watchers. Only a row still
/// running under this instance is written: one a peer failed because the lease lapsed
/// stays failed.
pub(super) async fn save_unsaved(inner: &Inner) -> Result<(), StoreError> {
    let pending: Vec<Task> = inner.unsaved().values().cloned().collect();
    for task in pending {
        let written = match write_unsaved(inner, &task).await {
            Ok(written) => written,
            // The database is out of reach again: retry at the next beat.
            Err(error) if !inner.conn.is_up() => return Err(error),
            Err(error) => {
                tracing::warn!(task_id = %task.id, %error, "could not store how the task ended");
                inner.saved(&task);
                continue;
            }
        };
        inner.saved(&task);
        if written {
            tracing::info!(task_id = %task.id, state = %task.status.state,
                "stored how the task ended once the database was back");
            inner
                .publish(&StreamEvent::StatusUpdate(TaskStatusUpdateEvent::of(
                    &task, true,
                )))
                .await?;
        } else {
            tracing::warn!(task_id = %task.id, state = %task.status.state,
                "how the task ended was not stored: its row no longer runs under this instance \
                 (a peer failed it while the lease had lapsed)");
        }
    }
    Ok(())
}

/// Writes settled `task` if its row still runs under this instance; whether it did.
async fn write_unsaved(inner: &Inner, task: &Task) -> Result<bool, StoreError> {
    let row = Row::encode(task);
    let db = inner.conn.session()?;
    db.bounded(db.execute(
        "UPDATE a2ui_tasks SET context_id = $2, state = $3, status_ts = $4,
            status_message = $5, history = $6, artifacts = $7, metadata = $8,
            expires_ms = $9, owner = NULL
         WHERE id = $1 AND owner = $10 AND state IN ('submitted', 'working')",
        &row_args(&row, &[&inner.expiry(task.status.state), &inner.instance]),
    ))
    .await
    .map(|changed| changed == 1)
}
