//! Notifications (issue 47): each seat's endpoints and the outbox (`migrations/*/0017_notify_outbox.sql`).
//!
//! A notification is one outbox row per active endpoint of its seat, written in the transaction of its cause (the
//! group commit: [`Store::write_batch_with`]) or alone ([`Store::insert_notices`]), and deleted once delivered. A
//! worker claims due rows: on PostgreSQL with `FOR UPDATE SKIP LOCKED` and a claim that expires, so that in a
//! cluster exactly one node sends a row and a dead node's claims are taken over; SQLite is single-node. The rate
//! limits count deliveries in `notify_sent` (migration 0020), for every node at once.

use sqlx::Row;

use super::{Db, Store, StoreError, classify, small, to_i64};

/// A notification a table writes: to every active endpoint of `seat` in `lobby_code`, with the same id.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Notice {
    /// The notification's id (a UUID's text): the same in every delivery, for receivers to drop a repeat.
    pub id: String,
    /// `your_turn`, `clock_low` or `match_over`.
    pub kind: &'static str,
    pub lobby_code: String,
    pub seat: u8,
    /// When its cause was committed (the table's clock).
    pub at: u64,
}

/// One endpoint of a seat, as stored. `target` is the URL, address or push endpoint; `secret` the webhook's
/// signing key or the push subscription's p256dh key; `auth` the push subscription's auth secret.
#[derive(Clone, PartialEq, Eq)]
pub struct StoredEndpoint {
    pub id: i64,
    pub channel: String,
    pub target: String,
    pub secret: Option<String>,
    pub auth: Option<String>,
    pub language: String,
    pub active: bool,
    pub last_error: Option<String>,
}

/// Never prints the target or secrets.
impl std::fmt::Debug for StoredEndpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StoredEndpoint")
            .field("id", &self.id)
            .field("channel", &self.channel)
            .field("active", &self.active)
            .finish_non_exhaustive()
    }
}

/// A claimed outbox row with its endpoint and the lobby's game.
#[derive(Clone, Debug)]
pub struct OutboxRow {
    pub id: i64,
    pub notification_id: String,
    pub kind: String,
    pub lobby_code: String,
    pub seat: u8,
    pub created_at: u64,
    pub attempts: u32,
    pub game: String,
    pub endpoint: StoredEndpoint,
}

const ENDPOINT_COLUMNS: &str =
    "e.id, e.channel, e.target, e.secret, e.auth, e.language, e.active, e.last_error";

fn endpoint_of(row: &impl RowLike) -> Result<StoredEndpoint, StoreError> {
    Ok(StoredEndpoint {
        id: row.i64("id")?,
        channel: row.text("channel")?,
        target: row.text("target")?,
        secret: row.opt_text("secret")?,
        auth: row.opt_text("auth")?,
        language: row.text("language")?,
        active: row.i64("active")? != 0,
        last_error: row.opt_text("last_error")?,
    })
}

/// The columns read here, from a row of either backend.
trait RowLike {
    fn i64(&self, name: &str) -> Result<i64, StoreError>;
    fn text(&self, name: &str) -> Result<String, StoreError>;
    fn opt_text(&self, name: &str) -> Result<Option<String>, StoreError>;
}

macro_rules! row_like {
    ($row:ty) => {
        impl RowLike for $row {
            fn i64(&self, name: &str) -> Result<i64, StoreError> {
                Ok(self.try_get::<i64, _>(name)?)
            }
            fn text(&self, name: &str) -> Result<String, StoreError> {
                Ok(self.try_get::<String, _>(name)?)
            }
            fn opt_text(&self, name: &str) -> Result<Option<String>, StoreError> {
                Ok(self.try_get::<Option<String>, _>(name)?)
            }
        }
    };
}
row_like!(sqlx::sqlite::SqliteRow);
row_like!(sqlx::postgres::PgRow);

fn outbox_row(row: &impl RowLike) -> Result<OutboxRow, StoreError> {
    Ok(OutboxRow {
        id: row.i64("outbox_id")?,
        notification_id: row.text("notification_id")?,
        kind: row.text("kind")?,
        lobby_code: row.text("lobby_code")?,
        seat: small(row.i64("seat")?, "notification seat")?,
        created_at: row.i64("created_at")? as u64,
        attempts: row.i64("attempts")? as u32,
        game: row.text("game")?,
        endpoint: endpoint_of(row)?,
    })
}

