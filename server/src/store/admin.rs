//! Queries for the admin API (issue 9): listing lobbies and matches with filters, the audit log, and the writes
//! of admin actions (each in one transaction with its audit entry). Only the table task that owns a match calls
//! the writing methods.

use rules::Millis;
use serde::Serialize;
use serde_json::Value;
use sqlx::Row;

use super::{Db, SeatRecord, Store, StoreError, classify, corrupt, parse_json, small, to_i64};

/// One admin action, as recorded: who, what, when, why, on which match and seat, and what it did.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AuditEntry {
    /// Assigned by the database (0 before it is stored).
    pub id: i64,
    pub at: Millis,
    /// The name the admin gave with the request.
    pub admin: String,
    /// `abort`, `remove_player`, `replace_with_bot` or `fire_deadline`.
    pub action: String,
    pub lobby_code: String,
    pub match_id: Option<String>,
    pub seat: Option<u8>,
    pub reason: String,
    pub detail: Value,
}

/// Filters of the lobby and match list; `None` matches everything.
#[derive(Clone, Debug, Default)]
pub struct TableFilter {
    pub game: Option<String>,
    /// `open`, `closed` (lobbies without a match) or `playing`, `finished`, `aborted`, `abandoned`, `timed_out` (their
    /// match).
    pub status: Option<String>,
    /// A case-insensitive part of a seated player's name.
    pub player: Option<String>,
    /// Lobbies created at or after this time.
    pub from: Option<Millis>,
    /// Lobbies created before this time.
    pub to: Option<Millis>,
    pub limit: u32,
    pub offset: u64,
}

#[derive(Clone, Debug, Serialize)]
pub struct SeatSummary {
    pub seat: u8,
    /// `human` or `bot`.
    pub kind: &'static str,
    pub name: String,
}

/// A lobby and its match, if it has one, as listed.
#[derive(Clone, Debug, Serialize)]
pub struct TableSummary {
    pub code: String,
    pub game: String,
    /// The lobby's phase when it has no match, otherwise its match's status.
    pub status: String,
    pub seat_count: u8,
    pub created_at: Millis,
    pub seats: Vec<SeatSummary>,
    pub match_id: Option<String>,
    pub started_at: Option<Millis>,
    pub finished_at: Option<Millis>,
    pub abort_reason: Option<String>,
}

/// What the admin API needs to find a match and tell how it ended.
#[derive(Clone, Debug, Serialize)]
pub struct MatchStatus {
    pub match_id: String,
    pub lobby_code: String,
    /// `playing`, `finished`, `aborted`, `abandoned` or `timed_out`.
    pub status: String,
    pub started_at: Millis,
    pub finished_at: Option<Millis>,
    pub abort_reason: Option<String>,
}

