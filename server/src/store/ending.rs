//! A playing match that ends without a result: abandoned (nobody came back, `table/idle.rs`), timed out (a
//! correspondence clock ran out under stall policy `end`, `table/clocks.rs`) or aborted by an administrator
//! (`table/admin.rs`).

use rules::Millis;

use super::{AuditEntry, Db, Phase, Store, StoreError, classify, to_i64};

/// How a match ends without a result: its `matches.status` and what is stored with it.
#[derive(Clone, Copy, Debug)]
pub enum Unfinished<'a> {
    Abandoned,
    /// `seat`'s clock ran out.
    TimedOut {
        seat: u8,
    },
    /// The audit entry (its reason becomes the match's `abort_reason`) is written in the same transaction.
    Aborted(&'a AuditEntry),
}

impl Unfinished<'_> {
    fn status(self) -> &'static str {
        match self {
            Self::Abandoned => "abandoned",
            Self::TimedOut { .. } => "timed_out",
            Self::Aborted(_) => "aborted",
        }
    }
}

impl Store {
    /// Ends a playing match at `at` as `how` (no result is recorded), and its lobby becomes `finished`, in one
    /// transaction. [`StoreError::Conflict`] if it was not playing.
    pub async fn end_unfinished(
        &self,
        match_id: &str,
        lobby_code: &str,
        how: Unfinished<'_>,
        at: Millis,
    ) -> Result<(), StoreError> {
        let timed_out_seat = match how {
            Unfinished::TimedOut { seat } => Some(i64::from(seat)),
            _ => None,
        };
        let abort_reason = match how {
            Unfinished::Aborted(audit) => Some(audit.reason.as_str()),
            _ => None,
        };
        on_pool!(self, pool => {
            let mut tx = pool.begin().await?;
            let done = sqlx::query(
                "UPDATE matches SET status = $1, finished_at = $2, timed_out_seat = $3, abort_reason = $4 \
                 WHERE id = $5 AND status = $6",
            )
            .bind(how.status())
            .bind(to_i64(at))
            .bind(timed_out_seat)
            .bind(abort_reason)
            .bind(match_id)
            .bind("playing")
            .execute(&mut *tx)
            .await
            .map_err(classify)?;
            if done.rows_affected() != 1 {
                return Err(StoreError::Conflict);
            }
            sqlx::query("UPDATE lobbies SET phase = $1, unloaded_until = NULL WHERE code = $2")
                .bind(Phase::Finished.as_str())
                .bind(lobby_code)
                .execute(&mut *tx)
                .await
                .map_err(classify)?;
            if let Unfinished::Aborted(audit) = how {
                insert_audit!(audit).execute(&mut *tx).await.map_err(classify)?;
            }
            tx.commit().await.map_err(classify)
        })
    }
}
