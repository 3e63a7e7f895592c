//! Reads, and the writes made outside the group commit (each in its own transaction).

use rules::{Millis, Outcome};
use sqlx::Row;

use super::rows::{LobbyRow, MatchRow, SeatRow, ShapedRow};
use super::{
    Db, LobbyRecord, LogEntry, MatchRecord, Phase, RematchRecord, SeatKind, SeatRecord, Snapshot,
    StartedRematch, Store, StoreError, StoredAbsence, StoredLobby, StoredMatch, classify, corrupt,
    parse_json, raw_json, small, to_i64,
};

impl Store {
    /// Creates a lobby with its first seat. Fails with [`StoreError::Conflict`] if the code is taken.
    pub async fn create_lobby(&self, lobby: &LobbyRecord, host: &SeatRecord) -> Result<(), StoreError> {
        on_pool!(self, pool => {
            let mut tx = pool.begin().await?;
            LobbyRow::new(lobby).insert().execute(&mut *tx).await.map_err(classify)?;
            SeatRow::new(&lobby.code, host).insert().execute(&mut *tx).await.map_err(classify)?;
            tx.commit().await.map_err(classify)
        })
    }

    /// Seats someone (a human or a bot). Fails with [`StoreError::Conflict`] if the seat is taken.
    pub async fn insert_seat(&self, code: &str, seat: &SeatRecord) -> Result<(), StoreError> {
        on_pool!(self, pool => {
            SeatRow::new(code, seat).insert().execute(pool).await.map(|_| ()).map_err(classify)
        })
    }

    /// Frees a seat of an open lobby, and records who hosts it now (or closes it when nobody is left).
    pub async fn free_seat(&self, code: &str, seat: u8, host: Option<u8>) -> Result<(), StoreError> {
        on_pool!(self, pool => {
            let mut tx = pool.begin().await?;
            sqlx::query("DELETE FROM seats WHERE lobby_code = $1 AND seat = $2")
                .bind(code)
                .bind(i64::from(seat))
                .execute(&mut *tx)
                .await
                .map_err(classify)?;
            match host {
                Some(host) => {
                    sqlx::query("UPDATE lobbies SET host_seat = $1 WHERE code = $2")
                        .bind(i64::from(host))
                        .bind(code)
                        .execute(&mut *tx)
                        .await
                        .map_err(classify)?;
                }
                None => {
                    lobby_phase_query(code, Phase::Closed).execute(&mut *tx).await.map_err(classify)?;
                }
            }
            tx.commit().await.map_err(classify)
        })
    }

    /// Starts the match of an open lobby. Fails with [`StoreError::Conflict`] if it already has one.
    pub async fn start_match(&self, code: &str, record: &MatchRecord) -> Result<(), StoreError> {
        on_pool!(self, pool => {
            let mut tx = pool.begin().await?;
            MatchRow::new(code, record).insert().execute(&mut *tx).await.map_err(classify)?;
            lobby_phase_query(code, Phase::Playing).execute(&mut *tx).await.map_err(classify)?;
            tx.commit().await.map_err(classify)
        })
    }

    /// The codes of lobbies that are open or playing and were in memory when the server stopped: what must be
    /// running after a start. Those that had left memory are loaded when asked for or when due
    /// ([`Store::due_unloaded`]).
    pub async fn live_lobby_codes(&self) -> Result<Vec<String>, StoreError> {
        on_pool!(self, pool => {
            let rows = sqlx::query(
                "SELECT code FROM lobbies WHERE (phase = $1 OR phase = $2) AND unloaded_until IS NULL ORDER BY created_at",
            )
                .bind(Phase::Open.as_str())
                .bind(Phase::Playing.as_str())
                .fetch_all(pool)
                .await
                .map_err(classify)?;
            rows.iter().map(|r| r.try_get::<String, _>("code").map_err(classify)).collect()
        })
    }

