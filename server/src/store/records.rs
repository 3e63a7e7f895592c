//! The rows the store reads and writes, as Rust values, and the conversions between them and their columns
//! (unsigned integers as signed BIGINT/INTEGER, JSON as TEXT).

use protocol::RawJson;
use rules::{Actor, AnyGame, Millis, Outcome, Seat, SetupError, Status};
use serde_json::Value;

use super::StoreError;

pub(crate) fn corrupt(what: impl std::fmt::Display) -> StoreError {
    StoreError::Corrupt(what.to_string())
}

/// The lifecycle of a lobby, as stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    Open,
    Playing,
    Finished,
    /// Everyone left before the start; the code no longer answers.
    Closed,
}

impl Phase {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Phase::Open => "open",
            Phase::Playing => "playing",
            Phase::Finished => "finished",
            Phase::Closed => "closed",
        }
    }
    pub(crate) fn parse(s: &str) -> Result<Phase, StoreError> {
        Ok(match s {
            "open" => Phase::Open,
            "playing" => Phase::Playing,
            "finished" => Phase::Finished,
            "closed" => Phase::Closed,
            other => return Err(corrupt(format!("lobby phase `{other}`"))),
        })
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SeatKind {
    Human,
    Bot,
}

impl SeatKind {
    /// As stored in `seats.kind`.
    pub fn as_str(&self) -> &'static str {
        match self {
            SeatKind::Human => "human",
            SeatKind::Bot => "bot",
        }
    }
}

#[derive(Clone, Debug)]
pub struct LobbyRecord {
    pub code: String,
    pub game: String,
    pub options: Value,
    pub seat_count: u8,
    pub host_seat: u8,
    pub turn_timer_ms: Option<u64>,
    pub phase: Phase,
    pub created_at: Millis,
    /// The absence policy (`wait`, `bot` or `skip`) and its grace time (`0004_absence.sql`).
    pub absent_policy: String,
    pub absent_grace_ms: u64,
    /// The rules version the host chose for the lobby's match; `None` (lobbies stored before the column
    /// existed): the game's newest.
    pub rules_version: Option<u32>,
    /// The finished lobby whose rematch this lobby is.
    pub rematch_of: Option<String>,
    /// Live or correspondence (`0015_correspondence.sql`).
    pub pace: protocol::Pace,
}

#[derive(Clone, Debug)]
pub struct SeatRecord {
    pub seat: u8,
    pub kind: SeatKind,
    pub name: String,
    /// Hex SHA-256 of the seat token (humans only).
    pub token_hash: Option<String>,
}

#[derive(Clone, Debug)]
pub struct MatchRecord {
    pub id: String,
    pub game: String,
    pub options: Value,
    pub players: u8,
    pub seed: u64,
    pub rules_version: u32,
    pub started_at: Millis,
    pub finished: bool,
    /// The seats that must decide at the start ([`to_decide_text`]), as `matches.to_decide` stores them; `None`
    /// for a match stored before the column existed.
    pub to_decide: Option<String>,
}

impl MatchRecord {
    /// The match as it was set up, under the rules version it started with (`AnyGame::new` at its version): where recovery,
    /// the admin's replays and the tests' replays start before applying the log.
    pub fn setup(&self) -> Result<AnyGame, SetupError> {
        AnyGame::new(
            &self.game,
            Some(self.rules_version),
            &self.options,
            self.players,
            self.seed,
        )
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct LogEntry {
    /// 1-based: the state version this action produced.
    pub seq: u64,
    pub actor: Actor,
    /// The action as JSON text (as the engine wrote it back when it was applied).
    pub action: RawJson,
    pub at: Millis,
    /// Who made it (the player, a bot, the stand-in, the turn timer, ...): the log's `made_by`, `Unknown` for an
    /// action logged before it was recorded.
    pub by: protocol::ActedBy,
}

#[derive(Clone, Debug)]
pub struct Snapshot {
    pub seq: u64,
    pub state: Value,
    pub at: Millis,
}

/// A stored match with what recovery needs: the latest snapshot and every action after it.
#[derive(Clone, Debug)]
pub struct StoredMatch {
    pub record: MatchRecord,
    pub snapshot: Option<Snapshot>,
    pub log_after_snapshot: Vec<LogEntry>,
}

#[derive(Clone, Debug)]
pub struct StoredLobby {
    pub lobby: LobbyRecord,
    pub seats: Vec<SeatRecord>,
    pub game: Option<StoredMatch>,
}

/// What is written with one action, in the same transaction.
#[derive(Clone, Debug)]
pub struct Append<'a> {
    pub match_id: &'a str,
    pub lobby_code: &'a str,
    pub entry: &'a LogEntry,
    /// The full state after this action, when a snapshot is due.
    pub snapshot: Option<&'a str>,
    /// The result, when this action ended the match.
    pub outcome: Option<&'a Outcome>,
    /// The seats that must decide after this action ([`to_decide_text`]), stored in its row's `to_decide`; `None`
    /// leaves the column empty (unknown).
    pub to_decide: Option<&'a str>,
    /// A correspondence match's clocks after this action (`table/clocks.rs`); `None` in a live match.
    pub clocks: Option<&'a str>,
}

/// A lobby's or match's row that a group commit carries beside the actions: each used to be a transaction of its
/// own, with its own commit and fsync, three per match played (docs/performance.md, "Measured reasons").
#[derive(Clone, Copy, Debug)]
pub enum Setup<'a> {
    /// [`Store::create_lobby`].
    CreateLobby {
        lobby: &'a LobbyRecord,
        host: &'a SeatRecord,
    },
    /// [`Store::insert_seat`].
    InsertSeat { code: &'a str, seat: &'a SeatRecord },
    /// [`Store::start_match`].
    StartMatch { code: &'a str, record: &'a MatchRecord },
}