/// The INSERT of one notice's rows, one per active endpoint of its seat (SQLite's `?` placeholders).
pub(super) const NOTICE_INSERT: &str = "INSERT INTO notify_outbox \
     (notification_id, endpoint_id, kind, lobby_code, seat, created_at, attempts, due_at) \
     SELECT ?, e.id, ?, e.lobby_code, e.seat, ?, 0, ? FROM notify_endpoints e \
     WHERE e.lobby_code = ? AND e.seat = ? AND e.active = 1;\n";

/// [`NOTICE_INSERT`] for many notices at once on PostgreSQL, from five arrays starting at parameter `first`.
pub(super) fn notices_unnest(first: usize) -> String {
    let p = |i: usize| first + i;
    format!(
        "INSERT INTO notify_outbox \
         (notification_id, endpoint_id, kind, lobby_code, seat, created_at, attempts, due_at) \
         SELECT n.id, e.id, n.kind, e.lobby_code, e.seat, n.at, 0, n.at \
         FROM UNNEST(${}::text[], ${}::text[], ${}::text[], ${}::int8[], ${}::int8[]) AS n (id, kind, code, seat, at) \
         JOIN notify_endpoints e ON e.lobby_code = n.code AND e.seat = n.seat AND e.active = 1",
        p(0),
        p(1),
        p(2),
        p(3),
        p(4)
    )
}

/// [`notices_unnest`]'s five arrays.
#[derive(Debug, Default)]
pub(super) struct NoticeColumns<'a> {
    ids: Vec<&'a str>,
    kinds: Vec<&'a str>,
    codes: Vec<&'a str>,
    seats: Vec<i64>,
    ats: Vec<i64>,
}

impl<'a> NoticeColumns<'a> {
    pub(super) fn push(&mut self, notice: &'a Notice) {
        self.ids.push(&notice.id);
        self.kinds.push(notice.kind);
        self.codes.push(&notice.lobby_code);
        self.seats.push(i64::from(notice.seat));
        self.ats.push(to_i64(notice.at));
    }

    pub(super) fn bind(self, query: super::rows::PgQuery<'a>) -> super::rows::PgQuery<'a> {
        query
            .bind(self.ids)
            .bind(self.kinds)
            .bind(self.codes)
            .bind(self.seats)
            .bind(self.ats)
    }
}

/// Binds one notice to [`NOTICE_INSERT`]'s placeholders.
pub(super) fn bind_notice(b: &mut super::rows::SqliteBatch, notice: &Notice) {
    b.add(notice.id.clone());
    b.add(notice.kind);
    b.add(to_i64(notice.at));
    b.add(to_i64(notice.at));
    b.add(notice.lobby_code.clone());
    b.add(i64::from(notice.seat));
    b.sql(NOTICE_INSERT);
}

/// The rate limits of deliveries ([`Store::reserve_delivery`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RateLimits {
    pub per_endpoint: usize,
    pub per_seat: usize,
    pub window_ms: u64,
}

/// When one more delivery fits under `limit` within a window of `window_ms`, given the sorted times of the
/// deliveries in the current window: `None` if it fits now, else when enough of them have left the window.
pub fn free_at(times: &[u64], limit: usize, window_ms: u64) -> Option<u64> {
    let limit = limit.max(1);
    if times.len() < limit {
        return None;
    }
    // The oldest `times.len() - limit + 1` must leave the window for one place to be free.
    Some(times[times.len() - limit] + window_ms)
}

impl Store {
    /// Adds an endpoint to a seat unless the seat has `max` already; its id, or `None` at the cap.
    #[allow(clippy::too_many_arguments)]
    pub async fn add_endpoint(
        &self,
        code: &str,
        seat: u8,
        channel: &str,
        target: &str,
        secret: Option<&str>,
        auth: Option<&str>,
        language: &str,
        now: u64,
        max: usize,
    ) -> Result<Option<i64>, StoreError> {
        // One statement: the count and the insert cannot be split by another insert (only the seat's table
        // writes its endpoints anyway).
        let sql = "INSERT INTO notify_endpoints \
             (lobby_code, seat, channel, target, secret, auth, language, active, failures, created_at, address_key) \
             SELECT $1, $2, $3, $4, $5, $6, $7, 1, 0, $8, $10 \
             WHERE (SELECT COUNT(*) FROM notify_endpoints WHERE lobby_code = $1 AND seat = $2) < $9 \
             RETURNING id";
        // An email endpoint is found by its address's key when one of its unsubscribe links is used.
        let address_key = (channel == "email").then(|| crate::secrets::email_address_key(target));
        on_pool!(self, pool => {
            let row = sqlx::query(sql)
                .bind(code)
                .bind(i64::from(seat))
                .bind(channel)
                .bind(target)
                .bind(secret)
                .bind(auth)
                .bind(language)
                .bind(to_i64(now))
                .bind(max as i64)
                .bind(address_key.as_deref())
                .fetch_optional(pool)
                .await
                .map_err(classify)?;
            Ok(match row {
                Some(row) => Some(row.try_get::<i64, _>(0)?),
                None => None,
            })
        })
    }

