//! Cluster mode's count of lobby creations per client address (`migrations/postgres/0013_lobby_creations.sql`):
//! the nodes share one count, so `MAX_LOBBIES_PER_IP` holds for the cluster, whichever nodes the creations reach.
//! A single node counts in memory instead (`connection.rs`, `Shared::take_lobby_slot`).

use std::time::Duration;

use super::{Db, Store, StoreError, classify};

/// Old rows one creation deletes at most: each creation adds one row, so the table keeps to the creations of the
/// last window, and no statement waits on a long delete.
const PRUNE_BATCH: i64 = 100;

impl Store {
    /// Counts a lobby creation under `address_key` (a keyed hash of the address, never the address) if fewer than
    /// `limit` were counted under it within `window`, and returns its row's id; `None` when the allowance is used
    /// up. The check and the insert are one transaction under an advisory lock of the key, so two nodes cannot
    /// both take the last place. Rows older than the window are deleted on the way. PostgreSQL only.
    pub async fn count_lobby_creation(
        &self,
        address_key: &str,
        limit: usize,
        window: Duration,
    ) -> Result<Option<i64>, StoreError> {
        let Db::Postgres(pool) = &self.db else {
            return Err(needs_postgres());
        };
        let window_ms = i64::try_from(window.as_millis()).unwrap_or(i64::MAX);
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        self.guarded(async {
            let mut tx = pool.begin().await.map_err(classify)?;
            // Creations under other keys go on meanwhile; a collision of two keys' hashes only makes them wait.
            sqlx::query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))")
                .bind(address_key)
                .execute(&mut *tx)
                .await
                .map_err(classify)?;
            // A row another node is deleting is skipped, not waited for.
            sqlx::query(
                "DELETE FROM lobby_creations WHERE id IN (SELECT id FROM lobby_creations \
                 WHERE created_at <= now() - $1 * interval '1 millisecond' \
                 ORDER BY created_at LIMIT $2 FOR UPDATE SKIP LOCKED)",
            )
            .bind(window_ms)
            .bind(PRUNE_BATCH)
            .execute(&mut *tx)
            .await
            .map_err(classify)?;
            // A statement after the lock sees every creation committed before it was granted.
            let id: Option<i64> = sqlx::query_scalar(
                "INSERT INTO lobby_creations (address_key) SELECT $1 \
                 WHERE (SELECT count(*) FROM lobby_creations \
                        WHERE address_key = $1 AND created_at > now() - $2 * interval '1 millisecond') < $3 \
                 RETURNING id",
            )
            .bind(address_key)
            .bind(window_ms)
            .bind(limit)
            .fetch_optional(&mut *tx)
            .await
            .map_err(classify)?;
            tx.commit().await.map_err(classify)?;
            Ok(id)
        })
        .await
    }

    /// Takes back a creation counted by [`Store::count_lobby_creation`] whose lobby was not made after all.
    pub async fn forget_lobby_creation(&self, id: i64) -> Result<(), StoreError> {
        let Db::Postgres(pool) = &self.db else {
            return Err(needs_postgres());
        };
        self.guarded(async {
            sqlx::query("DELETE FROM lobby_creations WHERE id = $1")
                .bind(id)
                .execute(pool)
                .await
                .map(drop)
                .map_err(classify)
        })
        .await
    }
}

fn needs_postgres() -> StoreError {
    StoreError::Database(sqlx::Error::Configuration(
        "the lobby count per address in the database is cluster mode's, which needs PostgreSQL".into(),
    ))
}
