//! Correspondence clocks (`0015_correspondence.sql`): a lobby's pace changed by its host, the clocks after the
//! last action (written with each action by the group commit) or after a vacation, and each seat's vacation. A
//! match whose seat's clock ran out ends by `ending.rs`.

use rules::Millis;
use sqlx::Row;

use super::{Db, Store, StoreError, classify, small, to_i64};

/// One seat's vacation as stored.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StoredVacation {
    pub from: Millis,
    pub until: Millis,
    /// The calendar month its days count in (`year * 12 + month - 1`, UTC) and the days taken in that month.
    pub month: u32,
    pub days: u32,
}

/// What a correspondence match's clocks are derived from on recovery.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StoredClocks {
    /// The clocks after the match's latest action: its version and its `clocks` text (`None` without actions).
    pub after_action: Option<(u64, Option<String>)>,
    /// The clocks written by a vacation after an action: `{"version": .., "banks": ..}`.
    pub after_vacation: Option<String>,
    /// The seat whose clock ran out, if the match ended as timed out.
    pub timed_out_seat: Option<u8>,
    /// Per seat: its last vacation.
    pub vacations: Vec<(u8, Option<StoredVacation>)>,
}

impl Store {
    /// Sets an open lobby's pace (`None`: live).
    pub async fn set_pace(&self, code: &str, pace: Option<&str>) -> Result<(), StoreError> {
        on_pool!(self, pool => {
            sqlx::query("UPDATE lobbies SET pace = $1 WHERE code = $2")
                .bind(pace)
                .bind(code)
                .execute(pool)
                .await
                .map(|_| ())
                .map_err(classify)
        })
    }

    /// What a correspondence match's clocks are derived from (see [`StoredClocks`]).
    pub async fn load_clocks(&self, code: &str, match_id: &str) -> Result<StoredClocks, StoreError> {
        on_pool!(self, pool => {
            let mut stored = StoredClocks::default();
            if let Some(row) = sqlx::query("SELECT seq, clocks FROM actions WHERE match_id = $1 ORDER BY seq DESC LIMIT 1")
                .bind(match_id)
                .fetch_optional(pool)
                .await
                .map_err(classify)?
            {
                stored.after_action = Some((row.try_get::<i64, _>("seq")? as u64, row.try_get("clocks")?));
            }
            if let Some(row) = sqlx::query("SELECT clocks, timed_out_seat FROM matches WHERE id = $1")
                .bind(match_id)
                .fetch_optional(pool)
                .await
                .map_err(classify)?
            {
                stored.after_vacation = row.try_get("clocks")?;
                stored.timed_out_seat = row
                    .try_get::<Option<i64>, _>("timed_out_seat")?
                    .map(|s| small(s, "timed-out seat"))
                    .transpose()?;
            }
            for row in sqlx::query(
                "SELECT seat, vacation_from, vacation_until, vacation_month, vacation_days FROM seats \
                 WHERE lobby_code = $1 ORDER BY seat",
            )
            .bind(code)
            .fetch_all(pool)
            .await
            .map_err(classify)?
            {
                let seat = small(row.try_get("seat")?, "seat")?;
                let vacation = match (
                    row.try_get::<Option<i64>, _>("vacation_from")?,
                    row.try_get::<Option<i64>, _>("vacation_until")?,
                ) {
                    (Some(from), Some(until)) => Some(StoredVacation {
                        from: from as u64,
                        until: until as u64,
                        month: row.try_get::<Option<i64>, _>("vacation_month")?.unwrap_or(0) as u32,
                        days: row.try_get::<Option<i64>, _>("vacation_days")?.unwrap_or(0) as u32,
                    }),
                    _ => None,
                };
                stored.vacations.push((seat, vacation));
            }
            Ok(stored)
        })
    }

    /// Stores a seat's vacation and the clocks it changed (after the match's latest action), together.
    pub async fn set_vacation(
        &self,
        code: &str,
        match_id: &str,
        seat: u8,
        vacation: StoredVacation,
        clocks: &str,
    ) -> Result<(), StoreError> {
        on_pool!(self, pool => {
            let mut tx = pool.begin().await?;
            sqlx::query(
                "UPDATE seats SET vacation_from = $1, vacation_until = $2, vacation_month = $3, vacation_days = $4 \
                 WHERE lobby_code = $5 AND seat = $6",
            )
            .bind(to_i64(vacation.from))
            .bind(to_i64(vacation.until))
            .bind(i64::from(vacation.month))
            .bind(i64::from(vacation.days))
            .bind(code)
            .bind(i64::from(seat))
            .execute(&mut *tx)
            .await
            .map_err(classify)?;
            sqlx::query("UPDATE matches SET clocks = $1 WHERE id = $2")
                .bind(clocks)
                .bind(match_id)
                .execute(&mut *tx)
                .await
                .map_err(classify)?;
            tx.commit().await.map_err(classify)
        })
    }
}