fn escape_like(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('%');
    for c in text.to_lowercase().chars() {
        if matches!(c, '%' | '_' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('%');
    out
}

fn kind_name(kind: &str) -> Result<&'static str, StoreError> {
    match kind {
        "human" => Ok("human"),
        "bot" => Ok("bot"),
        other => Err(corrupt(format!("seat kind `{other}`"))),
    }
}

impl Store {
    /// Records an admin action whose own change was written separately (firing a deadline appends an action).
    pub async fn insert_audit(&self, entry: &AuditEntry) -> Result<(), StoreError> {
        on_pool!(self, pool => {
            insert_audit!(entry).execute(pool).await.map(|_| ()).map_err(classify)
        })
    }

    /// Changes who holds a seat of a started match (a bot replaces a human, or a removed human's token is revoked),
    /// with the audit entry, in one transaction.
    pub async fn replace_seat(
        &self,
        code: &str,
        seat: &SeatRecord,
        audit: &AuditEntry,
    ) -> Result<(), StoreError> {
        let kind = seat.kind.as_str();
        on_pool!(self, pool => {
            let mut tx = pool.begin().await?;
            sqlx::query("UPDATE seats SET kind = $1, name = $2, token_hash = $3 WHERE lobby_code = $4 AND seat = $5")
                .bind(kind)
                .bind(&seat.name)
                .bind(&seat.token_hash)
                .bind(code)
                .bind(i64::from(seat.seat))
                .execute(&mut *tx)
                .await
                .map_err(classify)?;
            insert_audit!(audit).execute(&mut *tx).await.map_err(classify)?;
            tx.commit().await.map_err(classify)
        })
    }

    /// The audit log, newest first, of one match or of everything.
    pub async fn audit_log(
        &self,
        match_id: Option<&str>,
        limit: u32,
        offset: u64,
    ) -> Result<Vec<AuditEntry>, StoreError> {
        on_pool!(self, pool => {
            let rows = sqlx::query(
                "SELECT id, at, admin, action, lobby_code, match_id, seat, reason, detail FROM admin_audit \
                 WHERE ($1 IS NULL OR match_id = $1) ORDER BY id DESC LIMIT $2 OFFSET $3",
            )
            .bind(match_id)
            .bind(i64::from(limit))
            .bind(to_i64(offset))
            .fetch_all(pool)
            .await
            .map_err(classify)?;
            let mut out = Vec::with_capacity(rows.len());
            for row in rows {
                out.push(AuditEntry {
                    id: row.try_get("id")?,
                    at: row.try_get::<i64, _>("at")? as u64,
                    admin: row.try_get("admin")?,
                    action: row.try_get("action")?,
                    lobby_code: row.try_get("lobby_code")?,
                    match_id: row.try_get("match_id")?,
                    seat: row.try_get::<Option<i64>, _>("seat")?.map(|s| small(s, "seat")).transpose()?,
                    reason: row.try_get("reason")?,
                    detail: parse_json(&row.try_get::<String, _>("detail")?)?,
                });
            }
            Ok(out)
        })
    }

    /// Lobbies and their matches, newest first, filtered and paged.
    pub async fn list_tables(&self, filter: &TableFilter) -> Result<Vec<TableSummary>, StoreError> {
        let player = filter.player.as_deref().map(escape_like);
        on_pool!(self, pool => {
            let rows = sqlx::query(
                "SELECT l.code, l.game, l.phase, l.seat_count, l.created_at, m.id AS match_id, m.status AS match_status, \
                        m.started_at, m.finished_at, m.abort_reason \
                 FROM lobbies l LEFT JOIN matches m ON m.lobby_code = l.code \
                 WHERE ($1 IS NULL OR l.game = $1) \
                   AND ($2 IS NULL OR COALESCE(m.status, l.phase) = $2) \
                   AND ($3 IS NULL OR EXISTS (SELECT 1 FROM seats s WHERE s.lobby_code = l.code \
                                              AND LOWER(s.name) LIKE $3 ESCAPE '\\')) \
                   AND ($4 IS NULL OR l.created_at >= $4) \
                   AND ($5 IS NULL OR l.created_at < $5) \
                 ORDER BY l.created_at DESC, l.code LIMIT $6 OFFSET $7",
            )
            .bind(filter.game.as_deref())
            .bind(filter.status.as_deref())
            .bind(player.as_deref())
            .bind(filter.from.map(to_i64))
            .bind(filter.to.map(to_i64))
            .bind(i64::from(filter.limit))
            .bind(to_i64(filter.offset))
            .fetch_all(pool)
            .await
            .map_err(classify)?;
            let mut out = Vec::with_capacity(rows.len());
            for row in rows {
                let code: String = row.try_get("code")?;
                let phase: String = row.try_get("phase")?;
                let match_status: Option<String> = row.try_get("match_status")?;
                let mut seats = Vec::new();
                for s in sqlx::query("SELECT seat, kind, name FROM seats WHERE lobby_code = $1 ORDER BY seat")
                    .bind(&code)
                    .fetch_all(pool)
                    .await
                    .map_err(classify)?
                {
                    seats.push(SeatSummary {
                        seat: small(s.try_get("seat")?, "seat")?,
                        kind: kind_name(&s.try_get::<String, _>("kind")?)?,
                        name: s.try_get("name")?,
                    });
                }
                out.push(TableSummary {
                    code,
                    game: row.try_get("game")?,
                    status: match_status.unwrap_or(phase),
                    seat_count: small(row.try_get("seat_count")?, "seat count")?,
                    created_at: row.try_get::<i64, _>("created_at")? as u64,
                    seats,
                    match_id: row.try_get("match_id")?,
                    started_at: row.try_get::<Option<i64>, _>("started_at")?.map(|v| v as u64),
                    finished_at: row.try_get::<Option<i64>, _>("finished_at")?.map(|v| v as u64),
                    abort_reason: row.try_get("abort_reason")?,
                });
            }
            Ok(out)
        })
    }

    /// A match's lobby and how it stands, by match id.
    pub async fn match_status(&self, match_id: &str) -> Result<Option<MatchStatus>, StoreError> {
        on_pool!(self, pool => {
            let row = sqlx::query(
                "SELECT id, lobby_code, status, started_at, finished_at, abort_reason FROM matches WHERE id = $1",
            )
            .bind(match_id)
            .fetch_optional(pool)
            .await
            .map_err(classify)?;
            let Some(row) = row else { return Ok(None) };
            Ok(Some(MatchStatus {
                match_id: row.try_get("id")?,
                lobby_code: row.try_get("lobby_code")?,
                status: row.try_get("status")?,
                started_at: row.try_get::<i64, _>("started_at")? as u64,
                finished_at: row.try_get::<Option<i64>, _>("finished_at")?.map(|v| v as u64),
                abort_reason: row.try_get("abort_reason")?,
            }))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::escape_like;

    #[test]
    fn like_patterns_escape_wildcards() {
        assert_eq!(escape_like("Ann"), "%ann%");
        assert_eq!(escape_like("a_%\\"), "%a\\_\\%\\\\%");
    }
}