    /// Loads a lobby with its seats and, if it has started, its match ready for recovery. `None` if no such
    /// lobby exists or it was closed.
    pub async fn load_lobby(&self, code: &str) -> Result<Option<StoredLobby>, StoreError> {
        on_pool!(self, pool => {
            let Some(row) = sqlx::query(
                "SELECT code, game, options, seat_count, host_seat, turn_timer_ms, phase, created_at, absent_policy, \
                 absent_grace_ms, rules_version, rematch_of, pace FROM lobbies WHERE code = $1",
            )
            .bind(code)
            .fetch_optional(pool)
            .await
            .map_err(classify)?
            else {
                return Ok(None);
            };
            let lobby = LobbyRecord {
                code: row.try_get("code")?,
                game: row.try_get("game")?,
                options: parse_json(&row.try_get::<String, _>("options")?)?,
                seat_count: small(row.try_get("seat_count")?, "seat count")?,
                host_seat: small(row.try_get("host_seat")?, "host seat")?,
                turn_timer_ms: row.try_get::<Option<i64>, _>("turn_timer_ms")?.map(|v| v as u64),
                phase: Phase::parse(&row.try_get::<String, _>("phase")?)?,
                created_at: row.try_get::<i64, _>("created_at")? as u64,
                absent_policy: row.try_get("absent_policy")?,
                absent_grace_ms: row.try_get::<i64, _>("absent_grace_ms")? as u64,
                rules_version: row
                    .try_get::<Option<i64>, _>("rules_version")?
                    .map(u32::try_from)
                    .transpose()
                    .map_err(corrupt)?,
                rematch_of: row.try_get("rematch_of")?,
                pace: super::records::parse_pace(row.try_get::<Option<String>, _>("pace")?.as_deref())?,
            };
            if lobby.phase == Phase::Closed {
                return Ok(None);
            }
            let mut seats = Vec::new();
            for row in sqlx::query("SELECT seat, kind, name, token_hash FROM seats WHERE lobby_code = $1 ORDER BY seat")
                .bind(code)
                .fetch_all(pool)
                .await
                .map_err(classify)?
            {
                seats.push(SeatRecord {
                    seat: small(row.try_get("seat")?, "seat")?,
                    kind: match row.try_get::<String, _>("kind")?.as_str() {
                        "human" => SeatKind::Human,
                        "bot" => SeatKind::Bot,
                        other => return Err(corrupt(format!("seat kind `{other}`"))),
                    },
                    name: row.try_get("name")?,
                    token_hash: row.try_get("token_hash")?,
                });
            }
            let Some(row) = sqlx::query(
                "SELECT id, game, options, players, seed, rules_version, status, started_at, to_decide \
                 FROM matches WHERE lobby_code = $1",
            )
            .bind(code)
            .fetch_optional(pool)
            .await
            .map_err(classify)?
            else {
                return Ok(Some(StoredLobby { lobby, seats, game: None }));
            };
            let record = MatchRecord {
                id: row.try_get("id")?,
                game: row.try_get("game")?,
                options: parse_json(&row.try_get::<String, _>("options")?)?,
                players: small(row.try_get("players")?, "players")?,
                seed: row.try_get::<i64, _>("seed")? as u64,
                rules_version: u32::try_from(row.try_get::<i64, _>("rules_version")?).map_err(corrupt)?,
                started_at: row.try_get::<i64, _>("started_at")? as u64,
                finished: row.try_get::<String, _>("status")? == "finished",
                to_decide: row.try_get("to_decide")?,
            };
            let snapshot = match sqlx::query(
                "SELECT seq, state, at FROM snapshots WHERE match_id = $1 ORDER BY seq DESC LIMIT 1",
            )
            .bind(&record.id)
            .fetch_optional(pool)
            .await
            .map_err(classify)?
            {
                Some(row) => Some(Snapshot {
                    seq: row.try_get::<i64, _>("seq")? as u64,
                    state: parse_json(&row.try_get::<String, _>("state")?)?,
                    at: row.try_get::<i64, _>("at")? as u64,
                }),
                None => None,
            };
            let after = snapshot.as_ref().map_or(0, |s| s.seq);
            let log = log_query(&record.id, after)
                .fetch_all(pool)
                .await
                .map_err(classify)?
                .iter()
                .map(log_entry)
                .collect::<Result<_, _>>()?;
            Ok(Some(StoredLobby {
                lobby,
                seats,
                game: Some(StoredMatch { record, snapshot, log_after_snapshot: log }),
            }))
        })
    }