    /// Removes a seat's endpoint and its undelivered rows; whether it was there.
    pub async fn remove_endpoint(&self, code: &str, seat: u8, id: i64) -> Result<bool, StoreError> {
        on_pool!(self, pool => {
            let mut tx = pool.begin().await.map_err(classify)?;
            let removed = sqlx::query(
                "DELETE FROM notify_endpoints WHERE id = $1 AND lobby_code = $2 AND seat = $3",
            )
            .bind(id)
            .bind(code)
            .bind(i64::from(seat))
            .execute(&mut *tx)
            .await
            .map_err(classify)?
            .rows_affected();
            sqlx::query("DELETE FROM notify_outbox WHERE endpoint_id = $1")
                .bind(id)
                .execute(&mut *tx)
                .await
                .map_err(classify)?;
            tx.commit().await.map_err(classify)?;
            Ok(removed > 0)
        })
    }

    /// A seat's endpoints, oldest first.
    pub async fn endpoints(&self, code: &str, seat: u8) -> Result<Vec<StoredEndpoint>, StoreError> {
        let sql = format!(
            "SELECT {ENDPOINT_COLUMNS} FROM notify_endpoints e WHERE e.lobby_code = $1 AND e.seat = $2 ORDER BY e.id"
        );
        on_pool!(self, pool => {
            let rows = sqlx::query(sqlx::AssertSqlSafe(sql.clone()))
                .bind(code)
                .bind(i64::from(seat))
                .fetch_all(pool)
                .await
                .map_err(classify)?;
            rows.iter().map(endpoint_of).collect()
        })
    }

    /// The seats of a lobby with at least one active endpoint (what a table loads to know whom it notifies).
    pub async fn notified_seats(&self, code: &str) -> Result<Vec<u8>, StoreError> {
        on_pool!(self, pool => {
            let rows = sqlx::query(
                "SELECT DISTINCT seat FROM notify_endpoints WHERE lobby_code = $1 AND active = 1 ORDER BY seat",
            )
            .bind(code)
            .fetch_all(pool)
            .await
            .map_err(classify)?;
            rows.iter()
                .map(|r| small(r.try_get::<i64, _>(0)?, "notified seat"))
                .collect()
        })
    }

    /// Writes notices alone, in one transaction (a reminder that is no action's consequence).
    pub async fn insert_notices(&self, notices: &[Notice]) -> Result<(), StoreError> {
        self.write_batch_with(&[], &[], notices).await.map(drop)
    }

