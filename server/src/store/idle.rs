//! Idle tables (issue 42, point 7): since when nobody has been connected to a table, whether it is out of memory
//! and by when it must be loaded again by itself. An abandoned match ends by `ending.rs`.

use rules::Millis;
use sqlx::Row;

use super::{Db, Phase, Store, StoreError, classify, to_i64};

/// `unloaded_until` of a table that never needs to be loaded by itself (an open lobby nobody is in).
pub const UNLOADED_FOR_GOOD: Millis = i64::MAX as Millis;

/// What the database holds of a table's idleness.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StoredIdleness {
    /// Since when nobody has been connected (`None`: someone was, or it is not known).
    pub idle_since: Option<Millis>,
    /// The table left memory (and has not been loaded since).
    pub unloaded: bool,
    /// Its match ended as abandoned.
    pub abandoned: bool,
}

impl Store {
    /// A lobby's idleness and whether its match was abandoned; `None` if there is no such lobby.
    pub async fn load_idleness(&self, code: &str) -> Result<Option<StoredIdleness>, StoreError> {
        on_pool!(self, pool => {
            let Some(row) = sqlx::query(
                "SELECT l.idle_since, l.unloaded_until, m.status FROM lobbies l \
                 LEFT JOIN matches m ON m.lobby_code = l.code WHERE l.code = $1",
            )
            .bind(code)
            .fetch_optional(pool)
            .await
            .map_err(classify)?
            else {
                return Ok(None);
            };
            Ok(Some(StoredIdleness {
                idle_since: row.try_get::<Option<i64>, _>("idle_since")?.map(|v| v as Millis),
                unloaded: row.try_get::<Option<i64>, _>("unloaded_until")?.is_some(),
                abandoned: row.try_get::<Option<String>, _>("status")?.as_deref() == Some("abandoned"),
            }))
        })
    }

    /// Writes since when nobody has been connected to a table, and (`Some`) that it leaves memory and must be
    /// loaded again by that time, or (`None`) that it is in memory.
    pub async fn set_idleness(
        &self,
        code: &str,
        idle_since: Option<Millis>,
        unloaded_until: Option<Millis>,
    ) -> Result<(), StoreError> {
        on_pool!(self, pool => {
            sqlx::query("UPDATE lobbies SET idle_since = $1, unloaded_until = $2 WHERE code = $3")
                .bind(idle_since.map(to_i64))
                .bind(unloaded_until.map(|at| at.min(UNLOADED_FOR_GOOD)).map(to_i64))
                .bind(code)
                .execute(pool)
                .await
                .map(|_| ())
                .map_err(classify)
        })
    }

    /// Open or playing tables out of memory that must be loaded by `now` (a wake-up or abandonment is due), the
    /// most overdue first, at most `limit`.
    pub async fn due_unloaded(&self, now: Millis, limit: u32) -> Result<Vec<String>, StoreError> {
        on_pool!(self, pool => {
            let rows = sqlx::query(
                "SELECT code FROM lobbies WHERE unloaded_until <= $1 AND (phase = $2 OR phase = $3) \
                 ORDER BY unloaded_until LIMIT $4",
            )
            .bind(to_i64(now))
            .bind(Phase::Open.as_str())
            .bind(Phase::Playing.as_str())
            .bind(i64::from(limit))
            .fetch_all(pool)
            .await
            .map_err(classify)?;
            rows.iter().map(|r| r.try_get::<String, _>("code").map_err(classify)).collect()
        })
    }

    /// The earliest time a table out of memory must be loaded by itself, if any.
    pub async fn next_unloaded_due(&self) -> Result<Option<Millis>, StoreError> {
        on_pool!(self, pool => {
            let row = sqlx::query(
                "SELECT MIN(unloaded_until) AS due FROM lobbies WHERE unloaded_until < $1 AND (phase = $2 OR phase = $3)",
            )
            .bind(to_i64(UNLOADED_FOR_GOOD))
            .bind(Phase::Open.as_str())
            .bind(Phase::Playing.as_str())
            .fetch_one(pool)
            .await
            .map_err(classify)?;
            Ok(row.try_get::<Option<i64>, _>("due")?.map(|v| v as Millis))
        })
    }
}