    /// The recorded result of a finished match, if it has finished.
    pub async fn result(&self, match_id: &str) -> Result<Option<Outcome>, StoreError> {
        on_pool!(self, pool => {
            let row = sqlx::query("SELECT outcome FROM results WHERE match_id = $1")
                .bind(match_id)
                .fetch_optional(pool)
                .await
                .map_err(classify)?;
            match row {
                None => Ok(None),
                Some(row) => Ok(Some(serde_json::from_str(&row.try_get::<String, _>("outcome")?).map_err(corrupt)?)),
            }
        })
    }

    /// The whole action log of a match, in order (for tests and audits).
    pub async fn action_log(&self, match_id: &str) -> Result<Vec<LogEntry>, StoreError> {
        on_pool!(self, pool => {
            log_query(match_id, 0)
                .fetch_all(pool)
                .await
                .map_err(classify)?
                .iter()
                .map(log_entry)
                .collect()
        })
    }
}

/// The actions of match `match_id` logged after `after` (a snapshot's `seq`; 0 for the whole log, whose first
/// action is 1), in order, for [`log_entry`] to read.
fn log_query<'a, DB: sqlx::Database>(
    match_id: &'a str,
    after: u64,
) -> sqlx::query::Query<'a, DB, <DB as sqlx::Database>::Arguments>
where
    &'a str: sqlx::Encode<'a, DB> + sqlx::Type<DB>,
    i64: sqlx::Encode<'a, DB> + sqlx::Type<DB>,
{
    sqlx::query(
        "SELECT seq, actor, action, at, made_by FROM actions WHERE match_id = $1 AND seq > $2 ORDER BY seq",
    )
    .bind(match_id)
    .bind(to_i64(after))
}

/// One row of [`log_query`] as a log entry (either backend's row).
fn log_entry<R: Row>(row: &R) -> Result<LogEntry, StoreError>
where
    for<'c> &'c str: sqlx::ColumnIndex<R>,
    for<'r> i64: sqlx::Decode<'r, R::Database>,
    for<'r> String: sqlx::Decode<'r, R::Database>,
    i64: sqlx::Type<R::Database>,
    String: sqlx::Type<R::Database>,
{
    Ok(LogEntry {
        seq: row.try_get::<i64, _>("seq")? as u64,
        actor: serde_json::from_str(&row.try_get::<String, _>("actor")?).map_err(corrupt)?,
        action: raw_json(row.try_get::<String, _>("action")?)?,
        at: row.try_get::<i64, _>("at")? as u64,
        by: protocol::ActedBy::parse(row.try_get::<Option<String>, _>("made_by")?.as_deref()),
    })
}

/// Sets a lobby's phase.
pub(super) fn lobby_phase_query<'a, DB: sqlx::Database>(
    code: &'a str,
    phase: Phase,
) -> sqlx::query::Query<'a, DB, <DB as sqlx::Database>::Arguments>
where
    &'a str: sqlx::Encode<'a, DB> + sqlx::Type<DB>,
{
    sqlx::query("UPDATE lobbies SET phase = $1 WHERE code = $2")
        .bind(phase.as_str())
        .bind(code)
}

/// Absent players and rematches (issue 13).
impl Store {
    /// Sets (or clears) the time from which the server stands in for a seat's player.
    pub async fn set_stand_in_from(
        &self,
        code: &str,
        seat: u8,
        from: Option<Millis>,
    ) -> Result<(), StoreError> {
        on_pool!(self, pool => {
            sqlx::query("UPDATE seats SET stand_in_from = $1 WHERE lobby_code = $2 AND seat = $3")
                .bind(from.map(to_i64))
                .bind(code)
                .bind(i64::from(seat))
                .execute(pool)
                .await
                .map(|_| ())
                .map_err(classify)
        })
    }