    /// Claims up to `limit` due rows of active endpoints until `claim_until` (the worker sends them meanwhile).
    pub async fn claim_outbox(
        &self,
        now: u64,
        claim_until: u64,
        limit: usize,
    ) -> Result<Vec<OutboxRow>, StoreError> {
        let select = format!(
            "SELECT o.id AS outbox_id, o.notification_id, o.kind, o.lobby_code, o.seat, o.created_at, o.attempts, \
             l.game, {ENDPOINT_COLUMNS} FROM notify_outbox o \
             JOIN notify_endpoints e ON e.id = o.endpoint_id JOIN lobbies l ON l.code = o.lobby_code"
        );
        self.guarded(async {
            match &self.db {
                Db::Postgres(pool) => {
                    let sql = format!(
                        "WITH claimed AS (UPDATE notify_outbox SET claimed_until = $1 WHERE id IN \
                         (SELECT id FROM notify_outbox WHERE due_at <= $2 \
                          AND (claimed_until IS NULL OR claimed_until <= $2) \
                          ORDER BY due_at LIMIT $3 FOR UPDATE SKIP LOCKED) RETURNING id) \
                         {select} WHERE o.id IN (SELECT id FROM claimed) AND e.active = 1"
                    );
                    let rows = sqlx::query(sqlx::AssertSqlSafe(sql))
                        .bind(to_i64(claim_until))
                        .bind(to_i64(now))
                        .bind(limit as i64)
                        .fetch_all(pool)
                        .await
                        .map_err(classify)?;
                    rows.iter().map(outbox_row).collect()
                }
                Db::Sqlite(pool) => {
                    // One node, one worker: nothing else claims.
                    let sql = format!(
                        "{select} WHERE o.due_at <= $1 AND (o.claimed_until IS NULL OR o.claimed_until <= $1) \
                         AND e.active = 1 ORDER BY o.due_at LIMIT $2"
                    );
                    let rows = sqlx::query(sqlx::AssertSqlSafe(sql))
                        .bind(to_i64(now))
                        .bind(limit as i64)
                        .fetch_all(pool)
                        .await
                        .map_err(classify)?;
                    rows.iter().map(outbox_row).collect()
                }
            }
        })
        .await
    }

    /// A row was delivered: it is deleted, and its endpoint's run of failures ends.
    pub async fn outbox_delivered(&self, id: i64, endpoint: i64) -> Result<(), StoreError> {
        on_pool!(self, pool => {
            let mut tx = pool.begin().await.map_err(classify)?;
            sqlx::query("DELETE FROM notify_outbox WHERE id = $1")
                .bind(id)
                .execute(&mut *tx)
                .await
                .map_err(classify)?;
            sqlx::query("UPDATE notify_endpoints SET failures = 0 WHERE id = $1 AND failures <> 0")
                .bind(endpoint)
                .execute(&mut *tx)
                .await
                .map_err(classify)?;
            tx.commit().await.map_err(classify)
        })
    }

    /// A delivery failed with `error`: the row is due again at `retry_at`, unless the endpoint has now failed
    /// `switch_off_after` times in a row (or `permanent`): then it is switched off with `error` as its last one,
    /// and its rows are deleted. Whether it was switched off.
    pub async fn outbox_failed(
        &self,
        id: i64,
        endpoint: i64,
        retry_at: u64,
        error: &str,
        permanent: bool,
        switch_off_after: u32,
    ) -> Result<bool, StoreError> {
        on_pool!(self, pool => {
            let mut tx = pool.begin().await.map_err(classify)?;
            let failures: i64 = sqlx::query(
                "UPDATE notify_endpoints SET failures = failures + 1, last_error = $2 WHERE id = $1 \
                 RETURNING failures",
            )
            .bind(endpoint)
            .bind(error)
            .fetch_optional(&mut *tx)
            .await
            .map_err(classify)?
            .map(|r| r.try_get::<i64, _>(0))
            .transpose()?
            .unwrap_or(0);
            let off = permanent || failures >= i64::from(switch_off_after);
            if off {
                sqlx::query("UPDATE notify_endpoints SET active = 0 WHERE id = $1")
                    .bind(endpoint)
                    .execute(&mut *tx)
                    .await
                    .map_err(classify)?;
                sqlx::query("DELETE FROM notify_outbox WHERE endpoint_id = $1")
                    .bind(endpoint)
                    .execute(&mut *tx)
                    .await
                    .map_err(classify)?;
            } else {
                sqlx::query(
                    "UPDATE notify_outbox SET attempts = attempts + 1, due_at = $2, claimed_until = NULL \
                     WHERE id = $1",
                )
                .bind(id)
                .bind(to_i64(retry_at))
                .execute(&mut *tx)
                .await
                .map_err(classify)?;
            }
            tx.commit().await.map_err(classify)?;
            Ok(off)
        })
    }

    /// A row held back by a rate limit: due again at `due_at`, not counted as a failure.
    pub async fn outbox_postponed(&self, id: i64, due_at: u64) -> Result<(), StoreError> {
        on_pool!(self, pool => {
            sqlx::query("UPDATE notify_outbox SET due_at = $2, claimed_until = NULL WHERE id = $1")
                .bind(id)
                .bind(to_i64(due_at))
                .execute(pool)
                .await
                .map(drop)
                .map_err(classify)
        })
    }

