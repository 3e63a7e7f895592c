//! "My tables" (issue 47): what a player's list of tables shows of one lobby, read from the database alone (a
//! table may be served by another node, or be out of memory): the lobby, its seats, its match's status and the
//! last logged action with the seats that must decide after it (`to_decide`, migration 0016).

use rules::{Millis, Outcome};
use sqlx::Row;

use super::{Db, Phase, SeatKind, SeatRecord, Store, StoreError, classify, corrupt, parse_to_decide, small};

/// One lobby as the list shows it.
#[derive(Clone, Debug)]
pub struct InboxLobby {
    pub game: String,
    pub phase: Phase,
    pub seat_count: u8,
    pub turn_timer_ms: Option<u64>,
    /// The lobby's pace (`lobbies.pace`; live when NULL).
    pub pace: protocol::Pace,
    /// The taken seats, in order (token hashes included, for the caller's check).
    pub seats: Vec<SeatRecord>,
    /// Its match, once started.
    pub play: Option<InboxMatch>,
}

/// A lobby's match as the list shows it.
#[derive(Clone, Debug)]
pub struct InboxMatch {
    /// `playing`, `finished`, `aborted` or `abandoned`.
    pub status: String,
    /// Its number of logged actions.
    pub version: u64,
    /// When the last action was logged, or the match started before the first.
    pub last_at: Millis,
    /// The seats that must decide now; `None` when not recorded (stored before migration 0016).
    pub to_decide: Option<Vec<rules::Seat>>,
    /// A correspondence match's clocks after its last action (`actions.clocks`); `None` before the first action
    /// and in a live match.
    pub clocks: Option<String>,
    pub outcome: Option<Outcome>,
}

impl Store {
    /// The lobby with join code `code` (normalised) for a player's list of tables; `None` if there is none or it
    /// closed before its start. Three reads by key: the lobby with its match and result, its seats, and the match's
    /// last action.
    pub async fn inbox_lobby(&self, code: &str) -> Result<Option<InboxLobby>, StoreError> {
        on_pool!(self, pool => {
            let Some(row) = sqlx::query(
                "SELECT l.game, l.phase, l.seat_count, l.turn_timer_ms, l.pace, m.id, m.status, m.started_at, m.to_decide, \
                 r.outcome FROM lobbies l LEFT JOIN matches m ON m.lobby_code = l.code \
                 LEFT JOIN results r ON r.match_id = m.id WHERE l.code = $1",
            )
            .bind(code)
            .fetch_optional(pool)
            .await
            .map_err(classify)?
            else {
                return Ok(None);
            };
            let phase = Phase::parse(&row.try_get::<String, _>("phase")?)?;
            if phase == Phase::Closed {
                return Ok(None);
            }
            let mut seats = Vec::new();
            for seat in sqlx::query("SELECT seat, kind, name, token_hash FROM seats WHERE lobby_code = $1 ORDER BY seat")
                .bind(code)
                .fetch_all(pool)
                .await
                .map_err(classify)?
            {
                seats.push(SeatRecord {
                    seat: small(seat.try_get("seat")?, "seat")?,
                    kind: if seat.try_get::<String, _>("kind")? == "bot" { SeatKind::Bot } else { SeatKind::Human },
                    name: seat.try_get("name")?,
                    token_hash: seat.try_get("token_hash")?,
                });
            }
            let play = match row.try_get::<Option<String>, _>("id")? {
                None => None,
                Some(id) => {
                    let last = sqlx::query(
                        "SELECT seq, at, to_decide, clocks FROM actions WHERE match_id = $1 ORDER BY seq DESC LIMIT 1",
                    )
                    .bind(&id)
                    .fetch_optional(pool)
                    .await
                    .map_err(classify)?;
                    let (version, last_at, to_decide, clocks) = match last {
                        Some(last) => (
                            last.try_get::<i64, _>("seq")? as u64,
                            last.try_get::<i64, _>("at")? as u64,
                            last.try_get::<Option<String>, _>("to_decide")?,
                            last.try_get::<Option<String>, _>("clocks")?,
                        ),
                        None => (
                            0,
                            row.try_get::<Option<i64>, _>("started_at")?.unwrap_or(0) as u64,
                            row.try_get::<Option<String>, _>("to_decide")?,
                            None,
                        ),
                    };
                    let outcome = match row.try_get::<Option<String>, _>("outcome")? {
                        Some(text) => Some(serde_json::from_str(&text).map_err(corrupt)?),
                        None => None,
                    };
                    Some(InboxMatch {
                        status: row.try_get::<Option<String>, _>("status")?.unwrap_or_default(),
                        version,
                        last_at,
                        to_decide: parse_to_decide(to_decide.as_deref()),
                        clocks,
                        outcome,
                    })
                }
            };
            Ok(Some(InboxLobby {
                game: row.try_get("game")?,
                phase,
                pace: super::records::parse_pace(row.try_get::<Option<String>, _>("pace")?.as_deref())?,
                seat_count: small(row.try_get("seat_count")?, "seat count")?,
                turn_timer_ms: row.try_get::<Option<i64>, _>("turn_timer_ms")?.map(|v| v as u64),
                seats,
                play,
            }))
        })
    }
}