    /// A lobby's absence policy and stand-in times; `None` if there is no such lobby.
    pub async fn load_absence(&self, code: &str) -> Result<Option<StoredAbsence>, StoreError> {
        on_pool!(self, pool => {
            let Some(row) = sqlx::query("SELECT absent_policy, absent_grace_ms FROM lobbies WHERE code = $1")
                .bind(code)
                .fetch_optional(pool)
                .await
                .map_err(classify)?
            else {
                return Ok(None);
            };
            let mut stand_in_from = Vec::new();
            for seat in sqlx::query("SELECT seat, stand_in_from FROM seats WHERE lobby_code = $1 ORDER BY seat")
                .bind(code)
                .fetch_all(pool)
                .await
                .map_err(classify)?
            {
                stand_in_from.push((
                    small(seat.try_get("seat")?, "seat")?,
                    seat.try_get::<Option<i64>, _>("stand_in_from")?.map(|v| v as u64),
                ));
            }
            Ok(Some(StoredAbsence {
                policy: row.try_get("absent_policy")?,
                grace_ms: row.try_get::<i64, _>("absent_grace_ms")? as u64,
                stand_in_from,
            }))
        })
    }

    /// The rematch that follows lobby `code`, if one was started: its code, host, human seats and start.
    pub async fn rematch_of(&self, code: &str) -> Result<Option<StartedRematch>, StoreError> {
        on_pool!(self, pool => {
            let Some(row) = sqlx::query(
                "SELECT code, host_seat, created_at FROM lobbies WHERE rematch_of = $1 ORDER BY created_at LIMIT 1",
            )
            .bind(code)
            .fetch_optional(pool)
            .await
            .map_err(classify)?
            else {
                return Ok(None);
            };
            let new_code: String = row.try_get("code")?;
            let mut humans = Vec::new();
            for row in sqlx::query("SELECT seat FROM seats WHERE lobby_code = $1 AND kind = 'human' ORDER BY seat")
                .bind(&new_code)
                .fetch_all(pool)
                .await
                .map_err(classify)?
            {
                humans.push(small(row.try_get("seat")?, "seat")?);
            }
            Ok(Some(StartedRematch {
                code: new_code,
                host_seat: small(row.try_get("host_seat")?, "host seat")?,
                humans,
                started_at: row.try_get::<i64, _>("created_at")? as u64,
            }))
        })
    }

    /// Creates a rematch in one transaction: the new lobby with its seats and absence policy, naming the lobby it
    /// follows, and its match, already started. Fails with [`StoreError::Conflict`] if the code is taken.
    ///
    /// The new lobby's chat starts with the last [`protocol::CHAT_HISTORY`] messages of the lobby it follows (as
    /// they were: numbers, writers, times and the match they were written during), so that the players'
    /// conversation goes on at the new table and its numbering after them.
    pub async fn create_rematch(&self, rematch: &RematchRecord<'_>) -> Result<(), StoreError> {
        let lobby = rematch.lobby;
        on_pool!(self, pool => {
            let mut tx = pool.begin().await?;
            LobbyRow::new(lobby).insert().execute(&mut *tx).await.map_err(classify)?;
            for seat in rematch.seats {
                SeatRow::new(&lobby.code, seat).insert().execute(&mut *tx).await.map_err(classify)?;
            }
            if let Some(previous) = lobby.rematch_of.as_deref() {
                sqlx::query(
                    "INSERT INTO chat_messages (lobby_code, id, channel, seat, name, text, match_id, at) \
                     SELECT $1, id, channel, seat, name, text, match_id, at FROM chat_messages \
                     WHERE lobby_code = $2 ORDER BY id DESC LIMIT $3",
                )
                .bind(&lobby.code)
                .bind(previous)
                .bind(protocol::CHAT_HISTORY as i64)
                .execute(&mut *tx)
                .await
                .map_err(classify)?;
            }
            MatchRow::new(&lobby.code, rematch.record).insert()
                .execute(&mut *tx)
            .await
            .map_err(classify)?;
            tx.commit().await.map_err(classify)
        })
    }
}