    /// Counts a delivery to `endpoint` of seat `seat` of `code` at `now` against the rate limits, if it is within
    /// them: at most `limits.per_endpoint` deliveries to the endpoint and `limits.per_seat` to the seat's endpoints
    /// since `now - limits.window_ms` (exclusive), counted in `notify_sent` for every node at once. `None` when it
    /// was counted (send it now), else when the first limit it hits frees a place.
    /// On PostgreSQL one seat's counts are serialised by a transaction-scoped advisory lock on the seat, so two
    /// nodes cannot both take the last place; SQLite serves one node, whose one worker delivers one row at a time.
    pub async fn reserve_delivery(
        &self,
        endpoint: i64,
        code: &str,
        seat: u8,
        now: u64,
        limits: &RateLimits,
    ) -> Result<Option<u64>, StoreError> {
        let since = to_i64(now.saturating_sub(limits.window_ms));
        let select = "SELECT endpoint_id, sent_at FROM notify_sent \
             WHERE lobby_code = $1 AND seat = $2 AND sent_at > $3 ORDER BY sent_at";
        let insert =
            "INSERT INTO notify_sent (endpoint_id, lobby_code, seat, sent_at) VALUES ($1, $2, $3, $4)";
        on_pool!(self, pool => {
            let mut tx = pool.begin().await.map_err(classify)?;
            if self.backend() == "postgres" {
                sqlx::query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))")
                    .bind(format!("notify_sent\n{code}\n{seat}"))
                    .execute(&mut *tx)
                    .await
                    .map_err(classify)?;
            }
            let sent: Vec<(i64, i64)> = sqlx::query_as(select)
                .bind(code)
                .bind(i64::from(seat))
                .bind(since)
                .fetch_all(&mut *tx)
                .await
                .map_err(classify)?;
            let seat_times: Vec<u64> = sent.iter().map(|(_, t)| *t as u64).collect();
            let endpoint_times: Vec<u64> =
                sent.iter().filter(|(e, _)| *e == endpoint).map(|(_, t)| *t as u64).collect();
            let wait = [
                free_at(&endpoint_times, limits.per_endpoint, limits.window_ms),
                free_at(&seat_times, limits.per_seat, limits.window_ms),
            ]
            .into_iter()
            .flatten()
            .max();
            if wait.is_none() {
                sqlx::query(insert)
                    .bind(endpoint)
                    .bind(code)
                    .bind(i64::from(seat))
                    .bind(to_i64(now))
                    .execute(&mut *tx)
                    .await
                    .map_err(classify)?;
            }
            tx.commit().await.map_err(classify)?;
            Ok(wait)
        })
    }

    /// Forgets the deliveries at or before `until` (older than every rate window). On PostgreSQL rows another
    /// node is deleting are skipped, not waited for.
    pub async fn prune_sent(&self, until: u64) -> Result<(), StoreError> {
        let sql = match &self.db {
            Db::Postgres(_) => {
                "DELETE FROM notify_sent WHERE id IN \
                 (SELECT id FROM notify_sent WHERE sent_at <= $1 FOR UPDATE SKIP LOCKED)"
            }
            Db::Sqlite(_) => "DELETE FROM notify_sent WHERE sent_at <= $1",
        };
        on_pool!(self, pool => {
            sqlx::query(sql)
                .bind(to_i64(until))
                .execute(pool)
                .await
                .map(drop)
                .map_err(classify)
        })
    }

    /// The outbox's rows not yet delivered (for tests and the admin's view).
    pub async fn outbox_len(&self) -> Result<u64, StoreError> {
        on_pool!(self, pool => {
            let row = sqlx::query("SELECT COUNT(*) FROM notify_outbox")
                .fetch_one(pool)
                .await
                .map_err(classify)?;
            Ok(row.try_get::<i64, _>(0)? as u64)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::free_at;

    #[test]
    fn a_delivery_waits_until_enough_earlier_ones_have_left_the_window() {
        assert_eq!(free_at(&[], 2, 1_000), None);
        assert_eq!(free_at(&[100], 2, 1_000), None);
        // Full: the oldest leaving frees a place.
        assert_eq!(free_at(&[100, 400], 2, 1_000), Some(1_100));
        // Over the limit (it was lowered): the oldest two must leave.
        assert_eq!(free_at(&[100, 400, 700], 2, 1_000), Some(1_400));
        assert_eq!(free_at(&[100], 0, 1_000), Some(1_100), "a limit of 0 counts as 1");
    }
}
