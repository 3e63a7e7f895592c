//! Downtime (issue 47, point 2): the single-node server's runs with their heartbeats, from which the gaps nobody
//! was served in follow (`crate::downtime`), and each playing table's credited outages (`table/downtime.rs`).

use rules::Millis;
use sqlx::Row;

use super::{Db, Store, StoreError, classify, to_i64};

/// One run of the server: when it started and when it last recorded that it was serving.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ServerRun {
    pub started_at: Millis,
    pub beat_at: Millis,
}

/// A span of time `[from, to)` in Unix milliseconds during which a table was not served.
pub type Outage = (Millis, Millis);

impl Store {
    /// Every earlier run of the server that can still matter, then records this one (`id`) as started and serving
    /// at `now`. The others are deleted: a table is credited the gaps after its last action, which is after the
    /// lobby's creation, so only the gaps that end after the oldest unfinished lobby's creation matter, and for
    /// those the runs before it are needed only for their latest beat (one run keeps it).
    pub async fn start_run(&self, id: &str, now: Millis) -> Result<Vec<ServerRun>, StoreError> {
        on_pool!(self, pool => {
            let mut tx = pool.begin().await.map_err(classify)?;
            let oldest: Option<i64> =
                sqlx::query_scalar("SELECT MIN(created_at) FROM lobbies WHERE phase = 'open' OR phase = 'playing'")
                    .fetch_one(&mut *tx)
                    .await
                    .map_err(classify)?;
            let keep_from = oldest.unwrap_or(to_i64(now));
            sqlx::query(
                "DELETE FROM server_runs WHERE beat_at < $1 AND id <> \
                 (SELECT id FROM server_runs WHERE beat_at < $1 ORDER BY beat_at DESC, id LIMIT 1)",
            )
            .bind(keep_from)
            .execute(&mut *tx)
            .await
            .map_err(classify)?;
            let rows = sqlx::query("SELECT started_at, beat_at FROM server_runs ORDER BY started_at")
                .fetch_all(&mut *tx)
                .await
                .map_err(classify)?;
            let mut runs = Vec::with_capacity(rows.len());
            for row in rows {
                runs.push(ServerRun {
                    started_at: row.try_get::<i64, _>("started_at")? as Millis,
                    beat_at: row.try_get::<i64, _>("beat_at")? as Millis,
                });
            }
            sqlx::query("INSERT INTO server_runs (id, started_at, beat_at) VALUES ($1, $2, $2)")
                .bind(id)
                .bind(to_i64(now))
                .execute(&mut *tx)
                .await
                .map_err(classify)?;
            tx.commit().await.map_err(classify)?;
            Ok(runs)
        })
    }

    /// Records that the run `id` was serving at `at` (never moves its beat back).
    pub async fn beat_run(&self, id: &str, at: Millis) -> Result<(), StoreError> {
        on_pool!(self, pool => {
            sqlx::query("UPDATE server_runs SET beat_at = $1 WHERE id = $2 AND beat_at < $1")
                .bind(to_i64(at))
                .bind(id)
                .execute(pool)
                .await
                .map(|_| ())
                .map_err(classify)
        })
    }

    /// The outages a table has been credited for, oldest first.
    pub async fn table_outages(&self, code: &str) -> Result<Vec<Outage>, StoreError> {
        on_pool!(self, pool => {
            let rows = sqlx::query("SELECT from_ms, to_ms FROM table_outages WHERE code = $1 ORDER BY from_ms")
                .bind(code)
                .fetch_all(pool)
                .await
                .map_err(classify)?;
            let mut outages = Vec::with_capacity(rows.len());
            for row in rows {
                outages.push((
                    row.try_get::<i64, _>("from_ms")? as Millis,
                    row.try_get::<i64, _>("to_ms")? as Millis,
                ));
            }
            Ok(outages)
        })
    }

    /// Credits a table with `outages` and moves its stand-in times as given (`stand_ins`: seat and new time), in
    /// one transaction; forgets its outages that ended by `forget_until` (its last action). An outage already
    /// recorded (same start) is kept as it is.
    pub async fn credit_outages(
        &self,
        code: &str,
        outages: &[Outage],
        forget_until: Millis,
        stand_ins: &[(u8, Option<Millis>)],
    ) -> Result<(), StoreError> {
        on_pool!(self, pool => {
            let mut tx = pool.begin().await.map_err(classify)?;
            sqlx::query("DELETE FROM table_outages WHERE code = $1 AND to_ms <= $2")
                .bind(code)
                .bind(to_i64(forget_until))
                .execute(&mut *tx)
                .await
                .map_err(classify)?;
            for (from, to) in outages {
                sqlx::query(
                    "INSERT INTO table_outages (code, from_ms, to_ms) VALUES ($1, $2, $3) \
                     ON CONFLICT (code, from_ms) DO NOTHING",
                )
                .bind(code)
                .bind(to_i64(*from))
                .bind(to_i64(*to))
                .execute(&mut *tx)
                .await
                .map_err(classify)?;
            }
            for (seat, from) in stand_ins {
                sqlx::query("UPDATE seats SET stand_in_from = $1 WHERE lobby_code = $2 AND seat = $3")
                    .bind(from.map(to_i64))
                    .bind(code)
                    .bind(i64::from(*seat))
                    .execute(&mut *tx)
                    .await
                    .map_err(classify)?;
            }
            tx.commit().await.map_err(classify)
        })
    }
}