/// A lobby's absence policy and each seat's stand-in time, as stored (`0004_absence.sql`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredAbsence {
    /// `wait`, `bot` or `skip`.
    pub policy: String,
    pub grace_ms: u64,
    /// `(seat, stand_in_from)` for every seat.
    pub stand_in_from: Vec<(u8, Option<Millis>)>,
}

/// A rematch that has started, as the database records it (the offer that led to it is not kept).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StartedRematch {
    /// The rematch's lobby.
    pub code: String,
    pub host_seat: u8,
    /// The seats players took in it (those who accepted and were connected); the others went to bots.
    pub humans: Vec<u8>,
    /// When it started, in Unix milliseconds.
    pub started_at: u64,
}

/// A rematch to create: the new lobby (already playing), its seats and its match.
#[derive(Clone, Debug)]
pub struct RematchRecord<'a> {
    pub lobby: &'a LobbyRecord,
    pub seats: &'a [SeatRecord],
    pub record: &'a MatchRecord,
}

/// The seats that must decide in a state of status `status`, as `actions.to_decide` and `matches.to_decide` store
/// them: a JSON array of seat numbers, the one whose turn it is or those still expected in a simultaneous step;
/// `[]` during a race (closed by the engine's deadline, nobody is waited for) and once the match is over. The same
/// seats as the turn timer's (`Table::seats_deciding`).
pub fn to_decide_text(status: &Status) -> String {
    let seats: &[Seat] = match status {
        Status::Turn { seat } => std::slice::from_ref(seat),
        Status::Simultaneous { seats, .. } => seats,
        Status::Race { .. } | Status::Over => &[],
    };
    let mut text = String::with_capacity(2 + 4 * seats.len());
    text.push('[');
    for (i, seat) in seats.iter().enumerate() {
        if i > 0 {
            text.push(',');
        }
        text.push_str(&seat.0.to_string());
    }
    text.push(']');
    text
}

/// [`to_decide_text`] read back; `None` for a missing (older) or unreadable value.
pub fn parse_to_decide(text: Option<&str>) -> Option<Vec<Seat>> {
    serde_json::from_str::<Vec<u8>>(text?)
        .ok()
        .map(|s| s.into_iter().map(Seat).collect())
}

/// A lobby's pace as stored: `None` (NULL) for live, the JSON otherwise.
pub(crate) fn pace_text(pace: &protocol::Pace) -> Option<String> {
    (!pace.is_live()).then(|| serde_json::to_string(pace).expect("a pace serialises"))
}

/// A stored pace read back (NULL: live).
pub(crate) fn parse_pace(text: Option<&str>) -> Result<protocol::Pace, StoreError> {
    text.map_or(Ok(protocol::Pace::Live), |t| {
        serde_json::from_str(t).map_err(corrupt)
    })
}

pub(crate) fn to_i64(v: u64) -> i64 {
    v as i64
}

pub(crate) fn json_text(v: &Value) -> String {
    v.to_string()
}

/// Stored JSON text, checked but not parsed into a tree.
pub(crate) fn raw_json(text: String) -> Result<RawJson, StoreError> {
    serde_json::value::RawValue::from_string(text)
        .map(RawJson::from)
        .map_err(corrupt)
}

pub(crate) fn parse_json(text: &str) -> Result<Value, StoreError> {
    serde_json::from_str(text).map_err(corrupt)
}

pub(crate) fn small(v: i64, what: &str) -> Result<u8, StoreError> {
    u8::try_from(v).map_err(|_| corrupt(format!("{what} out of range: {v}")))
}
