//! The push notification configs of the SQLite store: the `push_configs` table, reached
//! only through a live task of the caller (the trigger of migration 4 deletes a task's
//! configs with it).

use rusqlite::{Connection, OptionalExtension, params};

use super::{ENGINE, sql_error};
use crate::a2a::PushConfig;
use crate::store::StoreError;
use crate::store::push_store::{self, PushConfigPut};

/// Whether `caller` has the live task `task_id` at `now`.
fn has_task(
    connection: &Connection,
    caller: &str,
    task_id: &str,
    now: i64,
) -> Result<bool, StoreError> {
    connection
        .query_row(
            "SELECT 1 FROM tasks WHERE id = ?1 AND caller = ?2
               AND (expires_ms IS NULL OR expires_ms > ?3)",
            params![task_id, caller, now],
            |_| Ok(()),
        )
        .optional()
        .map(|found| found.is_some())
        .map_err(sql_error)
}

/// Sets `config` on `caller`'s task `task_id`, in one transaction.
pub(super) fn put(
    connection: &mut Connection,
    caller: &str,
    task_id: &str,
    config: &PushConfig,
    max: usize,
    now: i64,
) -> Result<PushConfigPut, StoreError> {
    let transaction = connection.transaction().map_err(sql_error)?;
    if !has_task(&transaction, caller, task_id, now)? {
        return Ok(PushConfigPut::NoTask);
    }
    let encoded = push_store::encode(config);
    let replaced = transaction
        .execute(
            "UPDATE push_configs SET config = ?3 WHERE task_id = ?1 AND id = ?2",
            params![task_id, config.id, encoded],
        )
        .map_err(sql_error)?;
    if replaced == 0 {
        let (count, seq): (i64, i64) = transaction
            .query_row(
                "SELECT COUNT(*), COALESCE(MAX(seq), 0) + 1 FROM push_configs WHERE task_id = ?1",
                params![task_id],
                |row| Ok((row.get(0)?, row.get(1)?)),
            )
            .map_err(sql_error)?;
        if usize::try_from(count).unwrap_or(usize::MAX) >= max {
            return Ok(PushConfigPut::Full);
        }
        transaction
            .execute(
                "INSERT INTO push_configs (task_id, id, seq, config) VALUES (?1, ?2, ?3, ?4)",
                params![task_id, config.id, seq, encoded],
            )
            .map_err(sql_error)?;
    }
    transaction.commit().map_err(sql_error)?;
    Ok(PushConfigPut::Kept)
}

/// The configs of `caller`'s task `task_id`, in the order first set.
pub(super) fn list(
    connection: &Connection,
    caller: &str,
    task_id: &str,
    now: i64,
) -> Result<Option<Vec<PushConfig>>, StoreError> {
    if !has_task(connection, caller, task_id, now)? {
        return Ok(None);
    }
    let mut statement = connection
        .prepare_cached("SELECT config FROM push_configs WHERE task_id = ?1 ORDER BY seq")
        .map_err(sql_error)?;
    let rows = statement
        .query_map(params![task_id], |row| row.get::<_, String>(0))
        .map_err(sql_error)?
        .collect::<Result<Vec<_>, _>>()
        .map_err(sql_error)?;
    rows.iter()
        .map(|text| push_store::decode(ENGINE, task_id, text))
        .collect::<Result<Vec<_>, _>>()
        .map(Some)
}

/// Deletes config `config_id` of `caller`'s task `task_id`.
pub(super) fn delete(
    connection: &Connection,
    caller: &str,
    task_id: &str,
    config_id: &str,
    now: i64,
) -> Result<Option<bool>, StoreError> {
    if !has_task(connection, caller, task_id, now)? {
        return Ok(None);
    }
    let deleted = connection
        .execute(
            "DELETE FROM push_configs WHERE task_id = ?1 AND id = ?2",
            params![task_id, config_id],
        )
        .map_err(sql_error)?;
    Ok(Some(deleted > 0))
}
