//! The push notification configs of the PostgreSQL store: `a2ui_push_configs`, reached only
//! through a live task of the caller and deleted with it (a foreign key, `ON DELETE
//! CASCADE`). Each call is one statement, so instances sharing the database see one set;
//! a change is then notified to every instance's push sender (see `outbox`).

use super::conn::Session;
use super::{ENGINE, Inner};
use crate::a2a::PushConfig;
use crate::store::push_store::{self, PushConfigPut};
use crate::store::{Owner, StoreError};

/// The live task `$1` of caller `$2` at `$3`, as a CTE.
const TASK: &str = "task AS (SELECT id FROM a2ui_tasks
    WHERE id = $1 AND caller = $2 AND (expires_ms IS NULL OR expires_ms > $3))";

impl Inner {
    /// Tells every instance's push sender that task `task_id`'s configs changed.
    async fn configs_changed(&self, db: &Session, task_id: &str) -> Result<(), StoreError> {
        db.bounded(db.execute(
            "SELECT pg_notify($1, $2)",
            &[&super::notify::PUSH_CONFIGS, &task_id],
        ))
        .await
        .map(drop)
    }

    pub(super) async fn put_push_config(
        &self,
        owner: &Owner,
        task_id: &str,
        config: &PushConfig,
        max: usize,
    ) -> Result<PushConfigPut, StoreError> {
        let db = self.conn.session()?;
        let max = i64::try_from(max).unwrap_or(i64::MAX);
        let row = db
            .bounded(db.query_one(
                &format!(
                    "WITH {TASK},
                     updated AS (UPDATE a2ui_push_configs SET config = $5
                        WHERE task_id = $1 AND id = $4 AND EXISTS (SELECT 1 FROM task)
                        RETURNING 1),
                     inserted AS (INSERT INTO a2ui_push_configs (task_id, id, config)
                        SELECT $1, $4, $5
                        WHERE EXISTS (SELECT 1 FROM task) AND NOT EXISTS (SELECT 1 FROM updated)
                          AND (SELECT COUNT(*) FROM a2ui_push_configs WHERE task_id = $1) < $6
                        ON CONFLICT (task_id, id) DO UPDATE SET config = EXCLUDED.config
                        RETURNING 1)
                     SELECT (SELECT COUNT(*) FROM task),
                        (SELECT COUNT(*) FROM updated) + (SELECT COUNT(*) FROM inserted)"
                ),
                &[
                    &task_id,
                    &owner.key(),
                    &self.now_ms(),
                    &config.id,
                    &push_store::encode(config),
                    &max,
                ],
            ))
            .await?;
        let tasks: i64 = row.try_get(0).map_err(super::pg_error)?;
        let kept: i64 = row.try_get(1).map_err(super::pg_error)?;
        if kept > 0 {
            self.configs_changed(&db, task_id).await?;
        }
        Ok(match (tasks, kept) {
            (0, _) => PushConfigPut::NoTask,
            (_, 0) => PushConfigPut::Full,
            _ => PushConfigPut::Kept,
        })
    }

    pub(super) async fn push_configs(
        &self,
        owner: &Owner,
        task_id: &str,
    ) -> Result<Option<Vec<PushConfig>>, StoreError> {
        let db = self.conn.session()?;
        let rows = db
            .bounded(db.query(
                &format!(
                    "WITH {TASK}
                     SELECT c.config FROM task
                     LEFT JOIN a2ui_push_configs c ON c.task_id = task.id
                     ORDER BY c.seq"
                ),
                &[&task_id, &owner.key(), &self.now_ms()],
            ))
            .await?;
        if rows.is_empty() {
            return Ok(None);
        }
        let mut configs = Vec::with_capacity(rows.len());
        for row in rows {
            let text: Option<String> = row.try_get(0).map_err(super::pg_error)?;
            if let Some(text) = text {
                configs.push(push_store::decode(ENGINE, task_id, &text)?);
            }
        }
        Ok(Some(configs))
    }

    pub(super) async fn delete_push_config(
        &self,
        owner: &Owner,
        task_id: &str,
        config_id: &str,
    ) -> Result<Option<bool>, StoreError> {
        let db = self.conn.session()?;
        let row = db
            .bounded(db.query_one(
                &format!(
                    "WITH {TASK},
                     deleted AS (DELETE FROM a2ui_push_configs
                        WHERE task_id = $1 AND id = $4 AND EXISTS (SELECT 1 FROM task)
                        RETURNING 1)
                     SELECT (SELECT COUNT(*) FROM task), (SELECT COUNT(*) FROM deleted)"
                ),
                &[&task_id, &owner.key(), &self.now_ms(), &config_id],
            ))
            .await?;
        let tasks: i64 = row.try_get(0).map_err(super::pg_error)?;
        let deleted: i64 = row.try_get(1).map_err(super::pg_error)?;
        if deleted > 0 {
            self.configs_changed(&db, task_id).await?;
        }
        Ok((tasks > 0).then_some(deleted > 0))
    }
}
